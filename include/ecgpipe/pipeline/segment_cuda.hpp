// Internal, CUDA builds only (include it under #ifdef ECGPIPE_WITH_CUDA): stages 1-4 on the GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/pipeline/gpu_budget.hpp"
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
// The same for a CSV file's column, parsed on the GPU (read_csv_column_cuda, bit for bit the
// host reader's values, so the same R peaks), as `run` reads it: no host copy of the signal, no
// upload (issue 29: `detect` read it on the host first and was slower than the whole `run`).
PeakDetection detect_csv_peaks_cuda(const std::string& path, const CsvOptions& csv, Preset preset, double fs,
                                    const SampleWindows& windows);
// The same for a signal that is already on GPU `device` (a caller's array: the Python API's
// CuPy or PyTorch CUDA input), read in place: no copy of it anywhere (PeakDetection::input_address
// is signal.data). Waits for the device first (the array's writer may use a stream of its own).
PeakDetection detect_peaks_cuda(DeviceSpan<const float> signal, int device, Preset preset, double fs,
                                const SampleWindows& windows);
// A caller's device array on the host (analyze and run classify beats from a host copy), after
// waiting for the device as above.
std::vector<float> copy_to_host_cuda(DeviceSpan<const float> signal, int device);

// Recordings larger than the GPU's memory (issues 13, 29). A robust-preset CSV or EDF/BDF
// recording is run whole on the GPU when its sample count (gpu_budget.hpp: a CSV's lines, an
// EDF/BDF header's count) times kGpuBytesPerSample fits the budget; otherwise it is read and
// detected in chunks on the host (segment_cpu_chunked: the same R peaks, rows and classes as the
// whole path), and only its beat matrix goes to the GPU for training and scoring.
struct GpuBudget {
  std::uint64_t bytes = 0;
  std::string source;  // for the log: "--gpu-memory", the variable's name, or the free memory
};
// `cap` (--gpu-memory) if given; else ECGPIPE_GPU_MEMORY_BUDGET_MB (a whole number of MiB;
// anything else is a UsageError); else the device's free memory now less a margin
// (gpu_budget_from_free). Either of the first two is taken as it is, without asking the device.
GpuBudget gpu_memory_budget(const std::optional<std::uint64_t>& cap = std::nullopt);
// True when `input` goes to the GPU in chunks through the host: the robust preset with
// chunk_seconds > 0, a CSV or EDF/BDF file (a WFDB record is read whole on either device; `channel`
// selects an EDF/BDF signal), whose samples need more than the budget. Logs the decision (info)
// with its numbers either way.
bool chunk_on_host_for_gpu(const std::string& input, const std::string& channel, Preset preset, double chunk_seconds,
                           const std::optional<std::uint64_t>& cap = std::nullopt);

}  // namespace ecgpipe
