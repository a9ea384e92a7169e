// Statistics over many records, as WFDB's `sumstats` gives them from bxb's per-record lines: a
// row per record (QRS, VEB and SVEB Se / +P with their TP / FN / FP), the gross row (the counts
// summed over the records, then the ratios of the sums) and the average row (the mean of the
// records' ratios). Each record is an EvalReport of evaluate_read (its matching, VF exclusion and
// EC57 matrix, ec57.hpp); this file only adds them up.
//
// The two differ when records differ in size: two records with Se 100 % (10/10) and 50 % (1/2)
// have a gross Se of 11/12 = 91.67 % and an average Se of 75.00 %. EC57 asks for the gross
// figures; the average weighs every record alike.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ecgpipe/eval/ec57.hpp"
#include "ecgpipe/eval/eval_records.hpp"
#include "ecgpipe/eval/evaluate.hpp"

namespace ecgpipe {

struct RecordEvaluation {
  std::string record;
  std::string fs_source;  // EvalRate::source: where its rate came from
  EvalReport report;
};

// The mean of a ratio over the records where it is defined (NaN with none), and how many those are.
struct MeanRatio {
  double value = 0.0;
  std::size_t records = 0;
};

struct GrossEvaluation {
  std::vector<RecordEvaluation> records;
  std::vector<UnpairedRecord> skipped;  // left out (--skip-missing): listed in the outputs
  // Gross: QRS over every record (the matcher's TP / FN / FP); VEB and SVEB over the records whose
  // detections have classes (class_records of them), from their summed EC57 matrix.
  Ec57Stat qrs;
  std::size_t class_records = 0;
  Ec57Matrix ec57;
  Ec57Stat veb, sveb;
  // Average: the mean of each record's ratio, where it is defined (a record without reference V
  // beats has no VEB Se and does not count in that mean; VEB and SVEB only for records with classes).
  MeanRatio qrs_se, qrs_ppv, veb_se, veb_ppv, sveb_se, sveb_ppv;
  // Gross episode statistics over the records whose detections name rhythms (rhythm_records of
  // them): AF's and each RhythmStats', durations in milliseconds (records may differ in rate).
  std::size_t rhythm_records = 0;
  AfStats af;
  std::vector<RhythmStats> rhythms;
};

// QRS from the report's match; VEB / SVEB from its EC57 matrix (tp = fn = fp = 0 without classes).
Ec57Stat record_qrs(const EvalReport& report);

// The gross and average rows of `records` (in their order), with `skipped` carried along.
GrossEvaluation gross_evaluation(std::vector<RecordEvaluation> records, std::vector<UnpairedRecord> skipped = {});

// The table: a header, a row per record, the gross and average rows, right-aligned columns
// (record, Hz, QRS TP FN FP Se +P, VEB TP FN FP Se +P, SVEB TP FN FP Se +P), percentages with two
// decimals ("99.50%"), "-" where a ratio is undefined or a record has no classes (no VEB and SVEB
// columns when no record has classes, and a line saying so); then the
// skipped records, one line each. The JSON form: eval_gross_json.hpp (internal).
std::string gross_evaluation_text(const GrossEvaluation& gross);

}  // namespace ecgpipe
