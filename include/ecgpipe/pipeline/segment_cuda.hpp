// Internal, CUDA builds only (include it under #ifdef ECGPIPE_WITH_CUDA): stages 1-4 on the GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/pipeline/segment.hpp"

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
// The same for a signal that is already on GPU `device` (a caller's array: the Python API's
// CuPy or PyTorch CUDA input), read in place: no copy of it anywhere (PeakDetection::input_address
// is signal.data). Waits for the device first (the array's writer may use a stream of its own).
PeakDetection detect_peaks_cuda(DeviceSpan<const float> signal, int device, Preset preset, double fs,
                                const SampleWindows& windows);
// A caller's device array on the host (analyze and run classify beats from a host copy), after
// waiting for the device as above.
std::vector<float> copy_to_host_cuda(DeviceSpan<const float> signal, int device);

// Recordings larger than the GPU's memory (issue 13). The whole GPU path holds about 40 bytes of
// device memory a sample at its peak (the signal as floats 4, the band-pass as doubles 8, the CSV
// reader's line starts 8, the detector's sliding maxima and flags ~20); 64 leaves a margin. A file
// holds at most bytes / 2 samples (the shortest CSV line is a digit and a newline; EDF/BDF store
// 2 or 3 bytes a sample). A recording whose bound exceeds the budget is read and detected in
// chunks on the host (segment_cpu_chunked: the same R peaks, rows and classes as the whole path),
// and only its beat matrix goes to the GPU for training and scoring.
inline constexpr std::uint64_t kGpuBytesPerSample = 64;
inline bool whole_recording_fits_gpu(std::uint64_t file_bytes, std::uint64_t budget_bytes) {
  return file_bytes / 2 <= budget_bytes / kGpuBytesPerSample;
}
// ECGPIPE_GPU_MEMORY_BUDGET_MB (a whole number of MiB; anything else is a UsageError) if set,
// else half the device's free memory now.
std::uint64_t gpu_memory_budget_bytes();
// True when `input` goes to the GPU in chunks through the host: the robust preset with
// chunk_seconds > 0, a CSV or EDF/BDF file (a WFDB record is read whole on either device), whose
// size bound exceeds the budget. Logs the decision when it chunks.
bool chunk_on_host_for_gpu(const std::string& input, Preset preset, double chunk_seconds);

}  // namespace ecgpipe
