// report.html's Holter block (src/report/report_holter.hpp): HR trend per minute and the ectopy
// table, drawn with the SVG toolkit. The figures themselves come from holter_summary (holter.hpp).
#include "report/report_holter.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "report/svg.hpp"
#include "common/time_format.hpp"
#include "common/xml_escape.hpp"

namespace ecgpipe {
namespace {

using namespace svg;

constexpr double kTrendWidth = 1300;  // px: full width, as the signal excerpt
constexpr double kTrendHeight = 220;  // px: a short strip, the page's opening figure
constexpr double kYPad = 0.1;

std::string bpm(double v) { return std::isfinite(v) ? fixed(v, 0) + " bpm" : "n/a"; }
std::string at_time(double t_s) { return " at " + detail::recording_time(t_s); }

constexpr const char* kAfColour = "#d95f02";

std::string trend_svg(const HolterSummary& h, const std::vector<RhythmEpisode>* episodes, double fs) {
  std::vector<double> x, y;
  Extent ys;
  for (const HolterMinute& m : h.trend) {
    x.push_back(static_cast<double>(m.minute) + 0.5);  // the middle of the minute
    y.push_back(m.bpm);
    ys.add(m.bpm);
  }
  Figure f(kTitleHeartRate, kTrendWidth, kTrendHeight);
  const double minutes = std::max<double>(1.0, static_cast<double>(h.trend.size()));
  Plot p(kTrendWidth, kTrendHeight, {0.0, minutes}, ys.empty() ? Range{0.0, 1.0} : ys.range(kYPad));
  p.labels("minute of the recording", "bpm");
  std::vector<double> af0, af1;
  if (episodes != nullptr && fs > 0)
    for (const auto& e : *episodes)
      if (e.rhythm == Rhythm::AFIB) {
        af0.push_back(static_cast<double>(e.start_sample) / fs / 60.0);
        af1.push_back(static_cast<double>(e.end_sample) / fs / 60.0);
      }
  if (!af0.empty()) {
    p.spans(af0, af1, kAfColour, 0.18);
    p.legend({{"atrial fibrillation", kAfColour, LegendEntry::dot}});
  }
  if (ys.empty()) {
    p.note("no RR interval");
  } else {
    p.line(x, y, Stroke{});
    p.dots(x, y, kLineColour, 2.5);
  }
  f.add(p, 0, 0);
  return f.str();
}

}  // namespace

std::string holter_section_html(const HolterSummary& h, const std::vector<RhythmEpisode>* episodes, double fs) {
  std::ostringstream s;
  auto row = [&](const std::string& k, const std::string& v) { s << "<tr><th>" << xml_escape(k) << "</th><td>" << v << "</td></tr>\n"; };
  const std::string na = "n/a (no beat classes)";
  const auto count = [&](std::int64_t v) { return h.has_classes ? thousands(static_cast<std::uint64_t>(v)) : na; };
  const double hours = h.duration_s / 3600.0;
  const auto per_hour = [&](std::int64_t v) {
    return h.has_classes && hours > 0 ? fixed(static_cast<double>(v) / hours, 1) : std::string("n/a");
  };
  s << "<section class=\"holter\">\n<figure>\n" << trend_svg(h, episodes, fs)
    << "<figcaption>Mean heart rate per minute: 60 x RR intervals ending in the minute / their sum; "
       "gaps: minutes without one" << (episodes != nullptr ? "; shaded: atrial fibrillation" : "") << ".</figcaption>\n</figure>\n";
  s << "<div class=\"tables\"><table><caption>Heart rate</caption>\n";
  row("beats", thousands(static_cast<std::uint64_t>(h.beats)) + " in " + detail::clock_duration(h.duration_s));
  row("mean", bpm(h.hr_mean));
  const std::string window = std::to_string(h.options.hr_window_beats) + "-beat average";
  row("min (" + window + ")", bpm(h.hr_min) + (std::isfinite(h.hr_min) ? at_time(h.hr_min_time_s) : ""));
  row("max (" + window + ")", bpm(h.hr_max) + (std::isfinite(h.hr_max) ? at_time(h.hr_max_time_s) : ""));
  row("longest pause", std::isfinite(h.longest_pause_s) ? fixed(h.longest_pause_s, 2) + " s" + at_time(h.longest_pause_start_s) : "n/a");
  row("pauses ≥ " + fixed(h.options.pause_threshold_s, 1) + " s", thousands(static_cast<std::uint64_t>(h.pauses)));
  if (episodes != nullptr && fs > 0) {
    const RhythmBurden b = rhythm_burden(*episodes, fs);
    s << "</table>\n<table><caption>Rhythm</caption>\n";
    row("atrial fibrillation", b.afib_episodes == 0 ? std::string("none found")
                                                    : fixed(b.afib_percent(), 1) + " % of the time (" +
                                                          detail::clock_duration(b.afib_s) + ")");
    row("AF episodes", thousands(static_cast<std::uint64_t>(b.afib_episodes)));
    if (b.afib_episodes > 0) {
      row("longest AF episode", detail::clock_duration(b.longest_afib_s));
      row("heart rate in AF", bpm(b.afib_mean_hr));
    }
  }
  s << "</table>\n<table><caption>Ectopy</caption>\n"
    << "<tr><th></th><th>ventricular (V)</th><th>supraventricular (S)</th></tr>\n";
  auto pair_row = [&](const std::string& k, const std::string& v, const std::string& sv) {
    s << "<tr><th>" << xml_escape(k) << "</th><td>" << v << "</td><td>" << sv << "</td></tr>\n";
  };
  pair_row("beats", count(h.veb), count(h.sveb));
  pair_row("per hour", per_hour(h.veb), per_hour(h.sveb));
  pair_row("couplets", count(h.v_couplets), count(h.s_couplets));
  pair_row("runs (≥ 3)", count(h.v_runs), count(h.s_runs));
  pair_row("longest run", count(static_cast<std::int64_t>(h.longest_v_run)), count(static_cast<std::int64_t>(h.longest_s_run)));
  pair_row("bigeminy episodes (≥ " + std::to_string(h.options.min_bigeminy_cycles) + " cycles)", count(h.v_bigeminy),
           count(h.s_bigeminy));
  s << "</table></div>\n</section>\n";
  return s.str();
}

}  // namespace ecgpipe
