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

namespace {
// "HH:MM:SS[.fff]" from `text` starting at `pos` to its end, as seconds after midnight.
std::optional<double> parse_time_of_day(const std::string& text, std::size_t pos) {
  constexpr int kHoursPerDay = 24;
  int h = 0, m = 0, consumed = 0;
  double s = 0;
  const std::string rest = text.substr(pos);
  // %n: the whole string must be the time (no trailing text).
  if (std::sscanf(rest.c_str(), "%2d:%2d:%lf%n", &h, &m, &s, &consumed) != 3 ||
      static_cast<std::size_t>(consumed) != rest.size())
    return std::nullopt;
  if (h < 0 || h >= kHoursPerDay || m < 0 || m >= kMinutesPerHour || !(s >= 0) || !(s < kSecondsPerMinute))
    return std::nullopt;
  return static_cast<double>((h * kMinutesPerHour + m) * kSecondsPerMinute) + s;
}
}  // namespace

std::optional<ClockStart> parse_clock_start(const std::string& recording_start) {
  constexpr std::size_t kDateLength = 10;  // YYYY-MM-DD
  constexpr int kMonths = 12, kDaysPerMonth = 31;
  int y = 0, mo = 0, d = 0, consumed = 0;
  if (recording_start.size() > kDateLength + 1 &&
      std::sscanf(recording_start.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &consumed) == 3 &&
      static_cast<std::size_t>(consumed) == kDateLength && recording_start[kDateLength] == ' ') {
    if (mo < 1 || mo > kMonths || d < 1 || d > kDaysPerMonth) return std::nullopt;
    const auto t = parse_time_of_day(recording_start, kDateLength + 1);
    if (!t) return std::nullopt;
    return ClockStart{*t, recording_start.substr(0, kDateLength)};
  }
  const auto t = parse_time_of_day(recording_start, 0);
  if (!t) return std::nullopt;
  return ClockStart{*t, ""};
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
