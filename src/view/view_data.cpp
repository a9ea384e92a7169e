// Loading an output folder for `ecgpipe view` (view.hpp): report.json, beats.csv, outliers.csv,
// the recording and the reference, each checked with a clear error naming the file.
// fast-cpp-csv-parser's set_file_name copies with strncpy and then terminates the buffer itself;
// GCC 12's -Wstringop-truncation flags the strncpy once it is inlined here (a middle-end warning,
// which the system-header exemption does not cover). Silenced for this header only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#endif
#include <libfccp/csv.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/json_file.hpp"
#include "common/paths.hpp"
#include "common/time_format.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/view/view.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/signal_input.hpp"

namespace ecgpipe {
namespace {

using detail::path_exists;
using detail::path_join;

// `path` if it exists or is absolute, else the same relative path from the output folder's parent
// if it exists there, else `path` (whose error then names it as report.json does).
std::string beside_out_dir(const std::string& path, const std::string& out_dir) {
  if (path.empty() || path.front() == '/' || path_exists(path)) return path;
  std::filesystem::path dir = std::filesystem::path(out_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "out/" -> "out"
  const std::string candidate = (dir.parent_path() / path).string();
  return path_exists(candidate) ? candidate : path;
}

// The viewer reads only regular files: a directory read as beats.csv gave 200 with an empty body,
// a FIFO blocked (issue 25). InputError naming the file otherwise.
void require_regular_file(const std::string& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": missing; OUT_DIR must be the folder of a finished `ecgpipe run` or `score` (" + what + ")");
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file (" + what + ")");
}

nlohmann::json read_report(const std::string& dir) {
  const std::string path = path_join(dir, "report.json");
  require_regular_file(path, "the run's report");
  return read_json_file(path);
}

// fast-cpp-csv-parser's reader for the named columns of an ecgpipe CSV (unquoted, comma
// separated); its errors name the file and line, and become InputErrors.
template <unsigned N>
using CsvReader = io::CSVReader<N, io::trim_chars<' ', '\t'>, io::no_quote_escape<','>>;

template <typename Reader>
void require_columns(const Reader& reader, const std::string& path, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (!reader.has_column(name)) throw InputError(path + ": no column '" + name + "' in the header");
}

// A model cell of beats.csv: empty (no model: `ecgpipe analyze`) gives `empty`; otherwise the whole
// cell must be a number ("nan" included, as beats.csv writes an undefined one). InputError naming
// the file and line for anything else.
double model_cell(const std::string& cell, double empty, const std::string& path, unsigned line, const char* column) {
  if (cell.empty()) return empty;
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size())
    throw InputError(path + ":" + std::to_string(line) + ": " + column + " '" + cell + "' is not a number");
  return v;
}

void read_beats(const std::string& dir, ViewData& d) {
  const std::string path = path_join(dir, "beats.csv");
  require_regular_file(path, "the beats");
  constexpr double kNoScore = std::numeric_limits<double>::quiet_NaN();
  bool any_score = false;
  try {
    CsvReader<4> in(path);
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "r_peak", "score", "outlier", "class");
    require_columns(in, path, {"r_peak"});
    const bool has_class = in.has_column("class");
    std::int64_t r_peak = 0;
    std::string score, outlier, cls = "-";
    while (in.read_row(r_peak, score, outlier, cls)) {
      const unsigned line = in.get_file_line();
      if (r_peak < 0 || (!d.r_peak.empty() && r_peak < d.r_peak.back()))
        throw InputError(path + ":" + std::to_string(line) + ": r_peak " + std::to_string(r_peak) +
                         " is negative or out of order");
      d.r_peak.push_back(r_peak);
      any_score = any_score || !score.empty();
      d.score.push_back(static_cast<float>(model_cell(score, kNoScore, path, line, "score")));
      d.outlier.push_back(model_cell(outlier, 0.0, path, line, "outlier") != 0.0 ? 1 : 0);
      if (has_class) d.beat_class.push_back(cls.empty() ? '-' : cls[0]);
      score.clear(), outlier.clear();  // a missing column leaves the cell as it was
    }
  } catch (const io::error::base& e) {
    throw InputError(std::string("beats.csv: ") + e.what());
  }
  d.has_model = any_score;
}

// rhythm.csv's AF episodes; a folder from before rhythm analysis has no rhythm.csv: none.
void read_rhythm(const std::string& dir, ViewData& d) {
  const std::string path = path_join(dir, "rhythm.csv");
  if (!detail::path_exists(path)) return;
  require_regular_file(path, "the rhythm episodes");
  try {
    CsvReader<3> in(path);
    in.read_header(io::ignore_extra_column, "start_sample", "end_sample", "rhythm");
    std::int64_t start = 0, end = 0;
    std::string rhythm;
    while (in.read_row(start, end, rhythm)) {
      if (start < 0 || end < start || (!d.af_episodes.empty() && start < d.af_episodes.back().second))
        throw InputError(path + ":" + std::to_string(in.get_file_line()) + ": an episode out of order or inside out");
      if (rhythm == "AFIB") d.af_episodes.emplace_back(start, end);
    }
  } catch (const io::error::base& e) {
    throw InputError(std::string("rhythm.csv: ") + e.what());
  }
}

// outliers.csv, with each beat's class (its own `class` column, else beats.csv's for that R peak).
// A folder without a model (beats.csv's scores all empty) has none: no list.
void read_outliers(const std::string& dir, ViewData& d) {
  const std::string path = path_join(dir, "outliers.csv");
  if (!d.has_model && !path_exists(path)) return;
  require_regular_file(path, "the ranked outliers");
  try {
    CsvReader<5> in(path);
    in.read_header(io::ignore_extra_column | io::ignore_missing_column, "rank", "index", "r_peak", "score", "class");
    require_columns(in, path, {"rank", "index", "r_peak", "score"});
    ViewOutlier o;
    std::string cls;
    while (in.read_row(o.rank, o.index, o.r_peak, o.score, cls)) {
      o.beat_class = cls.empty() ? '-' : cls[0];
      if (cls.empty() && !d.beat_class.empty()) {
        const auto at = std::lower_bound(d.r_peak.begin(), d.r_peak.end(), o.r_peak);
        if (at != d.r_peak.end() && *at == o.r_peak) o.beat_class = d.beat_class[static_cast<std::size_t>(at - d.r_peak.begin())];
      }
      d.outliers.push_back(o);
      cls.clear();
    }
  } catch (const io::error::base& e) {
    throw InputError(std::string("outliers.csv: ") + e.what());
  }
}

// Signal units per millivolt: WFDB's and EDF's physical units as their headers spell them.
double units_per_mv(const std::string& units) {
  if (units == "mV") return 1.0;
  if (units == "uV" || units == "\xC2\xB5V" || units == "\xCE\xBCV") return 1000.0;  // u, micro sign, Greek mu
  if (units == "V") return 0.001;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

ViewData load_view_data(const ViewOptions& o) {
  if (!detail::is_directory(o.out_dir)) throw InputError(o.out_dir + ": no such directory (the --out folder of `ecgpipe run`)");
  const nlohmann::json report = read_report(o.out_dir);
  ViewData d;
  d.out_dir = o.out_dir;
  CsvOptions csv;
  try {
    d.recording = o.recording.empty() ? report.at("input").at("path").get<std::string>() : o.recording;
    csv.column = report.at("input").value("column", std::string());
    csv.has_header = report.at("input").value("header", true);
    d.fs = report.at("parameters").at("fs").get<double>();
    d.outlier_threshold = report.value("/outliers/threshold"_json_pointer, 0.0);
    if (o.reference.empty()) d.reference = report.value("/evaluation/reference"_json_pointer, std::string());
    // input.start: the header's date and time as the report read it, or null; absent before issue 27.
    if (const auto st = report.at("input").find("start"); st != report.at("input").end() && st->is_string()) {
      d.start = st->get<std::string>();
      if (const auto clock = detail::parse_clock_start(d.start)) d.start_of_day_s = clock->of_day_s;
    }
    // input.units: a string, or null where unknown (a CSV); absent in reports before issue 27.
    if (const auto u = report.at("input").find("units"); u != report.at("input").end() && u->is_string()) {
      d.units = u->get<std::string>();
      d.units_per_mv = units_per_mv(d.units);
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path_join(o.out_dir, "report.json") + ": lacks the input or parameters record: " + e.what());
  }
  if (!o.reference.empty()) d.reference = o.reference;
  // report.json holds the paths as `run` was given them, relative to where it ran; from
  // elsewhere, try them beside the output folder (`ecgpipe run rec.csv --out out`, then
  // `ecgpipe view some/where/out`).
  if (o.recording.empty()) d.recording = beside_out_dir(d.recording, o.out_dir);
  if (o.reference.empty() && !d.reference.empty()) d.reference = beside_out_dir(d.reference, o.out_dir);
  read_beats(o.out_dir, d);
  read_outliers(o.out_dir, d);
  read_rhythm(o.out_dir, d);

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> signal;
  try {
    signal = read_signal(d.recording, csv, d.fs);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (the recording named in report.json; --recording gives another path)");
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (!d.r_peak.empty() && d.r_peak.back() >= static_cast<std::int64_t>(signal.size()))
    throw InputError(path_join(o.out_dir, "beats.csv") + ": a beat at sample " + std::to_string(d.r_peak.back()) +
                     " lies beyond the recording's " + std::to_string(signal.size()) + " samples (" + d.recording +
                     "): the folder belongs to another recording");
  d.pyramid = Pyramid(std::move(signal));
  const auto t2 = std::chrono::steady_clock::now();
  spdlog::info("view: {} samples read in {:.2f} s, pyramid of {} levels in {:.3f} s", d.pyramid.samples(),
               std::chrono::duration<double>(t1 - t0).count(), d.pyramid.levels(),
               std::chrono::duration<double>(t2 - t1).count());

  if (!d.reference.empty()) {
    const ReferenceBeats ref = read_reference(d.reference);
    // In sample order (the page asks for ranges); a CSV reference need not be sorted.
    std::vector<std::size_t> order(ref.samples.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ref.samples[a] < ref.samples[b]; });
    for (const std::size_t i : order) {
      d.ref_sample.push_back(ref.samples[i]);
      d.ref_symbol.push_back(ref.symbols[i]);
    }
    // The evaluation's matching (EC57: 150 ms, one-to-one), so the highlighted misses and false
    // positives are the ones `ecgpipe eval` counts (without its VF exclusion).
    d.match = match_beats(d.ref_sample, d.r_peak, tolerance_samples(150.0, d.fs));
    spdlog::info("view: reference {}: TP {}, FN {}, FP {}", d.reference, d.match.tp, d.match.fn, d.match.fp);
  }
  return d;
}

}  // namespace ecgpipe
