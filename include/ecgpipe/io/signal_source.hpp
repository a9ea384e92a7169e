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
// The second lead (issue 24: the beat classifier's lead2 model): --lead2 when given (a name or
// index; "none": none); else (auto) the first other signal of the recording whose name is an ECG
// lead's (is_ecg_lead_name) and which has the primary's rate (EDF) and is no time or index column
// (CSV). A CSV without a header has no names, so no automatic second lead.
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
  // The second lead, as `column` (the reader's column for it: its 0-based index; empty: none) and
  // its name ("signal 'V1' (1)").
  std::string lead2_column;
  std::string lead2_name;
  std::string start_time;  // "YYYY-MM-DD hh:mm:ss" or "hh:mm:ss" from a header; empty: unknown
  std::string units;       // the signal's physical units ("mV", "uV"); empty: unknown (CSV)
  std::vector<std::string> warnings;  // said loudly: stderr, report.json, the report's banner

  // "WFDB, 360 Hz (WFDB header), signal 'MLII' (0), second lead signal 'V1' (1)": the summary line
  // and the report say it.
  std::string description() const;
};

// Whether `path` is read once, from its start: a pipe, a FIFO or a socket (/dev/stdin of a shell
// pipeline; a path that cannot be stat'ed is not: its reader says why; /dev/null is read as the
// empty file it reads as). Nothing can be looked at ahead of its reader, and a second pass would
// find it empty or wait for a writer for ever, so such a recording is read whole, once
// (run_pipeline).
bool is_read_once(const std::string& path);

// Resolves `path` as above; `fs_option`: --fs when given; `default_fs`: the rate without one.
// A CSV that is read once (is_read_once) needs --column and --fs and has no second lead (UsageError
// for a missing one or a --lead2 that names one): its header cannot be looked at first.
// InputError for an unreadable file or a monotonic CSV column given by --column (a time
// column whose steps give a rate outside kMinFs..kMaxFs is not used, with a warning); UsageError when --fs and a WFDB or EDF header's rate differ (the
// windows scale with the rate, so a silent mismatch detects nonsense). --fs against a time
// column's rate: --fs is used and a warning says so (the column's units may not be its name's).
SignalSource resolve_signal_source(const std::string& path, const CsvOptions& csv, std::optional<double> fs_option,
                                   double default_fs);

// A start the caller gives (`--start`, the Python package's start=; `what` names it in the
// messages): UsageError unless the report reads it as a start (common/time_format.hpp:
// 'YYYY-MM-DD hh:mm:ss' or 'hh:mm:ss').
void check_given_start(const std::string& text, const std::string& what);
// `source`'s start from `text` (checked as check_given_start checks it) where its file says none
// (a CSV); where the file says one (a WFDB or EDF header: `input` names it), another time or date
// is a UsageError, as a header's rate and another --fs are, and the same one is kept (with
// `text`'s date where the header has a time alone).
void apply_given_start(const std::string& text, const std::string& what, const std::string& input, SignalSource& source);

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

// True for a signal name that names an ECG lead, in any case, blanks and a "lead" prefix ignored:
// one starting with ECG or EKG (SVDB's ECG1/ECG2, EDF's "ECG II"), or a lead's own name: I, II,
// III, aVR, aVL, aVF, V1..V6, the modified limb leads MLI..MLIII (MIT-BIH's MLII), ML1..ML5,
// MV1..MV6, D1..D3, CM1..CM6, CC5. What --lead2 auto may take: a respiration, EEG or time column is
// none of these.
bool is_ecg_lead_name(const std::string& name);

// --lead2 `option` among signals `names` (the primary: `primary`; usable[i]: may be a lead, e.g.
// the same rate): "none" or, under "auto", no other usable ECG-named signal: nullopt; "auto": the
// first such; else the signal of that name, else of that 0-based index. UsageError naming `where`
// for a name or index that is no signal, the primary itself, or an unusable one (`why_unusable`).
std::optional<std::size_t> pick_second_lead(const std::string& option, const std::vector<std::string>& names,
                                            std::size_t primary, const std::vector<char>& usable,
                                            const std::string& why_unusable, const std::string& where);

}  // namespace ecgpipe
