// Internal: times as people read them, one home for both layouts. A moment in a recording (a
// beat's time, where a window starts) is a recording_time everywhere, so that a beat found in
// outliers.csv reads the same in report.html; clock_duration is for lengths of time only.
#pragma once

#include <string>

namespace ecgpipe::detail {

// A moment in a recording, h:mm:ss.s always (outliers.csv's `time` column, one fixed layout per
// column; report.html's outlier panels, signal excerpt and Holter times); "n/a" for a negative or
// non-finite time.
std::string recording_time(double seconds);

// A length of time: m:ss.s, or h:mm:ss.s past an hour (report.html: how long a recording is);
// "n/a" for a negative or non-finite duration. Shorter than recording_time because a duration
// stands alone, not beside other times in a column.
std::string clock_duration(double seconds);

}  // namespace ecgpipe::detail
