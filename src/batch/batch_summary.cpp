// The batch summary (see include/ecgpipe/batch/batch_summary.hpp).
#include "ecgpipe/batch/batch_summary.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "common/paths.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "common/output_set.hpp"
#include "common/json_file.hpp"
#include "common/json_number.hpp"
#include "common/text.hpp"
#include "common/xml_escape.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using detail::is_directory;
using detail::path_exists;
using detail::path_join;

double number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
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

// beats.csv: the heart rate from its R peaks and, when it has a `class` column, the count per class.
void read_beats(const std::string& path, SummaryRow& row) {
  std::ifstream in(path);
  if (!in) return;  // a row without beats.csv keeps NaN / no classes
  std::string line;
  if (!std::getline(in, line)) return;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = split_csv_line(line);
  const int peak_col = column_of(header, "r_peak"), class_col = column_of(header, "class");
  std::int64_t first = -1, last = -1, n = 0;
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto f = split_csv_line(line);
    if (peak_col >= 0) {
      if (peak_col >= static_cast<int>(f.size())) throw InputError(path + ":" + std::to_string(number) + ": too few fields");
      const std::int64_t p = std::strtoll(f[peak_col].c_str(), nullptr, 10);
      if (first < 0) first = p;
      last = p;
    }
    if (class_col >= 0 && class_col < static_cast<int>(f.size())) ++row.classes[f[class_col]];
    ++n;
  }
  // Mean heart rate over the beats: (beats - 1) intervals between the first and last R peak.
  if (n >= 2 && last > first && row.fs > 0) row.hr_mean_bpm = 60.0 * static_cast<double>(n - 1) * row.fs / static_cast<double>(last - first);
}

void read_outliers(const std::string& path, SummaryRow& row) {
  std::ifstream in(path);
  if (!in) return;
  std::string line;
  if (!std::getline(in, line)) return;
  const auto header = split_csv_line(line);
  const int peak = column_of(header, "r_peak"), time = column_of(header, "time_s"), score = column_of(header, "score");
  if (peak < 0 || time < 0 || score < 0) return;
  while (row.top.size() < kSummaryTopOutliers && std::getline(in, line)) {
    const auto f = split_csv_line(line);
    if (static_cast<int>(f.size()) <= std::max({peak, time, score})) break;
    row.top.push_back({std::strtoll(f[peak].c_str(), nullptr, 10), std::strtod(f[time].c_str(), nullptr),
                       std::strtod(f[score].c_str(), nullptr)});
  }
}

std::string fmt(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

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
  for (const auto& o : r.top) s += (s.empty() ? "" : " ") + fmt(o.time_s) + "s:" + fmt(o.score);
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
      af_percent(kNaN) {}

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
    if (const auto e = j.find("evaluation"); e != j.end() && e->is_object()) {
      row.se = number(*e, "se");
      row.ppv = number(*e, "ppv");
      const auto a = e->find("auroc");
      if (a != e->end() && a->is_object() && a->contains("abnormal")) row.auroc_abnormal = number(a->at("abnormal"), "auroc");
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(report_path + ": missing or malformed field: " + e.what());
  }
  read_beats(path_join(folder, "beats.csv"), row);
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
        f.text(path_join(folder, "error.json")) << j.dump(2) << '\n';
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

std::string summary_json(const std::vector<SummaryRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  std::size_t failed = 0;
  for (const auto& r : rows) {
    failed += r.ok ? 0 : 1;
    nlohmann::json top = nlohmann::json::array();
    for (const auto& o : r.top) top.push_back({{"r_peak", o.r_peak}, {"time_s", o.time_s}, {"score", o.score}});
    nlohmann::json j = {{"record", r.name},
                        {"folder", r.folder},
                        {"input", r.input},
                        {"status", r.ok ? "ok" : "failed"},
                        {"exit_code", r.exit_code},
                        {"error", r.ok ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
                        {"mode", r.ok ? nlohmann::json(r.mode) : nlohmann::json(nullptr)},
                        {"duration_s", json_number(r.duration_s)},
                        {"fs", json_number(r.fs)},
                        {"samples", json_count(r.samples)},
                        {"beats", json_count(r.beats)},
                        {"hr_mean_bpm", json_number(r.hr_mean_bpm)},
                        {"af_percent", json_number(r.af_percent)},
                        {"af_episodes", json_count(r.af_episodes)},
                        {"se", json_number(r.se)},
                        {"ppv", json_number(r.ppv)},
                        {"auroc_abnormal", json_number(r.auroc_abnormal)},
                        {"classes", r.classes.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.classes)},
                        {"top_outliers", top},
                        {"seconds", json_number(r.seconds)}};
    list.push_back(std::move(j));
  }
  return nlohmann::json({{"recordings", rows.size()}, {"failed", failed}, {"rows", list}}).dump(2);
}

void write_summary(const std::string& out_dir, const std::vector<SummaryRow>& rows) {
  OutputSet files(/*create_dirs=*/true);  // the three appear together or not at all
  auto& c = files.text(path_join(out_dir, "summary.csv"));
  c << "record,status,exit_code,duration_s,fs,beats,hr_mean_bpm,af_percent,af_episodes,se,ppv,auroc_abnormal,classes,"
       "top_outliers,seconds,input,error\n";
  for (const auto& r : rows) {
    c << csv_field(r.name) << ',' << (r.ok ? "ok" : "failed") << ',' << r.exit_code << ',' << fmt(r.duration_s) << ','
      << fmt(r.fs) << ',' << fmt_count(r.beats) << ',' << fmt(r.hr_mean_bpm) << ',' << fmt(r.af_percent) << ','
      << fmt_count(r.af_episodes) << ',' << fmt(r.se) << ',' << fmt(r.ppv) << ',' << fmt(r.auroc_abnormal) << ','
      << csv_field(classes_text(r)) << ','
      << csv_field(top_text(r)) << ',' << fmt(r.seconds) << ',' << csv_field(r.input) << ',' << csv_field(r.error) << '\n';
  }
  files.text(path_join(out_dir, "summary.json")) << summary_json(rows) << '\n';
  std::size_t failed = 0;
  for (const auto& r : rows) failed += r.ok ? 0 : 1;
  auto& h = files.text(path_join(out_dir, "index.html"));
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ecgpipe: " << rows.size()
    << " recordings</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td.l,th.l{text-align:left}"
       "tr.failed{background:#fde8e8}</style></head><body>\n<h1>ecgpipe: "
    << rows.size() << " recordings, " << failed << " failed</h1>\n<p>summary.csv and summary.json hold the same rows.</p>\n"
    << "<table><tr><th class=l>record</th><th>status</th><th>duration s</th><th>fs</th><th>beats</th><th>HR bpm</th>"
       "<th>AF %</th><th>AF episodes</th><th>Se</th><th>+P</th><th>AUROC abnormal</th><th class=l>classes</th><th class=l>top outliers (time s: score)</th>"
       "<th>seconds</th><th class=l>input / error</th></tr>\n";
  for (const auto& r : rows) {
    const std::string target = r.has_report_html ? "report.html" : r.ok ? "beats.csv" : "error.json";
    h << "<tr" << (r.ok ? "" : " class=failed") << "><td class=l><a href=\""
      << xml_escape(relative_link(r.folder, out_dir, target)) << "\">" << xml_escape(r.name) << "</a></td><td>"
      << (r.ok ? "ok" : "failed (" + std::to_string(r.exit_code) + ")") << "</td><td>" << fmt(r.duration_s) << "</td><td>"
      << fmt(r.fs) << "</td><td>" << fmt_count(r.beats) << "</td><td>" << fmt(r.hr_mean_bpm)
      << "</td><td>" << fmt(r.af_percent) << "</td><td>" << fmt_count(r.af_episodes)
      << "</td><td>" << fmt(r.se) << "</td><td>" << fmt(r.ppv) << "</td><td>" << fmt(r.auroc_abnormal)
      << "</td><td class=l>" << xml_escape(classes_text(r)) << "</td><td class=l>" << xml_escape(top_text(r))
      << "</td><td>" << fmt(r.seconds) << "</td><td class=l>" << xml_escape(r.ok ? r.input : r.input + ": " + r.error)
      << "</td></tr>\n";
  }
  h << "</table></body></html>\n";
  files.commit();
}

}  // namespace ecgpipe
