// The report's SVG toolkit (src/report/svg.hpp) and time formats (src/common/time_format.hpp):
// internal helpers, tested on their own so a change to a panel does not hide a change to them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "report/svg.hpp"
#include "common/time_format.hpp"

namespace svg = ecgpipe::svg;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST(Svg, FormatsNumbers) {
  EXPECT_EQ(svg::fixed(1.25, 1), "1.2");  // printf rounds the binary value (1.25 exactly: to even)
  EXPECT_EQ(svg::fixed(-3.0, 0), "-3");
  EXPECT_EQ(svg::px(12.345), "12.3");
  EXPECT_EQ(svg::short_num(0.000123456), "0.0001235");
  EXPECT_EQ(svg::short_num(123456.0), "1.235e+05");
  EXPECT_EQ(svg::short_num(kNaN), "n/a");
  EXPECT_EQ(svg::short_num(kInf), "n/a");
  EXPECT_EQ(svg::thousands(0), "0");
  EXPECT_EQ(svg::thousands(999), "999");
  EXPECT_EQ(svg::thousands(1000), "1,000");
  EXPECT_EQ(svg::thousands(1234567), "1,234,567");
}

TEST(Svg, NiceTicksAreOneTwoFiveSteps) {
  double step = 0;
  EXPECT_EQ(svg::nice_ticks({0, 10}, 5, &step), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(step, 2.0);
  EXPECT_EQ(svg::nice_ticks({0, 1}, 2, &step), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(step, 0.5);
  // A tick at zero is exactly 0 (not -1e-17), so its label is "0".
  const auto ticks = svg::nice_ticks({-0.3, 0.3}, 6, &step);
  ASSERT_FALSE(ticks.empty());
  bool has_zero = false;
  for (double t : ticks) has_zero |= t == 0.0 && !std::signbit(t);
  EXPECT_TRUE(has_zero);
  // Empty, reversed and non-finite ranges give no ticks.
  EXPECT_TRUE(svg::nice_ticks({1, 1}, 5, nullptr).empty());
  EXPECT_TRUE(svg::nice_ticks({2, 1}, 5, nullptr).empty());
  EXPECT_TRUE(svg::nice_ticks({0, kInf}, 5, nullptr).empty());
  EXPECT_TRUE(svg::nice_ticks({0, 1}, 0, nullptr).empty());
}

// A time axis in minutes of the recording whose ticks fall on round clock times (the Holter
// report's heart-rate trend): a recording from 08:53 has ticks at 09:00, 09:10, ... on a 1-2-5-10-
// 15-30-60-120... minute grid, labelled HH:MM wrapping at midnight; elapsed (offset 0, no clock)
// "h:mm".
TEST(Svg, TimeTicksFallOnRoundClockTimes) {
  double step = 0;
  const double from_0853 = 8 * 60 + 53;  // minutes after midnight at the recording's start
  EXPECT_EQ(svg::time_ticks({0, 30}, 4, from_0853, &step), (std::vector<double>{7, 17, 27}));  // 09:00, 09:10, 09:20
  EXPECT_EQ(step, 10.0);
  EXPECT_EQ(svg::time_tick_label(7, from_0853, true), "09:00");
  EXPECT_EQ(svg::time_tick_label(27, from_0853, true), "09:20");
  // 24 hours from 08:53 in about 8 ticks: every 3 hours on the clock's 3-hour marks, past midnight.
  const auto day = svg::time_ticks({0, 1440}, 8, from_0853, &step);
  EXPECT_EQ(step, 180.0);
  ASSERT_FALSE(day.empty());
  EXPECT_EQ(svg::time_tick_label(day.front(), from_0853, true), "09:00");
  EXPECT_EQ(svg::time_tick_label(day[5], from_0853, true), "00:00");
  // Elapsed: from 0, labelled h:mm.
  EXPECT_EQ(svg::time_ticks({0, 30}, 4, 0, &step), (std::vector<double>{0, 10, 20, 30}));
  EXPECT_EQ(svg::time_tick_label(90, 0, false), "1:30");
  EXPECT_EQ(svg::time_tick_label(0, 0, false), "0:00");
  // Short: a minute apart at least; empty, reversed or non-finite ranges, none.
  EXPECT_EQ(svg::time_ticks({0, 3}, 10, 0.5, &step), (std::vector<double>{0.5, 1.5, 2.5}));
  EXPECT_EQ(step, 1.0);
  EXPECT_TRUE(svg::time_ticks({1, 1}, 5, 0, nullptr).empty());
  EXPECT_TRUE(svg::time_ticks({2, 1}, 5, 0, nullptr).empty());
  EXPECT_TRUE(svg::time_ticks({0, kInf}, 5, 0, nullptr).empty());
}

TEST(Svg, TickLabelsHaveTheStepsDecimals) {
  EXPECT_EQ(svg::tick_label(2.0, 1.0), "2");
  EXPECT_EQ(svg::tick_label(0.5, 0.5), "0.5");
  EXPECT_EQ(svg::tick_label(0.25, 0.05), "0.25");
  EXPECT_EQ(svg::tick_label(2e6, 1e6), "2e+06");    // large: %.3g
  EXPECT_EQ(svg::tick_label(2e-5, 1e-5), "2e-05");  // small step: %.3g
}

TEST(Svg, ExtentIgnoresNonFiniteAndWidensAConstant) {
  svg::Extent e;
  EXPECT_TRUE(e.empty());
  e.add(kNaN);
  e.add(kInf);
  EXPECT_TRUE(e.empty());
  const svg::Range none = e.range();
  EXPECT_EQ(none.lo, 0.0);
  EXPECT_EQ(none.hi, 1.0);
  e.add(5.0);
  const svg::Range one = e.range();  // a single value: +-10 %
  EXPECT_DOUBLE_EQ(one.lo, 4.5);
  EXPECT_DOUBLE_EQ(one.hi, 5.5);
  e.add_all(std::vector<float>{1.0f, 9.0f});
  const svg::Range padded = e.range(0.25);
  EXPECT_DOUBLE_EQ(padded.lo, -1.0);
  EXPECT_DOUBLE_EQ(padded.hi, 11.0);
}

TEST(Svg, ColourMaps) {
  EXPECT_EQ(svg::hex_colour(0x0a0b0c), "#0a0b0c");
  EXPECT_EQ(svg::hex_colour(0xff123456), "#123456");  // bits above 24 dropped
  EXPECT_EQ(svg::viridis(0.0), "#440154");             // the first and last stops exactly
  EXPECT_EQ(svg::viridis(1.0), "#fde725");
  EXPECT_EQ(svg::viridis(-1.0), "#440154");  // clamped
  EXPECT_EQ(svg::viridis(2.0), "#fde725");
  EXPECT_EQ(svg::viridis(kNaN), "#440154");  // NaN as 0
}

TEST(Svg, FigureHoldsItsTitleAndPlots) {
  svg::Figure f("A <title>", 200, 100);
  svg::Plot p(200, 100, {0, 1}, {0, 1});
  p.line({0, 0.5, kNaN, 1}, {0, 1, 1, 0}, svg::Stroke{});
  f.add(p, 0, 0);
  const std::string s = f.str();
  EXPECT_EQ(s.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(s.find("<title>A &lt;title&gt;</title>"), std::string::npos);
  EXPECT_NE(s.find("<path"), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 7), "</svg>\n");
}

TEST(TimeFormat, MomentsAndDurations) {
  using ecgpipe::detail::clock_duration;
  using ecgpipe::detail::recording_time;
  EXPECT_EQ(clock_duration(0.0), "0:00.0");
  EXPECT_EQ(clock_duration(83.44), "1:23.4");
  EXPECT_EQ(clock_duration(3600.0 + 62.5), "1:01:02.5");
  EXPECT_EQ(clock_duration(-1.0), "n/a");
  EXPECT_EQ(clock_duration(kNaN), "n/a");
  EXPECT_EQ(recording_time(0.0), "0:00:00.0");
  EXPECT_EQ(recording_time(83.44), "0:01:23.4");
  EXPECT_EQ(recording_time(3600.0 + 62.5), "1:01:02.5");
  // Seconds that round up to 60.0 carry into the minute (and the hour); this printed 0:00:60.0.
  EXPECT_EQ(recording_time(59.96), "0:01:00.0");
  EXPECT_EQ(recording_time(3599.97), "1:00:00.0");
  EXPECT_EQ(recording_time(59.94), "0:00:59.9");
  EXPECT_EQ(clock_duration(59.96), "1:00.0");
  EXPECT_EQ(clock_duration(3599.97), "1:00:00.0");
  EXPECT_EQ(clock_duration(std::nextafter(120.0, 0.0)), "2:00.0");
  EXPECT_EQ(recording_time(-1.0), "n/a");
  EXPECT_EQ(recording_time(kNaN), "n/a");
}
