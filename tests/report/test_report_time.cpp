// Times as the Holter report prints them (src/report/report_time.hpp): to the second, clock time
// from a readable recording start, elapsed otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "report/report_time.hpp"

namespace {

using ecgpipe::hms;
using ecgpipe::ReportClock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ReportTime, DurationsAreHoursMinutesSecondsRoundedToTheSecond) {
  EXPECT_EQ(hms(0.0), "0:00:00");
  EXPECT_EQ(hms(59.4), "0:00:59");
  EXPECT_EQ(hms(59.5), "0:01:00");  // rounds, carrying into the minute
  EXPECT_EQ(hms(3599.6), "1:00:00");
  EXPECT_EQ(hms(24 * 3600.0 + 62.0), "24:01:02");
  EXPECT_EQ(hms(-1.0), "—");
  EXPECT_EQ(hms(kNaN), "—");
  EXPECT_EQ(hms(std::numeric_limits<double>::infinity()), "—");
  EXPECT_EQ(hms(1e300), "—");
}

TEST(ReportTime, ClockTimeFromADateAndTime) {
  const ReportClock c("2026-11-26 08:15:00");
  ASSERT_TRUE(c.known());
  EXPECT_EQ(c.at(0.0), "08:15:00");
  EXPECT_EQ(c.at(123.4), "08:17:03");
  EXPECT_EQ(c.at(16 * 3600.0 - 1.0), "00:14:59 (day 2)");  // past midnight
  EXPECT_EQ(c.at(kNaN), "—");
  // The hourly table's rows are clock hours: the first from the start to the next hour, the last
  // to the end (the Holter summary's spans, HolterHour::start_s / end_s).
  EXPECT_EQ(c.hour_phase_s(), 900.0);
  EXPECT_EQ(c.hour_span(0.0, 2700.0), "08:15–09:00");
  EXPECT_EQ(c.hour_span(2700.0, 6300.0), "09:00–10:00");
  EXPECT_EQ(c.hour_span(6300.0, 6400.4), "10:00–10:01:40");
  // Past midnight the rows say their day, as at() does: a 48-h Holter's table has each clock hour twice.
  EXPECT_EQ(c.hour_span(14 * 3600.0 + 2700.0, 15 * 3600.0 + 2700.0), "23:00–00:00");
  EXPECT_EQ(c.hour_span(15 * 3600.0 + 2700.0, 16 * 3600.0 + 2700.0), "00:00–01:00 (day 2)");
  EXPECT_EQ(c.hour_span(39 * 3600.0 + 2700.0, 40 * 3600.0 + 2700.0), "00:00–01:00 (day 3)");
  EXPECT_EQ(c.hour_span(kNaN, 1.0), "—");
  EXPECT_EQ(c.start_text(), "2026-11-26 08:15:00");
  EXPECT_STREQ(c.times_are(), "clock time");
}

TEST(ReportTime, ClockTimeFromATimeAloneWithAFraction) {
  const ReportClock c("23:59:59.6");
  ASSERT_TRUE(c.known());
  EXPECT_EQ(c.at(0.0), "00:00:00 (day 2)");  // 23:59:59.6 rounds to midnight
  EXPECT_EQ(c.start_text(), "00:00:00 (day 2)");
  EXPECT_NEAR(c.hour_phase_s(), 3599.6, 1e-9);
  EXPECT_EQ(c.hour_span(0.0, 3600.0 - 3599.6), "23:59:59–00:00");  // a bound inside a second: the second it is in
}

TEST(ReportTime, AnUnreadableStartGivesElapsedTimes) {
  for (const char* bad : {"", "25:00:00", "08:60:00", "08:15:60", "2026-13-01 08:00:00", "2026-11-26 08:15:00 x",
                          "08:15", "nan:00:00", "2026-11-26", "<script>", "08:15:00\n", "-1:00:00"}) {
    const ReportClock c(bad);
    EXPECT_FALSE(c.known()) << bad;
    EXPECT_EQ(c.at(123.4), "0:02:03") << bad;
    EXPECT_EQ(c.hour_phase_s(), 0.0) << bad;
    EXPECT_EQ(c.hour_span(3600.0, 7200.0), "1:00–2:00") << bad;
    EXPECT_EQ(c.hour_span(3600.0, 5400.0), "1:00–1:30") << bad;     // a last hour to the end
    EXPECT_EQ(c.hour_span(3600.0, 5423.7), "1:00–1:30:23") << bad;
    EXPECT_STREQ(c.times_are(), "elapsed time from the start of the recording");
  }
  EXPECT_EQ(ReportClock("").start_text(), "not in the input: times are elapsed from the start of the recording");
  // Shown as given (the page escapes it), saying why it was not used.
  EXPECT_EQ(ReportClock("yesterday").start_text(),
            "'yesterday' (not a date and time read here): times are elapsed from the start of the recording");
  EXPECT_EQ(ReportClock("").hour_span(-1.0, 0.0), "—");
}

}  // namespace
