// The VAE rows' geometry for a run (include/ecgpipe/pipeline/beat_rows.hpp).
#include "ecgpipe/pipeline/beat_rows.hpp"

#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/model/outlier_score.hpp"

namespace ecgpipe {

// Seed model: the NMS compares the window's centre, and the causal wavelet (taps at the start of
// the kernel) delays the curvature by half its width. rr model: the window's `before`.
std::int64_t r_peak_offset(const RowOptions& o) {
  return o.model == Model::rr ? centred_window(o.fs).before : seed_r_offset(o.nms_window, o.ricker_width);
}

int row_length(const RowOptions& o) { return o.model == Model::rr ? centred_window(o.fs).length : o.limits.max_length; }

std::vector<std::int64_t> seed_r_peaks(const RowOptions& o, const BeatTable& seed_beats) {
  std::vector<std::int64_t> peaks;
  peaks.reserve(seed_beats.size());
  for (const auto start : seed_beats.start) peaks.push_back(start + seed_r_offset(o.nms_window, o.ricker_width));
  return peaks;
}

BeatTable beat_rows(const RowOptions& o, const std::vector<std::int64_t>& r_peaks, std::int64_t samples) {
  if (o.model == Model::rr) return centred_windows(r_peaks, samples, centred_window(o.fs));
  return beat_windows(r_peaks, samples, r_peak_offset(o), o.limits.max_length);
}

}  // namespace ecgpipe
