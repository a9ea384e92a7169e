// Times in a recording as people read them (src/common/time_format.hpp).
#include "common/time_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace ecgpipe::detail {
namespace {
constexpr int kSecondsPerMinute = 60, kMinutesPerHour = 60;

// Whole minutes and the seconds into the minute as "SS.S" (%04.1f, as before), carrying into the
// minute when the seconds round up to 60.0 (59.96 s is 1:00.0, not 0:60.0).
struct MinutesSeconds {
  long long minutes;
  char seconds[16];
};

MinutesSeconds split_minutes(double seconds) {
  // From the whole seconds (an integer division): seconds / 60 in floating point can round up to
  // the next minute just below it and leave a negative remainder.
  MinutesSeconds out{static_cast<long long>(seconds) / kSecondsPerMinute, {}};
  std::snprintf(out.seconds, sizeof out.seconds, "%04.1f", seconds - static_cast<double>(out.minutes) * kSecondsPerMinute);
  if (std::strcmp(out.seconds, "60.0") == 0) {
    ++out.minutes;
    std::snprintf(out.seconds, sizeof out.seconds, "00.0");
  }
  return out;
}

}  // namespace

std::string clock_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "n/a";
  const MinutesSeconds t = split_minutes(seconds);
  char buf[64];
  if (t.minutes >= kMinutesPerHour) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%s", t.minutes / kMinutesPerHour, t.minutes % kMinutesPerHour, t.seconds);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%s", t.minutes, t.seconds);
  }
  return buf;
}

std::string recording_time(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "n/a";  // before the cast: NaN to long is undefined
  const MinutesSeconds t = split_minutes(seconds);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%s", t.minutes / kMinutesPerHour, t.minutes % kMinutesPerHour, t.seconds);
  return buf;
}

std::string whole_second_time(double seconds) {
  constexpr double kLargest = 1e15;
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kLargest) return "";
  const long long t = std::llround(seconds);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

}  // namespace ecgpipe::detail
