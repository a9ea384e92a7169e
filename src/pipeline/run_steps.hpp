// Internal: the steps of `ecgpipe run` that run_pipeline (src/pipeline/pipeline.cpp) lists, each in the
// file named for it. Segmentation (stages 1-4) is include/ecgpipe/pipeline/segment.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/pipeline/run_types.hpp"
#include "ecgpipe/report/report_data.hpp"
#include "ecgpipe/signal/signal_quality.hpp"

namespace ecgpipe {

// src/pipeline/run_evaluation.cpp: detection accuracy and score AUROCs against the reference
// (evaluate.hpp, EC57 conventions) into result.evaluation, and each beat's reference class
// (result.classes) for the report; `predicted` (class_letters of result.beat_class) is scored by
// EC57 (report.json evaluation.ec57). Logs the headline figures.
void evaluate_run(const RunOptions& options, const ReferenceBeats& reference, const std::vector<std::int64_t>& r_peaks,
                  const std::vector<char>& predicted, RunResult& result);

// What the host finds of each beat without the model: its class, its rhythm and whether it lies in
// artefact. run_pipeline computes it on a thread while the model trains (on a GPU, the host's work
// hides behind the device's: issue 29) and moves it into the RunResult after.
struct BeatAnalysis {
  std::vector<BeatClass> beat_class;
  std::vector<char> letters;  // class_letters(beat_class), once S beats in AF are N
  std::vector<Rhythm> rhythm;
  SignalQuality quality;          // beat_artefact: one flag per beat, all false when not assessed
  bool quality_assessed = false;  // false: no host copy of the signal (too long to keep)
  HolterSummary holter;
  std::vector<RhythmEpisode> rhythm_episodes;
  RhythmBurden rhythm_burden;
  HrvResult hrv;
  double classify_seconds = 0.0, rhythm_seconds = 0.0;
};

// src/pipeline/run_rhythm.cpp, in two steps around the Holter summary:
// analyse_rhythm: each beat's AF (from RR with the predicted V beats and analysis.quality's
// artefact left out, and the P-wave measures; af_detect.hpp) into analysis.rhythm; a beat
// predicted S inside AF becomes N, then an N beat that continues a run of SVT begun by an S beat
// becomes S (svt_runs.hpp; analysis.beat_class). Adds its time to analysis.rhythm_seconds.
void analyse_rhythm(const std::vector<std::int64_t>& r_peaks, double fs, const AtrialActivity& atrial,
                    BeatAnalysis& analysis);
// finish_rhythm: VT, SVTA, bigeminy and trigeminy from analysis.holter's runs (ectopic_rhythm.hpp),
// then the episodes and the AF burden of a recording of `samples`. Adds to analysis.rhythm_seconds.
void finish_rhythm(const RunOptions& options, const std::vector<std::int64_t>& r_peaks, std::size_t samples,
                   BeatAnalysis& analysis);
// no_rhythm_term_in_af: the rr model's rhythm term (result.prematurity) is 0 for a beat in AF
// (result.rhythm) and its score is made again from its terms (score_rr): in AF prematurity is the
// rhythm itself, no evidence of an ectopic beat, as an S predicted there is N (analyse_rhythm).
// Nothing for analyze or the seed model (whose score has no rhythm term).
void no_rhythm_term_in_af(const RunOptions& options, RunResult& result);

// src/pipeline/run_outputs.cpp: the beats whose score exceeds options.outlier_quantile of all
// scores (outlier_score.hpp) into result.outlier and outlier_threshold (nothing for analyze).
void flag_run_outliers(const RunOptions& options, RunResult& result);
// src/pipeline/run_outputs.cpp: writes model.safetensors (when trained: the
// bytes in result.model.model_file), beats.csv, outliers.csv, report.json and report.html as one
// OutputSet (src/common/output_set.hpp): all or none, --out created only then. Sets result.seconds.write
// and .total (from `run_start`).
void write_run_outputs(const RunOptions& options, RunResult& result, std::vector<float> signal_excerpt,
                       std::vector<double> curvature_excerpt, std::vector<EventStrip> strips,
                       detail::Clock::time_point run_start);

// src/pipeline/event_strips.cpp: the report's 10-s strips out of the host `signal` (empty: none),
// one per place, in this order: the longest pause (when it is a pause), the longest and the
// fastest ectopic run, the fastest and the slowest rate, the first AF onsets, the top outliers.
std::vector<EventStrip> event_strips(const RunOptions& options, const RunResult& result,
                                     const std::vector<std::int64_t>& r_peaks, const std::vector<float>& signal);

// src/pipeline/run_annotations.cpp: the run as WFDB annotations, by sample (docs/formats.md): each
// kept beat at its R peak with its class as the WFDB symbol (N S V F Q as N A V F Q); '+' with aux
// "(" + rhythm_name at the first beat and at each beat whose rhythm differs from the one before;
// '~' with subtype -1 at each artefact span's start and 0 at its end (overlapping and touching
// spans joined). At one sample: noise, then rhythm, then the beat.
std::vector<Annotation> run_annotations(const RunOptions& options, const RunResult& result);
// The WFDB record name of an input path: its file name without directory and extension, each
// character outside [A-Za-z0-9_] as '_' ("record" for an empty name and for "-").
std::string wfdb_record_name(const std::string& input);
// The files for WFDB tools, names (in options.out_dir) and bytes: <record>.ecgpipe, the
// annotations; and <record>.hea, "<record> 0 <fs> <samples>", a header without signals that gives
// WFDB's rdann and bxb the rate (without one they take 250 Hz), unless options.out_dir already
// holds a <record>.hea that is not such a header (a record's own, with signals: never replaced).
std::vector<std::pair<std::string, std::string>> wfdb_annotation_files(const RunOptions& options, const RunResult& result);

// beats.csv's text (header and a row per beat of `result`, outlier flags set), its rows
// formatted on up to `threads` threads: the same bytes for every thread count. As consecutive
// pieces (the header first), or joined.
std::vector<std::string> beats_csv_pieces(const RunOptions& options, const RunResult& result, int threads);
std::string beats_csv(const RunOptions& options, const RunResult& result, int threads);

}  // namespace ecgpipe
