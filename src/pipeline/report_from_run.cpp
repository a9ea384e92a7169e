// The run -> report mapping (src/pipeline/report_from_run.hpp): what a finished run knows, as the
// plain ReportData the page is drawn from.
#include "pipeline/report_from_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ecgpipe/pipeline/pipeline.hpp"

namespace ecgpipe {

namespace {

// The hourly table: per hour (the Holter summary's: clock hours where the start is known), the
// time analysed (without artefact) and the AF time beside the summary's beats, ectopy, rates and
// pauses (holter.hpp). Without beats the summary has no hours: the same spans, counts of none.
std::vector<ReportHour> hourly_table(const RunOptions& o, const RunResult& r) {
  const double recording_s = static_cast<double>(r.samples) / o.fs;
  const std::vector<std::pair<double, double>> spans = holter_hour_spans(recording_s, r.holter.options.hour_phase_s);
  std::vector<ReportHour> out(spans.size());
  const auto overlap = [](double a0, double a1, double b0, double b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); };
  for (std::size_t h = 0; h < spans.size(); ++h) {
    ReportHour& row = out[h];
    row.hour = static_cast<std::int64_t>(h);
    const auto [h0, h1] = spans[h];
    row.start_s = h0;
    row.end_s = h1;
    row.analysed_s = h1 - h0;
    for (const auto& a : r.artefact_spans)
      row.analysed_s -= overlap(h0, h1, static_cast<double>(a.first) / o.fs, static_cast<double>(a.second) / o.fs);
    // AF's minutes leave the artefact out as the analysed time does (rhythm_burden alike).
    for (const RhythmEpisode& e : r.rhythm_episodes)
      if (e.rhythm == Rhythm::AFIB) {
        const double e0 = std::max(h0, static_cast<double>(e.start_sample) / o.fs);
        const double e1 = std::min(h1, static_cast<double>(e.end_sample) / o.fs);
        if (e1 <= e0) continue;
        row.af_s += e1 - e0;
        for (const auto& a : r.artefact_spans)
          row.af_s -= overlap(e0, e1, static_cast<double>(a.first) / o.fs, static_cast<double>(a.second) / o.fs);
      }
    row.hr_min = row.hr_mean = row.hr_max = std::numeric_limits<double>::quiet_NaN();
    if (h < r.holter.hours.size()) {
      const HolterHour& hh = r.holter.hours[h];
      row.beats = hh.beats;
      row.veb = hh.veb;
      row.sveb = hh.sveb;
      row.hr_min = hh.hr_min;
      row.hr_mean = hh.hr_mean;
      row.hr_max = hh.hr_max;
      row.pauses = hh.pauses;
    }
  }
  return out;
}

// The EC57 figures of a run with --reference, as the report's two-column table.
std::vector<std::pair<std::string, std::string>> ec57_rows(const RunResult& r) {
  std::vector<std::pair<std::string, std::string>> rows;
  if (!r.evaluated) return rows;
  const EvalReport& e = r.evaluation;
  char buf[64];
  const auto pct = [&buf](double v) {
    if (!std::isfinite(v)) return std::string("-");
    std::snprintf(buf, sizeof buf, "%.2f %%", 100.0 * v);
    return std::string(buf);
  };
  const auto stat = [&](const char* name, const Ec57Stat& st) {
    rows.emplace_back(std::string(name) + " Se", pct(st.se()) + " (" + std::to_string(st.tp) + "/" + std::to_string(st.tp + st.fn) + ")");
    rows.emplace_back(std::string(name) + " +P", pct(st.ppv()) + " (" + std::to_string(st.tp) + "/" + std::to_string(st.tp + st.fp) + ")");
  };
  rows.emplace_back("reference", e.reference_path);
  rows.emplace_back("matching window", std::to_string(static_cast<int>(e.tolerance_ms)) + " ms");
  stat("QRS", Ec57Stat{e.match.tp, e.match.fn, e.match.fp});
  if (e.has_classes) {
    stat("VEB", ec57_veb(e.ec57));
    stat("SVEB", ec57_sveb(e.ec57));
  }
  if (e.has_af) {
    rows.emplace_back("AF episode Se / +P", pct(e.af.episode_se()) + " / " + pct(e.af.episode_ppv()));
    rows.emplace_back("AF duration Se / +P", pct(e.af.duration_se()) + " / " + pct(e.af.duration_ppv()));
  }
  return rows;
}

}  // namespace

std::vector<std::pair<std::string, double>> report_stage_seconds(const StageSeconds& s) {
  return {{"read CSV", s.csv},      {"band-pass", s.bandpass}, {"R peaks", s.peaks},
          {"beat matrix", s.beats}, {"beat classes", s.classify}, {"train", s.train},
          {"score", s.score},       {"write outputs", s.write}, {"total", s.total}};
}

ReportData report_data_from_run(const RunOptions& o, const RunResult& r, std::int64_t r_peak_offset,
                                std::vector<float> signal_excerpt, std::vector<double> bandpassed_excerpt,
                                std::vector<EventStrip> strips) {
  ReportData d;
  d.warnings = r.warnings;
  d.input_description = o.source.description();
  d.recording_start = o.source.start_time;
  d.recording_s = static_cast<double>(r.samples) / o.fs;
  for (const auto& a : r.artefact_spans) d.artefact_s += static_cast<double>(a.second - a.first) / o.fs;
  d.analysed_s = d.recording_s - d.artefact_s;
  d.artefact_spans = r.artefact_spans;
  d.hourly = hourly_table(o, r);
  for (const HolterPause& p : r.holter.pause_list) d.pauses.push_back({p.start_s, p.rr_s});
  d.strips = std::move(strips);
  d.hrv = r.hrv;
  d.ec57 = ec57_rows(r);
  d.model_trained = !o.analyze_only;
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
  d.stage_seconds = report_stage_seconds(r.seconds);

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
