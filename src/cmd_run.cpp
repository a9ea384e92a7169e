// `ecgpipe run FILE.csv`: the whole pipeline; see README.md for options and outputs.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <memory>

#include "commands.hpp"
#include "ecgpipe/pipeline.hpp"
#include "ecgpipe/wfdb.hpp"

namespace ecgpipe::cli {
namespace {

struct RunArgs {
  RunOptions options;
  bool json = false;
  std::string device = "auto";
  std::string preset = "robust";
  std::string model = "rr";
  // Window options given on the command line keep their value; the others follow --fs.
  CLI::Option *fs_option = nullptr, *ricker = nullptr, *nms = nullptr, *min_length = nullptr, *max_length = nullptr;
};

void print_summary(const RunOptions& o, const RunResult& r) {
  const auto& s = r.seconds;
  spdlog::info("{}: {} samples -> {} beats on {}; train loss {:.5f} -> {:.5f}, test loss {:.5f}", o.input, r.samples,
               r.beats.size(), r.device, r.model.epoch_loss.front(), r.model.epoch_loss.back(), r.model.test_loss);
  spdlog::info("seconds: csv {:.3f}, band-pass {:.3f}, peaks {:.3f}, beats {:.3f}, train {:.3f}, score {:.3f}, total {:.3f}",
               s.csv, s.bandpass, s.peaks, s.beats, s.train, s.score, s.total);
  spdlog::info("wrote {}/beats.csv, outliers.csv, model.pt, report.json, report.html", o.out_dir);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto& o = args->options;
  auto* cmd = app.add_subcommand("run", "Segment beats, train the VAE and score every beat");
  add_input_options(*cmd, o.input, o.csv);
  cmd->add_option("--preset", args->preset,
                  "robust: adaptive-threshold R-peak detector, far more accurate on real ECG; seed: the notebook's "
                  "NMS gates (bit-exact). Every stage runs on the GPU with either")
      ->check(CLI::IsMember({"robust", "seed"}, CLI::ignore_case))
      ->capture_default_str();
  args->fs_option = cmd->add_option("--fs", o.fs,
                                    "Sampling rate, Hz: the windows below are durations scaled from their 250 Hz "
                                    "values [default: a WFDB header's rate, else 250]");
  args->ricker = cmd->add_option("--ricker-width", o.ricker_width, "Ricker wavelet width in samples (0.12 s)")->capture_default_str();
  args->nms = cmd->add_option("--nms-window", o.nms_window, "seed: R-peak non-maximum suppression window in samples (0.72 s)")
      ->capture_default_str();
  args->min_length = cmd->add_option("--min-length", o.limits.min_length, "seed: shortest beat kept, samples (0.4 s)")
      ->capture_default_str();
  args->max_length = cmd->add_option("--max-length", o.limits.max_length,
                                     "Longest beat kept, samples (1.024 s; the VAE input length; multiple of 8)")
      ->capture_default_str();
  cmd->add_option("--epochs", o.train.epochs, "Training epochs")->capture_default_str();
  cmd->add_option("--batch-size", o.train.batch_size,
                  "Training batch size; 0 = automatic: the seed's 1024 with --model seed, else about 32 steps an "
                  "epoch (64..1024)")
      ->capture_default_str();
  cmd->add_option("--learning-rate", o.train.learning_rate, "Adam learning rate")->capture_default_str();
  cmd->add_option("--seed", o.train.seed, "Seed for the shuffle, split, initialisation and sampling")->capture_default_str();
  add_device_option(*cmd, args->device);
  cmd->add_option("--out", o.out_dir, "Output directory (created if missing)")->capture_default_str();
  cmd->add_option("--outlier-quantile", o.outlier_quantile,
                  "Flag beats whose outlier score (see --model) is above this quantile of all beats' scores")
      ->capture_default_str();
  cmd->add_option("--top", o.top_outliers, "Beats listed in outliers.csv, highest score first")->capture_default_str();
  add_model_option(*cmd, args->model);
  add_reference_option(*cmd, o.reference);
  cmd->add_flag("--json", args->json, "Print report.json to stdout");
  cmd->callback([args] {
    auto& opts = args->options;
    opts.device = parse_device(args->device);
    opts.preset = parse_preset(args->preset);
    opts.model = parse_model(args->model);
    if (opts.model == Model::seed && opts.train.batch_size == 0) opts.train.batch_size = kSeedBatch;
    if (args->fs_option->count() == 0)  // a WFDB header knows its rate; a CSV does not
      if (const auto header_fs = signal_file_fs(opts.input)) opts.fs = *header_fs;
    const SampleWindows scaled = seed_windows(opts.fs);  // = the defaults at 250 Hz
    if (args->ricker->count() == 0) opts.ricker_width = scaled.ricker_width;
    if (args->nms->count() == 0) opts.nms_window = scaled.nms_window;
    if (args->min_length->count() == 0) opts.limits.min_length = scaled.min_length;
    if (args->max_length->count() == 0) opts.limits.max_length = scaled.max_length;
    // A progress bar when a person watches stderr; a log line per epoch for logs and pipes.
    const bool bar = ::isatty(STDERR_FILENO) == 1 && spdlog::should_log(spdlog::level::info);
    opts.train.on_epoch = [&opts, bar](int epoch, double loss, double beats_per_second) {
      if (!bar) {
        spdlog::info("epoch {}/{}: train loss {:.6f}, {:.0f} beats/s", epoch, opts.train.epochs, loss, beats_per_second);
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
  });
}

}  // namespace ecgpipe::cli
