// The report's event strips (run_steps.hpp): which events get a 10-s strip, and their samples.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "ecgpipe/pipeline/pipeline.hpp"
#include "pipeline/run_steps.hpp"

namespace ecgpipe {
namespace {

constexpr double kStripSeconds = 10.0;
constexpr std::size_t kMaxAfOnsets = 5, kMaxOutlierStrips = 3;

// Signal units per mV from a header's units; 0 when they are not a voltage the page can scale.
double units_per_mv(const std::string& units) {
  if (units == "mV") return 1.0;
  if (units == "uV" || units == "\xC2\xB5V" || units == "microvolt") return 1000.0;
  if (units == "V") return 0.001;
  return 0.0;
}

}  // namespace

std::vector<EventStrip> event_strips(const RunOptions& o, const RunResult& r, const std::vector<std::int64_t>& peaks,
                                     const std::vector<float>& signal) {
  std::vector<EventStrip> strips;
  if (signal.empty() || !(o.fs > 0)) return strips;
  const auto n = static_cast<std::int64_t>(signal.size());
  const auto len = std::min(n, static_cast<std::int64_t>(std::llround(kStripSeconds * o.fs)));
  const std::vector<char> letters = class_letters(r.beat_class);
  const double per_mv = units_per_mv(o.source.units);
  // `event_s`: the event's time (the report prints it beside the title, in clock or elapsed
  // time); `centre_s`: where the strip is centred (a run or a rate window lies after its start).
  const auto add = [&](const std::string& title, double event_s, double centre_s) {
    if (!std::isfinite(event_s) || !std::isfinite(centre_s)) return;
    const auto at = static_cast<std::int64_t>(std::llround(centre_s * o.fs));
    for (const EventStrip& s : strips)  // one strip per place: a second title would show the same beats
      if (std::llabs(s.start_sample + len / 2 - at) < len / 4) return;
    EventStrip s;
    s.title = title;
    s.event_s = event_s;
    s.start_sample = std::clamp<std::int64_t>(at - len / 2, 0, n - len);
    s.signal.assign(signal.begin() + s.start_sample, signal.begin() + s.start_sample + len);
    s.units_known = per_mv > 0;
    s.units_per_mv = per_mv > 0 ? per_mv : 1.0;
    const auto first = std::lower_bound(peaks.begin(), peaks.end(), s.start_sample);
    for (auto it = first; it != peaks.end() && *it < s.start_sample + len; ++it) {
      s.beat_samples.push_back(*it);
      s.beat_classes.push_back(letters[static_cast<std::size_t>(it - peaks.begin())]);
    }
    for (const auto& a : r.artefact_spans)
      if (a.second > s.start_sample && a.first < s.start_sample + len)
        s.artefact.emplace_back(std::max(a.first, s.start_sample), std::min(a.second, s.start_sample + len));
    strips.push_back(std::move(s));
  };
  char buf[160];
  const HolterSummary& h = r.holter;
  if (std::isfinite(h.longest_pause_s) && h.longest_pause_s >= h.options.pause_threshold_s) {
    std::snprintf(buf, sizeof buf, "Longest pause %.2f s", h.longest_pause_s);
    add(buf, h.longest_pause_start_s, h.longest_pause_start_s + h.longest_pause_s / 2);
  }
  const EctopicRun* fastest = nullptr;
  const EctopicRun* longest = nullptr;
  for (const EctopicRun& run : h.runs) {
    if (!fastest || run.rate_bpm > fastest->rate_bpm) fastest = &run;
    if (!longest || run.beats > longest->beats) longest = &run;
  }
  const auto run_title = [&](const char* what, const EctopicRun& run) {
    std::snprintf(buf, sizeof buf, "%s: %c run of %zu beats at %.0f bpm", what, run.cls, run.beats, run.rate_bpm);
    return std::string(buf);
  };
  if (longest) add(run_title("Longest run", *longest), longest->start_s, longest->start_s + 1.0);
  if (fastest) add(run_title("Fastest run", *fastest), fastest->start_s, fastest->start_s + 1.0);
  // The 8-beat windows of the rate extremes: the strip centred on the window.
  const double window_s = 60.0 * static_cast<double>(h.options.hr_window_beats);
  if (std::isfinite(h.hr_max) && h.hr_max > 0) {
    std::snprintf(buf, sizeof buf, "Fastest rate %.0f bpm", h.hr_max);
    add(buf, h.hr_max_time_s, h.hr_max_time_s + 0.5 * window_s / h.hr_max);
  }
  if (std::isfinite(h.hr_min) && h.hr_min > 0) {
    std::snprintf(buf, sizeof buf, "Slowest rate %.0f bpm", h.hr_min);
    add(buf, h.hr_min_time_s, h.hr_min_time_s + 0.5 * window_s / h.hr_min);
  }
  std::size_t onsets = 0;
  for (const std::size_t k : af_episode_starts(r.rhythm_episodes)) {  // not AF going on after a VT run
    if (onsets == kMaxAfOnsets) break;
    ++onsets;
    const double s = static_cast<double>(r.rhythm_episodes[k].start_sample) / o.fs;
    add("AF onset", s, s);
  }
  for (std::size_t k = 0; k < r.model.outlier_index.size() && k < kMaxOutlierStrips; ++k) {
    const std::int64_t i = r.model.outlier_index[k];
    if (i < 0 || static_cast<std::size_t>(i) >= peaks.size()) continue;
    const double s = static_cast<double>(peaks[static_cast<std::size_t>(i)]) / o.fs;
    std::snprintf(buf, sizeof buf, "Outlier #%zu (beat %lld, class %c)", k + 1, static_cast<long long>(i),
                  letters[static_cast<std::size_t>(i)]);
    add(buf, s, s);
  }
  return strips;
}

}  // namespace ecgpipe
