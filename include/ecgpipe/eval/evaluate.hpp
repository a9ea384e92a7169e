// `ecgpipe eval`: beat-detection accuracy against reference annotations, and helpers for
// scoring outlier detectors per AAMI class.
//
// Matching: ecgpipe/eval/beat_match.hpp; AAMI classes: ecgpipe/classify/aami_class.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/classify/aami_class.hpp"
#include "ecgpipe/eval/beat_match.hpp"
#include "ecgpipe/eval/ec57.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"

namespace ecgpipe {

// Area under the ROC curve of `scores` for the positive class (label != 0), by Mann-Whitney U
// with tied scores given their average rank: the probability that a random positive scores
// higher than a random negative, ties counting half. NaN without positives or negatives.
// InternalError if the sizes differ or a score is NaN.
double auroc(const std::vector<float>& scores, const std::vector<int>& labels);

// A ventricular flutter/fibrillation episode of the reference: samples [start, end).
struct Episode {
  std::int64_t start = 0;
  std::int64_t end = 0;  // kEpisodeToEnd: runs to the end of the record
};
inline constexpr std::int64_t kEpisodeToEnd = std::numeric_limits<std::int64_t>::max();

// The largest sample index a reference or a detection may hold (the readers refuse larger ones,
// the Python package's arrays alike): a day at 100 kHz is 8.6e9 samples, and the matcher adds
// tolerances to them (9223372036854775807 overflowed there).
inline constexpr std::int64_t kMaxSampleIndex = std::int64_t{1} << 53;

// A rhythm that starts at `sample` and lasts until the next change (or the record's end), named
// as MIT-BIH names it without the parenthesis: "N", "AFIB", "AFL", "SVTA", ... (rhythm_eval.hpp)
struct RhythmChange {
  std::int64_t sample = 0;
  std::string rhythm;
};

// Reference beat annotations, from a CSV with columns `sample` and `symbol` (any order, other
// columns ignored; fields may be quoted) or from a WFDB MIT-format annotation file (.atr, or any
// annotator's: read_reference).
// Non-beat annotations are dropped (counted in skipped_non_beats).
struct ReferenceBeats {
  std::vector<std::int64_t> samples;
  std::vector<char> symbols;
  std::size_t skipped_non_beats = 0;
  // Whether the source carries rhythm information (a .atr does, a sample,symbol CSV does not),
  // and the VF episodes found in it (vf_episodes).
  bool has_rhythm = false;
  std::vector<Episode> vf_episodes;
  std::vector<RhythmChange> rhythm;  // its rhythm changes ('+' annotations), in order
};
// InputError for a missing file, no header, a missing column or a bad sample value.
ReferenceBeats read_reference_csv(const std::string& path);
// Its in-memory core: the file's text; `path` only names the file in errors. (The same pairs for
// the detections below: read_* reads the file, parse_* parses its text.)
ReferenceBeats parse_reference_csv(std::string_view text, const std::string& path);

// VF episodes of an annotation list (in file order), by WFDB's convention (the amap() of bxb /
// epicmp, after ANSI/AAMI EC57): an episode begins at a VF onset '[' or at a rhythm change '+'
// whose aux starts with "(VF" (e.g. "(VFL"), whichever comes first, and ends at the next VF
// offset ']' or at the next rhythm change to anything else ("(N", "(VT", ...), whichever comes
// first. An episode still open at the end runs to the end of the record (kEpisodeToEnd).
// MIT-BIH marks each episode as '[' then "(VFL" some samples later, and ']' then "(N", so the
// episode is '[' .. ']' (record 207: six episodes).
std::vector<Episode> vf_episodes(const std::vector<Annotation>& annotations);

// Beats (is_beat_symbol) and VF episodes of an annotation list; has_rhythm = true.
ReferenceBeats reference_from_annotations(const std::vector<Annotation>& annotations);

// What eval reads a reference or detections file as. `guess` (what a path given as is gets): a
// name ending in .csv or .txt (any case) is a CSV; any other name is a WFDB MIT-format annotation
// file when its bytes are not text (first_binary_byte: every file WFDB writes ends with a zero
// word) or it is empty, and a CSV when they are text. `csv` / `annotations`: the caller knows
// (REC.NAME found by an annotator name: eval_records.hpp).
enum class EvalFileFormat { guess, csv, annotations };

// The offset of the first byte that text never holds (a C0 control other than tab, LF, VT, FF,
// CR; or DEL), or std::string_view::npos for text. UTF-8 bytes (0x80..0xFF) count as text.
std::size_t first_binary_byte(std::string_view bytes);

// The format `bytes` (the file `path`) are read as, by the rules of EvalFileFormat. InputError,
// naming the file with the line and byte, for binary bytes where a CSV is expected ("a WFDB
// annotation file?") and for text where an annotation file is expected ("a CSV?").
EvalFileFormat eval_file_format(std::string_view bytes, const std::string& path,
                                EvalFileFormat format = EvalFileFormat::guess);

// The reference file: a WFDB annotation file (reference_from_annotations) or a sample,symbol CSV
// (parse_reference_csv), as eval_file_format decides. The parse_ form works on the file's bytes.
ReferenceBeats read_reference(const std::string& path, EvalFileFormat format = EvalFileFormat::guess);
ReferenceBeats parse_reference(std::string_view bytes, const std::string& path,
                               EvalFileFormat format = EvalFileFormat::guess);

// Detected R-peak samples: the column `r_peak` (ecgpipe's beats.csv) if the header has it, else
// `sample`, else the first column. A value must be a non-negative integer (written as such or
// as a float with no fraction, e.g. "123.0"). Zero rows is fine. InputError otherwise.
std::vector<std::int64_t> read_detections_csv(const std::string& path);
std::vector<std::int64_t> parse_detections_csv(std::string_view text, const std::string& path);

// Counts per AAMI class of the reference beats, and how many of them were detected.
struct ClassCounts {
  char aami = 'N';
  std::int64_t reference = 0;
  std::int64_t detected = 0;
  double sensitivity() const;  // detected / reference; NaN without reference beats
};
std::vector<ClassCounts> per_class_counts(const ReferenceBeats& reference, const MatchResult& match);

// Detections with their outlier scores: detection CSV plus (when chosen) one score column.
struct Detections {
  std::vector<std::int64_t> r_peaks;
  std::vector<float> scores;  // one per r_peak, or empty when there is no score column
  std::string score_column;   // the column read, or empty
  std::vector<char> classes;  // column `class` (one beat label each: N S V F Q or a WFDB beat symbol), or empty
  std::vector<char> afib;     // column `rhythm` (1 where it is AFIB, 0 for any other rhythm name), or empty
  std::vector<Rhythm> rhythm; // the same column by name (rhythm_named: AFIB, VT, SVTA, B, T; N for any other)
  // Its names that are none of MIT-BIH's or ecgpipe's (is_known_rhythm_name: "afib", "foo"), each
  // once, the first kListedUnknownRhythms: taken as N, which a caller should say.
  std::vector<std::string> unknown_rhythms;
  static constexpr std::size_t kListedUnknownRhythms = 16;
  std::vector<char> artefact; // column `quality` (1 where it is `artefact`, 0 otherwise), or empty
  bool from_annotations = false;  // read from a WFDB annotation file (detections_from_annotations)
  std::string sample_column;      // the CSV column the samples came from (as the header names it)
  bool sample_column_by_position = false;  // neither r_peak nor sample: the first column, whatever its name
};
// Reads the detections (read_detections_csv's column choice) and a score column: `score_column`
// if given (InputError if the header lacks it), else `score` if present, else `recon_error`
// (ecgpipe's beats.csv), else none. A score must be a finite number (InputError with the line).
// A `class` column, when the header has one, is read too: each cell one beat label
// (ec57_detected_class), else InputError with the line; and a `quality` column (ecgpipe's
// beats.csv: `artefact` or `ok`). A score column chosen by name whose first cell is empty
// (`ecgpipe analyze` leaves the model's columns empty) is taken as no score column.
Detections read_detections_with_scores(const std::string& path, const std::string& score_column = "");
Detections parse_detections_with_scores(std::string_view text, const std::string& path,
                                        const std::string& score_column = "");
// Detections from a WFDB annotation file (another annotator's, e.g. 100.qrs, 100.xqrs): its beat
// annotations (is_beat_symbol) with their symbols as classes, no scores; where the file has rhythm
// changes ('+'), afib marks the beats in "(AFIB". from_annotations = true.
Detections detections_from_annotations(const std::vector<Annotation>& annotations);
// The detections file: a WFDB annotation file (detections_from_annotations) or a CSV
// (parse_detections_with_scores), as eval_file_format decides; `score_column` must be empty for an
// annotation file (UsageError: it has no columns). The parse_ form works on the file's bytes.
Detections read_detections(const std::string& path, const std::string& score_column = "",
                           EvalFileFormat format = EvalFileFormat::guess);
Detections parse_detections(std::string_view bytes, const std::string& path, const std::string& score_column = "",
                            EvalFileFormat format = EvalFileFormat::guess);

// AUROC of an outlier score: `positive` ("abnormal" = S, V, F and Q together, or one class) vs
// N, among matched beats. auroc is NaN when either side is empty.
struct AurocResult {
  std::string positive;
  std::int64_t positives = 0;
  std::int64_t negatives = 0;
  double auroc = 0.0;
};

// EC57's AF episode and duration statistics, as `epicmp -a`: a reference AF episode is detected
// when any detected AF overlaps it (episode Se), a detected episode is true when it overlaps any
// reference AF (episode +P); duration Se is the overlap over the reference AF time, duration +P
// the overlap over the detected AF time, from which reference atrial flutter is left out (AF
// called during flutter is not counted against the detector). Durations in samples.
struct AfStats {
  std::int64_t reference_episodes = 0, detected_reference_episodes = 0;
  std::int64_t test_episodes = 0, true_test_episodes = 0;
  std::int64_t reference_duration = 0, overlap_of_reference = 0;
  std::int64_t test_duration = 0, overlap_of_test = 0;
  double episode_se() const;   // NaN without reference episodes
  double episode_ppv() const;  // NaN without detected episodes
  double duration_se() const;
  double duration_ppv() const;
  AfStats& operator+=(const AfStats& o);  // gross statistics: sums over records
};
// The same episode and duration statistics for a rhythm the beat classes name beside AF (VT,
// SVTA, B, T: ectopic_rhythm.hpp) against the reference's episodes of that name ("(VT", ...),
// reference ventricular flutter left out of the detected VT (compare_ectopic_rhythms): how well
// the rhythm column tells them, not only the beats.
struct RhythmStats {
  std::string rhythm;  // "VT", "SVTA", "B", "T", "IVR" (kEctopicRhythms)
  AfStats stats;
};
struct EvalReport {
  std::string reference_path, detections_path;
  double fs = 250.0;
  double tolerance_ms = 150.0;
  std::int64_t tolerance_samples = 37;
  std::size_t skipped_non_beats = 0;
  MatchResult match;  // after the exclusion below (indices refer to the kept events)
  std::vector<ClassCounts> classes;
  // VF exclusion (EC57): asked for, possible (the reference has rhythm information), and what
  // it removed before matching.
  bool vf_exclusion = true;
  bool reference_has_rhythm = false;
  std::vector<Episode> excluded_episodes;
  double excluded_seconds = 0.0;  // an episode to the end counts up to the last annotation/detection
  std::int64_t excluded_reference_beats = 0;
  std::int64_t excluded_detections = 0;
  // AUROC of the detections' scores (empty when there are none): abnormal, then S, V, F, Q.
  std::string score_column;
  std::vector<AurocResult> aurocs;
  // EC57 beat classes (ec57.hpp), when the detections have classes.
  bool has_classes = false;
  Ec57Matrix ec57;
  // EC57's AF statistics, when the reference has rhythm changes (a .atr) and the detections a
  // rhythm column (ecgpipe's beats.csv): compare_af (rhythm_eval.hpp).
  bool has_af = false;
  AfStats af;
  std::vector<RhythmStats> rhythms;  // with has_af, when the detections name rhythms (VT, SVTA, B, T)
};

struct EvalOptions {
  double fs = 250.0;
  double tolerance_ms = 150.0;
  bool vf_exclusion = true;  // skip reference beats and detections inside reference VF episodes
};

// The in-memory evaluation (no files): drops reference beats and detections inside the
// reference's VF episodes (when asked and known), matches (match_beats), counts per class and,
// when `scores` is not empty (one per detection, finite), computes the AUROCs over matched
// beats. UsageError for a bad fs / tolerance, InternalError if scores and r_peaks differ in size,
// InputError if a score is not finite. With `classes` (one beat label per detection, or empty),
// also the EC57 beat-classification matrix of the kept events (has_classes, ec57).
// The paths and score_column of the report are left empty for the caller.
EvalReport evaluate_detections(const ReferenceBeats& reference, const std::vector<std::int64_t>& r_peaks,
                               const std::vector<float>& scores, const EvalOptions& options,
                               const std::vector<char>& classes = {});

// evaluate_detections of files already read, with EC57's AF statistics when the reference has
// rhythm changes and the detections a rhythm (afib); the report's paths and score column are the
// arguments'.
EvalReport evaluate_read(const ReferenceBeats& reference, const Detections& detections, const EvalOptions& options,
                         const std::string& reference_path, const std::string& detections_path);

// Reads both files (read_reference, read_detections, each format guessed), then evaluate_read.
EvalReport evaluate_files(const std::string& reference_path, const std::string& detections_path,
                          const EvalOptions& options, const std::string& score_column = "");

// Human-readable report (several lines); Se/+P/F1/AUROC read n/a when undefined. The JSON object
// `eval --json` prints: include/ecgpipe/eval/eval_json.hpp (internal).
std::string eval_report_text(const EvalReport& report);

}  // namespace ecgpipe
