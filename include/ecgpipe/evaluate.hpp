// `ecgpipe eval`: beat-detection accuracy against reference annotations, and helpers for
// scoring outlier detectors per AAMI class.
//
// Matching (as WFDB's bxb / ANSI/AAMI EC57, with a match window of +-tolerance):
// a detection d may match a reference beat r iff |d - r| <= tolerance (in samples; a distance of
// exactly the tolerance matches). Each reference beat matches at most one detection and vice
// versa. Among all such one-to-one matchings, match_beats returns one with the most matches
// (TP), and among those the smallest total |d - r|: it is exact, not greedy. Since an optimal
// matching never needs crossing pairs, it runs a dynamic program over the time-sorted events,
// split into independent clusters wherever two consecutive events are more than `tolerance`
// apart (in ECG a cluster is one beat and its nearby detections, so the cost is linear). A
// pathological cluster larger than kMaxMatchDpCells falls back to the greedy "each reference,
// in time order, takes the earliest free detection in its window", which still maximizes TP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ecgpipe {

struct MatchResult {
  std::int64_t tp = 0;  // matched reference beats
  std::int64_t fn = 0;  // reference beats with no detection
  std::int64_t fp = 0;  // detections matching no reference beat
  // Per reference beat (in the order given): index of its detection in the input vector, or -1.
  std::vector<std::int64_t> matched_detection;
  // Per detection (in the order given): index of its reference beat, or -1.
  std::vector<std::int64_t> matched_reference;

  double sensitivity() const;            // Se = TP / (TP + FN); NaN without reference beats
  double positive_predictivity() const;  // +P = TP / (TP + FP); NaN without detections
  double f1() const;                     // 2 TP / (2 TP + FP + FN); NaN if both are empty
};

inline constexpr std::size_t kMaxMatchDpCells = std::size_t{1} << 24;

// Inputs need not be sorted; duplicates are allowed (each copy is a separate event).
// tolerance_samples must be >= 0.
MatchResult match_beats(const std::vector<std::int64_t>& reference,
                        const std::vector<std::int64_t>& detections,
                        std::int64_t tolerance_samples);

// floor(tolerance_ms * fs / 1000), with a little slack so that an exact product (150 ms at
// 360 Hz = 54 samples) is not lost to rounding. UsageError if not finite and >= 0 / > 0.
std::int64_t tolerance_samples(double tolerance_ms, double fs);

// Area under the ROC curve of `scores` for the positive class (label != 0), by Mann-Whitney U
// with tied scores given their average rank: the probability that a random positive scores
// higher than a random negative, ties counting half. NaN without positives or negatives.
// InternalError if the sizes differ or a score is NaN.
double auroc(const std::vector<float>& scores, const std::vector<int>& labels);

// AAMI EC57 class of a WFDB beat symbol: 'N' for N L R e j, 'S' for A a J S, 'V' for V E,
// 'F' for F, 'Q' for / f Q; 0 for anything else (non-beat annotations such as + ~ | " x [ ] !).
char aami_class(char symbol);
inline bool is_beat_symbol(char symbol) { return aami_class(symbol) != 0; }

// Reference annotations read from a CSV with columns `sample` and `symbol` (any order, other
// columns ignored; fields may be quoted). Non-beat annotations are dropped.
struct ReferenceBeats {
  std::vector<std::int64_t> samples;
  std::vector<char> symbols;
  std::size_t skipped_non_beats = 0;
};
// InputError for a missing file, no header, a missing column or a bad sample value.
ReferenceBeats read_reference_csv(const std::string& path);

// Detected R-peak samples: the column `r_peak` (ecgpipe's beats.csv) if the header has it, else
// `sample`, else the first column. A value must be a non-negative integer (written as such or
// as a float with no fraction, e.g. "123.0"). Zero rows is fine. InputError otherwise.
std::vector<std::int64_t> read_detections_csv(const std::string& path);

// Counts per AAMI class of the reference beats, and how many of them were detected.
struct ClassCounts {
  char aami = 'N';
  std::int64_t reference = 0;
  std::int64_t detected = 0;
};
std::vector<ClassCounts> per_class_counts(const ReferenceBeats& reference, const MatchResult& match);

struct EvalReport {
  std::string reference_path, detections_path;
  double fs = 250.0;
  double tolerance_ms = 150.0;
  std::int64_t tolerance_samples = 37;
  std::size_t skipped_non_beats = 0;
  MatchResult match;
  std::vector<ClassCounts> classes;
};

// Reads both files, matches, counts. Errors as the readers and tolerance_samples.
EvalReport evaluate_files(const std::string& reference_path, const std::string& detections_path,
                          double tolerance_ms, double fs);

// Human-readable report (several lines) and the JSON object `eval --json` prints
// (Se/+P/F1 are null when undefined).
std::string eval_report_text(const EvalReport& report);
nlohmann::json eval_report_json(const EvalReport& report);

}  // namespace ecgpipe
