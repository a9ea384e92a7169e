// The robust R-peak detector on the GPU (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/signal/detect.hpp.
#pragma once

#include <cstdint>

#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

// --- GPU path (kernels/signal/detect.cu). Same results as the CPU functions above, bit for bit, on the
// same inputs; each synchronizes `stream` only where the host needs a value.

// Steps 1-5 from the device band-pass: shift, energy, moving average (a thread per sample), the
// floor from an exact max reduction (CUB), the candidate test inside a CUB DeviceSelect over the
// positions, then the features (a thread per candidate). Returns the compact list on the host,
// equal to find_candidates(bandpass copied to the host, options).
std::vector<Candidate> find_candidates_cuda(DeviceSpan<const double> bandpass, const DetectWindows& windows,
                                            cudaStream_t stream);

// Step 7 for host positions (a thread per peak): equal to refine_peaks(signal on the host,
// positions, fs), sorted and unique. InternalError for a position outside the signal.
std::vector<std::int64_t> refine_peaks_cuda(DeviceSpan<const float> signal, const std::vector<std::int64_t>& positions,
                                            const DetectWindows& windows, cudaStream_t stream);

// Steps 1-7: find_candidates_cuda, classify_candidates on the host (the compact list only),
// refine_peaks_cuda. Equal to detect_beats_cpu on the same signal and band-pass.
Detection detect_beats_cuda(DeviceSpan<const float> signal, DeviceSpan<const double> bandpass,
                            const DetectOptions& options, cudaStream_t stream);

}  // namespace ecgpipe
