// `ecgpipe run` step by step (include/ecgpipe/pipeline/pipeline.hpp): each step's detail lives in the file
// named for it (segment_cpu.cpp / pipeline_cuda.cpp, score.cpp, vae.cpp, run_evaluation.cpp,
// run_outputs.cpp).
#include "ecgpipe/pipeline/pipeline.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <future>
#include <optional>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "common/clock.hpp"
#include "common/step_log.hpp"
#include "ecgpipe/pipeline/plausibility.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/model/model_device.hpp"
#include "ecgpipe/pipeline/beat_rows.hpp"
#include "ecgpipe/rhythm/hrv.hpp"
#include "ecgpipe/signal/signal_quality.hpp"
#include "pipeline/run_steps.hpp"
#include "report/report_time.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "common/output_lock.hpp"
#include "common/output_set.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/pipeline/segment_cuda.hpp"
#endif

namespace ecgpipe {
namespace {

// Scores that overflowed (a recording whose values are far beyond anything the model saw, e.g.
// 1e20) would make every ranking and threshold meaningless: an input error naming the beats.
void check_finite_scores(const RunOptions& o, const RunResult& r, const std::vector<std::int64_t>& peaks) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = r.model.score.size(); i-- > 0;)
    if (!std::isfinite(r.model.score[i])) {
      ++bad;
      first = i;
    }
  if (bad == 0) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                ": %zu of %zu beats have non-finite scores (first: beat %zu, R peak at sample %lld); the recording's "
                "values are far outside the model's range",
                bad, r.model.score.size(), first, static_cast<long long>(peaks[first]));
  throw InputError(o.input + buf);
}

// Stage 5: the model trained on (or a saved one scoring) the beat matrix, and each beat's score.
// The rhythm term over the compact R-peak list (host) is computed on a thread while the model
// trains (a sort of the ~20 s of RR intervals around each beat: 45 ms for 93 k beats, before
// training on an H100 host, 2026-11-24); the score function, or the line after training, takes it.
void train_or_score(const RunOptions& o, Segmentation& seg, const std::vector<std::int64_t>& peaks, Device device,
                    RunResult& r) {
  std::future<std::vector<float>> pending_rhythm = std::async(
      std::launch::async, [&peaks, rr = o.model == Model::rr] { return rr ? rhythm_term(peaks) : prematurity(peaks); });
  ScoreFunction score;
  if (o.model == Model::rr) {
    score = [&r, &pending_rhythm](const TrainResult& t) {
      if (pending_rhythm.valid()) r.prematurity = pending_rhythm.get();
      return score_rr(t.recon_error, t.template_distance, r.prematurity);
    };
  }
  if (o.model_in.empty()) {
    r.model = train_and_score(std::move(seg.matrix), o.train, /*model_path=*/"", model_meta_json(o), score);
  } else {
    r.model = score_with_model(std::move(seg.matrix), o.model_in, score);
  }
  if (pending_rhythm.valid()) r.prematurity = pending_rhythm.get();  // not taken by a score function
  r.seconds.train = r.model.train_seconds;
  if (device == Device::cuda) {
    spdlog::debug("training steps {} a captured CUDA graph", r.model.cuda_graph ? "replayed" : "did not use");
  }
  r.seconds.score = r.model.score_seconds;
  check_finite_scores(o, r, peaks);
}

// The whole signal on the host for signal quality and the report's strips: the segmentation's
// copy when it kept one (the CPU paths; the GPU path's copy for the classes), else read again
// when it is at most kMaxHostSignal samples; empty beyond that (quality not assessed, no strips;
// logged).
const std::vector<float>& host_signal(const RunOptions& o, Segmentation& seg) {
  if (seg.host_signal.empty() && seg.samples > 0 && seg.samples <= kMaxHostSignal)
    seg.host_signal = read_run_signal(o);
  return seg.host_signal;
}

// Each beat's class (on the GPU path: waited for, computed on CPU threads since segmentation),
// its rhythm and its signal quality: what needs the R peaks and the host signal but not the
// model. Runs beside training; logs nothing at info level (run_pipeline logs the result after,
// in the order a reader expects).
BeatAnalysis analyse_beats(const RunOptions& o, Segmentation& seg, const std::vector<std::int64_t>& peaks, std::size_t samples) {
  BeatAnalysis a;
  finish_classification(seg);
  a.beat_class = std::move(seg.beat_class);
  a.classify_seconds = seg.seconds.classify;
  // Signal quality, before AF (no AF is called in artefact) and the Holter summary (pauses, runs
  // and rates leave artefact out).
  const auto t_quality = detail::Clock::now();
  const std::vector<float>& signal = host_signal(o, seg);
  a.quality_assessed = !signal.empty();
  if (a.quality_assessed) {
    a.quality = seg.quality ? std::move(*seg.quality) : assess_signal_quality(signal.data(), signal.size(), peaks, o.fs);
  } else {
    a.quality.beat_artefact.assign(peaks.size(), false);
  }
  a.rhythm_seconds += detail::seconds_since(t_quality);
  analyse_rhythm(peaks, o.fs, seg.atrial, a);  // may relabel S beats in AF and N in SVT runs: before the letters
  // The Holter summary, the rhythm episodes and HRV: from the beats' letters, rhythm and artefact.
  a.letters = class_letters(a.beat_class);
  const std::vector<char>& predicted = a.letters;
  HolterOptions holter_options;
  holter_options.hour_phase_s = ReportClock(o.source.start_time).hour_phase_s();  // clock hours where it is known
  a.holter = holter_summary(peaks, o.fs, predicted, static_cast<double>(samples) / o.fs, holter_options,
                            a.quality.beat_artefact);
  finish_rhythm(o, peaks, samples, a);  // needs the Holter summary's runs
  HrvOptions hrv;
  hrv.threads = cpu_threads();
  // At a fiducial point the QRS shape fixes (beat_features.hpp: qrs_shift), not at the largest deflection.
  a.hrv = compute_hrv(qrs_aligned(peaks, seg.atrial.qrs_shift), predicted, hrv_usable_beats(a.quality.beat_artefact, a.rhythm), o.fs, hrv);
  return a;
}

}  // namespace

RunResult run_pipeline(const RunOptions& given) {
  validate(given);
  RunOptions o = given;  // a read-once recording's samples are added below
  const auto t_all = detail::Clock::now();
  // The wall time of each step of this thread (report.json's stages time the work inside them,
  // some of it on other threads).
  detail::StepLog steps("", t_all);
  // Read first: a bad reference file fails the run before any work.
  std::optional<ReferenceBeats> reference;
  if (!o.reference.empty()) reference = read_reference(o.reference);
  const Device device = resolve_device(o.device);
  const bool writes = !o.out_dir.empty();
  if (writes) check_output_dir(o.out_dir);  // now, not after minutes of training
  std::optional<OutputLock> lock;            // one writer per --out, till the commit
  if (writes) lock.emplace(o.out_dir, OutputLock::Mode::exclusive);
  // The command line's LibTorch loads on a thread of its own while the CUDA context is made and
  // the recording read (torch_runtime.hpp). Not before the device check: its CUDA driver start
  // loads the driver's library, which would wait for all of LibTorch's (glibc loads one library
  // at a time); after the output checks, so that a refused --out ends the process with no load
  // under way (the 24 h run on an H100, 5 runs each: 1.64 s started first, 1.48 s started here,
  // 1.56 s with LibTorch linked; docs/performance.md "Start-up").
  // A GPU run whose model needs no LibTorch (model_runs_without_torch) does not load it at all.
  if (!o.analyze_only && !(device == Device::cuda && model_runs_without_torch(row_length(o.rows()))))
    load_torch_in_background();
  spdlog::info("reading {} on {}", o.input, device_name(device));
  steps.done("set-up");
  // A pipe or a FIFO (is_read_once) is read whole, once, here: the chunked path reads a recording
  // longer than ChunkOptions::keep_samples (26 h at 360 Hz) a second time, which found a pipe empty
  // ("changed while it was read") and waited on a FIFO for a writer for ever (34.6 M rows from a
  // FIFO, 2026-11-28: hung). A pipe's length is not known ahead: 4 bytes a sample in memory.
  double read_once_seconds = 0.0;
  if (!o.samples && is_read_once(o.input)) {
    const auto t_read = detail::Clock::now();
    o.samples = std::make_shared<const std::vector<float>>(read_signal(o.input, o.csv, o.fs));
    read_once_seconds = detail::seconds_since(t_read);
  }

  // Stages 1-4: the file to the beat matrix, on one device (segment_cpu.cpp, pipeline_cuda.cpp).
#ifdef ECGPIPE_WITH_CUDA
  std::shared_ptr<CudaContext> cuda;  // declared before `seg`: outlives the matrix and training
  if (device == Device::cuda) cuda = make_cuda_context();
  steps.done("CUDA context");
  Segmentation seg = device == Device::cuda ? segment_cuda(o, *cuda) : segment_cpu(o);
#else
  Segmentation seg = segment_cpu(o);
#endif
  seg.matrix.normalise = o.model == Model::rr;
  if (o.preset == Preset::robust) {
    spdlog::info("{} samples, {} candidates -> {} R peaks", seg.samples, seg.candidates, seg.beats.size());
  } else {
    spdlog::info("{} samples, {} gates, {} beats of {}..{} samples", seg.samples, seg.candidates, seg.beats.size(),
                 o.limits.min_length, o.limits.max_length);
  }

  RunResult r;
  r.device = device_name(device);
  r.samples = seg.samples;
  r.candidates = seg.candidates;
  r.beats = std::move(seg.beats);
  r.seconds = seg.seconds;
  r.seconds.csv += read_once_seconds;
  const std::vector<std::int64_t> peaks = kept_r_peaks(o, r.beats);
  r.warnings = plausibility_warnings(o.source, r.samples, o.fs, peaks);
  steps.done("segmentation");

  // The model on this thread (on a GPU: the device), what the host finds of each beat on another
  // (analyse_beats); neither reads what the other writes: the matrix there, the classes, the host
  // signal and the P-wave measures here.
  std::future<BeatAnalysis> pending_analysis =
      std::async(std::launch::async, [&o, &seg, &peaks, samples = r.samples] { return analyse_beats(o, seg, peaks, samples); });
  if (o.analyze_only) {
    seg.matrix = BeatMatrix();  // no model: the rows are not needed (frees them now)
  } else {
    train_or_score(o, seg, peaks, device, r);
  }
  steps.done("model");
  BeatAnalysis analysis = pending_analysis.get();
  steps.done("waiting for the beats' classes, rhythm and quality");
  r.beat_class = std::move(analysis.beat_class);
  if (!seg.lead2_warning.empty()) r.warnings.push_back(seg.lead2_warning);  // said with the others, below
  r.rhythm = std::move(analysis.rhythm);
  const SignalQuality& q = analysis.quality;
  r.artefact = q.beat_artefact;
  r.artefact_spans = q.spans;
  r.seconds.classify = analysis.classify_seconds;
  r.seconds.rhythm = analysis.rhythm_seconds;
  const std::vector<float>& signal = seg.host_signal;  // analyse_beats's copy, if the recording had one
  if (analysis.quality_assessed) {
    spdlog::info("signal quality: {} artefact stretches, {:.0f} s ({:.1f} %), {} beats in them", q.spans.size(),
                 q.artefact_seconds(o.fs), 100.0 * q.artefact_seconds(o.fs) * o.fs / static_cast<double>(r.samples),
                 std::count(q.beat_artefact.begin(), q.beat_artefact.end(), true));
  } else if (r.samples > kMaxHostSignal) {
    spdlog::info("signal quality not assessed: {} samples are more than the host copy's limit of {}", r.samples,
                 kMaxHostSignal);
  }
  r.holter = std::move(analysis.holter);
  r.rhythm_episodes = std::move(analysis.rhythm_episodes);
  r.rhythm_burden = analysis.rhythm_burden;
  r.hrv = std::move(analysis.hrv);
  spdlog::info("rhythm: {} AF episodes, AF burden {:.1f} % ({} s), longest {:.0f} s", r.rhythm_burden.afib_episodes,
               r.rhythm_burden.afib_percent(), static_cast<long long>(r.rhythm_burden.afib_s + 0.5),
               r.rhythm_burden.longest_afib_s);
  const std::vector<char> predicted = std::move(analysis.letters);  // class_letters(r.beat_class)
  no_rhythm_term_in_af(o, r);  // before anything reads the scores

  if (reference) evaluate_run(o, *reference, peaks, predicted, r);
  flag_run_outliers(o, r);
  steps.done("evaluation and outliers");
  if (writes) {
    std::vector<EventStrip> strips = event_strips(o, r, peaks, signal);
    steps.done("event strips");
    write_run_outputs(o, r, std::move(seg.signal_excerpt), std::move(seg.curvature_excerpt), std::move(strips), t_all);
    steps.done("outputs");
  } else {
    r.seconds.total = detail::seconds_since(t_all);
  }
  // Said last, where they are read beside the summary; an error before this is one line alone.
  for (const std::string& w : r.warnings) spdlog::warn("{}", w);
  return r;
}

}  // namespace ecgpipe
