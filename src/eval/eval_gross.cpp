// Gross and average statistics over many records (sumstats): see include/ecgpipe/eval/eval_gross.hpp.
#include "ecgpipe/eval/eval_gross.hpp"
#include "ecgpipe/eval/eval_gross_json.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "common/json_number.hpp"
#include "common/text.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "eval/ec57_json.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void add_ratio(MeanRatio& m, double v) {
  if (std::isnan(v)) return;
  m.value += v;
  ++m.records;
}
void finish(MeanRatio& m) { m.value = m.records > 0 ? m.value / static_cast<double>(m.records) : kNaN; }

std::string percent(double v) {
  if (std::isnan(v)) return "-";
  constexpr double kPercent = 100.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", kPercent * v);
  return buf;
}

// Columns on a terminal: UTF-8 code points (a record named "élève" is 5 wide, 7 bytes); wide
// (CJK) characters are not told apart.
std::size_t display_width(const std::string& s) {
  constexpr unsigned char kContinuationMask = 0xC0, kContinuation = 0x80;
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & kContinuationMask) != kContinuation;
  return n;
}

std::string count(std::int64_t v) { return std::to_string(v); }

// One table row: the record's cells (or the gross / average row's), in the columns' order.
using Row = std::vector<std::string>;
constexpr std::size_t kColumns = 17;
constexpr std::size_t kQrsColumns = 7;  // record, Hz and the QRS statistics
const std::array<const char*, kColumns> kHeader{"record", "Hz",     "QRS TP", "FN",      "FP",     "QRS Se",
                                                "QRS +P", "VEB TP", "FN",     "FP",      "VEB Se", "VEB +P",
                                                "SVEB TP", "FN",    "FP",     "SVEB Se", "SVEB +P"};

void stat_cells(Row& row, const Ec57Stat& s, bool known) {
  for (std::int64_t v : {s.tp, s.fn, s.fp}) row.push_back(known ? count(v) : "-");
  row.push_back(known ? percent(s.se()) : "-");
  row.push_back(known ? percent(s.ppv()) : "-");
}

void mean_cells(Row& row, const MeanRatio& se, const MeanRatio& ppv) {
  row.insert(row.end(), {"", "", "", percent(se.value), percent(ppv.value)});
}

std::string hz(double fs) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", fs);
  return buf;
}

// A record's episode statistics with durations in milliseconds, so that records of other rates add up.
AfStats in_milliseconds(AfStats a, double fs) {
  const auto ms = [fs](std::int64_t samples) { return static_cast<std::int64_t>(std::llround(1000.0 * static_cast<double>(samples) / fs)); };
  a.reference_duration = ms(a.reference_duration);
  a.overlap_of_reference = ms(a.overlap_of_reference);
  a.test_duration = ms(a.test_duration);
  a.overlap_of_test = ms(a.overlap_of_test);
  return a;
}

void add_rhythms(GrossEvaluation& g, const EvalReport& r) {
  ++g.rhythm_records;
  g.af += in_milliseconds(r.af, r.fs);
  for (const RhythmStats& x : r.rhythms) {
    auto it = std::find_if(g.rhythms.begin(), g.rhythms.end(), [&x](const RhythmStats& y) { return y.rhythm == x.rhythm; });
    if (it == g.rhythms.end()) it = g.rhythms.insert(g.rhythms.end(), RhythmStats{x.rhythm, AfStats{}});
    it->stats += in_milliseconds(x.stats, r.fs);
  }
}

}  // namespace

Ec57Stat record_qrs(const EvalReport& report) {
  Ec57Stat s;
  s.tp = report.match.tp;
  s.fn = report.match.fn;
  s.fp = report.match.fp;
  return s;
}

GrossEvaluation gross_evaluation(std::vector<RecordEvaluation> records, std::vector<UnpairedRecord> skipped) {
  GrossEvaluation g;
  g.records = std::move(records);
  g.skipped = std::move(skipped);
  for (const RecordEvaluation& r : g.records) {
    const Ec57Stat q = record_qrs(r.report);
    g.qrs.tp += q.tp;
    g.qrs.fn += q.fn;
    g.qrs.fp += q.fp;
    add_ratio(g.qrs_se, q.se());
    add_ratio(g.qrs_ppv, q.ppv());
    if (r.report.has_af) add_rhythms(g, r.report);
    if (!r.report.has_classes) continue;
    ++g.class_records;
    g.ec57 += r.report.ec57;
    const Ec57Stat v = ec57_veb(r.report.ec57), s = ec57_sveb(r.report.ec57);
    add_ratio(g.veb_se, v.se());
    add_ratio(g.veb_ppv, v.ppv());
    add_ratio(g.sveb_se, s.se());
    add_ratio(g.sveb_ppv, s.ppv());
  }
  g.veb = ec57_veb(g.ec57);
  g.sveb = ec57_sveb(g.ec57);
  for (MeanRatio* m : {&g.qrs_se, &g.qrs_ppv, &g.veb_se, &g.veb_ppv, &g.sveb_se, &g.sveb_ppv}) finish(*m);
  return g;
}

std::string gross_evaluation_text(const GrossEvaluation& g) {
  std::vector<Row> rows;
  rows.emplace_back(kHeader.begin(), kHeader.end());
  for (const RecordEvaluation& r : g.records) {
    // A record is named by its file: a newline there would break the row in two.
    Row row{text::visible(r.record), hz(r.report.fs)};
    stat_cells(row, record_qrs(r.report), true);
    stat_cells(row, ec57_veb(r.report.ec57), r.report.has_classes);
    stat_cells(row, ec57_sveb(r.report.ec57), r.report.has_classes);
    rows.push_back(std::move(row));
  }
  const bool classes = g.class_records > 0;
  Row gross{"gross", ""};
  stat_cells(gross, g.qrs, true);
  stat_cells(gross, g.veb, classes);
  stat_cells(gross, g.sveb, classes);
  rows.push_back(std::move(gross));
  Row average{"average", ""};
  mean_cells(average, g.qrs_se, g.qrs_ppv);
  mean_cells(average, g.veb_se, g.veb_ppv);
  mean_cells(average, g.sveb_se, g.sveb_ppv);
  rows.push_back(std::move(average));

  // Without classes anywhere the VEB and SVEB columns would be all '-': the table stops after QRS.
  const std::size_t columns = classes ? kColumns : kQrsColumns;
  std::array<std::size_t, kColumns> width{};
  for (const Row& row : rows)
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], display_width(row[c]));
  std::string out;
  char buf[160];
  const double tolerance_ms = g.records.empty() ? 0.0 : g.records.front().report.tolerance_ms;
  const bool vf = !g.records.empty() && g.records.front().report.vf_exclusion;
  std::snprintf(buf, sizeof buf, "%zu records compared (%zu with beat classes), %zu skipped; tolerance %g ms; %s\n",
                g.records.size(), g.class_records, g.skipped.size(), tolerance_ms,
                vf ? "reference VF episodes excluded" : "VF episodes not excluded");
  out += buf;
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < columns; ++c) {
      // The record name left-aligned, the numbers right-aligned; two spaces between columns.
      const std::string pad(width[c] - display_width(row[c]), ' ');
      line += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  if (!classes) out += "VEB, SVEB: no class column in any record's detections\n";
  if (g.rhythm_records > 0) {
    std::snprintf(buf, sizeof buf, "rhythm episodes, gross over the %zu records whose detections name rhythms:\n", g.rhythm_records);
    out += buf;
    out += episode_stats_text(g.af, g.rhythms);
  }
  for (const UnpairedRecord& u : g.skipped)
    out += "skipped " + text::visible(u.record) + ": no " + u.missing + " (" + text::visible(u.expected) + ")\n";
  return out;
}

nlohmann::json gross_evaluation_json(const GrossEvaluation& g) {
  const auto stat = [](const Ec57Stat& s) {
    return nlohmann::json{{"tp", s.tp}, {"fn", s.fn}, {"fp", s.fp}, {"se", json_number(s.se())}, {"ppv", json_number(s.ppv())}};
  };
  const auto mean = [](const MeanRatio& se, const MeanRatio& ppv) {
    return nlohmann::json{{"se", json_number(se.value)},
                          {"ppv", json_number(ppv.value)},
                          {"se_records", se.records},
                          {"ppv_records", ppv.records}};
  };
  nlohmann::json records = nlohmann::json::array();
  for (const RecordEvaluation& r : g.records) {
    nlohmann::json j = eval_report_json(r.report);
    j["record"] = r.record;
    j["fs_source"] = r.fs_source;
    j["qrs"] = stat(record_qrs(r.report));
    j["veb"] = r.report.has_classes ? stat(ec57_veb(r.report.ec57)) : nlohmann::json(nullptr);
    j["sveb"] = r.report.has_classes ? stat(ec57_sveb(r.report.ec57)) : nlohmann::json(nullptr);
    records.push_back(std::move(j));
  }
  const bool classes = g.class_records > 0;
  nlohmann::json gross = {{"records", g.records.size()},
                          {"class_records", g.class_records},
                          {"qrs", stat(g.qrs)},
                          {"veb", classes ? stat(g.veb) : nlohmann::json(nullptr)},
                          {"sveb", classes ? stat(g.sveb) : nlohmann::json(nullptr)},
                          {"ec57", classes ? ec57_json(g.ec57) : nlohmann::json(nullptr)},
                          {"rhythm_records", g.rhythm_records},
                          // Durations in milliseconds: af_stats_json's seconds at 1000 "samples" a second.
                          {"af", g.rhythm_records > 0 ? af_stats_json(g.af, 1000.0) : nlohmann::json(nullptr)},
                          {"rhythms", g.rhythm_records > 0 ? rhythm_stats_json(g.rhythms, 1000.0) : nlohmann::json(nullptr)}};
  nlohmann::json average = {{"qrs", mean(g.qrs_se, g.qrs_ppv)},
                            {"veb", classes ? mean(g.veb_se, g.veb_ppv) : nlohmann::json(nullptr)},
                            {"sveb", classes ? mean(g.sveb_se, g.sveb_ppv) : nlohmann::json(nullptr)}};
  nlohmann::json skipped = nlohmann::json::array();
  for (const UnpairedRecord& u : g.skipped)
    skipped.push_back({{"record", u.record}, {"missing", u.missing}, {"expected", u.expected}});
  return {{"records", records}, {"gross", gross}, {"average", average}, {"skipped", skipped}};
}

}  // namespace ecgpipe
