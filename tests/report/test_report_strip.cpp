// Event strips as ECG paper (src/report/report_strip.hpp): the geometry a cardiologist measures
// with calipers (25 mm/s, 10 mm/mV, the 1 mm / 5 mm grid), where the labels and shading sit, and
// odd data. Coordinates are printed with 2 decimals (0.01 mm), so positions compare exactly as text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/report_strip.hpp"

namespace {

using ecgpipe::EventStrip;
using ecgpipe::ReportClock;
constexpr double kFs = 250.0;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t count_of(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// The d attribute of the path with class `cls`.
std::string path_d(const std::string& svg, const std::string& cls) {
  const auto p = svg.find("<path class=\"" + cls + "\" d=\"");
  if (p == std::string::npos) return "";
  const auto start = svg.find("d=\"", p) + 3;
  return svg.substr(start, svg.find('"', start) - start);
}

// The (x, y) points of a path of M/L commands.
std::vector<std::pair<double, double>> points(const std::string& d) {
  std::vector<std::pair<double, double>> out;
  const char* c = d.c_str();
  while (*c) {
    if (*c == 'M' || *c == 'L') {
      char* end = nullptr;
      const double x = std::strtod(c + 1, &end);
      const double y = std::strtod(end, &end);
      out.emplace_back(x, y);
      c = end;
    } else {
      ++c;
    }
  }
  return out;
}

// Grid line positions: "Mx yVy2" (vertical) and "Mx yHx2" (horizontal).
void grid_lines(const std::string& d, std::set<double>& xs, std::set<double>& ys) {
  const char* c = d.c_str();
  while (*c == 'M') {
    char* end = nullptr;
    const double x = std::strtod(c + 1, &end);
    const double y = std::strtod(end, &end);
    const char kind = *end;
    std::strtod(end + 1, &end);
    (kind == 'V' ? xs : ys).insert(kind == 'V' ? x : y);
    c = end;
  }
}

// 10 s of flat signal at 0 with 1-mV spikes at each second (as mV, units known).
EventStrip flat_strip() {
  EventStrip s;
  s.title = "Longest pause 2.31 s";
  s.start_sample = 1000;
  s.event_s = 1000 / kFs + 4.0;
  s.signal.assign(static_cast<std::size_t>(10 * kFs), 0.0f);
  for (std::size_t i = 0; i < s.signal.size(); i += 250) s.signal[i + 125] = 1.0f;
  s.units_per_mv = 1.0;
  s.units_known = true;
  return s;
}

TEST(ReportStrip, TenSecondsAre250MmAndTheSvgIsInMillimetres) {
  const std::string svg = ecgpipe::strip_svg(flat_strip(), kFs, ReportClock(""));
  // Lead-in (10 mm) + 10 s x 25 mm/s; height: label band 6 + grid 25 (15 above, 10 below) + foot 6.
  EXPECT_NE(svg.find("viewBox=\"0 0 260.00 37.00\" width=\"260.00mm\" height=\"37.00mm\""), std::string::npos) << svg.substr(0, 300);
  const auto trace = points(path_d(svg, "trace"));
  ASSERT_EQ(trace.size(), 2500u);  // 250 Hz, 10 s: every sample (no decimation below 5000)
  EXPECT_DOUBLE_EQ(trace.front().first, 10.0);                // t = 0 at the end of the lead-in
  EXPECT_DOUBLE_EQ(trace[250].first, 35.0);                   // 1 s later: 25 mm
  EXPECT_NEAR(trace.back().first, 10.0 + 250.0 - 0.1, 0.005);  // the last sample, 4 ms (0.1 mm) before 10 s
}

TEST(ReportStrip, OneMillivoltIsTenMillimetresAndTheCalibrationPulseShowsIt) {
  EventStrip s = flat_strip();
  const std::string svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  // Baseline at y = 6 + 15 = 21 mm; the pulse rises 10 mm for 0.2 s (5 mm).
  EXPECT_EQ(path_d(svg, "calibration"), "M0.50 21.00H2.50V11.00H7.50V21.00H9.50");
  const auto trace = points(path_d(svg, "trace"));
  EXPECT_DOUBLE_EQ(trace[0].second, 21.0);    // 0 mV on the baseline
  EXPECT_DOUBLE_EQ(trace[125].second, 11.0);  // 1 mV: 10 mm above it
  // In recording units: a WFDB gain of 200 units/mV, a 200-unit spike is 10 mm too.
  for (auto& v : s.signal) v *= 200.0f;
  s.units_per_mv = 200.0;
  const auto scaled = points(path_d(ecgpipe::strip_svg(s, kFs, ReportClock("")), "trace"));
  EXPECT_DOUBLE_EQ(scaled[125].second, 11.0);
  EXPECT_NE(svg.find("25 mm/s, 10 mm/mV"), std::string::npos);
}

TEST(ReportStrip, GridLinesEveryMillimetreAndEveryFive) {
  const std::string svg = ecgpipe::strip_svg(flat_strip(), kFs, ReportClock(""));
  std::set<double> minor_x, minor_y, major_x, major_y;
  grid_lines(path_d(svg, "grid-minor"), minor_x, minor_y);
  grid_lines(path_d(svg, "grid-major"), major_x, major_y);
  ASSERT_EQ(major_x.size(), 53u);  // 0, 5, ..., 260
  ASSERT_EQ(minor_x.size(), 208u);  // the other 208 of 0..260
  for (int i = 0; i <= 260; ++i) EXPECT_EQ((i % 5 == 0 ? major_x : minor_x).count(i), 1u) << i;
  ASSERT_EQ(major_y.size(), 6u);  // 6, 11, ..., 31: the grid's 25 mm
  ASSERT_EQ(minor_y.size(), 20u);
  for (int j = 0; j <= 25; ++j) EXPECT_EQ((j % 5 == 0 ? major_y : minor_y).count(6 + j), 1u) << j;
  EXPECT_EQ(major_y.count(21.0), 1u);  // the baseline lies on a major line
  EXPECT_NE(svg.find("stroke=\"#f5c6c6\""), std::string::npos);  // pale red
}

TEST(ReportStrip, BeatLabelsSitAtTheirRPeaksAndArtefactIsShaded) {
  EventStrip s = flat_strip();
  s.beat_samples = {900, 1125, 1500, 1875, 3499, 3500};  // 900: before the strip; 3500: its end (10 s)
  s.beat_classes = "NNVS";                                  // shorter than the beats: '?'
  s.artefact = {{1250, 1750}, {500, 600}, {3400, 9000}};    // 2-4 s; outside; 9.6 s to past the end
  const std::string svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  // x = 10 + (peak - 1000) / 250 x 25 mm.
  EXPECT_NE(svg.find("<text class=\"beat\" x=\"22.50\" y=\"4.50\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#d55e00\">V</text>"), std::string::npos);
  EXPECT_NE(svg.find("<text class=\"beat\" x=\"60.00\""), std::string::npos);
  EXPECT_NE(svg.find("<text class=\"beat\" x=\"97.50\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#0072b2\">S</text>"), std::string::npos);
  EXPECT_NE(svg.find("<text class=\"beat\" x=\"259.90\""), std::string::npos);
  EXPECT_NE(svg.find(">?</text>"), std::string::npos);
  EXPECT_EQ(count_of(svg, "class=\"beat\""), 4u);
  EXPECT_NE(svg.find("<rect class=\"artefact\" x=\"35.00\" y=\"6.00\" width=\"50.00\" height=\"25.00\""), std::string::npos);
  EXPECT_NE(svg.find("<rect class=\"artefact\" x=\"250.00\" y=\"6.00\" width=\"10.00\""), std::string::npos);
  EXPECT_EQ(count_of(svg, "class=\"artefact\""), 2u);
  // The event (4 s into the strip) marked under the grid.
  EXPECT_NE(svg.find("<path class=\"event\" d=\"M110.00 31.40"), std::string::npos);
}

TEST(ReportStrip, UnknownUnitsAreDrawnAsMillivoltsAndSaySo) {
  EventStrip s = flat_strip();
  s.units_known = false;
  std::string svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  EXPECT_NE(svg.find("units unknown (CSV): drawn as mV"), std::string::npos);
  EXPECT_EQ(svg.find("10 mm/mV"), std::string::npos);
  EXPECT_DOUBLE_EQ(points(path_d(svg, "trace"))[125].second, 11.0);
  // ADC counts (spikes of 1000) would be a metre tall: shrunk by a 1-2-5 factor, said, not clipped.
  for (auto& v : s.signal) v *= 1000.0f;
  svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  EXPECT_NE(svg.find("units unknown (CSV): drawn as mV, scaled 1:200 to fit (pulse = 200 units)"), std::string::npos);
  EXPECT_EQ(svg.find("clipped"), std::string::npos);
  EXPECT_DOUBLE_EQ(points(path_d(svg, "trace"))[125].second, points(path_d(svg, "trace"))[0].second - 50.0);
}

TEST(ReportStrip, KnownUnitsBeyondTheGridAreClippedAndSaySo) {
  EventStrip s = flat_strip();
  s.signal[600] = 20.0f;  // 20 mV: artefact, 200 mm
  const std::string svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  EXPECT_NE(svg.find("clipped at the grid edge"), std::string::npos);
  EXPECT_DOUBLE_EQ(points(path_d(svg, "trace"))[600].second, 6.0);  // the grid's top
}

TEST(ReportStrip, OddDataNeverBreaksTheStrip) {
  EventStrip s = flat_strip();
  s.signal[10] = static_cast<float>(kNaN);
  const auto with_gap = path_d(ecgpipe::strip_svg(s, kFs, ReportClock("")), "trace");
  EXPECT_EQ(count_of(with_gap, "M"), 2u);  // the NaN breaks the trace once
  s.signal.clear();
  std::string svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  EXPECT_NE(svg.find(">no signal</text>"), std::string::npos);
  EXPECT_NE(svg.find("width=\"260.00mm\""), std::string::npos);  // the paper is still 10 s
  s.signal.assign(100, static_cast<float>(kNaN));
  s.units_per_mv = kNaN;
  s.event_s = kNaN;
  svg = ecgpipe::strip_svg(s, kFs, ReportClock(""));
  EXPECT_NE(svg.find(">no signal</text>"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"event\""), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  // Longer than 10 s: only the first 10 s are drawn.
  s = flat_strip();
  s.signal.resize(static_cast<std::size_t>(30 * kFs), 0.0f);
  EXPECT_EQ(points(path_d(ecgpipe::strip_svg(s, kFs, ReportClock("")), "trace")).size(), 2500u);
}

TEST(ReportStrip, DenseSignalsAreDecimatedKeepingEachColumnsExtremes) {
  constexpr double kHighFs = 2000.0;  // 20000 samples: 8 per 0.1-mm column
  EventStrip s;
  s.units_known = true;
  s.signal.assign(static_cast<std::size_t>(10 * kHighFs), 0.0f);
  s.signal[7001] = 1.5f;   // a one-sample spike survives decimation
  s.signal[7003] = -0.5f;
  const auto trace = points(path_d(ecgpipe::strip_svg(s, kHighFs, ReportClock("")), "trace"));
  EXPECT_LE(trace.size(), 5000u);
  double top = 1e9, bottom = -1e9;
  for (const auto& [x, y] : trace) {
    top = std::min(top, y);
    bottom = std::max(bottom, y);
  }
  const double base = trace.front().second;
  EXPECT_DOUBLE_EQ(base - top, 15.0);    // 1.5 mV
  EXPECT_DOUBLE_EQ(bottom - base, 5.0);  // -0.5 mV
}

TEST(ReportStrip, TitlesAndTimesAreEscapedInTheSection) {
  ecgpipe::ReportData d;
  d.sample_rate_hz = kFs;
  EventStrip s = flat_strip();
  s.title = "<script>alert(\"x\")</script> & 'pause'";
  d.strips = {s};
  const ReportClock clock("2026-11-26 08:15:00");
  const std::string html = ecgpipe::strips_section_html(d, clock);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;pause&#39; — 08:15:08"), std::string::npos);
  EXPECT_NE(html.find("<title>&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find(">08:15:04</text>"), std::string::npos);  // the strip starts at sample 1000 = 4 s
  d.strips.clear();
  EXPECT_NE(ecgpipe::strips_section_html(d, clock).find("no data: no event strips"), std::string::npos);
}

}  // namespace
