// Internal: a time in a recording as people read it (one home for both formats).
#pragma once

#include <string>

namespace ecgpipe::detail {

// m:ss.s, or h:mm:ss.s past an hour (report.html: how a reader finds a beat in a recording
// viewer); "n/a" for a negative or non-finite time.
std::string clock_time(double seconds);

// h:mm:ss.s always (outliers.csv's `time` column: one fixed layout per column).
std::string clock_time_hms(double seconds);

}  // namespace ecgpipe::detail
