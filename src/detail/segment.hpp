// Internal: stages 1-4 (file -> beat matrix) on the CPU, and what they hand to the run; the GPU
// path is src/detail/segment_cuda.hpp (CUDA builds only).
#pragma once

#include <algorithm>
#include <cstdint>
#include <future>
#include <memory>
#include <utility>
#include <vector>

#include "ecgpipe/beat_matrix.hpp"
#include "ecgpipe/beat_rows.hpp"
#include "ecgpipe/classify.hpp"
#include "ecgpipe/pipeline.hpp"
#include "ecgpipe/report.hpp"

namespace ecgpipe {

struct Segmentation {
  std::size_t samples = 0;
  std::size_t candidates = 0;
  BeatTable beats;
  // The beat matrix (host rows on the CPU, a device buffer on the GPU) and its one owner, until
  // the VAE stage hands it to LibTorch.
  BeatMatrix matrix;
  StageSeconds seconds;  // csv, bandpass, peaks, beats, classify filled
  std::vector<BeatClass> beat_class;  // per kept beat (classify.hpp), from the signal on the host
  // The GPU path classifies on CPU threads while the GPU trains: the classes (and their time)
  // arrive here; finish_classification() moves them into beat_class and seconds.classify.
  struct Classes {
    std::vector<BeatClass> classes;
    double seconds = 0.0;
  };
  std::future<Classes> pending_classes;
  // For report.html: the first report_excerpt_samples() of the signal and of its band-passed curve.
  std::vector<float> signal_excerpt;
  std::vector<double> curvature_excerpt;
};

// report.html's excerpt: 10 s, a dozen beats, readable at full page width.
inline constexpr double kReportExcerptSeconds = 10.0;
inline std::size_t report_excerpt_samples(double fs, std::size_t signal_samples) {
  return std::min(signal_samples, static_cast<std::size_t>(kReportExcerptSeconds * fs));
}

// Waits for pending_classes, if any (rethrowing what classification threw).
inline void finish_classification(Segmentation& seg) {
  if (!seg.pending_classes.valid()) return;
  Segmentation::Classes c = seg.pending_classes.get();
  seg.beat_class = std::move(c.classes);
  seg.seconds.classify = c.seconds;
}

Segmentation segment_cpu(const RunOptions& options);

// The kept beats' R peaks (row start + r_peak_offset).
inline std::vector<std::int64_t> kept_r_peaks(const RunOptions& o, const BeatTable& beats) {
  std::vector<std::int64_t> peaks(beats.start);
  for (auto& p : peaks) p += r_peak_offset(o);
  return peaks;
}

// What `ecgpipe detect` writes: R peaks (ascending) and the counts it logs.
struct PeakDetection {
  std::size_t samples = 0;
  std::size_t candidates = 0;
  std::vector<std::int64_t> r_peaks;
};


}  // namespace ecgpipe
