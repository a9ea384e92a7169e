// The batch summary of many recordings' output folders: summary.csv, summary.json and
// index.html in the batch's --out, one row per recording, built only from what each folder holds
// (report.json, beats.csv, outliers.csv, or error.json for a recording that failed), so that
// `ecgpipe summarize DIR...` rebuilds exactly what the batch wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ecgpipe/batch/batch.hpp"

namespace ecgpipe {

// Outliers listed per recording in the summary.
inline constexpr std::size_t kSummaryTopOutliers = 3;

struct SummaryOutlier {
  std::int64_t r_peak = 0;
  double time_s = 0.0, score = 0.0;
};

// TP / FN / FP of one statistic (QRS detection, VEB, SVEB) as EC57 counts them, -1 where unknown
// (no reference; VEB / SVEB also without beat classes). Se = TP / (TP + FN), +P = TP / (TP + FP);
// NaN where unknown or the denominator is 0.
struct SummaryStat {
  long long tp = -1, fn = -1, fp = -1;
  bool known() const { return tp >= 0 && fn >= 0 && fp >= 0; }
  double se() const;
  double ppv() const;
};

struct SummaryRow {
  std::string name;    // the output folder's name
  std::string folder;  // its path
  std::string input;   // the recording
  bool ok = false;
  int exit_code = 0;
  std::string error;
  std::string mode;    // "train" (run), "score" or "detect"
  // NaN / -1 where unknown (a failed recording; no reference).
  double duration_s, fs, hr_mean_bpm, se, ppv, auroc_abnormal, seconds;
  double af_percent;  // AF burden (report.json holter.af): NaN for detect, which analyses no rhythm
  long long samples = -1, beats = -1, af_episodes = -1;
  // report.json "holter" (run, score): HR extremes, VEB / SVEB totals, the longest RR, and the
  // analysed time the per-hour figures are over (holter.analysed_s, else holter.af.analysed_s,
  // else holter.duration_s). NaN / -1 where absent (detect, a failed recording).
  double hr_min_bpm, hr_max_bpm, longest_pause_s, analysed_s;
  long long veb = -1, sveb = -1;
  double veb_per_hour() const;   // veb per hour analysed; NaN when unknown
  double sveb_per_hour() const;
  // report.json "evaluation" (a reference was used): its path, QRS counts (tp, fn, fp) and, with
  // beat classes, EC57's VEB and SVEB (evaluation.ec57).
  std::string reference;
  SummaryStat qrs, veb_stat, sveb_stat;
  std::map<std::string, long long> classes;  // beats.csv's `class` column, when it has one
  std::vector<SummaryOutlier> top;           // outliers.csv's first kSummaryTopOutliers rows
  bool has_report_html = false;
  SummaryRow();
};

// The gross row (WFDB's sumstats): TP, FN and FP summed over the recordings that have them, then
// Se and +P of the sums; QRS over the recordings evaluated against a reference, VEB / SVEB over
// those whose evaluation has beat classes. Recordings without a reference are left out of the
// statistics and counted. Totals (duration, beats, VEB, SVEB) over the recordings that succeeded;
// VEB / SVEB per hour over the analysed time of those that have both.
struct SummaryGross {
  std::size_t recordings = 0, failed = 0, with_reference = 0, without_reference = 0, with_classes = 0;
  double duration_s = 0.0, analysed_s = 0.0;  // analysed_s over the recordings with a VEB count
  long long beats = 0, veb = -1, sveb = -1;   // -1: no recording has the count
  SummaryStat qrs, veb_stat, sveb_stat;
  double veb_per_hour() const;
  double sveb_per_hour() const;
};
SummaryGross summary_gross(const std::vector<SummaryRow>& rows);

// The row of one output folder. InputError if it holds neither report.json nor error.json, or
// if one of its files is malformed (named).
SummaryRow read_output_folder(const std::string& folder, const std::string& name);

// Output folders under `dir` (sub-directories holding report.json or error.json), sorted by name.
std::vector<std::string> output_folders(const std::string& dir);

// After a batch: writes error.json into each failed recording's folder (and removes a stale one
// from a recording that now succeeded), then reads every folder's row. Rows sorted by name.
std::vector<SummaryRow> collect_batch_rows(const std::string& out_dir, const std::vector<BatchOutcome>& outcomes);

// Removes summary.csv, summary.json and index.html from `out_dir`: a batch starting there makes them
// stale (issue 25: an interrupted batch kept the earlier run's summary beside folders of the new
// run). The batch writes them anew when it ends; a job array's parts leave that to `summarize`.
void remove_summary(const std::string& out_dir);

// summary.csv, summary.json and index.html in `out_dir` (links relative to it), each atomically.
void write_summary(const std::string& out_dir, const std::vector<SummaryRow>& rows);

// summary.json's text (also what --json prints after a batch).
std::string summary_json(const std::vector<SummaryRow>& rows);

}  // namespace ecgpipe
