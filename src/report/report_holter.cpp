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

std::string trend_svg(const HolterSummary& h) {
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

std::string holter_section_html(const HolterSummary& h) {
  std::ostringstream s;
  auto row = [&](const std::string& k, const std::string& v) { s << "<tr><th>" << xml_escape(k) << "</th><td>" << v << "</td></tr>\n"; };
  const std::string na = "n/a (no beat classes)";
  const auto count = [&](std::int64_t v) { return h.has_classes ? thousands(static_cast<std::uint64_t>(v)) : na; };
  const double hours = h.duration_s / 3600.0;
  const auto per_hour = [&](std::int64_t v) {
    return h.has_classes && hours > 0 ? fixed(static_cast<double>(v) / hours, 1) : std::string("n/a");
  };
  s << "<section class=\"holter\">\n<figure>\n" << trend_svg(h)
    << "<figcaption>Mean heart rate per minute: 60 x RR intervals ending in the minute / their sum; "
       "gaps: minutes without one.</figcaption>\n</figure>\n";
  s << "<div class=\"tables\"><table><caption>Heart rate</caption>\n";
  row("beats", thousands(static_cast<std::uint64_t>(h.beats)) + " in " + detail::clock_duration(h.duration_s));
  row("mean", bpm(h.hr_mean));
  const std::string window = std::to_string(h.options.hr_window_beats) + "-beat average";
  row("min (" + window + ")", bpm(h.hr_min) + (std::isfinite(h.hr_min) ? at_time(h.hr_min_time_s) : ""));
  row("max (" + window + ")", bpm(h.hr_max) + (std::isfinite(h.hr_max) ? at_time(h.hr_max_time_s) : ""));
  row("longest pause", std::isfinite(h.longest_pause_s) ? fixed(h.longest_pause_s, 2) + " s" + at_time(h.longest_pause_start_s) : "n/a");
  row("pauses ≥ " + fixed(h.options.pause_threshold_s, 1) + " s", thousands(static_cast<std::uint64_t>(h.pauses)));
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
