// Times as a Holter report prints them (src/report/report_time.hpp).
#include "report/report_time.hpp"

#include <cmath>
#include <cstdio>

#include "common/time_format.hpp"

namespace ecgpipe {
namespace {

constexpr long long kSecondsPerMinute = 60, kSecondsPerHour = 3600, kSecondsPerDay = 86400;
constexpr int kMinutesPerHour = 60;

// Whole seconds, or nothing for a negative, non-finite or absurdly large time (a 64-bit count of
// seconds past 10^15 is no recording).
std::optional<long long> whole_seconds(double s) {
  constexpr double kLargest = 1e15;
  if (!std::isfinite(s) || s < 0 || s > kLargest) return std::nullopt;
  return std::llround(s);
}

}  // namespace

std::string hms(double seconds) {
  const std::string t = detail::whole_second_time(seconds);
  return t.empty() ? kNoValue : t;
}

ReportClock::ReportClock(const std::string& recording_start) : raw_(recording_start) {
  if (const auto start = detail::parse_clock_start(recording_start)) {
    start_s_ = start->of_day_s;
    date_ = start->date;
  }
}

std::string ReportClock::at(double t_s) const {
  if (!start_s_) return hms(t_s);
  const auto t = whole_seconds(t_s);
  if (!t) return kNoValue;
  const long long total = *t + std::llround(*start_s_);
  const long long day = total / kSecondsPerDay, of_day = total % kSecondsPerDay;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", of_day / kSecondsPerHour, of_day / kSecondsPerMinute % kMinutesPerHour,
                of_day % kSecondsPerMinute);
  std::string out = buf;
  if (day > 0) out += " (day " + std::to_string(day + 1) + ")";
  return out;
}

std::string ReportClock::hour_span(double start_s, double end_s) const {
  // A bound as the table reads it: on the minute "HH:MM" (elapsed "H:MM"), else to the second it
  // lies in; a clock time wraps at midnight (the row's day follows, below).
  const auto bound = [this](double t_s) -> std::optional<std::string> {
    if (!whole_seconds(t_s)) return std::nullopt;
    double total = t_s + start_s_.value_or(0.0);
    // The spans are k h - phase (holter.cpp): on the hour but for rounding, so snap within 1 us.
    constexpr double kSnap = 1e-6;
    if (std::fabs(total - std::round(total)) < kSnap) total = std::round(total);
    const auto whole = static_cast<long long>(std::floor(total));
    const bool on_minute = static_cast<double>(whole) == total && whole % kSecondsPerMinute == 0;
    const long long shown = start_s_ ? whole % kSecondsPerDay : whole;
    const long long h = shown / kSecondsPerHour, m = shown / kSecondsPerMinute % kMinutesPerHour,
                    sec = shown % kSecondsPerMinute;
    char buf[64];
    if (on_minute)
      std::snprintf(buf, sizeof buf, start_s_ ? "%02lld:%02lld" : "%lld:%02lld", h, m);
    else
      std::snprintf(buf, sizeof buf, start_s_ ? "%02lld:%02lld:%02lld" : "%lld:%02lld:%02lld", h, m, sec);
    return std::string(buf);
  };
  const auto from = bound(start_s), to = bound(end_s);
  if (!from || !to) return kNoValue;
  // A row that starts past the first midnight says its day, as at() does (a 48-h recording has
  // each clock hour twice).
  const auto day = start_s_ ? static_cast<long long>(std::floor((start_s + *start_s_) / kSecondsPerDay + 1e-9)) : 0;
  return *from + "–" + *to + (day > 0 ? " (day " + std::to_string(day + 1) + ")" : "");
}

double ReportClock::hour_phase_s() const { return start_s_ ? std::fmod(*start_s_, static_cast<double>(kSecondsPerHour)) : 0.0; }

std::string ReportClock::start_text() const {
  if (start_s_) return (date_.empty() ? "" : date_ + " ") + at(0.0);
  if (raw_.empty()) return "not in the input: times are elapsed from the start of the recording";
  return "'" + raw_ + "' (not a date and time read here): times are elapsed from the start of the recording";
}

const char* ReportClock::times_are() const {
  return start_s_ ? "clock time" : "elapsed time from the start of the recording";
}

}  // namespace ecgpipe
