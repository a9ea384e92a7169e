// `ecgpipe run FILE.csv`: the whole pipeline; see docs/cli.md for options, docs/formats.md for outputs.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <functional>
#include <memory>

#include "cli/commands.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "ecgpipe/batch/cohort.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/view/view.hpp"

namespace ecgpipe::cli {
namespace {

struct RunArgs {
  RunOptions options;
  InputArgs in;
  bool json = false;
  bool cohort = false;
  bool view = false;  // --view: serve the outputs in a browser afterwards (ecgpipe view)
  ViewOptions view_options;
  // Window options given on the command line keep their value; the others follow --fs.
  CLI::Option *fs_option = nullptr, *ricker = nullptr, *nms = nullptr, *min_length = nullptr, *max_length = nullptr;
  std::string start;  // --start: when a recording whose file says none started
  CLI::Option* start_option = nullptr;
};

void print_summary(const RunOptions& o, const RunResult& r) {
  const auto& s = r.seconds;
  const std::size_t artefact_beats = static_cast<std::size_t>(std::count(r.artefact.begin(), r.artefact.end(), true));
  if (o.analyze_only) {
    spdlog::info("{}: {} samples at {} Hz ({}) -> {} beats ({} in artefact) on {}", o.input, r.samples, o.fs,
                 o.source.fs_source, r.beats.size(), artefact_beats, r.device);
  } else {
    spdlog::info("{}: {} samples at {} Hz ({}) -> {} beats ({} in artefact) on {}; train loss {:.5f} -> {:.5f}, test loss {:.5f}",
                 o.input, r.samples, o.fs, o.source.fs_source, r.beats.size(), artefact_beats, r.device,
                 r.model.epoch_loss.front(), r.model.epoch_loss.back(), r.model.test_loss);
  }
  spdlog::info("seconds: read {:.3f}, band-pass {:.3f}, peaks {:.3f}, beats {:.3f}, classes {:.3f}, rhythm and quality {:.3f}, "
               "train {:.3f}, score {:.3f}, total {:.3f}",
               s.csv, s.bandpass, s.peaks, s.beats, s.classify, s.rhythm, s.train, s.score, s.total);
  spdlog::info("wrote {}/: beats.csv, rhythm.csv, artefact.csv, WFDB annotations (.ecgpipe, .hea), report.json, report.html{}", o.out_dir,
               o.analyze_only ? "" : o.model_in.empty() ? ", outliers.csv, model.safetensors" : ", outliers.csv");
}

}  // namespace

// `run` (the whole pipeline) and `analyze` (all but the VAE: no training options) share their
// options, outputs and batch handling.
void add_run_like_command(CLI::App& app, bool analyze) {
  auto args = std::make_shared<RunArgs>();
  auto& o = args->options;
  o.analyze_only = analyze;
  auto* cmd = analyze ? app.add_subcommand("analyze",
                                           "Holter analysis without training: beats, classes, rhythm, signal quality, "
                                           "HRV and the Holter report (no VAE, no scores)")
                      : app.add_subcommand("run", "Segment beats, train the VAE and score every beat");
  add_inputs_options(*cmd, args->in, o.csv);
  add_preset_option(*cmd, o.preset,
                    "robust: adaptive-threshold R-peak detector, far more accurate on real ECG; seed: the notebook's "
                    "NMS gates (bit-exact). Every stage runs on the GPU with either");
  args->fs_option = cmd->add_option("--fs", o.fs,
                                    "Sampling rate, Hz: the windows below are durations scaled from their 250 Hz "
                                    "values [default: a WFDB header's rate, else 250]");
  check_finite(args->fs_option, kMinFs, kMaxFs);
  args->ricker = cmd->add_option("--ricker-width", o.ricker_width, "Ricker wavelet width in samples (0.12 s)")->capture_default_str();
  args->nms = cmd->add_option("--nms-window", o.nms_window, "seed: R-peak non-maximum suppression window in samples (0.72 s)")
      ->capture_default_str();
  args->min_length = cmd->add_option("--min-length", o.limits.min_length, "seed: shortest beat kept, samples (0.4 s)")
      ->capture_default_str();
  args->max_length = cmd->add_option("--max-length", o.limits.max_length,
                                     "Longest beat kept, samples (1.024 s; the VAE input length; multiple of 8)")
      ->capture_default_str();
  if (!analyze) {
    cmd->add_option("--epochs", o.train.epochs, "Training epochs (1.." + std::to_string(kMaxEpochs) + ")")
        ->check(CLI::Range(1, kMaxEpochs))
        ->capture_default_str();
    cmd->add_option("--batch-size", o.train.batch_size,
                    "Training batch size; 0 = automatic: the seed's 1024 with --model seed, else about 32 steps an "
                    "epoch (64..1024)")
        ->capture_default_str();
    // Above ~1 Adam diverges at once; 10 leaves room for experiments and refuses typos.
    constexpr double kMaxLearningRate = 10.0;
    check_finite(cmd->add_option("--learning-rate", o.train.learning_rate, "Adam learning rate")->capture_default_str(), 0.0,
                 kMaxLearningRate, /*lo_open=*/true);
    add_seed_option(*cmd, o.train.seed, "Seed for the shuffle, split, initialisation and sampling");
  }
  add_device_option(*cmd, o.device);
  cmd->add_option("--out", o.out_dir, "Output directory (created if missing)")->capture_default_str();
  if (!analyze) {
    cmd->add_option("--outlier-quantile", o.outlier_quantile,
                    "Flag beats whose outlier score (see --model) is above this quantile of all beats' scores")
        ->capture_default_str();
    cmd->add_option("--top", o.top_outliers, "Beats listed in outliers.csv, highest score first")->capture_default_str();
    add_model_option(*cmd, o.model);
  }
  add_reference_option(*cmd, o.reference);
  args->start_option = add_start_option(*cmd, args->start);
  add_chunk_option(*cmd, o.chunk_seconds);
  add_gpu_memory_option(*cmd, o.gpu_memory);
  cmd->add_flag("--json", args->json, "Print report.json to stdout");
  cmd->add_flag("--view", args->view, "Then serve the results in a browser until Ctrl-C, as `ecgpipe view OUT_DIR`");
  add_view_server_options(*cmd, args->view_options, "--view-");
  if (!analyze)
    cmd->add_flag("--cohort-model", args->cohort,
                  "With several recordings: train one model on all their beats (OUT/model.safetensors), then score each with it");
  add_threads_note(*cmd);
  cmd->callback([args, cmd] {
    require_inputs(args->in);
    auto& opts = args->options;
    if (opts.model == Model::seed && opts.train.batch_size == 0) opts.train.batch_size = kSeedBatch;
    // One recording's rate (its header's unless --fs) and the windows scaled to it unless given.
    const auto scale_windows = [args](RunOptions& o) {
      const SampleWindows scaled = seed_windows(o.fs);  // = the defaults at 250 Hz
      if (args->ricker->count() == 0) o.ricker_width = scaled.ricker_width;
      if (args->nms->count() == 0) o.nms_window = scaled.nms_window;
      if (args->min_length->count() == 0) o.limits.min_length = scaled.min_length;
      if (args->max_length->count() == 0) o.limits.max_length = scaled.max_length;
      check_windows(SampleWindows{o.ricker_width, o.nms_window, o.limits.min_length, o.limits.max_length}, o.fs);
    };
    const auto resolve = [args, scale_windows](RunOptions& o) {
      o.source = resolve_input(o.input, o.csv, o.fs, args->fs_option->count() > 0);
      scale_windows(o);
    };
    check_start_option(*args->start_option, args->start, is_batch(args->in.inputs, args->in.manifest));
    if (is_batch(args->in.inputs, args->in.manifest)) {
      if (!opts.reference.empty()) throw UsageError("--reference is for one recording; give each its reference in a --manifest");
      if (args->view) throw UsageError("--view is for one recording; run `ecgpipe view OUT/NAME` for each");
      // An option error is the whole call's usage error (exit 2 before any recording), not one
      // failure per recording (issue 25: --epochs 0 wrote an error.json into every folder): the
      // options are checked once, as a recording at the given rate (--fs, else 250 Hz) gets them.
      RunOptions probe = opts;
      scale_windows(probe);
      validate(probe);
      const auto options_for = [args, resolve](const BatchItem& item) {
        RunOptions o = args->options;
        o.input = item.path;
        if (!item.column.empty()) o.csv.column = item.column;
        o.reference = item.reference;
        resolve(o);
        return o;
      };
      auto cohort = std::make_shared<CohortTraining>();
      std::function<void(const std::vector<BatchItem>&)> train_cohort;
      if (args->cohort)
        train_cohort = [args, cohort, options_for](const std::vector<BatchItem>& items) {
          *cohort = train_cohort_model(items, args->in.jobs, options_for, args->options.out_dir);
        };
      run_many(*cmd, args->in, opts.out_dir, args->json, [args, cohort, options_for](const BatchItem& item, const std::string& folder) {
        RunOptions o = options_for(item);
        o.out_dir = folder;
        if (args->cohort) {  // score with the cohort's model
          if (const auto f = cohort->failed.find(item.name); f != cohort->failed.end()) std::rethrow_exception(f->second);
          apply_model_meta(read_model_meta(cohort->model_path), cohort->model_path, o);
          const RunResult r = run_pipeline(o);
          spdlog::info("{}: {} beats scored with the cohort model -> {}", o.input, r.beats.size(), folder);
          return;
        }
        const int epochs = o.train.epochs;
        const std::string name = item.name;
        o.train.on_epoch = [name, epochs](int epoch, double loss, double) {
          spdlog::debug("{}: epoch {}/{}: train loss {:.6f}", name, epoch, epochs, loss);
        };
        print_summary(o, run_pipeline(o));
      }, train_cohort);
      return;
    }
    opts.input = args->in.single();
    resolve(opts);
    apply_start_option(*args->start_option, args->start, opts.input, opts.source);
    // A progress bar when a person watches stderr; a log line per epoch for logs and pipes.
    const bool bar = !opts.analyze_only && ::isatty(STDERR_FILENO) == 1 && spdlog::should_log(spdlog::level::info);
    opts.train.on_epoch = [&opts, bar](int epoch, double loss, double beats_per_second) {
      if (!bar) {  // a line per epoch only with --log-level debug: the summary says the losses
        spdlog::debug("epoch {}/{}: train loss {:.6f}, {:.0f} beats/s", epoch, opts.train.epochs, loss, beats_per_second);
        return;
      }
      constexpr int kBarWidth = 30;
      const int filled = kBarWidth * epoch / opts.train.epochs;
      std::fprintf(stderr, "\rtraining [%s%s] epoch %d/%d  loss %.6f  %.0f beats/s%s", std::string(filled, '#').c_str(),
                   std::string(kBarWidth - filled, ' ').c_str(), epoch, opts.train.epochs, loss, beats_per_second,
                   epoch == opts.train.epochs ? "\n" : "");
      std::fflush(stderr);
    };
    const RunResult result = run_pipeline(opts);
    print_summary(opts, result);
    if (args->json) std::cout << run_report_json(opts, result) << std::endl;
    if (args->view) {
      args->view_options.out_dir = opts.out_dir;
      serve_view(args->view_options, std::cout);
    }
  });
}

void add_run_command(CLI::App& app) { add_run_like_command(app, false); }
void add_analyze_command(CLI::App& app) { add_run_like_command(app, true); }

}  // namespace ecgpipe::cli
