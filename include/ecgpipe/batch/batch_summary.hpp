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
  std::map<std::string, long long> classes;  // beats.csv's `class` column, when it has one
  std::vector<SummaryOutlier> top;           // outliers.csv's first kSummaryTopOutliers rows
  bool has_report_html = false;
  SummaryRow();
};

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
