// What a recording is read as (see signal_source.hpp).
#include "ecgpipe/io/signal_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "common/text.hpp"
#include "common/time_format.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "io/csv_internal.hpp"

namespace ecgpipe {
namespace {

// The first rows of a CSV are enough to tell a time column and a monotonic one: 2000 rows are 8 s
// at 250 Hz, and 256 KiB hold them with room to spare for wide rows.
constexpr std::size_t kProbeBytes = std::size_t{256} << 10;
constexpr std::size_t kProbeRows = 2000;
// A column is refused as "monotonic" only from this many rows on: a short test signal may rise.
constexpr std::size_t kMinMonotonicRows = 200;
// --fs and a declared rate agree within 1 % (a time column's clock may be logged rounded).
constexpr double kRateTolerance = 0.01;


std::string fmt_hz(double fs) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g Hz", fs);
  return buf;
}

// The first kProbeBytes of a regular file; nothing of anything else. A FIFO is not even opened:
// opening and closing it let its writer in and then killed it with SIGPIPE, and the reader
// waited for another writer for ever.
std::string probe_bytes(const std::string& path) {
  if (is_read_once(path)) return {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    out.resize(kProbeBytes);
    std::size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::read(fd, &out[got], out.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
  }
  ::close(fd);
  return out;
}

// The header names and the first rows' values of a CSV, split as the reader splits them
// (csv.hpp: a UTF-8 BOM skipped, a final CR dropped, header_names). A value is NaN for a cell the
// reader would refuse (parse_cell), else the cell read as double: a time column's steps need it
// (float32 loses a clock's steps past ~2^24 s).
struct CsvProbe {
  std::optional<std::string> header;         // the header line, when the probe met one
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;  // [column][row]
};

CsvProbe probe_csv(std::string_view text, const CsvOptions& csv, const std::string& path) {
  CsvProbe p;
  const bool truncated = text.size() == kProbeBytes;
  bool header_done = !csv.has_header;
  std::size_t rows = 0;
  text::for_each_line(text, [&](std::string_view line, std::size_t number) {
    line = csv_internal::reader_view(line);
    if (is_blank_line(line)) return true;
    // Without a header every column is numbers, and no number holds a ';' (the header's own check
    // is resolve_column's, which a FIFO's reader meets too).
    if (!csv.has_header && line.find(';') != std::string_view::npos)
      csv_internal::throw_semicolon_separated(path + ":" + std::to_string(number) + ":", line);
    if (!header_done) {
      p.header = std::string(line);
      for (auto n : header_names(line)) p.names.emplace_back(n);
      header_done = true;
      return true;
    }
    const std::vector<std::string_view> cells = csv_fields(line);
    if (p.columns.size() < cells.size()) p.columns.resize(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      float f = 0.0f;
      double v = std::nan("");
      if (parse_cell(cells[i], f)) {
        const std::string cell = text::trim(std::string(cells[i]));
        v = std::strtod(cell.c_str(), nullptr);
      }
      p.columns[i].push_back(v);
    }
    return ++rows < kProbeRows;
  });
  // The probe may end inside a line: its last row may be cut short, so it is dropped.
  if (truncated)
    for (auto& c : p.columns)
      if (!c.empty()) c.pop_back();
  return p;
}

// The unit the values are written in: the largest 10^-k (k = 0..9) they are all whole multiples
// of (1 for whole ms, 1e-6 for "%.6f" seconds); 0 when none is.
double written_unit(const std::vector<double>& values) {
  double unit = 1.0;
  for (int k = 0; k <= 9; ++k, unit /= 10.0) {
    const bool whole = std::all_of(values.begin(), values.end(), [unit](double v) {
      const double q = v / unit;
      return std::abs(q - std::round(q)) <= 1e-6 * std::max(1.0, std::abs(q)) + 1e-6;
    });
    if (whole) return unit;
  }
  return 0.0;
}

bool monotonic(const std::vector<double>& v) {
  if (v.size() < kMinMonotonicRows) return false;
  bool rising = true, falling = true;
  for (std::size_t i = 1; i < v.size() && (rising || falling); ++i) {
    if (!(v[i] > v[i - 1])) rising = false;
    if (!(v[i] < v[i - 1])) falling = false;
  }
  return rising || falling;
}

std::string quoted(const std::string& s) { return "'" + text::shorten(s, 60) + "'"; }

}  // namespace

void resolve_csv_source(std::string_view text, const std::string& path, const CsvOptions& csv,
                        std::optional<double> fs_option, SignalSource& s) {
  s.format = "CSV";
  const CsvProbe p = probe_csv(text, csv, path);
  const std::size_t ncols = std::max(p.names.size(), p.columns.size());

  // The column to read, by the rules of signal_source.hpp.
  std::size_t chosen = 0;
  bool found = false;
  std::optional<std::size_t> time_col;
  if (csv.has_header && !p.names.empty() && is_time_column_name(p.names[0])) time_col = 0;
  if (!csv.column.empty()) {
    // Passed on as given; resolved as the reader resolves it (a name, else an index; its errors),
    // where the probe has the header (a file without one: by index).
    s.column = csv.column;
    if (p.header || !csv.has_header) {
      chosen = resolve_column(p.header.value_or(""), csv, path).index;
      found = true;
    }
  } else {
    const auto it = std::find(p.names.begin(), p.names.end(), "heartbeats");
    if (it != p.names.end()) {
      chosen = static_cast<std::size_t>(it - p.names.begin());
    } else {
      // The first column that is neither named as a time nor only rising or falling (an index);
      // none such: column 0, refused below as monotonic if it is.
      for (std::size_t i = 0; i < ncols; ++i) {
        const bool time_named = csv.has_header && i < p.names.size() && is_time_column_name(p.names[i]);
        if (!time_named && !(i < p.columns.size() && monotonic(p.columns[i]))) {
          chosen = i;
          break;
        }
      }
    }
    found = true;
    s.column = std::to_string(chosen);
  }
  if (found) {
    const bool named = csv.has_header && chosen < p.names.size();
    s.signal_name = named ? "column " + quoted(p.names[chosen]) + " (" + std::to_string(chosen) + ")"
                          : "column " + std::to_string(chosen);
    if (chosen < p.columns.size() && monotonic(p.columns[chosen])) {
      throw InputError(path + ": " + s.signal_name + " only " +
                       (p.columns[chosen][1] > p.columns[chosen][0] ? "rises" : "falls") + " over its first " +
                       std::to_string(p.columns[chosen].size()) +
                       " rows: a time or index column, not an ECG; choose the signal with --column");
    }
    // The second lead: another column, no time or index column, named as a lead under auto.
    std::vector<std::string> names(ncols);
    std::vector<char> usable(ncols, 1);
    for (std::size_t i = 0; i < ncols; ++i) {
      if (csv.has_header && i < p.names.size()) names[i] = p.names[i];
      const bool time_named = csv.has_header && i < p.names.size() && is_time_column_name(p.names[i]);
      usable[i] = !time_named && !(i < p.columns.size() && monotonic(p.columns[i]));
    }
    if (const auto lead2 = pick_second_lead(csv.lead2, names, chosen, usable, "a time or index column", path)) {
      s.lead2_column = std::to_string(*lead2);
      s.lead2_name = names[*lead2].empty() ? "column " + s.lead2_column
                                           : "column " + quoted(names[*lead2]) + " (" + s.lead2_column + ")";
    }
  } else {
    s.signal_name = "column " + quoted(csv.column);
  }

  // The rate.
  if (time_col && chosen != *time_col && *time_col < p.columns.size()) {
    // The time column's rows up to its first cell that is not a number.
    std::vector<double> t;
    for (double v : p.columns[*time_col]) {
      if (std::isnan(v)) break;
      t.push_back(v);
    }
    if (const auto fs = rate_from_time_column(t, p.names[*time_col])) {
      if (!(*fs >= kMinFs && *fs <= kMaxFs)) {
        // Not a sampling clock (beat times, minutes, another unit than its name says): not used.
        char buf[256];
        std::snprintf(buf, sizeof buf, ": the time column %s gives %g Hz, outside %g..%g Hz: not used",
                      quoted(p.names[*time_col]).c_str(), *fs, kMinFs, kMaxFs);
        s.warnings.push_back(path + buf);
      } else if (!fs_option) {
        s.fs = *fs;
        s.fs_source = "time column " + quoted(p.names[*time_col]);
      } else if (std::abs(*fs_option - *fs) > kRateTolerance * *fs) {
        // --fs wins over a column that may be in other units than its name says, but not quietly.
        char buf[256];
        std::snprintf(buf, sizeof buf, "--fs %g is used, but the time column %s of %s says %g Hz", *fs_option,
                      quoted(p.names[*time_col]).c_str(), path.c_str(), *fs);
        s.warnings.emplace_back(buf);
      }
    } else if (!fs_option) {
      s.warnings.push_back("the time column " + quoted(p.names[*time_col]) + " of " + path +
                           " has irregular steps: its rate is not used");
    }
  }
}

bool is_time_column_name(const std::string& name) {
  std::string n = text::lower(std::string(header_name(name)));
  // A unit in brackets: "time (s)", "Time [ms]".
  if (const auto b = n.find_first_of("(["); b != std::string::npos) n = std::string(header_name(n.substr(0, b)));
  static const char* const kNames[] = {"time", "t", "sec", "secs", "seconds", "time_s", "time_sec", "time_ms",
                                       "ms", "timestamp", "elapsed", "elapsed_time", "elapsed time", "time_stamp"};
  return std::any_of(std::begin(kNames), std::end(kNames), [&](const char* k) { return n == k; });
}

std::optional<double> rate_from_time_column(const std::vector<double>& values, const std::string& name) {
  if (values.size() < 3) return std::nullopt;
  // Every step equals the mean step within 1 % or within the unit the times are written in (a
  // clock at 360 Hz logged in whole ms steps 2 or 3 ms). That refuses gaps, repeats and beat
  // times (whose steps vary by more than their written unit).
  const double mean = (values.back() - values.front()) / static_cast<double>(values.size() - 1);
  if (!(mean > 0) || !std::isfinite(mean)) return std::nullopt;
  const double slack = std::max(kRateTolerance * mean, written_unit(values)) * (1.0 + 1e-9);
  for (std::size_t i = 1; i < values.size(); ++i)
    if (!(std::abs(values[i] - values[i - 1] - mean) <= slack)) return std::nullopt;
  const std::string n = text::lower(std::string(header_name(name)));
  const bool ms = n == "ms" || (n.size() > 2 && n.compare(n.size() - 2, 2, "ms") == 0) ||
                  n.find("(ms)") != std::string::npos || n.find("[ms]") != std::string::npos;
  return (ms ? 1000.0 : 1.0) / mean;
}

std::string SignalSource::description() const {
  std::string d = format + ", " + fmt_hz(fs) + " (" + fs_source + ")";
  if (!signal_name.empty()) d += ", " + signal_name;
  if (!lead2_name.empty()) d += ", second lead " + lead2_name;
  return d;
}

bool is_ecg_lead_name(const std::string& name) {
  std::string n;
  for (const char c : text::lower(name))
    if (!std::isspace(static_cast<unsigned char>(c))) n += c;
  if (n.rfind("lead", 0) == 0) n.erase(0, 4);
  if (n.rfind("ecg", 0) == 0 || n.rfind("ekg", 0) == 0) return true;
  static const char* const kLeads[] = {"i", "ii", "iii", "avr", "avl", "avf", "mli", "mlii", "mliii", "cc5"};
  if (std::any_of(std::begin(kLeads), std::end(kLeads), [&](const char* k) { return n == k; })) return true;
  // A prefix and one digit: V1..V6, MV1..MV6, CM1..CM6, ML1..ML5, D1..D3.
  const auto numbered = [&n](const char* prefix, char last) {
    const std::size_t k = std::char_traits<char>::length(prefix);
    return n.size() == k + 1 && n.compare(0, k, prefix) == 0 && n[k] >= '1' && n[k] <= last;
  };
  return numbered("v", '6') || numbered("mv", '6') || numbered("cm", '6') || numbered("ml", '5') || numbered("d", '3');
}

bool is_read_once(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

std::optional<std::size_t> pick_second_lead(const std::string& option, const std::vector<std::string>& names,
                                            std::size_t primary, const std::vector<char>& usable,
                                            const std::string& why_unusable, const std::string& where) {
  const std::string folded = text::lower(option);
  if (folded == "none") return std::nullopt;
  if (folded == "auto" || option.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (i != primary && i < usable.size() && usable[i] && is_ecg_lead_name(names[i])) return i;
    return std::nullopt;
  }
  std::size_t k = names.size();
  for (std::size_t i = 0; i < names.size() && k == names.size(); ++i)
    if (names[i] == option) k = i;
  if (k == names.size()) {
    std::size_t index = 0;
    const auto [end, ec] = std::from_chars(option.data(), option.data() + option.size(), index);
    if (ec == std::errc() && end == option.data() + option.size() && index < names.size()) k = index;
  }
  if (k == names.size())
    throw UsageError("--lead2 " + quoted(option) + ": " + where + " has no such signal (" + std::to_string(names.size()) +
                     " signals: a name or a 0-based index; auto or none)");
  if (k == primary) throw UsageError("--lead2 " + quoted(option) + " is the primary lead of " + where + " (--column)");
  if (k >= usable.size() || !usable[k])
    throw UsageError("--lead2 " + quoted(option) + " of " + where + " cannot be a second lead: " + why_unusable);
  return k;
}

SignalSource resolve_signal_source(const std::string& path, const CsvOptions& csv, std::optional<double> fs_option,
                                   double default_fs) {
  SignalSource s;
  if (fs_option) {
    s.fs = *fs_option;
    s.fs_source = "--fs";
  }
  if (is_wfdb_record_path(path)) {
    s.format = "WFDB";
    const WfdbHeader h = read_wfdb_header(wfdb_header_path(path));
    // A signal file is read once for each lead it holds (the second lead: again): a FIFO's second
    // open waits for a writer for ever. Refused by name, not opened.
    for (const auto& sig : h.signals) {
      const std::string dat = wfdb_signal_file(h, sig);  // as the reader opens it
      if (is_read_once(dat)) throw InputError(dat + " is a pipe: a WFDB signal file must be a file (it is read more than once)");
    }
    s.column = csv.column;
    // The channel is resolved by the reader (its errors name the file); named here for the log.
    std::size_t ch = 0;
    if (!csv.column.empty()) {
      ch = h.signals.size();
      for (std::size_t i = 0; i < h.signals.size(); ++i)
        if (h.signals[i].description == csv.column || std::to_string(i) == csv.column) ch = i;
    }
    if (ch < h.signals.size()) {
      s.signal_name = "signal " + quoted(h.signals[ch].description) + " (" + std::to_string(ch) + ")";
      s.units = h.signals[ch].units;
      // Every signal of a record has its frame rate (the reader refuses other layouts).
      std::vector<std::string> names;
      for (const auto& sig : h.signals) names.push_back(sig.description);
      if (const auto lead2 = pick_second_lead(csv.lead2, names, ch, std::vector<char>(names.size(), 1), "", wfdb_header_path(path))) {
        s.lead2_column = std::to_string(*lead2);
        s.lead2_name = "signal " + quoted(names[*lead2]) + " (" + s.lead2_column + ")";
      }
    }
    s.start_time = wfdb_start_time(h);
    if (fs_option) check_declared_fs(h.fs, *fs_option, wfdb_header_path(path));
    if (!fs_option) {
      s.fs = h.fs;
      s.fs_source = "WFDB header";
    }
    return s;
  }
  if (is_edf_path(path)) {
    // edflib seeks (the header, then each signal's records): a FIFO fails late with a reason about
    // a malformed header, or, with no writer, its open waits for ever.
    if (is_read_once(path)) throw InputError(path + " is a pipe: an EDF or BDF file must be a file (it is read by seeking)");
    const EdfHeader h = read_edf_header(path);
    const EdfSignalInfo& info = edf_select_signal(h, csv.column);
    s.format = h.type;
    s.column = csv.column;
    s.signal_name = "signal " + quoted(info.label) + " (" + std::to_string(info.index) + ")";
    s.units = info.units;
    s.start_time = h.start;
    std::vector<std::string> names;
    std::vector<char> same_rate;
    for (const auto& sig : h.signals) {
      names.push_back(sig.label);
      same_rate.push_back(sig.fs == info.fs);
    }
    if (const auto lead2 = pick_second_lead(csv.lead2, names, info.index, same_rate, "its rate is not the primary's", path)) {
      s.lead2_column = std::to_string(*lead2);
      s.lead2_name = "signal " + quoted(names[*lead2]) + " (" + s.lead2_column + ")";
    }
    if (!(info.fs >= kMinFs && info.fs <= kMaxFs)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "sampling rate %g Hz is outside %g..%g Hz", info.fs, kMinFs, kMaxFs);
      throw InputError(path + " (signal '" + info.label + "'): " + buf);
    }
    if (fs_option) check_declared_fs(info.fs, *fs_option, path + " (signal '" + info.label + "')");
    if (!fs_option) {
      s.fs = info.fs;
      s.fs_source = "EDF header";
    }
    return s;
  }
  if (is_read_once(path)) {
    // Which column is the ECG (not a time column), a time column's rate and a second lead all
    // come from the header and the first rows, which a pipe only gives the reader: the user says.
    if (csv.column.empty() || !fs_option)
      throw UsageError(path + " is a pipe (read once, from its start): name the signal with --column and "
                       "the rate with --fs, or save it to a file");
    const std::string lead2 = text::lower(csv.lead2);
    if (!(lead2.empty() || lead2 == "auto" || lead2 == "none"))
      throw UsageError("--lead2 " + quoted(csv.lead2) + ": " + path +
                       " is a pipe (read once, from its start): a second lead needs a file");
    resolve_csv_source({}, path, csv, fs_option, s);
    s.signal_name += " (a pipe: read once, no second lead)";
    return s;
  }
  resolve_csv_source(probe_bytes(path), path, csv, fs_option, s);
  if (s.fs_source.empty()) {
    s.fs = default_fs;
    s.fs_source = "default: a CSV has no rate, pass --fs";
    s.fs_is_default = true;
    s.warnings.push_back(path + " has no sampling rate (a CSV without a time column) and no --fs was given: read as " +
                         fmt_hz(default_fs) + "; if that is wrong every rate and interval is wrong");
  }
  return s;
}

namespace {

detail::ClockStart given_start(const std::string& text, const std::string& what) {
  if (const auto c = detail::parse_clock_start(text)) return *c;
  throw UsageError(what + " '" + text::visible(text) + "' is not a start the report reads: give 'YYYY-MM-DD hh:mm:ss' or 'hh:mm:ss'");
}

}  // namespace

void check_given_start(const std::string& text, const std::string& what) { (void)given_start(text, what); }

void apply_given_start(const std::string& text, const std::string& what, const std::string& input, SignalSource& source) {
  const detail::ClockStart given = given_start(text, what);
  if (const auto header = detail::parse_clock_start(source.start_time)) {
    const bool same = header->of_day_s == given.of_day_s && (header->date.empty() || given.date.empty() || header->date == given.date);
    if (!same)
      throw UsageError(what + " '" + text::visible(text) + "' does not match " + input + "'s own start " + source.start_time +
                       " (leave " + what + " out to use it)");
    if (!given.date.empty() && header->date.empty()) source.start_time = text;  // the date added
    return;
  }
  source.start_time = text;
}

}  // namespace ecgpipe
