// Internal (report.html): times as a Holter report prints them. A moment in the recording is a
// clock time when the recording's start is known (a cardiologist compares it with the patient's
// diary), else the time elapsed from the start; both to the second, as Holter reports do (the
// 0.1 s of recording_time, src/common/time_format.hpp, stays for outliers.csv and the model
// appendix, where it must match beats.csv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ecgpipe {

// What a table cell shows for a value that is missing or undefined (NaN, no data).
inline constexpr const char* kNoValue = "—";

// A length of time as h:mm:ss rounded to the second ("1:02:03", "0:00:59"); kNoValue for a
// negative or non-finite one.
std::string hms(double seconds);

// Moments in the recording, from ReportData::recording_start.
class ReportClock {
 public:
  // `recording_start`: "YYYY-MM-DD HH:MM:SS" or "HH:MM:SS" (seconds may have a fraction); anything
  // else (empty, malformed, out of range) leaves the clock unknown and times elapsed.
  explicit ReportClock(const std::string& recording_start);

  bool known() const { return start_s_.has_value(); }
  // The start's seconds after midnight, or nothing where it is unknown.
  std::optional<double> start_of_day_s() const { return start_s_; }

  // The moment `t_s` seconds into the recording: "08:17:03" ("00:02:10 (day 2)" past midnight)
  // with a known start, else elapsed "0:02:03"; kNoValue for a negative or non-finite time.
  std::string at(double t_s) const;
  // An hour of the hourly table from its span in the recording (HolterHour::start_s / end_s):
  // "08:15–09:00", "09:00–10:00", "10:00–10:11:40" (a bound off the minute to the second it lies
  // in), "00:00–01:00 (day 2)" past midnight, or elapsed "0:00–1:00", "1:00–1:30"; kNoValue for a
  // negative or non-finite bound.
  std::string hour_span(double start_s, double end_s) const;
  // The seconds into a clock hour at which the recording starts (HolterOptions::hour_phase_s):
  // 930 for 08:15:30, 0 when the start is unknown.
  double hour_phase_s() const;
  // What "recording start" reads: the date and time, or why times are elapsed.
  std::string start_text() const;
  // How the page's times read: "clock time" or "elapsed time from the start of the recording".
  const char* times_are() const;

 private:
  std::optional<double> start_s_;  // seconds after midnight
  std::string date_;               // "YYYY-MM-DD", or empty
  std::string raw_;                // as given (shown, escaped, when it cannot be read)
};

}  // namespace ecgpipe
