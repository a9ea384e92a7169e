// Stages 1-4 (file -> beat matrix) on one device; private to the pipeline.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "ecgpipe/pipeline.hpp"
#include "ecgpipe/report.hpp"

namespace ecgpipe {

struct Segmentation {
  std::size_t samples = 0;
  std::size_t candidates = 0;
  BeatTable beats;
  // CPU: the matrix lives here. GPU: empty; `device_matrix` is a device pointer whose ownership
  // passes to LibTorch through `release`.
  std::vector<float> host_matrix;
  float* device_matrix = nullptr;
  std::function<void(void*)> release;
  void* stream = nullptr;
  StageSeconds seconds;  // csv, bandpass, peaks, beats filled
  // For report.html: the first report_excerpt_samples() of the signal and of its band-passed curve.
  std::vector<float> signal_excerpt;
  std::vector<double> curvature_excerpt;
};

// report.html's excerpt: 10 s, a dozen beats, readable at full page width.
inline constexpr double kReportExcerptSeconds = 10.0;
inline std::size_t report_excerpt_samples(double fs, std::size_t signal_samples) {
  return std::min(signal_samples, static_cast<std::size_t>(kReportExcerptSeconds * fs));
}

Segmentation segment_cpu(const RunOptions& options);

// The VAE's rows for detected R peaks (ascending), on either device: the rr model's centred
// windows, or for the seed model the robust preset's seed-like layout (beat_windows).
BeatTable beat_rows(const RunOptions& options, const std::vector<std::int64_t>& r_peaks, std::int64_t samples);
// The R peaks of the seed preset's kept beats (start + the seed's offset).
std::vector<std::int64_t> seed_r_peaks(const RunOptions& options, const BeatTable& seed_beats);

// What `ecgpipe detect` writes: R peaks (ascending) and the counts it logs.
struct PeakDetection {
  std::size_t samples = 0;
  std::size_t candidates = 0;
  std::vector<std::int64_t> r_peaks;
};

#ifdef ECGPIPE_WITH_CUDA
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
#endif

}  // namespace ecgpipe
