// The Holter summary (rate, ectopy counts, couplets, runs, bigeminy, pauses): see
// include/ecgpipe/classify/holter.hpp for the definitions.
#include "ecgpipe/classify/holter.hpp"

#include "ecgpipe/classify/holter_json.hpp"
#include "common/json_number.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSecondsPerMinute = 60.0;
constexpr double kSecondsPerHour = 3600.0;
constexpr char kClasses[] = "NSVFQ";

std::size_t class_index(char c) {
  for (std::size_t i = 0; i < 5; ++i)
    if (kClasses[i] == c) return i;
  throw InternalError(std::string("holter_summary: class '") + c + "' is not one of N S V F Q");
}

// Calls f(bpm, start_s, end_s) for every window of w consecutive RR intervals, bpm = 60 x w /
// (their sum) by a running sum, each window inside one stretch of consecutive intervals
// (`starts`: where each begins in rr; artefact splits them); w = min(window, the longest
// stretch). The summary's extremes and each hour's are over these same windows.
template <typename F>
void for_each_rate_window(const std::vector<double>& rr, const std::vector<double>& rr_start,
                          const std::vector<std::size_t>& starts, std::size_t window, F&& f) {
  std::size_t longest = 0;
  for (std::size_t k = 0; k < starts.size(); ++k)
    longest = std::max(longest, (k + 1 < starts.size() ? starts[k + 1] : rr.size()) - starts[k]);
  const std::size_t w = std::max<std::size_t>(1, std::min(window, longest));
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::size_t begin = starts[k], end = k + 1 < starts.size() ? starts[k + 1] : rr.size();
    double sum = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
      sum += rr[i];
      if (i >= begin + w) sum -= rr[i - w];
      if (i + 1 < begin + w) continue;
      f(kSecondsPerMinute * static_cast<double>(w) / sum, rr_start[i + 1 - w], rr_start[i] + rr[i]);
    }
  }
}

// Couplets and runs: maximal stretches of one ectopic class, each beat within kMaxEctopicRunRrS
// of the one before.
void ectopic_runs(const std::vector<char>& cls, const std::vector<double>& t, HolterSummary& s) {
  for (std::size_t i = 0; i < cls.size();) {
    std::size_t j = i + 1;
    while (j < cls.size() && cls[j] == cls[i] && t[j] - t[j - 1] <= kMaxEctopicRunRrS) ++j;
    const std::size_t len = j - i;
    const char c = cls[i];
    if (c == 'V' || c == 'S') {
      const bool v = c == 'V';
      if (len == 2) ++(v ? s.v_couplets : s.s_couplets);
      if (len >= 3) {
        const double span = t[j - 1] - t[i];
        s.runs.push_back(EctopicRun{c, i, len, t[i], span > 0 ? kSecondsPerMinute * static_cast<double>(len - 1) / span : kNaN});
        ++(v ? s.v_runs : s.s_runs);
        std::size_t& longest = v ? s.longest_v_run : s.longest_s_run;
        longest = std::max(longest, len);
      }
    }
    i = j;
  }
}

// Maximal stretches of cycles of (period - 1) N then one X, X one ectopic class, of at least
// min_cycles cycles: bigeminy (period 2: N X N X ...) and trigeminy (period 3: N N X N N X ...).
// Each episode goes to `episodes` and is counted in v_count or s_count by its X.
void ectopic_cycles(const std::vector<char>& cls, const std::vector<double>& t, std::size_t min_cycles, std::size_t period,
                    std::vector<BigeminyEpisode>& episodes, std::int64_t& v_count, std::int64_t& s_count) {
  const std::size_t n = cls.size();
  // Beats k and k + 1 follow each other as a couplet's do (kMaxEctopicRunRrS): the pattern is one
  // rhythm only across such intervals.
  const auto close = [&](std::size_t k) { return t[k + 1] - t[k] <= kMaxEctopicRunRrS; };
  // Cycle k of a stretch starting at beat i: beats i + period k ... i + period (k + 1) - 1.
  const auto is_cycle = [&](std::size_t first, char x) {
    if (first + period > n || cls[first + period - 1] != x) return false;
    for (std::size_t k = first; k + 1 < first + period; ++k)
      if (cls[k] != 'N' || !close(k)) return false;
    return true;
  };
  for (std::size_t i = 0; i + period <= n;) {
    const char x = cls[i + period - 1];
    if ((x != 'V' && x != 'S') || !is_cycle(i, x)) {
      ++i;
      continue;
    }
    std::size_t cycles = 0;
    while (is_cycle(i + period * cycles, x) && (cycles == 0 || close(i + period * cycles - 1))) ++cycles;
    // A couplet or run right after the last X is not this pattern: that X belongs to the run.
    if (i + period * cycles < n && cls[i + period * cycles] == x && close(i + period * cycles - 1)) --cycles;
    if (cycles >= std::max<std::size_t>(1, min_cycles)) {
      episodes.push_back(BigeminyEpisode{x, i, cycles, t[i], t[i + period * cycles - 1]});
      ++(x == 'V' ? v_count : s_count);
      i += period * cycles;
    } else {
      ++i;
    }
  }
}

// What both summaries start from, checked: the beats' times in seconds and their classes, a beat
// in artefact Q (no ectopic beat: it ends any run, couplet or bigeminy).
struct CheckedBeats {
  std::vector<double> t;
  std::vector<char> classes;
};
CheckedBeats checked_beats(const char* what, const std::vector<std::int64_t>& r_peaks, double fs,
                           const std::vector<char>& classes, const std::vector<bool>& artefact) {
  if (!std::isfinite(fs) || fs <= 0.0) throw UsageError(std::string(what) + ": the sampling rate must be positive");
  if (!classes.empty() && classes.size() != r_peaks.size())
    throw InternalError(std::string(what) + ": classes and R peaks differ in size");
  if (!artefact.empty() && artefact.size() != r_peaks.size())
    throw InternalError(std::string(what) + ": artefact flags and R peaks differ in size");
  if (!std::is_sorted(r_peaks.begin(), r_peaks.end())) throw InternalError(std::string(what) + ": R peaks are not sorted");
  CheckedBeats b;
  b.classes = classes;
  for (std::size_t i = 0; i < b.classes.size(); ++i)
    if (!artefact.empty() && artefact[i]) b.classes[i] = 'Q';
  b.t.resize(r_peaks.size());
  for (std::size_t i = 0; i < r_peaks.size(); ++i) b.t[i] = static_cast<double>(r_peaks[i]) / fs;
  return b;
}

// The seconds into a clock hour a recording starts at (HolterOptions::hour_phase_s), checked.
void check_hour_phase(double phase_s) {
  if (!(phase_s >= 0.0 && phase_s < kSecondsPerHour))
    throw InternalError("holter: hour_phase_s " + std::to_string(phase_s) + " is not within [0, 3600) s");
}

// The ectopy: class counts, VEB / SVEB, couplets, runs, bigeminy and trigeminy.
void summarize_ectopy(const CheckedBeats& b, const HolterOptions& o, HolterSummary& s) {
  for (char c : b.classes) ++s.class_counts[class_index(c)];
  s.veb = s.class_counts[class_index('V')];
  s.sveb = s.class_counts[class_index('S')];
  ectopic_runs(b.classes, b.t, s);
  ectopic_cycles(b.classes, b.t, o.min_bigeminy_cycles, 2, s.bigeminy, s.v_bigeminy, s.s_bigeminy);
  ectopic_cycles(b.classes, b.t, o.min_bigeminy_cycles, 3, s.trigeminy, s.v_trigeminy, s.s_trigeminy);
}

}  // namespace

std::vector<std::pair<double, double>> holter_hour_spans(double end_s, double hour_phase_s) {
  check_hour_phase(hour_phase_s);
  if (!(end_s >= 0.0) || !std::isfinite(end_s)) throw InternalError("holter: a recording's end must be finite and >= 0");
  const auto hours =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil((end_s + hour_phase_s) / kSecondsPerHour)));
  std::vector<std::pair<double, double>> spans(hours);
  for (std::size_t h = 0; h < hours; ++h)
    spans[h] = {std::max(0.0, kSecondsPerHour * static_cast<double>(h) - hour_phase_s),
                std::min(end_s, kSecondsPerHour * static_cast<double>(h + 1) - hour_phase_s)};
  return spans;
}

HolterSummary holter_ectopy(const std::vector<std::int64_t>& r_peaks, double fs, const std::vector<char>& classes,
                            const HolterOptions& o, const std::vector<bool>& artefact) {
  const CheckedBeats b = checked_beats("holter_ectopy", r_peaks, fs, classes, artefact);
  HolterSummary s;
  s.options = o;
  s.beats = static_cast<std::int64_t>(r_peaks.size());
  s.has_classes = !b.classes.empty();
  if (s.has_classes) summarize_ectopy(b, o, s);
  return s;
}

HolterSummary holter_summary(const std::vector<std::int64_t>& r_peaks, double fs, const std::vector<char>& classes_in,
                             double duration_s, const HolterOptions& o, const std::vector<bool>& artefact) {
  const CheckedBeats b = checked_beats("holter_summary", r_peaks, fs, classes_in, artefact);
  check_hour_phase(o.hour_phase_s);
  const std::vector<double>& t = b.t;
  const std::vector<char>& classes = b.classes;
  const auto in_artefact = [&artefact](std::size_t i) { return !artefact.empty() && artefact[i]; };
  HolterSummary s;
  s.options = o;
  const std::size_t n = r_peaks.size();
  s.beats = static_cast<std::int64_t>(n);
  s.has_classes = !classes.empty();
  s.duration_s = duration_s > 0.0 ? duration_s : (n ? t.back() : 0.0);

  // --- Rate, over the RR intervals clear of artefact (an interval that ends or starts in noise
  // is not known: a pause may be missed beats, a short interval noise taken for a beat).
  std::vector<double> rr, rr_start;
  std::vector<std::size_t> stretch_starts;  // where each stretch of consecutive clear intervals starts in rr
  std::size_t last = 0;                     // the beat that ended the last clear interval (0: none)
  for (std::size_t i = 1; i < n; ++i) {
    if (in_artefact(i) || in_artefact(i - 1)) continue;
    if (last != i - 1 || rr.empty()) stretch_starts.push_back(rr.size());
    last = i;
    rr.push_back(t[i] - t[i - 1]);
    rr_start.push_back(t[i - 1]);
  }
  s.hr_mean = s.hr_min = s.hr_max = s.longest_pause_s = kNaN;
  double rr_sum = 0.0;
  for (double v : rr) rr_sum += v;
  if (!rr.empty() && rr_sum > 0.0) {
    s.hr_mean = kSecondsPerMinute * static_cast<double>(rr.size()) / rr_sum;
    s.hr_min = std::numeric_limits<double>::infinity();
    s.hr_max = -std::numeric_limits<double>::infinity();
    for_each_rate_window(rr, rr_start, stretch_starts, o.hr_window_beats, [&s](double bpm, double start, double) {
      if (bpm < s.hr_min) {
        s.hr_min = bpm;
        s.hr_min_time_s = start;
      }
      if (bpm > s.hr_max) {
        s.hr_max = bpm;
        s.hr_max_time_s = start;
      }
    });
    const auto longest = std::max_element(rr.begin(), rr.end());
    s.longest_pause_s = *longest;
    s.longest_pause_start_s = rr_start[static_cast<std::size_t>(longest - rr.begin())];
    for (std::size_t k = 0; k < rr.size(); ++k)
      if (rr[k] >= o.pause_threshold_s) s.pause_list.push_back({rr_start[k], rr[k]});
    s.pauses = static_cast<std::int64_t>(s.pause_list.size());
  }
  const double end_s = std::max(s.duration_s, n ? t.back() : 0.0);
  const auto minutes = static_cast<std::size_t>(std::floor(end_s / kSecondsPerMinute)) + 1;
  s.trend.resize(minutes);
  std::vector<double> minute_rr(minutes, 0.0);
  std::vector<std::int64_t> minute_rr_count(minutes, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto m = static_cast<std::size_t>(t[i] / kSecondsPerMinute);
    ++s.trend[m].beats;
    if (i > 0 && !in_artefact(i) && !in_artefact(i - 1)) {
      minute_rr[m] += t[i] - t[i - 1];
      ++minute_rr_count[m];
    }
  }
  for (std::size_t m = 0; m < minutes; ++m) {
    s.trend[m].minute = static_cast<std::int64_t>(m);
    s.trend[m].bpm = minute_rr_count[m] > 0 && minute_rr[m] > 0.0
                         ? kSecondsPerMinute * static_cast<double>(minute_rr_count[m]) / minute_rr[m]
                         : kNaN;
  }
  // A record of exactly k minutes has no (k+1)-th minute.
  if (minutes > 1 && s.trend.back().beats == 0 && end_s == kSecondsPerMinute * static_cast<double>(minutes - 1))
    s.trend.pop_back();

  // --- Ectopy.
  if (!s.has_classes) return s;
  // Clock hours (holter_hour_spans); a beat or interval ending at the very end is the last's.
  const double phase = o.hour_phase_s;
  const std::vector<std::pair<double, double>> spans = holter_hour_spans(end_s, phase);
  const std::size_t hours = spans.size();
  const auto hour_of = [phase, hours](double time) {
    return std::min(hours - 1, static_cast<std::size_t>(std::max(0.0, (time + phase) / kSecondsPerHour)));
  };
  s.hours.resize(hours);
  for (std::size_t h = 0; h < hours; ++h) {
    s.hours[h].hour = static_cast<std::int64_t>(h);
    s.hours[h].start_s = spans[h].first;
    s.hours[h].end_s = spans[h].second;
  }
  for (std::size_t i = 0; i < n; ++i) {
    HolterHour& h = s.hours[hour_of(t[i])];
    ++h.beats;
    if (classes[i] == 'V') ++h.veb;
    if (classes[i] == 'S') ++h.sveb;
  }
  // Each hour's rate and pauses, over the clear intervals ending in it.
  std::vector<double> hour_rr(hours, 0.0);
  for (HolterHour& h : s.hours) h.hr_min = h.hr_mean = h.hr_max = kNaN;
  std::vector<std::int64_t> hour_rr_count(hours, 0);
  for (std::size_t k = 0; k < rr.size(); ++k) {
    const std::size_t i = hour_of(rr_start[k] + rr[k]);
    hour_rr[i] += rr[k];
    ++hour_rr_count[i];
    if (rr[k] >= o.pause_threshold_s) ++s.hours[i].pauses;
  }
  // Min / max as the summary's: its windows, each in the hour its last interval ends in.
  for_each_rate_window(rr, rr_start, stretch_starts, o.hr_window_beats, [&s, &hour_of](double bpm, double, double end) {
    HolterHour& h = s.hours[hour_of(end)];
    h.hr_min = std::isnan(h.hr_min) ? bpm : std::min(h.hr_min, bpm);
    h.hr_max = std::isnan(h.hr_max) ? bpm : std::max(h.hr_max, bpm);
  });
  for (std::size_t h = 0; h < hours; ++h)
    if (hour_rr_count[h] > 0) s.hours[h].hr_mean = kSecondsPerMinute * static_cast<double>(hour_rr_count[h]) / hour_rr[h];
  summarize_ectopy(b, o, s);
  return s;
}

nlohmann::json holter_json(const HolterSummary& s) {
  // Rates to 0.1 bpm, times and intervals to the ms: what they mean, no more (issue 27).
  const auto num = [](double v) { return json_number(v, 1); };
  const auto sec = [](double v) { return json_number(v, 3); };
  nlohmann::json trend = nlohmann::json::array();
  for (const HolterMinute& m : s.trend) trend.push_back({{"minute", m.minute}, {"beats", m.beats}, {"bpm", num(m.bpm)}});
  nlohmann::json j = {
      {"duration_s", sec(s.duration_s)},
      {"beats", s.beats},
      {"heart_rate",
       {{"mean_bpm", num(s.hr_mean)},
        {"min_bpm", num(s.hr_min)},
        {"min_time_s", std::isfinite(s.hr_min) ? sec(s.hr_min_time_s) : nlohmann::json(nullptr)},
        {"max_bpm", num(s.hr_max)},
        {"max_time_s", std::isfinite(s.hr_max) ? sec(s.hr_max_time_s) : nlohmann::json(nullptr)},
        {"extremes_over_rr_intervals", s.options.hr_window_beats},
        {"trend_per_minute", trend}}},
      {"longest_pause",
       {{"rr_s", sec(s.longest_pause_s)},
        {"start_s", std::isfinite(s.longest_pause_s) ? sec(s.longest_pause_start_s) : nlohmann::json(nullptr)}}},
      {"pauses", {{"threshold_s", s.options.pause_threshold_s}, {"count", s.pauses}}},
      {"has_classes", s.has_classes}};
  if (!s.has_classes) return j;
  nlohmann::json counts = nlohmann::json::object();
  for (std::size_t i = 0; i < 5; ++i) counts[std::string(1, kClasses[i])] = s.class_counts[i];
  nlohmann::json hours = nlohmann::json::array();
  for (const HolterHour& h : s.hours)
    hours.push_back({{"hour", h.hour},
                     {"start_s", sec(h.start_s)},
                     {"end_s", sec(h.end_s)},
                     {"beats", h.beats},
                     {"veb", h.veb},
                     {"sveb", h.sveb},
                     {"hr_min_bpm", num(h.hr_min)},
                     {"hr_mean_bpm", num(h.hr_mean)},
                     {"hr_max_bpm", num(h.hr_max)},
                     {"pauses", h.pauses}});
  nlohmann::json runs = nlohmann::json::array();
  for (const EctopicRun& r : s.runs)
    runs.push_back({{"class", std::string(1, r.cls)}, {"first_beat", r.first_beat}, {"beats", r.beats},
                    {"start_s", sec(r.start_s)}, {"rate_bpm", num(r.rate_bpm)}});
  const auto episodes = [&sec](const std::vector<BigeminyEpisode>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const BigeminyEpisode& b : list)
      out.push_back({{"class", std::string(1, b.cls)}, {"first_beat", b.first_beat}, {"cycles", b.cycles},
                     {"start_s", sec(b.start_s)}, {"end_s", sec(b.end_s)}});
    return out;
  };
  j["classes"] = counts;
  j["veb"] = {{"total", s.veb}, {"couplets", s.v_couplets}, {"runs", s.v_runs}, {"longest_run", s.longest_v_run},
              {"bigeminy_episodes", s.v_bigeminy}, {"trigeminy_episodes", s.v_trigeminy}};
  j["sveb"] = {{"total", s.sveb}, {"couplets", s.s_couplets}, {"runs", s.s_runs}, {"longest_run", s.longest_s_run},
               {"bigeminy_episodes", s.s_bigeminy}, {"trigeminy_episodes", s.s_trigeminy}};
  j["bigeminy_min_cycles"] = s.options.min_bigeminy_cycles;
  j["hour_phase_s"] = sec(s.options.hour_phase_s);
  j["per_hour"] = hours;
  j["runs"] = runs;
  j["bigeminy"] = episodes(s.bigeminy);
  j["trigeminy"] = episodes(s.trigeminy);
  return j;
}

}  // namespace ecgpipe
