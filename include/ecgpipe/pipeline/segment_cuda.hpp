// Internal, CUDA builds only (include it under #ifdef ECGPIPE_WITH_CUDA): stages 1-4 on the GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/pipeline/gpu_budget.hpp"
#include "ecgpipe/pipeline/second_lead.hpp"
#include "ecgpipe/pipeline/segment.hpp"

namespace ecgpipe {
// Owns the CUDA stream the GPU stages and LibTorch share; destroyed after training.
struct CudaContext;
std::shared_ptr<CudaContext> make_cuda_context();
cudaStream_t cuda_stream(CudaContext& context);
Segmentation segment_cuda(const RunOptions& options, CudaContext& context);
// The host's share of a GPU run on a thread beside training (both GPU paths): `device` (the
// signal, or the beats' feature windows) is copied down on a stream of its own and freed there,
// and so are `lead2_windows` (a CSV's second lead's feature windows, cut on the device), if any;
// then `classify` makes the classes from those copies (the second: null without it);
// Classes::seconds is the thread's whole time. The caller has waited for its stream (nothing
// queued there still reads the buffers); the frees move to the thread's stream before the thread
// exists, so that no free from it can reach the run's stream while training captures a CUDA
// graph there.
using ClassesFromHost = std::function<Segmentation::Classes(std::vector<float> host, const std::vector<float>* lead2_windows)>;
std::future<Segmentation::Classes> classes_beside_training(DeviceBuffer<float> device,
                                                           std::optional<DeviceBuffer<float>> lead2_windows,
                                                           ClassesFromHost classify);
// classes_beside_training from the beats' feature windows (classify/beat_features.hpp:
// feature_window(fs), `length` floats a row, one row per kept R peak) cut on the device: what the
// host then holds is the windows, never the whole signal. `lead2`: the run's second lead, whose
// windows are `lead2_windows` when given, else read on that thread (second_lead.hpp).
std::future<Segmentation::Classes> classes_from_device_windows(DeviceBuffer<float> windows, std::vector<std::int64_t> peaks,
                                                              int length, double fs, std::optional<SecondLead> lead2,
                                                              std::optional<DeviceBuffer<float>> lead2_windows);
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
// recording is run whole on the GPU when its sample bound (gpu_budget.hpp: a CSV's size / 2, an
// EDF/BDF header's count) times kGpuBytesPerSample fits the budget; otherwise `run` streams it
// through the GPU in chunks (segment_cuda_chunked: the same R peaks, rows, classes and so scores
// as the whole path, bit for bit), and `detect` likewise (detect_peaks_cuda_chunked).
struct GpuBudget {
  std::uint64_t bytes = 0;
  std::string source;  // for the log: "--gpu-memory", the variable's name, or the free memory
};
// `cap` (--gpu-memory) if given; else ECGPIPE_GPU_MEMORY_BUDGET_MB (whole_number_env: a whole
// number of MiB; anything else is a UsageError); else the device's free memory now less a margin
// (gpu_budget_from_free). Either of the first two is taken as it is, without asking the device.
GpuBudget gpu_memory_budget(const std::optional<std::uint64_t>& cap = std::nullopt);
// 0 when `input` goes to the GPU whole: it fits the budget, or the question does not arise (the
// seed preset, --chunk-seconds 0, a WFDB record, a file the reader will report on); else the
// samples per chunk for streaming it through the GPU (gpu_chunk_samples: from the budget, or
// ECGPIPE_GPU_CHUNK_SAMPLES). `channel` selects an EDF/BDF signal. Logs the decision (info) with
// its numbers either way.
std::int64_t gpu_chunk_samples_for(const std::string& input, const std::string& channel, Preset preset, double chunk_seconds,
                                   const std::optional<std::uint64_t>& cap = std::nullopt);

// `run --device cuda`: gpu_chunk_samples_for its input; 0 (whole) for samples in memory.
std::int64_t gpu_chunk_samples_for_run(const RunOptions& options);

// What the chunked path held, for tests and the benchmark.
struct GpuChunkReport {
  std::size_t chunks_largest = 0;         // samples of the largest piece handed to the detector
  std::size_t detector_window_bytes = 0;  // the detector's largest windows (StreamingDetectorCuda)
  std::size_t bandpass_bytes = 0;         // its band-pass's fixed buffers
};
// Stages 1-4 of the robust preset streamed through the GPU in pieces of at most chunk_samples
// (segment_cuda_stream.cpp): any input (CSV parsed on the GPU; WFDB, EDF/BDF and samples in
// memory uploaded a chunk at a time). Equal to segment_cuda's whole path: samples, candidates,
// beats, the device matrix, the classes (pending, as there), both excerpts. host_signal stays
// empty (run_pipeline reads the file again for signal quality when it is short enough).
Segmentation segment_cuda_chunked(const RunOptions& options, CudaContext& context, std::int64_t chunk_samples,
                                  GpuChunkReport* report = nullptr);
// `detect --device cuda` over the budget: pass 1 of segment_cuda_chunked alone (the R peaks and
// counts; robust preset), on a context of its own. `samples` (may be null) is a signal in memory,
// else `input` is read (a CSV parsed on the GPU, anything else uploaded a chunk at a time). The
// same R peaks as detect_csv_peaks_cuda's whole path.
PeakDetection detect_peaks_cuda_chunked(const std::string& input, const CsvOptions& csv, const std::vector<float>* samples,
                                        double fs, int ricker_width, std::int64_t chunk_samples);
// The beat matrix's device buffer handed to its owner (freed on `stream` by whoever holds it last).
BeatMatrix device_beat_matrix(DeviceBuffer<float> buffer, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

}  // namespace ecgpipe
