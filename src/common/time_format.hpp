// Internal: times as people read them, one home for both layouts. A moment in a recording (a
// beat's time, where a window starts) is a recording_time everywhere, so that a beat found in
// outliers.csv reads the same in report.html; clock_duration is for lengths of time only.
#pragma once

#include <optional>
#include <string>

namespace ecgpipe::detail {

// A recording's start as SignalSource::start_time gives it ("YYYY-MM-DD hh:mm:ss[.fff]" or
// "hh:mm:ss[.fff]"): the seconds after midnight and the date ("YYYY-MM-DD", or empty); nothing
// for anything else (empty, malformed, out of range, trailing text). The report's clock and the
// viewer's time axis read it.
struct ClockStart {
  double of_day_s = 0.0;
  std::string date;
};
std::optional<ClockStart> parse_clock_start(const std::string& recording_start);

// A moment in a recording, h:mm:ss.s always (outliers.csv's `time` column, one fixed layout per
// column; report.html's outlier panels, signal excerpt and Holter times); "n/a" for a negative or
// non-finite time.
std::string recording_time(double seconds);

// A length of time: m:ss.s, or h:mm:ss.s past an hour (report.html: how long a recording is);
// "n/a" for a negative or non-finite duration. Shorter than recording_time because a duration
// stands alone, not beside other times in a column.
std::string clock_duration(double seconds);

// A length or moment as h:mm:ss rounded to the whole second, hours not wrapping at 24 ("1:02:03",
// "0:00:59", "27:00:00"), as Holter reports and the batch summary print it; empty for a negative,
// non-finite or absurd time (past 10^15 s: no recording is that long, and llround would overflow).
std::string whole_second_time(double seconds);

}  // namespace ecgpipe::detail
