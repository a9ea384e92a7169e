// report.html's clinical sections (src/report/report_holter.hpp). The figures come from the
// Holter summary (holter.hpp), the rhythm episodes (rhythm_episodes.hpp), the HRV (hrv.hpp) and
// the fields ReportData adds for the report; this file only rounds them to what they mean
// (HR in whole bpm, times to the second, pauses to 0.01 s, per-hour rates to 0.1) and lays them out.
#include "report/report_holter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include "common/xml_escape.hpp"
#include "report/svg.hpp"

namespace ecgpipe {
namespace {

using namespace svg;

constexpr double kTrendWidth = 1300;  // px: full width
constexpr double kTrendHeight = 220;  // px: a short strip
constexpr double kTrendYPad = 0.1;
constexpr double kSecondsPerHour = 3600.0, kSecondsPerMinute = 60.0, kPercent = 100.0;
constexpr std::size_t kMaxListRows = 100;  // longer lists are cut, saying how many more report.json has

constexpr const char* kAfColour = "#d95f02";
constexpr const char* kArtefactColour = "#7f7f7f";

std::string bpm(double v) { return std::isfinite(v) ? fixed(v, 0) + " bpm" : kNoValue; }
std::string count(std::int64_t v) { return v >= 0 ? thousands(static_cast<std::uint64_t>(v)) : kNoValue; }
std::string percent(double part, double whole) {
  return whole > 0 && std::isfinite(part) ? fixed(kPercent * part / whole, 1) + " %" : kNoValue;
}
std::string seconds2(double v) { return std::isfinite(v) ? fixed(v, 2) + " s" : kNoValue; }

// Times the page derives from ReportData, with the fallbacks for callers that predate them.
struct Durations {
  double recording = std::numeric_limits<double>::quiet_NaN();
  double analysed = std::numeric_limits<double>::quiet_NaN();
  double artefact = 0.0;
};

Durations durations(const ReportData& d) {
  Durations t;
  if (d.recording_s > 0) t.recording = d.recording_s;
  else if (d.holter && d.holter->duration_s > 0) t.recording = d.holter->duration_s;
  else if (d.samples > 0) t.recording = static_cast<double>(d.samples) / sample_rate(d);
  t.artefact = std::isfinite(d.artefact_s) && d.artefact_s > 0 ? d.artefact_s : 0.0;
  if (d.analysed_s > 0) t.analysed = d.analysed_s;
  else if (std::isfinite(t.recording)) t.analysed = std::max(0.0, t.recording - t.artefact);
  return t;
}

// Per hour analysed, to 0.1; kNoValue without analysed time.
std::string per_hour(std::int64_t n, double analysed_s) {
  return analysed_s > 0 ? fixed(static_cast<double>(n) * kSecondsPerHour / analysed_s, 1) : kNoValue;
}

// A clinician's name for a rhythm of rhythm_episodes.
const char* rhythm_words(Rhythm r) {
  switch (r) {
    case Rhythm::N: return "sinus or other (not AF, VT, IVR, SVTA, bigeminy, trigeminy)";
    case Rhythm::AFIB: return "atrial fibrillation";
    case Rhythm::VT: return "ventricular tachycardia";
    case Rhythm::SVTA: return "supraventricular tachyarrhythmia";
    case Rhythm::B: return "ventricular bigeminy";
    case Rhythm::T: return "ventricular trigeminy";
    case Rhythm::IVR: return "idioventricular rhythm";
  }
  return "unknown";
}

class Table {
 public:
  explicit Table(std::ostream& out, const std::string& caption, const std::string& cls = "") : out_(out) {
    out_ << "<table" << (cls.empty() ? "" : " class=\"" + cls + "\"") << "><caption>" << xml_escape(caption) << "</caption>\n";
  }
  ~Table() { out_ << "</table>\n"; }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;
  // A row: a header cell (escaped here) and value cells (already HTML).
  void row(const std::string& head, const std::vector<std::string>& cells) {
    out_ << "<tr><th>" << xml_escape(head) << "</th>";
    for (const auto& c : cells) out_ << "<td>" << c << "</td>";
    out_ << "</tr>\n";
  }
  void head(const std::vector<std::string>& cells) {
    out_ << "<tr>";
    for (const auto& c : cells) out_ << "<th>" << xml_escape(c) << "</th>";
    out_ << "</tr>\n";
  }

 private:
  std::ostream& out_;
};

std::string trend_svg(const ReportData& d, const ReportClock& clock) {
  const HolterSummary& h = *d.holter;
  const double fs = sample_rate(d);
  std::vector<double> x, y;
  Extent ys;
  for (const HolterMinute& m : h.trend) {
    x.push_back(static_cast<double>(m.minute) + 0.5);  // the middle of the minute
    y.push_back(m.bpm);
    ys.add(m.bpm);
  }
  Figure f(kTitleHeartRate, kTrendWidth, kTrendHeight);
  const double minutes = std::max<double>(1.0, static_cast<double>(h.trend.size()));
  Plot p(kTrendWidth, kTrendHeight, {0.0, minutes}, ys.empty() ? Range{0.0, 1.0} : ys.range(kTrendYPad));
  // Time as the page's other times read: the clock's where the start is known, else from the start.
  p.time_axis(clock.start_of_day_s().value_or(0.0) / kSecondsPerMinute, clock.known());
  p.labels(clock.known() ? "clock time" : "time from the start (h:mm)", "bpm");
  std::vector<LegendEntry> legend;
  std::vector<double> a0, a1;
  for (const auto& [a, b] : d.artefact_spans) {
    a0.push_back(static_cast<double>(a) / fs / kSecondsPerMinute);
    a1.push_back(static_cast<double>(b) / fs / kSecondsPerMinute);
  }
  if (!a0.empty()) {
    p.spans(a0, a1, kArtefactColour, 0.25);
    legend.push_back({"artefact", kArtefactColour, LegendEntry::dot});
  }
  std::vector<double> af0, af1;
  if (d.rhythm_episodes)
    for (const auto& e : *d.rhythm_episodes)
      if (e.rhythm == Rhythm::AFIB) {
        af0.push_back(static_cast<double>(e.start_sample) / fs / kSecondsPerMinute);
        af1.push_back(static_cast<double>(e.end_sample) / fs / kSecondsPerMinute);
      }
  if (!af0.empty()) {
    p.spans(af0, af1, kAfColour, 0.18);
    legend.push_back({"atrial fibrillation", kAfColour, LegendEntry::dot});
  }
  if (!legend.empty()) p.legend(legend);
  if (ys.empty()) {
    p.note("no RR interval");
  } else {
    p.line(x, y, Stroke{});
    p.dots(x, y, kLineColour, 2.5);
  }
  f.add(p, 0, 0);
  return f.str();
}

void recording_table(std::ostream& s, const ReportData& d, const ReportClock& clock, const Durations& t) {
  Table tab(s, "Recording");
  tab.row("file", {xml_escape(d.file_name.empty() ? std::string(kNoValue) : d.file_name)});
  tab.row("recording start", {xml_escape(clock.start_text())});
  tab.row("recording time", {hms(t.recording)});
  tab.row("analysed time", {hms(t.analysed) + (std::isfinite(t.analysed) ? " (" + percent(t.analysed, t.recording) + ")" : "")});
  std::string artefact = hms(t.artefact) + " (" + percent(t.artefact, t.recording) + ")";
  if (!d.artefact_spans.empty()) artefact += " in " + thousands(d.artefact_spans.size()) + (d.artefact_spans.size() == 1 ? " stretch" : " stretches");
  tab.row("artefact (left out)", {artefact});
  tab.row("input", {xml_escape(d.input_description.empty() ? short_num(sample_rate(d)) + " Hz" : d.input_description)});
}

void heart_rate_table(std::ostream& s, const HolterSummary& h, const ReportClock& clock) {
  Table tab(s, "Heart rate");
  tab.row("beats", {thousands(static_cast<std::uint64_t>(std::max<std::int64_t>(0, h.beats)))});
  tab.row("mean", {bpm(h.hr_mean)});
  const std::string window = std::to_string(h.options.hr_window_beats) + "-beat average";
  tab.row("min (" + window + ")", {bpm(h.hr_min) + (std::isfinite(h.hr_min) ? " at " + clock.at(h.hr_min_time_s) : "")});
  tab.row("max (" + window + ")", {bpm(h.hr_max) + (std::isfinite(h.hr_max) ? " at " + clock.at(h.hr_max_time_s) : "")});
}

void rhythm_table(std::ostream& s, const std::vector<RhythmEpisode>& episodes, double fs) {
  Table tab(s, "Rhythm");
  const std::map<Rhythm, RhythmTotal> totals = rhythm_totals(episodes, fs);
  const auto main = std::max_element(totals.begin(), totals.end(),
                                     [](const auto& a, const auto& b) { return a.second.seconds < b.second.seconds; });
  tab.row("predominant", {main == totals.end() ? std::string(kNoValue) : std::string(rhythm_words(main->first))});
  const RhythmBurden b = rhythm_burden(episodes, fs);
  tab.row("AF burden", {b.afib_episodes == 0 ? std::string("none found")
                                             : fixed(b.afib_percent(), 1) + " % (" + hms(b.afib_s) + ")"});
  tab.row("AF episodes", {count(b.afib_episodes)});
  if (b.afib_episodes > 0) {
    tab.row("longest AF episode", {hms(b.longest_afib_s)});
    tab.row("heart rate in AF", {bpm(b.afib_mean_hr)});
  }
  for (Rhythm r : kEctopicRhythms)
    if (const auto t = totals.find(r); t != totals.end())
      tab.row(std::string(rhythm_words(r)) + " episodes", {count(t->second.episodes) + " (" + hms(t->second.seconds) + ")"});
}

void ectopy_table(std::ostream& s, const HolterSummary& h, double analysed_s) {
  Table tab(s, "Ectopy");
  tab.head({"", "ventricular (V)", "supraventricular (S)"});
  if (!h.has_classes) {
    const std::string na = "n/a (no beat classes)";
    tab.row("beats", {na, na});
    return;
  }
  tab.row("beats", {count(h.veb), count(h.sveb)});
  tab.row("per hour analysed", {per_hour(h.veb, analysed_s), per_hour(h.sveb, analysed_s)});
  tab.row("couplets", {count(h.v_couplets), count(h.s_couplets)});
  tab.row("runs (≥ 3)", {count(h.v_runs), count(h.s_runs)});
  const auto beats = [](std::size_t v) { return v == 0 ? std::string(kNoValue) : thousands(v) + " beats"; };
  tab.row("longest run", {beats(h.longest_v_run), beats(h.longest_s_run)});
  tab.row("bigeminy episodes (≥ " + std::to_string(h.options.min_bigeminy_cycles) + " cycles)",
          {count(h.v_bigeminy), count(h.s_bigeminy)});
  tab.row("trigeminy episodes (≥ " + std::to_string(h.options.min_bigeminy_cycles) + " cycles)",
          {count(h.v_trigeminy), count(h.s_trigeminy)});
}

void pause_table(std::ostream& s, const HolterSummary& h, const ReportClock& clock) {
  Table tab(s, "Pauses");
  const double limit = h.options.pause_threshold_s;
  tab.row("pauses ≥ " + fixed(limit, 1) + " s", {count(h.pauses)});
  if (!std::isfinite(h.longest_pause_s)) {
    tab.row("longest RR interval", {kNoValue});
  } else {
    tab.row(h.longest_pause_s >= limit ? "longest pause" : "longest RR interval (no pause)",
            {seconds2(h.longest_pause_s) + " at " + clock.at(h.longest_pause_start_s)});
  }
}

}  // namespace

std::string clinical_summary_html(const ReportData& d, const ReportClock& clock) {
  std::ostringstream s;
  const Durations t = durations(d);
  const double fs = sample_rate(d);
  s << "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"tables\">\n";
  recording_table(s, d, clock, t);
  if (d.holter) heart_rate_table(s, *d.holter, clock);
  s << "</div>\n<div class=\"tables\">\n";
  if (d.rhythm_episodes && fs > 0) rhythm_table(s, *d.rhythm_episodes, fs);
  if (d.holter) {
    ectopy_table(s, *d.holter, t.analysed);
    pause_table(s, *d.holter, clock);
  }
  s << "</div>\n";
  if (!d.holter) s << "<p class=\"none\">no data: no Holter summary (no beats were analysed)</p>\n";
  s << "<p class=\"note\">Times are " << clock.times_are()
    << ". Rates per hour are per hour analysed (artefact left out)";
  if (std::isfinite(t.analysed) && t.analysed > 0 && t.analysed < kSecondsPerHour)
    s << "; with " << hms(t.analysed) << " analysed, under an hour, they are <b>extrapolated</b>";
  s << ".</p>\n</section>\n";
  return s.str();
}

// The hourly table with its total row (the lowest hourly minimum, the highest maximum).
void hourly_rates_table(std::ostream& s, const ReportData& d, const ReportClock& clock) {
  const auto hr = [](double v) { return std::isfinite(v) ? fixed(v, 0) : std::string(kNoValue); };
  Table tab(s, clock.known() ? "Per clock hour" : "Per hour of the recording (elapsed time)", "hourly");
  tab.head({"hour", "analysed", "beats", "HR min", "HR mean", "HR max", "VEB", "SVEB", "pauses", "AF (min)"});
  double analysed = 0, af = 0;
  std::int64_t beats = 0, veb = 0, sveb = 0, pauses = 0;
  for (const ReportHour& h : d.hourly) {
    tab.row(clock.hour_span(h.start_s, h.end_s), {hms(h.analysed_s), count(h.beats), hr(h.hr_min), hr(h.hr_mean), hr(h.hr_max),
                                      count(h.veb), count(h.sveb), count(h.pauses),
                                      std::isfinite(h.af_s) ? fixed(h.af_s / kSecondsPerMinute, 1) : std::string(kNoValue)});
    if (std::isfinite(h.analysed_s)) analysed += h.analysed_s;
    if (std::isfinite(h.af_s)) af += h.af_s;
    beats += h.beats;
    veb += h.veb;
    sveb += h.sveb;
    pauses += h.pauses;
  }
  const std::string mean = d.holter ? hr(d.holter->hr_mean) : std::string(kNoValue);
  // The lowest hourly minimum and the highest maximum (NaN: an hour without a rate, skipped).
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo;
  for (const ReportHour& h : d.hourly) {
    if (std::isfinite(h.hr_min) && !(lo <= h.hr_min)) lo = h.hr_min;
    if (std::isfinite(h.hr_max) && !(hi >= h.hr_max)) hi = h.hr_max;
  }
  tab.row("total", {hms(analysed), count(beats), hr(lo), mean, hr(hi), count(veb), count(sveb), count(pauses),
                    fixed(af / kSecondsPerMinute, 1)});
}

std::string hourly_section_html(const ReportData& d, const ReportClock& clock) {
  std::ostringstream s;
  s << "<section id=\"hourly\">\n<h2>Hourly table</h2>\n";
  if (!d.hourly.empty()) {
    hourly_rates_table(s, d, clock);
    const std::size_t window = d.holter ? d.holter->options.hr_window_beats : HolterOptions{}.hr_window_beats;
    s << "<p class=\"note\">HR min and max are " << window
      << "-beat averages, as in the summary; HR mean is over the hour's RR intervals.</p>\n";
  } else if (d.holter && !d.holter->hours.empty() && d.holter->has_classes) {
    Table tab(s, std::string(clock.known() ? "Per clock hour" : "Per hour of the recording (elapsed time)") + ", counts only",
              "hourly");
    tab.head({"hour", "beats", "VEB", "SVEB"});
    for (const HolterHour& h : d.holter->hours) tab.row(clock.hour_span(h.start_s, h.end_s), {count(h.beats), count(h.veb), count(h.sveb)});
  } else {
    s << "<p class=\"none\">no data: no hourly table</p>\n";
  }
  s << "</section>\n";
  return s.str();
}

std::string hrv_section_html(const ReportData& d) {
  std::ostringstream s;
  s << "<section id=\"hrv\">\n<h2>Heart-rate variability</h2>\n";
  if (!d.hrv) {
    s << "<p class=\"none\">no data: heart-rate variability not computed</p>\n</section>\n";
    return s.str();
  }
  const HrvResult& h = *d.hrv;
  const auto v = [](double x, int decimals, const char* unit) {
    return std::isfinite(x) ? fixed(x, decimals) + unit : std::string(kNoValue);
  };
  s << "<div class=\"tables\">\n";
  {
    Table tab(s, "Time domain (NN intervals)");
    tab.row("NN intervals used", {thousands(h.nn_intervals) + " of " + thousands(h.rr_intervals) + " RR (" +
                                  percent(static_cast<double>(h.nn_intervals), static_cast<double>(h.rr_intervals)) +
                                  "), " + hms(h.nn_seconds)});
    tab.row("mean NN", {v(h.mean_nn_ms, 0, " ms")});
    tab.row("SDNN", {v(h.sdnn_ms, 0, " ms")});
    tab.row("SDANN (5-min means)", {v(h.sdann_ms, 0, " ms")});
    tab.row("SDNN index (5-min SDs)", {v(h.sdnn_index_ms, 0, " ms")});
    tab.row("RMSSD", {v(h.rmssd_ms, 1, " ms")});
    tab.row("pNN50", {v(h.pnn50_percent, 1, " %")});
    tab.row("5-minute segments used", {thousands(h.segments)});
  }
  {
    Table tab(s, "Frequency domain (5-min segments, mean)");
    tab.row("VLF (0.0033–0.04 Hz)", {v(h.vlf_ms2, 0, " ms²")});
    tab.row("LF (0.04–0.15 Hz)", {v(h.lf_ms2, 0, " ms²")});
    tab.row("HF (0.15–0.4 Hz)", {v(h.hf_ms2, 0, " ms²")});
    tab.row("LF/HF", {v(h.lf_hf, 2, "")});
  }
  s << "</div>\n";
  if (hrv_under_short_term(h))
    s << "<p class=\"note\"><b>From " << hms(h.nn_seconds) << " of NN intervals</b>: under the "
      << fixed(kHrvShortTermS / 60.0, 0)
      << " minutes of the Task Force's shortest standard recording, so these figures are not comparable with "
         "published values.</p>\n";
  s << "<p class=\"note\">Task Force of the ESC and NASPE (1996) definitions, over NN intervals: RR intervals "
       "between two normal beats, ectopy and artefact left out.</p>\n</section>\n";
  return s.str();
}

std::string events_section_html(const ReportData& d, const ReportClock& clock) {
  std::ostringstream s;
  const double fs = sample_rate(d);
  s << "<section id=\"events\">\n<h2>Rhythm, runs and pauses</h2>\n";
  if (d.holter) {
    const bool has_af = d.rhythm_episodes && std::any_of(d.rhythm_episodes->begin(), d.rhythm_episodes->end(),
                                                         [](const RhythmEpisode& e) { return e.rhythm == Rhythm::AFIB; });
    s << "<figure>\n" << trend_svg(d, clock)
      << "<figcaption>Mean heart rate per minute: 60 x RR intervals ending in the minute / their sum; gaps: minutes "
         "without one"
      << (has_af ? "; orange: atrial fibrillation" : "") << (d.artefact_spans.empty() ? "" : "; grey: artefact")
      << ".</figcaption>\n</figure>\n";
  }
  const auto more = [&](std::size_t total) {
    if (total > kMaxListRows)
      s << "<p class=\"note\">The first " << kMaxListRows << " of " << thousands(total) << "; all of them in report.json.</p>\n";
  };
  s << "<div class=\"tables\">\n";
  // Rhythm episodes other than sinus/other.
  if (d.rhythm_episodes) {
    std::vector<const RhythmEpisode*> rows;
    for (const auto& e : *d.rhythm_episodes)
      if (e.rhythm != Rhythm::N) rows.push_back(&e);
    if (rows.empty()) {
      s << "<p class=\"none\">Rhythm: no AF, VT, IVR, SVTA, bigeminy or trigeminy episode.</p>\n";
    } else {
      Table tab(s, "Rhythm episodes", "list");
      tab.head({"rhythm", "start", "duration", "beats", "mean HR"});
      for (std::size_t k = 0; k < rows.size() && k < kMaxListRows; ++k) {
        const RhythmEpisode& e = *rows[k];
        tab.row(rhythm_words(e.rhythm), {clock.at(static_cast<double>(e.start_sample) / fs),
                                         hms(static_cast<double>(e.end_sample - e.start_sample) / fs), count(e.beats), bpm(e.mean_hr)});
      }
    }
    more(rows.size());
  } else {
    s << "<p class=\"none\">no data: no rhythm analysis</p>\n";
  }
  if (d.holter && d.holter->has_classes) {
    const HolterSummary& h = *d.holter;
    if (h.runs.empty()) {
      s << "<p class=\"none\">Runs: no run of 3 or more V or S beats.</p>\n";
    } else {
      Table tab(s, "Runs (≥ 3 beats)", "list");
      tab.head({"class", "start", "beats", "rate"});
      for (std::size_t k = 0; k < h.runs.size() && k < kMaxListRows; ++k) {
        const EctopicRun& r = h.runs[k];
        tab.row(r.cls == 'V' ? "V (ventricular)" : "S (supraventricular)",
                {clock.at(r.start_s), thousands(r.beats), bpm(r.rate_bpm)});
      }
    }
    more(h.runs.size());
    const auto cycle_list = [&](const char* title, const std::vector<BigeminyEpisode>& list) {
      if (!list.empty()) {
        Table tab(s, title, "list");
        tab.head({"class", "start", "end", "cycles"});
        for (std::size_t k = 0; k < list.size() && k < kMaxListRows; ++k) {
          const BigeminyEpisode& b = list[k];
          tab.row(b.cls == 'V' ? "V (ventricular)" : "S (supraventricular)", {clock.at(b.start_s), clock.at(b.end_s), thousands(b.cycles)});
        }
      }
      more(list.size());
    };
    cycle_list("Bigeminy", h.bigeminy);
    cycle_list("Trigeminy", h.trigeminy);
  }
  if (!d.pauses.empty()) {
    Table tab(s, "Pauses", "list");
    tab.head({"start", "RR"});
    for (std::size_t k = 0; k < d.pauses.size() && k < kMaxListRows; ++k)
      tab.row(clock.at(d.pauses[k].start_s), {seconds2(d.pauses[k].rr_s)});
  } else if (d.holter) {
    s << "<p class=\"none\">Pauses: " << (d.holter->pauses == 0 ? std::string("none") : count(d.holter->pauses) + " (not listed)")
      << " of ≥ " << fixed(d.holter->options.pause_threshold_s, 1) << " s.</p>\n";
  }
  more(d.pauses.size());
  s << "</div>\n</section>\n";
  return s.str();
}

std::string ec57_section_html(const ReportData& d) {
  if (d.ec57.empty()) return "";
  std::ostringstream s;
  s << "<section id=\"ec57\">\n<h2>Evaluation against the reference (EC57)</h2>\n";
  {
    Table tab(s, "EC57 figures", "ec57");
    for (const auto& [k, v] : d.ec57) tab.row(k, {xml_escape(v)});
  }
  s << "</section>\n";
  return s.str();
}

}  // namespace ecgpipe
