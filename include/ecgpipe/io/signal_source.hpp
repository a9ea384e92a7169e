// What a recording is read as: its format, the signal (CSV column, WFDB or EDF signal) and the
// sampling rate, each with where it came from, so that no default that changes the results is
// taken silently (issue 27: a 360 Hz CSV read as 250 Hz; a `time,ECG` CSV analysed on `time`).
//
// The rate: --fs when given; else the WFDB or EDF header's; else, for a CSV, a time column's
// (a first column named time, t, sec, seconds, time_s, time_ms, ms, timestamp or elapsed, any
// case, optionally with a unit in brackets: the median step of its first rows, seconds unless the
// name says ms); else the default (250 Hz, the seed's) with a warning that says so.
// The CSV column: --column when given; else `heartbeats` when the header has it (the seed's file);
// else the first column that is neither named as a time nor only rising or falling over its first
// rows (an index). A column given by --column whose first rows only rise or only fall (a time or
// index column, not an ECG) is an InputError naming it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/io/csv.hpp"

namespace ecgpipe {

struct SignalSource {
  std::string format;     // "CSV", "WFDB", "EDF", "EDF+", "BDF", "BDF+"
  double fs = 0.0;
  std::string fs_source;  // "--fs", "WFDB header", "EDF header", "time column 'time'", "default"
  bool fs_is_default = false;  // no rate anywhere: the default was used (warnings say so)
  // The signal to read: CsvOptions::column for the readers (a CSV column chosen here is given by
  // its 0-based index), and how to name it ("column 'ECG' (1)", "signal 'MLII' (0)").
  std::string column;
  std::string signal_name;
  std::string start_time;  // "YYYY-MM-DD hh:mm:ss" or "hh:mm:ss" from a header; empty: unknown
  std::string units;       // the signal's physical units ("mV", "uV"); empty: unknown (CSV)
  std::vector<std::string> warnings;  // said loudly: stderr, report.json, the report's banner

  // "360 Hz (WFDB header), signal 'MLII' (0)": the summary line and the report say it.
  std::string description() const;
};

// Resolves `path` as above; `fs_option`: --fs when given; `default_fs`: the rate without one.
// InputError for an unreadable file or a monotonic CSV column given by --column (a time
// column whose steps give a rate outside kMinFs..kMaxFs is not used, with a warning); UsageError when --fs and a WFDB or EDF header's rate differ (the
// windows scale with the rate, so a silent mismatch detects nonsense). --fs against a time
// column's rate: --fs is used and a warning says so (the column's units may not be its name's).
SignalSource resolve_signal_source(const std::string& path, const CsvOptions& csv, std::optional<double> fs_option,
                                   double default_fs);

// resolve_signal_source's CSV half over the first bytes of the file (`text`, at most 256 KiB are
// read; `path` names it in messages): fills s.format, column, signal_name, warnings and, from a
// time column, fs and fs_source. The fuzzed core (tests/fuzz/fuzz_csv_column.cpp).
void resolve_csv_source(std::string_view text, const std::string& path, const CsvOptions& csv,
                        std::optional<double> fs_option, SignalSource& s);

// The rate a time column's values give: `values` the first rows of that column, `name` its header
// (a name ending in "ms" or "(ms)"/"[ms]" is milliseconds, else seconds): 1 / the mean step.
// nullopt when the times are not an even grid: every step equal to the mean within 1 % or within
// the unit the times are written in (a clock rounded to whole ms passes; a gap, a repeat or a
// column of beat times does not).
std::optional<double> rate_from_time_column(const std::vector<double>& values, const std::string& name);

// True for a header name that names a time column (see above).
bool is_time_column_name(const std::string& name);

}  // namespace ecgpipe
