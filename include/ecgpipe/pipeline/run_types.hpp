// What a run takes and gives: RunOptions (checked in src/pipeline/run_options.cpp), the device
// choice and RunResult. Every step of the pipeline includes this, not pipeline.hpp, which declares
// the run itself.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <utility>

#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/pipeline/beat_rows.hpp"
#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/common/enum_names.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/rhythm/hrv.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/model/outlier_score.hpp"
#include "ecgpipe/model/vae.hpp"

namespace ecgpipe {

enum class Device { cpu, cuda, automatic };

// cpu, cuda, auto: the one name table (enum_names.hpp): --device and device_name read it.
const EnumNames<Device>& device_names();

// --chunk-seconds' default: 10 minutes of samples, ~50 bytes a sample in flight (27 MB at 360 Hz),
// and a negligible share of overlap (0.6 s a chunk).
inline constexpr double kDefaultChunkSeconds = 600.0;
// --chunk-seconds' range: 0 (whole), or 1 s to a year.
inline constexpr double kMinChunkSeconds = 1.0;
inline constexpr double kMaxChunkSeconds = 365.0 * 86400.0;

// --epochs' bound: a million epochs of a day's beats would run for weeks (issue 25: 10^9 was
// accepted); far beyond any use.
inline constexpr int kMaxEpochs = 100000;

struct RunOptions {
  std::string input;  // the recording's path; with `samples`, only its name (logs, report.json)
  // The signal itself, already in memory (the Python API, python/): used instead of reading
  // `input`, whole (the chunked reading is for files; its results equal the whole path's).
  // `source` then says where its rate came from.
  std::shared_ptr<const std::vector<float>> samples;
  // With `samples`: the second lead's samples, as many (the Python API; second_lead.hpp), or null.
  // A file's second lead is read from `input` (source.lead2_column).
  std::shared_ptr<const std::vector<float>> lead2_samples;
  CsvOptions csv;
  // The robust detector (default, detect.hpp) or the seed's gates; every stage runs on the GPU
  // with either.
  Preset preset = Preset::robust;
  double fs = kSeedFs;     // Hz; the windows below are seed_windows(fs) unless given
  SignalSource source;     // where fs and the signal came from (resolve_signal_source), for the outputs
  // `ecgpipe analyze`: everything but the VAE (beats, classes, rhythm, quality, HRV, the Holter
  // report); no model file, no scores, no outliers.csv.
  bool analyze_only = false;
  int ricker_width = 30;   // samples (seed)
  int nms_window = 180;    // samples (seed)
  BeatLimits limits;       // 100 .. 256 samples (seed)
  // What the VAE sees and how beats are scored (score.hpp): rr (default) or the seed's.
  Model model = Model::rr;
  TrainOptions train;
  Device device = Device::automatic;
  std::string out_dir = "ecgpipe-out";  // empty: nothing written (the Python API returns the results)
  // Beats whose score exceeds this quantile of all beats' scores are flagged as outliers
  // (0.99: the top 1 %); outliers.csv lists the `top_outliers` highest scores.
  double outlier_quantile = 0.99;
  int top_outliers = 100;
  // Score with this saved model instead of training one (`ecgpipe score`); set by
  // apply_model_meta together with the beat parameters the model was trained with.
  std::string model_in;
  // Reference annotations (sample,symbol CSV or WFDB .atr): when set, the run also reports
  // detection accuracy and the score's AUROC per AAMI class (report.json "evaluation"), and
  // report.html colours the latent space by reference class.
  std::string reference;
  // The CPU's robust preset reads the recording this many seconds at a time (memory bounded
  // whatever its length; the same results); 0 reads it whole (--chunk-seconds).
  double chunk_seconds = kDefaultChunkSeconds;
  // GPU memory the run may plan for, bytes (--gpu-memory; gpu_budget.hpp): a recording whose
  // samples need more is read and detected on the host. Unset: the device's free memory less a
  // margin, or ECGPIPE_GPU_MEMORY_BUDGET_MB.
  std::optional<std::uint64_t> gpu_memory;

  // The options that decide the beat rows (beat_rows.hpp).
  RowOptions rows() const { return {model, fs, ricker_width, nms_window, limits}; }
};

struct StageSeconds {
  double csv = 0, bandpass = 0, peaks = 0, beats = 0, classify = 0, rhythm = 0, train = 0, score = 0, write = 0, total = 0;
};

struct RunResult {
  std::string device;  // "cpu" or "cuda"
  std::size_t samples = 0;
  std::size_t candidates = 0;  // gates
  BeatTable beats;             // kept beats, in signal order
  TrainResult model;
  StageSeconds seconds;
  double outlier_threshold = 0.0;  // score at options.outlier_quantile
  std::vector<std::uint8_t> outlier;  // per beat: score > outlier_threshold
  std::vector<float> prematurity;     // per beat: the rr model's rhythm term (score.hpp, rhythm_term)
  std::vector<BeatClass> beat_class;  // per beat: the predicted AAMI class (classify.hpp)
  std::vector<Rhythm> rhythm;         // per beat: AF or not (af_detect.hpp), from RR, V beats and P waves
  std::vector<RhythmEpisode> rhythm_episodes;  // rhythm.csv
  RhythmBurden rhythm_burden;         // report.json holter.af, the top of report.html
  // With options.reference: the evaluation, and per beat the AAMI class of the reference beat
  // matched to it (N S V F Q), '-' where none is within the tolerance.
  bool evaluated = false;
  EvalReport evaluation;
  std::string classes;
  // The Holter summary of the kept beats (report.json "holter", the top of report.html).
  HolterSummary holter;
  // Signal quality (issue 27): per beat, true where the beat lies in artefact (unreadable signal,
  // left out of pauses, runs, rates and HRV); and the artefact spans, [start, end) samples, in order.
  std::vector<bool> artefact;
  HrvResult hrv;  // heart-rate variability over the NN intervals clear of artefact (hrv.hpp)
  // plausibility_warnings (plausibility.hpp): logged, report.json "warnings", the report's banner.
  std::vector<std::string> warnings;
  std::vector<std::pair<std::int64_t, std::int64_t>> artefact_spans;
};

// Picks the device: cpu; cuda (DeviceError if unusable); auto = cuda when usable.
Device resolve_device(Device requested);
// "cpu" or "cuda" for a resolved device (report.json's device); "auto" for Device::automatic.
const char* device_name(Device device);

// Validates option values (UsageError on nonsense such as a negative window).
void validate(const RunOptions& options);

// The sample windows (--ricker-width, --nms-window, --min-length, --max-length) within bounds
// that are durations at `fs` (UsageError naming the option otherwise); fs itself by validate_fs.
void check_windows(const SampleWindows& w, double fs);
// The beat parameters a model file brought (apply_model_meta) must pass the checks the command
// line's do; if they do not, the file is damaged: InputError naming `model`, whatever option the
// check speaks of.
void check_model_parameters(const RunOptions& options, const std::string& model);

}  // namespace ecgpipe
