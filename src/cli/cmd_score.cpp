// `ecgpipe score NEW.csv --model DIR/model.safetensors`: scores a recording with a saved model (train on
// one night, score the next). The beats are made exactly as for the model's training data: the
// preset, sampling rate, windows and beat length come from the model file, not the command line.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/model/vae.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/signal_input.hpp"

namespace ecgpipe::cli {
namespace {

struct ScoreArgs {
  RunOptions options;
  InputArgs in;
  std::string model;
  bool json = false;
  std::string start;  // --start: when a recording whose file says none started
  CLI::Option* start_option = nullptr;
};

}  // namespace

void add_score_command(CLI::App& app) {
  auto args = std::make_shared<ScoreArgs>();
  auto& o = args->options;
  o.out_dir = "ecgpipe-score";
  auto* cmd = app.add_subcommand("score", "Score every beat of a recording with a saved model (no training)");
  add_inputs_options(*cmd, args->in, o.csv);
  cmd->add_option("--model", args->model, "model.safetensors written by `ecgpipe run`")->required();
  add_device_option(*cmd, o.device);
  cmd->add_option("--outlier-quantile", o.outlier_quantile, "Flag beats scoring above this quantile")->capture_default_str();
  cmd->add_option("--top", o.top_outliers, "Beats listed in outliers.csv")->capture_default_str();
  cmd->add_option("--out", o.out_dir, "Output directory (created if missing)")->capture_default_str();
  add_reference_option(*cmd, o.reference);
  args->start_option = add_start_option(*cmd, args->start);
  add_chunk_option(*cmd, o.chunk_seconds);
  add_gpu_memory_option(*cmd, o.gpu_memory);
  cmd->add_flag("--json", args->json, "Print report.json to stdout");
  add_threads_note(*cmd);
  cmd->callback([args, cmd] {
    require_inputs(args->in);
    check_start_option(*args->start_option, args->start, is_batch(args->in.inputs, args->in.manifest));
    auto& opts = args->options;
    apply_model_meta(read_model_meta(args->model), args->model, opts);
    check_model_parameters(opts, args->model);
    // A WFDB or EDF record carries its rate; the model's windows are durations at the rate it was
    // trained at, so another rate cannot be scored (and no --fs exists here to blame).
    const auto use_header_rate = [args](RunOptions& o) {
      o.source = resolve_signal_source(o.input, o.csv, std::nullopt, o.fs);
      o.csv.column = o.source.column;
      if (o.source.fs_is_default) {  // a CSV without a rate is scored at the model's
        o.source.fs_source = "the model's rate";
        o.source.warnings.clear();
      }
      spdlog::info("{}: {}", o.input, o.source.description());
      if (!o.source.fs_is_default) {  // a header's or a time column's rate
        const double file_fs = o.source.fs;
        if (!same_declared_fs(file_fs, o.fs)) {
          const std::string file = is_wfdb_record_path(o.input) ? wfdb_header_path(o.input) : o.input;
          char buf[512];
          std::snprintf(buf, sizeof buf, "%s is sampled at %g Hz, but the model %s was trained at %g Hz; train a model at %g Hz",
                        file.c_str(), file_fs, args->model.c_str(), o.fs, file_fs);
          throw InputError(buf);
        }
        o.fs = file_fs;
      }
    };
    if (is_batch(args->in.inputs, args->in.manifest)) {
      if (!opts.reference.empty()) throw UsageError("--reference is for one recording; give each its reference in a --manifest");
      run_many(*cmd, args->in, opts.out_dir, args->json, [args, use_header_rate](const BatchItem& item, const std::string& folder) {
        RunOptions o = args->options;
        o.input = item.path;
        if (!item.column.empty()) o.csv.column = item.column;
        o.reference = item.reference;
        o.out_dir = folder;
        use_header_rate(o);
        const RunResult r = run_pipeline(o);
        spdlog::info("{}: {} beats scored -> {}", o.input, r.beats.size(), folder);
      });
      return;
    }
    opts.input = args->in.single();
    use_header_rate(opts);
    apply_start_option(*args->start_option, args->start, opts.input, opts.source);
    const RunResult r = run_pipeline(opts);
    spdlog::info("{}: {} beats scored with {} on {}; wrote {}/beats.csv, outliers.csv, report.json, report.html", opts.input,
                 r.beats.size(), args->model, r.device, opts.out_dir);
    if (args->json) std::cout << run_report_json(opts, r) << std::endl;
  });
}

}  // namespace ecgpipe::cli
