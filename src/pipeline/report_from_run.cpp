// The run -> report mapping (src/pipeline/report_from_run.hpp): what a finished run knows, as the
// plain ReportData the page is drawn from.
#include "pipeline/report_from_run.hpp"

#include <algorithm>
#include <limits>

#include "ecgpipe/pipeline/pipeline.hpp"

namespace ecgpipe {

ReportData report_data_from_run(const RunOptions& o, const RunResult& r, std::int64_t r_peak_offset,
                                std::vector<float> signal_excerpt, std::vector<double> bandpassed_excerpt) {
  ReportData d;
  const TrainResult& m = r.model;
  d.file_name = o.input;
  d.device = r.device;
  d.sample_rate_hz = o.fs;
  d.settings = {{"detector", preset_name(o.preset)}, {"model", model_name(o.model)}};
  if (o.model == Model::rr) {
    d.settings.emplace_back("beat window", "R - " + std::to_string(centred_window(o.fs).before) + " samples, " +
                                               std::to_string(row_length(o.rows())) + " samples");
    d.score_name = "shape + rhythm";  // score.hpp has the formula
  } else {
    d.settings.emplace_back("beat length limits",
                            std::to_string(o.limits.min_length) + ".." + std::to_string(o.limits.max_length) + " samples");
  }
  const auto n_class = class_counts(r.beat_class);
  std::string counts;
  for (int c = 0; c < kBeatClassCount; ++c)
    counts += std::string(c ? ", " : "") + class_name(static_cast<BeatClass>(c)) + " " + std::to_string(n_class[static_cast<std::size_t>(c)]);
  d.settings.emplace_back("beat classes (predicted)", counts);
  d.samples = r.samples;
  d.holter = r.holter;
  d.rhythm_episodes = r.rhythm_episodes;
  d.candidates = r.candidates;
  d.beats = r.beats.size();
  for (auto t : m.in_train) d.train_beats += t;
  d.test_beats = d.beats - std::min(d.beats, d.train_beats);
  d.epochs = o.train.epochs;
  const StageSeconds& s = r.seconds;
  d.stage_seconds = {{"read CSV", s.csv}, {"band-pass", s.bandpass}, {"R peaks", s.peaks},
                     {"beat matrix", s.beats}, {"beat classes", s.classify}, {"train", s.train},      {"score", s.score},
                     {"write outputs", s.write}, {"total", s.total}};

  d.excerpt_start = 0;
  d.excerpt_signal = std::move(signal_excerpt);
  d.excerpt_bandpassed = std::move(bandpassed_excerpt);
  const auto excerpt_end = static_cast<std::int64_t>(d.excerpt_signal.size());
  for (std::int64_t start : r.beats.start) {
    const std::int64_t peak = start + r_peak_offset;
    if (peak >= excerpt_end) break;  // beats are in signal order
    if (peak >= 0) d.excerpt_peaks.push_back(peak);
  }
  // The causal wavelet (taps at the start of the kernel) delays the curve by half its width.
  d.curve_delay = (o.ricker_width - 1) / 2;

  if (o.model == Model::rr) {
    // Every row starts the same distance before its R peak, so row starts are R peaks + constant.
    d.lengths_are_rr = true;
    for (std::size_t i = 1; i < r.beats.size(); ++i)
      d.beat_lengths.push_back(static_cast<std::int32_t>(r.beats.start[i] - r.beats.start[i - 1]));
  } else {
    d.beat_lengths = r.beats.length;
  }
  d.beat_cols = row_length(o.rows());
  d.overlay_rows = m.sample_rows;
  for (std::int64_t i : m.sample_index) {
    d.overlay_lengths.push_back(i >= 0 && static_cast<std::size_t>(i) < r.beats.size() ? r.beats.length[static_cast<std::size_t>(i)] : 0);
  }
  d.median_beat = m.median_beat;
  d.train_loss = m.epoch_loss;
  d.test_loss = m.test_loss;
  d.latent = m.latent_mean;
  d.scores = m.score;
  // The latent plot's colours: the reference classes when given, else the predicted ones.
  if (!r.classes.empty()) {
    d.classes = r.classes;
  } else {
    const std::vector<char> letters = class_letters(r.beat_class);
    d.classes.assign(letters.begin(), letters.end());
  }
  d.grid_side = kGridSide;
  d.decoded_grid = m.decoded_grid;
  d.grid_latent = m.grid_latent;

  const auto cols = static_cast<std::size_t>(d.beat_cols);
  for (std::size_t k = 0; k < m.outlier_index.size() && (k + 1) * cols <= m.outlier_rows.size(); ++k) {
    const std::int64_t i = m.outlier_index[k];
    if (i < 0 || static_cast<std::size_t>(i) >= r.beats.size()) continue;
    const auto u = static_cast<std::size_t>(i);
    ReportBeat b;
    b.index = i;
    b.time_s = static_cast<double>(r.beats.start[u] + r_peak_offset) / sample_rate(d);
    b.score = u < m.score.size() ? m.score[u] : std::numeric_limits<double>::quiet_NaN();
    b.length = r.beats.length[u];
    b.row.assign(m.outlier_rows.begin() + static_cast<std::ptrdiff_t>(k * cols),
                 m.outlier_rows.begin() + static_cast<std::ptrdiff_t>((k + 1) * cols));
    d.outliers.push_back(std::move(b));
  }
  return d;
}

}  // namespace ecgpipe
