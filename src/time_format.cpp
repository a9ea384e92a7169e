// Times in a recording as people read them (src/detail/time_format.hpp).
#include "detail/time_format.hpp"

#include <cmath>
#include <cstdio>

namespace ecgpipe::detail {
namespace {
constexpr int kSecondsPerMinute = 60, kMinutesPerHour = 60, kSecondsPerHour = kSecondsPerMinute * kMinutesPerHour;
}  // namespace

std::string clock_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "n/a";
  const auto whole_minutes = static_cast<long long>(seconds / kSecondsPerMinute);
  const double s = seconds - static_cast<double>(whole_minutes) * kSecondsPerMinute;
  char buf[64];
  if (whole_minutes >= kMinutesPerHour) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%04.1f", whole_minutes / kMinutesPerHour,
                  whole_minutes % kMinutesPerHour, s);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%04.1f", whole_minutes, s);
  }
  return buf;
}

std::string recording_time(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "n/a";  // before the cast: NaN to long is undefined
  const auto whole = static_cast<long>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%04.1f", whole / kSecondsPerHour, whole % kSecondsPerHour / kSecondsPerMinute,
                seconds - static_cast<double>(whole - whole % kSecondsPerMinute));
  return buf;
}

}  // namespace ecgpipe::detail
