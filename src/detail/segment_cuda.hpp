// Internal, CUDA builds only (include it under #ifdef ECGPIPE_WITH_CUDA): stages 1-4 on the GPU.
#pragma once

#include <memory>
#include <vector>

#include "detail/segment.hpp"

namespace ecgpipe {
// Owns the CUDA stream the GPU stages and LibTorch share; destroyed after training.
struct CudaContext;
std::shared_ptr<CudaContext> make_cuda_context();
Segmentation segment_cuda(const RunOptions& options, CudaContext& context);
// High-water mark of the device's default stream-ordered memory pool (bytes), then reset.
std::size_t device_pool_peak_bytes();

// `ecgpipe detect --device cuda`: the signal (read on the host, any input format) uploaded, then
// band-pass and detection on the GPU (its own stream); the R peaks (ascending) and counts on the
// host. Robust: detect_beats_cuda; seed: the gates on the device, then select_beats and the R
// offset on the host, as the CPU path of `detect`.
PeakDetection detect_peaks_cuda(const std::vector<float>& signal, Preset preset, double fs, const SampleWindows& windows);

}  // namespace ecgpipe
