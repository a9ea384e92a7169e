// The batch summary (see include/ecgpipe/batch/batch_summary.hpp).
#include "ecgpipe/batch/batch_summary.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/paths.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "common/output_set.hpp"
#include "common/file_read.hpp"
#include "common/json_file.hpp"
#include "common/json_number.hpp"
#include "common/text.hpp"
#include "common/time_format.hpp"
#include "common/xml_escape.hpp"
#include "common/json_text.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using detail::is_directory;
using detail::path_exists;
using detail::path_join;

double number(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return kNaN;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}

// A count of report.json: a whole number in 0..1e15 (a file like any other when read back: 1e300
// or -3 or 2.5 is not a count), else -1.
long long count_of(const nlohmann::json& j, const char* key) {
  const double v = number(j, key);
  constexpr double kMaxCount = 1e15;
  return std::isfinite(v) && v >= 0 && v <= kMaxCount && v == std::floor(v) ? static_cast<long long>(v) : -1;
}

// The object at `key` of `j`, or null.
const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kNull;
}

SummaryStat stat_of(const nlohmann::json& j) {
  SummaryStat s;
  s.tp = count_of(j, "tp");
  s.fn = count_of(j, "fn");
  s.fp = count_of(j, "fp");
  if (!s.known()) s = SummaryStat{};  // all three or none
  return s;
}

double ratio(long long num, long long den) {
  return num >= 0 && den > 0 ? static_cast<double>(num) / static_cast<double>(den) : kNaN;
}

constexpr double kSecondsPerHour = 3600.0;

double per_hour(long long n, double analysed_s) {
  return n >= 0 && analysed_s > 0 ? static_cast<double>(n) * kSecondsPerHour / analysed_s : kNaN;
}

// Adds a recording's statistic to the gross one (unknown + known = known).
void add_stat(SummaryStat& sum, const SummaryStat& s) {
  if (!s.known()) return;
  if (!sum.known()) sum = SummaryStat{0, 0, 0};
  sum.tp += s.tp;
  sum.fn += s.fn;
  sum.fp += s.fp;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string f; std::getline(ss, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

int column_of(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

// An output folder's CSV read back, as report.json is: a regular file within the bound of text
// inputs (a FIFO in its place hung summarize; /dev/zero filled memory), or nothing when absent.
std::optional<std::string> read_back(const std::string& path) {
  if (!path_exists(path)) return std::nullopt;
  return read_regular_file(path, kMaxTextInputBytes, "output file");
}

// beats.csv: the heart rate from its R peaks and, when it has a `class` column, the count per class.
void read_beats(const std::string& path, SummaryRow& row) {
  const std::optional<std::string> csv = read_back(path);
  if (!csv) return;  // a row without beats.csv keeps NaN / no classes
  int peak_col = -1, class_col = -1;
  std::int64_t first = -1, last = -1, n = 0;
  text::for_each_line(*csv, [&](std::string_view line, std::size_t number) {
    if (number == 1) {
      const auto header = split_csv_line(std::string(line));
      peak_col = column_of(header, "r_peak");
      class_col = column_of(header, "class");
      return;
    }
    if (line.empty()) return;
    const auto f = split_csv_line(std::string(line));
    if (peak_col >= 0) {
      if (peak_col >= static_cast<int>(f.size())) throw InputError(path + ":" + std::to_string(number) + ": too few fields");
      const std::int64_t p = std::strtoll(f[peak_col].c_str(), nullptr, 10);
      if (first < 0) first = p;
      last = p;
    }
    if (class_col >= 0 && class_col < static_cast<int>(f.size())) ++row.classes[f[class_col]];
    ++n;
  });
  // Mean heart rate over the beats: (beats - 1) intervals between the first and last R peak.
  if (n >= 2 && last > first && row.fs > 0) row.hr_mean_bpm = 60.0 * static_cast<double>(n - 1) * row.fs / static_cast<double>(last - first);
}

void read_outliers(const std::string& path, SummaryRow& row) {
  const std::optional<std::string> csv = read_back(path);
  if (!csv) return;
  int peak = -1, time = -1, score = -1;
  text::for_each_line(*csv, [&](std::string_view line, std::size_t number) {
    const auto f = split_csv_line(std::string(line));
    if (number == 1) {
      peak = column_of(f, "r_peak");
      time = column_of(f, "time_s");
      score = column_of(f, "score");
      return peak >= 0 && time >= 0 && score >= 0;
    }
    if (static_cast<int>(f.size()) <= std::max({peak, time, score})) return false;
    row.top.push_back({std::strtoll(f[peak].c_str(), nullptr, 10), std::strtod(f[time].c_str(), nullptr),
                       std::strtod(f[score].c_str(), nullptr)});
    return row.top.size() < kSummaryTopOutliers;
  });
}

std::string fmt(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Numbers rounded to what they mean (issue 27: no 71.9834 bpm; `rounded`, json_number.hpp):
// `decimals` after the point, empty where unknown; the JSON the same value as a number (null where
// unknown, json_number(v, decimals)), so both files agree.
std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, rounded(v, decimals));
  return buf;
}

// Decimals per kind of figure: heart rate in whole bpm, per-hour counts to 0.1, percentages (of
// AF burden, and Se / +P as `ecgpipe eval` prints them) to 0.01, seconds to 0.01, ratios (Se, +P
// as fractions, AUROC) to 0.0001: the same figure as the percentage's two decimals.
constexpr int kHrDecimals = 0, kPerHourDecimals = 1, kPercentDecimals = 2, kSecondsDecimals = 2, kRatioDecimals = 4;
constexpr double kPercent = 100.0;

std::string percent_cell(double ratio_value) { return fixed(kPercent * ratio_value, kPercentDecimals); }
// index.html's form of a percentage: "99.50%", as `ecgpipe eval` prints it.
std::string percent_text(double ratio_value) {
  const std::string s = percent_cell(ratio_value);
  return s.empty() ? s : s + "%";
}

// A length of time as h:mm:ss (whole seconds; hours do not wrap at 24); empty where unknown.
std::string hms(double seconds) { return detail::whole_second_time(seconds); }

// A count of a row, -1 where unknown: empty in the CSV and the page, null in the JSON.
std::string fmt_count(long long count) { return count >= 0 ? std::to_string(count) : ""; }
nlohmann::json json_count(long long count) { return count >= 0 ? nlohmann::json(count) : nlohmann::json(nullptr); }

// A text cell: RFC 4180 (a field with a comma, quote or line end is quoted, its quotes doubled),
// and, as OWASP recommends against CSV injection, a ' before text that starts with = + - @, tab or
// CR, which a spreadsheet would otherwise evaluate as a formula (record names come from users'
// files). Numbers are written by fmt(), not here, and keep their sign.
std::string csv_field(const std::string& s) {
  const std::string cell = !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos ? "'" + s : s;
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string classes_text(const SummaryRow& r) {
  std::string s;
  for (const auto& [k, v] : r.classes) s += (s.empty() ? "" : " ") + k + ":" + std::to_string(v);
  return s;
}

std::string top_text(const SummaryRow& r) {
  std::string s;
  for (const auto& o : r.top) s += (s.empty() ? "" : " ") + fixed(o.time_s, 1) + "s:" + fixed(o.score, 2);
  return s;
}

// A folder's link target relative to the summary's directory, as a URL path (text::url_path: no
// name can become a scheme such as "javascript:", a query or a fragment).
std::string relative_link(const std::string& folder, const std::string& out_dir, const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path rel = fs::proximate(fs::path(folder), fs::path(out_dir), ec);
  if (ec) rel = folder;
  return text::url_path((rel / file).generic_string());
}

}  // namespace

SummaryRow::SummaryRow()
    : duration_s(kNaN), fs(kNaN), hr_mean_bpm(kNaN), se(kNaN), ppv(kNaN), auroc_abnormal(kNaN), seconds(kNaN),
      af_percent(kNaN), hr_min_bpm(kNaN), hr_max_bpm(kNaN), longest_pause_s(kNaN), analysed_s(kNaN) {}

double SummaryStat::se() const { return known() ? ratio(tp, tp + fn) : kNaN; }
double SummaryStat::ppv() const { return known() ? ratio(tp, tp + fp) : kNaN; }
double SummaryRow::veb_per_hour() const { return per_hour(veb, analysed_s); }
double SummaryRow::sveb_per_hour() const { return per_hour(sveb, analysed_s); }
double SummaryGross::veb_per_hour() const { return per_hour(veb, analysed_s); }
double SummaryGross::sveb_per_hour() const { return per_hour(sveb, analysed_s); }

SummaryGross summary_gross(const std::vector<SummaryRow>& rows) {
  SummaryGross g;
  g.recordings = rows.size();
  long long veb = 0, sveb = 0;
  bool any_ectopy = false;
  for (const SummaryRow& r : rows) {
    if (!r.ok) {
      ++g.failed;
      continue;
    }
    if (std::isfinite(r.duration_s)) g.duration_s += r.duration_s;
    if (r.beats > 0) g.beats += r.beats;
    if (r.veb >= 0 && r.sveb >= 0) {
      any_ectopy = true;
      veb += r.veb;
      sveb += r.sveb;
      if (r.analysed_s > 0) g.analysed_s += r.analysed_s;
    }
    if (r.qrs.known()) {
      ++g.with_reference;
      add_stat(g.qrs, r.qrs);
    } else {
      ++g.without_reference;
    }
    if (r.veb_stat.known() && r.sveb_stat.known()) {
      ++g.with_classes;
      add_stat(g.veb_stat, r.veb_stat);
      add_stat(g.sveb_stat, r.sveb_stat);
    }
  }
  if (any_ectopy) {
    g.veb = veb;
    g.sveb = sveb;
  }
  return g;
}

SummaryRow read_output_folder(const std::string& folder, const std::string& name) {
  SummaryRow row;
  row.name = name;
  row.folder = folder;
  const std::string error_path = path_join(folder, "error.json"), report_path = path_join(folder, "report.json");
  if (path_exists(error_path)) {
    const auto j = read_json_file(error_path);
    // Written by ecgpipe, but a file like any other when read back: every type is checked, and
    // exit_code must be a whole number 1..255 (1e300 was cast to int: UB, -2147483648 shown).
    const auto text = [&](const char* key) {
      const auto it = j.find(key);
      if (it == j.end() || it->is_null()) return std::string();
      if (!it->is_string()) throw InputError(error_path + ": \"" + key + "\" is not a string");
      return it->get<std::string>();
    };
    if (!j.is_object()) throw InputError(error_path + ": not a JSON object");
    row.input = text("input");
    row.error = text("error");
    const auto code = j.find("exit_code");
    if (code == j.end() || !code->is_number() || !(code->get<double>() >= 1 && code->get<double>() <= 255) ||
        code->get<double>() != static_cast<double>(static_cast<int>(code->get<double>())))
      throw InputError(error_path + ": \"exit_code\" is not a whole number in 1..255");
    row.exit_code = static_cast<int>(code->get<double>());
    row.seconds = number(j, "seconds");
    return row;
  }
  if (!path_exists(report_path)) throw InputError(folder + ": neither report.json nor error.json (not an ecgpipe output folder)");
  const auto j = read_json_file(report_path);
  row.ok = true;
  double holter_mean = kNaN;
  try {
    if (!j.is_object()) throw InputError(report_path + ": not a JSON object");
    row.input = j.at("input").value("path", "");
    row.samples = j.at("input").value("samples", -1LL);
    row.fs = number(j.at("parameters"), "fs");
    row.beats = j.at("counts").value("beats", -1LL);
    row.seconds = number(j.at("seconds"), "total");
    row.mode = j.value("mode", "train");
    if (row.samples >= 0 && row.fs > 0) row.duration_s = static_cast<double>(row.samples) / row.fs;
    if (const auto h = j.find("holter"); h != j.end() && h->is_object() && h->contains("af")) {
      const auto& af = h->at("af");
      row.af_percent = number(af, "afib_percent");
      const double episodes = number(af, "afib_episodes");
      if (std::isfinite(episodes) && episodes >= 0 && episodes <= 1e12) row.af_episodes = static_cast<long long>(episodes);
    }
    // The Holter figures (src/classify/holter.cpp holter_json; absent for detect). Each is
    // optional: a report of an earlier ecgpipe, or one without beat classes, lacks some.
    const nlohmann::json& holter = member(j, "holter");
    const nlohmann::json& rate = member(holter, "heart_rate");
    holter_mean = number(rate, "mean_bpm");
    row.hr_min_bpm = number(rate, "min_bpm");
    row.hr_max_bpm = number(rate, "max_bpm");
    row.longest_pause_s = number(member(holter, "longest_pause"), "rr_s");
    row.veb = count_of(member(holter, "veb"), "total");
    row.sveb = count_of(member(holter, "sveb"), "total");
    // Over the time the record's report.html calls analysed (quality: the recording less its
    // artefact), so that the row's per-hour rates are its report's; reports before it had none.
    for (const double analysed : {number(member(j, "quality"), "analysed_s"), number(holter, "analysed_s"),
                                  number(member(holter, "af"), "analysed_s"), number(holter, "duration_s")})
      if (analysed > 0) {
        row.analysed_s = analysed;
        break;
      }
    if (const auto e = j.find("evaluation"); e != j.end() && e->is_object()) {
      row.se = number(*e, "se");
      row.ppv = number(*e, "ppv");
      const auto a = e->find("auroc");
      if (a != e->end() && a->is_object() && a->contains("abnormal")) row.auroc_abnormal = number(a->at("abnormal"), "auroc");
      if (const auto ref = e->find("reference"); ref != e->end() && ref->is_string()) row.reference = ref->get<std::string>();
      row.qrs = stat_of(*e);
      const nlohmann::json& ec57 = member(*e, "ec57");
      row.veb_stat = stat_of(member(ec57, "veb"));
      row.sveb_stat = stat_of(member(ec57, "sveb"));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(report_path + ": missing or malformed field: " + e.what());
  }
  read_beats(path_join(folder, "beats.csv"), row);
  // The Holter's mean (60 x RR intervals / their sum, over the analysed beats) where the report
  // has one; beats.csv's first-to-last R peak otherwise (detect): the same definition.
  if (std::isfinite(holter_mean)) row.hr_mean_bpm = holter_mean;
  read_outliers(path_join(folder, "outliers.csv"), row);
  row.has_report_html = path_exists(path_join(folder, "report.html"));
  return row;
}

std::vector<std::string> output_folders(const std::string& dir) {
  std::vector<std::string> entries, out;
  if (!detail::list_directory(dir, entries)) throw InputError("cannot list directory " + dir);
  for (const std::string& n : entries) {
    const std::string p = path_join(dir, n);
    if (is_directory(p) && (path_exists(path_join(p, "report.json")) || path_exists(path_join(p, "error.json"))))
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<SummaryRow> collect_batch_rows(const std::string& out_dir, const std::vector<BatchOutcome>& outcomes) {
  std::vector<SummaryRow> rows;
  for (const auto& o : outcomes) {
    const std::string folder = path_join(out_dir, o.name);
    try {
      if (o.ok) {
        std::remove(path_join(folder, "error.json").c_str());  // stale, from an earlier failed run
      } else {
        OutputSet f(/*create_dirs=*/true);
        const nlohmann::json j = {{"input", o.path}, {"status", "failed"}, {"exit_code", static_cast<int>(o.code)},
                                  {"error", o.error}, {"seconds", o.seconds}};
        f.text(path_join(folder, "error.json")) << json_text(j, 2) << '\n';
        f.commit();
      }
      rows.push_back(read_output_folder(folder, o.name));
    } catch (const Error& e) {
      // Its folder cannot hold error.json (a name the file system refuses, a full disk): the
      // recording's row comes from the outcome, the summary says so, and the batch goes on to
      // summarise the others (issue 25: it ended with exit 4 and no summary at all).
      SummaryRow row;
      row.name = o.name;
      row.folder = folder;
      row.input = o.path;
      row.ok = false;
      row.exit_code = static_cast<int>(o.ok ? ExitCode::output : o.code);
      row.error = (o.ok ? std::string() : o.error + "; ") + "its folder could not be written: " + e.what();
      row.seconds = o.seconds;
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end(), [](const SummaryRow& a, const SummaryRow& b) { return a.name < b.name; });
  return rows;
}

void remove_summary(const std::string& out_dir) {
  for (const char* name : {"summary.csv", "summary.json", "index.html"}) {
    const std::string path = path_join(out_dir, name);
    if (::unlink(path.c_str()) == 0) spdlog::info("removed the earlier {}: stale once a batch starts (written anew at its end; `ecgpipe summarize` rebuilds it)", path);
  }
}

namespace {

nlohmann::json stat_json(const SummaryStat& s) {
  if (!s.known()) return nullptr;
  return {{"tp", s.tp},
          {"fn", s.fn},
          {"fp", s.fp},
          {"se_percent", json_number(kPercent * s.se(), kPercentDecimals)},
          {"ppv_percent", json_number(kPercent * s.ppv(), kPercentDecimals)}};
}

// What the gross row covers, in words (summary.csv's `input` cell of the GROSS row, index.html).
std::string gross_text(const SummaryGross& g) {
  std::string s = "gross over " + std::to_string(g.recordings - g.failed) + " recordings";
  s += "; Se/+P over the " + std::to_string(g.with_reference) + " with a reference";
  if (g.without_reference > 0) s += " (" + std::to_string(g.without_reference) + " without one left out)";
  if (g.with_reference > 0) s += "; VEB/SVEB over the " + std::to_string(g.with_classes) + " with beat classes";
  if (g.failed > 0) s += "; " + std::to_string(g.failed) + " failed (left out)";
  return s;
}

// The cells of the columns added by issue 27, after `error` (docs/formats.md, "The batch summary").
constexpr const char* kHolterColumns =
    "duration,analysed_s,hr_min_bpm,hr_max_bpm,veb,veb_per_hour,sveb,sveb_per_hour,longest_pause_s,reference,"
    "qrs_tp,qrs_fn,qrs_fp,qrs_se_percent,qrs_ppv_percent,veb_tp,veb_fn,veb_fp,veb_se_percent,veb_ppv_percent,"
    "sveb_tp,sveb_fn,sveb_fp,sveb_se_percent,sveb_ppv_percent";

void stat_cells(std::ostream& c, const SummaryStat& s) {
  c << ',' << fmt_count(s.tp) << ',' << fmt_count(s.fn) << ',' << fmt_count(s.fp) << ',' << percent_cell(s.se()) << ','
    << percent_cell(s.ppv());
}

// "99.50% / 98.00%" for index.html, with the counts as a tooltip; empty when unknown.
std::string stat_html(const SummaryStat& s) {
  if (!s.known()) return "<td></td>";
  const std::string se = s.tp + s.fn > 0 ? percent_text(s.se()) : "-", ppv = s.tp + s.fp > 0 ? percent_text(s.ppv()) : "-";
  return "<td title=\"TP " + std::to_string(s.tp) + ", FN " + std::to_string(s.fn) + ", FP " + std::to_string(s.fp) +
         "\">" + se + " / " + ppv + "</td>";
}

}  // namespace

std::string summary_json(const std::vector<SummaryRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  std::size_t failed = 0;
  for (const auto& r : rows) {
    failed += r.ok ? 0 : 1;
    nlohmann::json top = nlohmann::json::array();
    for (const auto& o : r.top)
      top.push_back({{"r_peak", o.r_peak}, {"time_s", json_number(o.time_s, 1)}, {"score", json_number(o.score, 2)}});
    nlohmann::json j = {{"record", r.name},
                        {"folder", r.folder},
                        {"input", r.input},
                        {"status", r.ok ? "ok" : "failed"},
                        {"exit_code", r.exit_code},
                        {"error", r.ok ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
                        {"mode", r.ok ? nlohmann::json(r.mode) : nlohmann::json(nullptr)},
                        {"duration_s", json_number(r.duration_s, kSecondsDecimals)},
                        {"duration", r.ok && std::isfinite(r.duration_s) ? nlohmann::json(hms(r.duration_s)) : nlohmann::json(nullptr)},
                        {"analysed_s", json_number(r.analysed_s, kSecondsDecimals)},
                        {"fs", json_number(r.fs)},
                        {"samples", json_count(r.samples)},
                        {"beats", json_count(r.beats)},
                        {"hr_mean_bpm", json_number(r.hr_mean_bpm, kHrDecimals)},
                        {"hr_min_bpm", json_number(r.hr_min_bpm, kHrDecimals)},
                        {"hr_max_bpm", json_number(r.hr_max_bpm, kHrDecimals)},
                        {"veb", json_count(r.veb)},
                        {"veb_per_hour", json_number(r.veb_per_hour(), kPerHourDecimals)},
                        {"sveb", json_count(r.sveb)},
                        {"sveb_per_hour", json_number(r.sveb_per_hour(), kPerHourDecimals)},
                        {"longest_pause_s", json_number(r.longest_pause_s, kSecondsDecimals)},
                        {"af_percent", json_number(r.af_percent, kPercentDecimals)},
                        {"af_episodes", json_count(r.af_episodes)},
                        {"reference", r.reference.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.reference)},
                        {"se", json_number(r.se, kRatioDecimals)},
                        {"ppv", json_number(r.ppv, kRatioDecimals)},
                        {"qrs", stat_json(r.qrs)},
                        {"veb_stat", stat_json(r.veb_stat)},
                        {"sveb_stat", stat_json(r.sveb_stat)},
                        {"auroc_abnormal", json_number(r.auroc_abnormal, kRatioDecimals)},
                        {"classes", r.classes.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.classes)},
                        {"top_outliers", top},
                        {"seconds", json_number(r.seconds, kSecondsDecimals)}};
    list.push_back(std::move(j));
  }
  const SummaryGross g = summary_gross(rows);
  const nlohmann::json gross = {{"recordings", g.recordings - g.failed},
                                {"with_reference", g.with_reference},
                                {"without_reference", g.without_reference},
                                {"with_classes", g.with_classes},
                                {"duration_s", json_number(g.duration_s, kSecondsDecimals)},
                                {"duration", hms(g.duration_s)},
                                {"analysed_s", g.veb >= 0 ? json_number(g.analysed_s, kSecondsDecimals) : nlohmann::json(nullptr)},
                                {"beats", g.beats},
                                {"veb", json_count(g.veb)},
                                {"veb_per_hour", json_number(g.veb_per_hour(), kPerHourDecimals)},
                                {"sveb", json_count(g.sveb)},
                                {"sveb_per_hour", json_number(g.sveb_per_hour(), kPerHourDecimals)},
                                {"qrs", stat_json(g.qrs)},
                                {"veb_stat", stat_json(g.veb_stat)},
                                {"sveb_stat", stat_json(g.sveb_stat)}};
  return json_text(nlohmann::json({{"recordings", rows.size()}, {"failed", failed}, {"rows", list}, {"gross", gross}}), 2);
}

void write_summary(const std::string& out_dir, const std::vector<SummaryRow>& rows) {
  OutputSet files(/*create_dirs=*/true);  // the three appear together or not at all
  const SummaryGross g = summary_gross(rows);
  auto& c = files.text(path_join(out_dir, "summary.csv"));
  // The columns before `error` keep their meaning and order (readers of the earlier summary);
  // issue 27's columns follow, and the GROSS row (status `gross`) comes last.
  c << "record,status,exit_code,duration_s,fs,beats,hr_mean_bpm,af_percent,af_episodes,se,ppv,auroc_abnormal,classes,"
       "top_outliers,seconds,input,error,"
    << kHolterColumns << '\n';
  for (const auto& r : rows) {
    c << csv_field(r.name) << ',' << (r.ok ? "ok" : "failed") << ',' << r.exit_code << ','
      << fixed(r.duration_s, kSecondsDecimals) << ',' << fmt(r.fs) << ',' << fmt_count(r.beats) << ','
      << fixed(r.hr_mean_bpm, kHrDecimals) << ',' << fixed(r.af_percent, kPercentDecimals) << ','
      << fmt_count(r.af_episodes) << ',' << fixed(r.se, kRatioDecimals) << ',' << fixed(r.ppv, kRatioDecimals) << ','
      << fixed(r.auroc_abnormal, kRatioDecimals) << ',' << csv_field(classes_text(r)) << ',' << csv_field(top_text(r))
      << ',' << fixed(r.seconds, kSecondsDecimals) << ',' << csv_field(r.input) << ',' << csv_field(r.error) << ','
      << (r.ok ? hms(r.duration_s) : "") << ',' << fixed(r.analysed_s, kSecondsDecimals) << ','
      << fixed(r.hr_min_bpm, kHrDecimals) << ',' << fixed(r.hr_max_bpm, kHrDecimals) << ',' << fmt_count(r.veb) << ','
      << fixed(r.veb_per_hour(), kPerHourDecimals) << ',' << fmt_count(r.sveb) << ','
      << fixed(r.sveb_per_hour(), kPerHourDecimals) << ',' << fixed(r.longest_pause_s, kSecondsDecimals) << ','
      << csv_field(r.reference);
    stat_cells(c, r.qrs);
    stat_cells(c, r.veb_stat);
    stat_cells(c, r.sveb_stat);
    c << '\n';
  }
  // GROSS: sums and the ratios of the sums; the columns that have no gross figure stay empty.
  c << "GROSS,gross,," << fixed(g.duration_s, kSecondsDecimals) << ",," << g.beats << ",,,,"
    << fixed(g.qrs.se(), kRatioDecimals) << ',' << fixed(g.qrs.ppv(), kRatioDecimals) << ",,,,,"
    << csv_field(gross_text(g)) << ",," << hms(g.duration_s) << ','
    << (g.veb >= 0 ? fixed(g.analysed_s, kSecondsDecimals) : "") << ",,,"
    << fmt_count(g.veb) << ',' << fixed(g.veb_per_hour(), kPerHourDecimals) << ',' << fmt_count(g.sveb) << ','
    << fixed(g.sveb_per_hour(), kPerHourDecimals) << ",,";
  stat_cells(c, g.qrs);
  stat_cells(c, g.veb_stat);
  stat_cells(c, g.sveb_stat);
  c << '\n';
  files.text(path_join(out_dir, "summary.json")) << summary_json(rows) << '\n';
  auto& h = files.text(path_join(out_dir, "index.html"));
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ecgpipe: " << rows.size()
    << " recordings</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td.l,th.l{text-align:left}"
       "tr.failed{background:#fde8e8}tr.gross td{font-weight:bold;border-top:2px solid #444}</style></head><body>\n<h1>ecgpipe: "
    << rows.size() << " recordings, " << g.failed << " failed</h1>\n"
    << "<p>summary.csv and summary.json hold the same rows. Times as h:mm:ss; heart rate in bpm (mean over the "
       "analysed beats, min and max of 8-beat averages); VEB and SVEB per hour analysed (* under an hour analysed: "
       "extrapolated); Se / +P as EC57 counts them (TP, FN, FP on hover); the last row sums the recordings (gross "
       "statistics, as WFDB's sumstats).</p>\n"
    << "<table><tr><th class=l>record</th><th>status</th><th>duration</th><th>fs</th><th>beats</th>"
       "<th>HR mean</th><th>HR min</th><th>HR max</th><th>VEB</th><th>VEB/h</th><th>SVEB</th><th>SVEB/h</th>"
       "<th>AF %</th><th>AF episodes</th><th>longest pause s</th><th>QRS Se / +P</th><th>VEB Se / +P</th>"
       "<th>SVEB Se / +P</th><th>AUROC abnormal</th><th class=l>classes</th><th class=l>top outliers (time s: score)</th>"
       "<th>seconds</th><th class=l>input / error</th></tr>\n";
  const auto hour_cell = [](double v, double analysed_s) {
    const std::string s = fixed(v, kPerHourDecimals);
    return s.empty() || analysed_s >= kSecondsPerHour ? s : s + "*";
  };
  for (const auto& r : rows) {
    const std::string target = r.has_report_html ? "report.html" : r.ok ? "beats.csv" : "error.json";
    h << "<tr" << (r.ok ? "" : " class=failed") << "><td class=l><a href=\""
      << xml_escape(relative_link(r.folder, out_dir, target)) << "\">" << xml_escape(r.name) << "</a></td><td>"
      << (r.ok ? "ok" : "failed (" + std::to_string(r.exit_code) + ")") << "</td><td>" << (r.ok ? hms(r.duration_s) : "")
      << "</td><td>" << fmt(r.fs) << "</td><td>" << fmt_count(r.beats) << "</td><td>" << fixed(r.hr_mean_bpm, kHrDecimals)
      << "</td><td>" << fixed(r.hr_min_bpm, kHrDecimals) << "</td><td>" << fixed(r.hr_max_bpm, kHrDecimals)
      << "</td><td>" << fmt_count(r.veb) << "</td><td>" << hour_cell(r.veb_per_hour(), r.analysed_s) << "</td><td>"
      << fmt_count(r.sveb) << "</td><td>" << hour_cell(r.sveb_per_hour(), r.analysed_s) << "</td><td>"
      << fixed(r.af_percent, kPercentDecimals) << "</td><td>" << fmt_count(r.af_episodes) << "</td><td>"
      << fixed(r.longest_pause_s, kSecondsDecimals) << "</td>" << stat_html(r.qrs) << stat_html(r.veb_stat)
      << stat_html(r.sveb_stat) << "<td>" << fixed(r.auroc_abnormal, kRatioDecimals) << "</td><td class=l>"
      << xml_escape(classes_text(r)) << "</td><td class=l>" << xml_escape(top_text(r)) << "</td><td>"
      << fixed(r.seconds, kSecondsDecimals) << "</td><td class=l>"
      << xml_escape(r.ok ? r.input + (r.reference.empty() ? "" : " (reference " + r.reference + ")") : r.input + ": " + r.error)
      << "</td></tr>\n";
  }
  h << "<tr class=gross><td class=l>GROSS</td><td></td><td>" << hms(g.duration_s) << "</td><td></td><td>" << g.beats
    << "</td><td></td><td></td><td></td><td>" << fmt_count(g.veb) << "</td><td>" << hour_cell(g.veb_per_hour(), g.analysed_s)
    << "</td><td>" << fmt_count(g.sveb) << "</td><td>" << hour_cell(g.sveb_per_hour(), g.analysed_s)
    << "</td><td></td><td></td><td></td>" << stat_html(g.qrs) << stat_html(g.veb_stat) << stat_html(g.sveb_stat)
    << "<td></td><td></td><td></td><td></td><td class=l>" << xml_escape(gross_text(g)) << "</td></tr>\n";
  h << "</table></body></html>\n";
  files.commit();
}

}  // namespace ecgpipe
