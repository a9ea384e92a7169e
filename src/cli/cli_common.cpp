// Options that several subcommands share, defined once so their names, checks and help agree.
#include <charconv>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>

#include "cli/commands.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/pipeline/gpu_budget.hpp"
#include "ecgpipe/model/outlier_score.hpp"
#include "ecgpipe/batch/batch_summary.hpp"
#include "ecgpipe/model/vae.hpp"
#include "common/output_set.hpp"
#include "common/text.hpp"
#include "common/output_lock.hpp"

namespace ecgpipe::cli {

namespace {

// --column and --no-header: which signal of a recording, the same for one input and for many.
void add_column_options(CLI::App& cmd, CsvOptions& csv) {
  cmd.add_option("--column", csv.column, "Column to read: header name or 0-based index (default: 'heartbeats', else 0); for a WFDB record, "
                 "the channel: description (e.g. MLII) or 0-based index (default 0); for EDF/BDF, the signal: label (e.g. ECG) or 0-based index (default 0)");
  cmd.add_flag_callback("--no-header", [&csv] { csv.has_header = false; }, "The file has no header line");
  cmd.add_option("--lead2", csv.lead2,
                 "Second lead for the beat classes and AF's P-wave checks: a signal or column name or 0-based index, 'none', or 'auto' (the first other "
                 "signal named as an ECG lead: V1, ECG2, II, ...; a CSV's only with a header)")
      ->capture_default_str();
}

}  // namespace

void add_input_options(CLI::App& cmd, std::string& input, CsvOptions& csv) {
  cmd.add_option("file", input, "ECG CSV file (one numeric column used), a WFDB record's .hea/.dat (one channel), or an EDF/EDF+/BDF file (.edf/.bdf, one signal)")
      ->required();
  add_column_options(cmd, csv);
}

namespace {

// An option bound to an enum through its name table (enum_names.hpp).
template <typename E>
CLI::Option* add_enum_option(CLI::App& cmd, const std::string& flag, E& value, const EnumNames<E>& names,
                             const std::string& help) {
  const std::string listed = braced_names(names);
  // CLI11's CheckedTransformer turns the name, in any case, into the enum's integer, which CLI11
  // then casts into `value`. On its own it would also take that integer ("--device 0") and speak
  // of "{auto->2,...} OR {2,0,1}" in the help and errors; so only a name reaches it, and anything
  // else is refused in IsMember's words, as before: "--device: tpu not in {auto,cpu,cuda}" (exit 2).
  const CLI::Validator to_value = CLI::CheckedTransformer(names, CLI::ignore_case);
  CLI::Validator named(
      [to_value, names, listed](std::string& text) -> std::string {
        const std::string folded = text::lower(text);
        for (const auto& entry : names)
          if (entry.first == folded) return to_value(text);
        return text + " not in " + listed;
      },
      listed);
  // The help as before: "--device TEXT:{auto,cpu,cuda}=auto"; CLI11 would say ENUM and print the
  // default as its integer.
  return cmd.add_option(flag, value, help)->transform(named)->type_name("TEXT")->default_str(name_in(names, value));
}

}  // namespace

void add_device_option(CLI::App& cmd, Device& device, bool with_cuda, const std::string& help) {
  EnumNames<Device> names = device_names();
  if (!with_cuda)
    names.erase(std::remove_if(names.begin(), names.end(), [](const auto& e) { return e.second == Device::cuda; }),
                names.end());
  add_enum_option(cmd, "--device", device, names,
                  help.empty() ? "cpu, cuda, or auto (cuda when a GPU and CUDA LibTorch are present)" : help);
}

void add_preset_option(CLI::App& cmd, Preset& preset, const std::string& help) {
  add_enum_option(cmd, "--preset", preset, preset_names(), help);
}

void add_model_option(CLI::App& cmd, Model& model) {
  add_enum_option(cmd, "--model", model, model_names(),
                  "rr: R-centred, normalised beats scored by shape and rhythm (finds premature beats); seed: the "
                  "notebook's rows and reconstruction error");
}

void add_reference_option(CLI::App& cmd, std::string& reference) {
  cmd.add_option("--reference", reference,
                 "Reference beats (sample,symbol CSV or WFDB .atr): adds Se/+P and the score's AUROC per AAMI class "
                 "to report.json, and colours report.html's latent plot by class");
}

CLI::Option* add_start_option(CLI::App& cmd, std::string& start) {
  return cmd.add_option(
      "--start", start,
      "When the recording started, 'YYYY-MM-DD hh:mm:ss' or 'hh:mm:ss', for one whose file has no start (a CSV): the "
      "report's hourly table, times and trend and the viewer then read clock time [default: a WFDB or EDF header's]");
}

void check_start_option(const CLI::Option& option, const std::string& start, bool batch) {
  if (option.count() == 0) return;
  check_given_start(start, "--start");
  if (batch) throw UsageError("--start is for one recording (each started at its own time; a WFDB or EDF header gives it)");
}

void apply_start_option(const CLI::Option& option, const std::string& start, const std::string& input, SignalSource& source) {
  if (option.count() > 0) apply_given_start(start, "--start", input, source);
}

void add_chunk_option(CLI::App& cmd, double& seconds) {
  const std::string help =
      "CPU, robust preset: read the recording this many seconds at a time, so host memory stays bounded whatever its "
      "length (the same results; a file: a pipe is read whole); 0 reads it whole";
  auto* option = cmd.add_option("--chunk-seconds", seconds, help)->capture_default_str();
  check_finite(option, 0.0, kMaxChunkSeconds);
  option->check(CLI::Validator(
      [](std::string& text) -> std::string {
        double v = 0.0;
        if (CLI::detail::lexical_cast(text, v) && v > 0.0 && v < kMinChunkSeconds) return "must be 0 or at least 1 s, got " + text;
        return {};
      },
      "0 or >= 1"));
}

void add_gpu_memory_option(CLI::App& cmd, std::optional<std::uint64_t>& bytes) {
  const std::string help =
      "GPU: device memory this run may use (e.g. 8G, 512M, or bytes; K/M/G/T are powers of 1024), for a shared GPU; "
      "a recording that needs more is streamed through the GPU in chunks by run (the same results), read and detected "
      "on the host by detect "
      "[default: the device's free memory less a margin]";
  // Parsed once by the validator (the same UsageError text as the Python API's), stored by the callback.
  cmd.add_option_function<std::string>(
         "--gpu-memory", [&bytes](const std::string& text) { bytes = parse_memory_size(text, "--gpu-memory"); }, help)
      ->type_name("SIZE")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              parse_memory_size(text, "the GPU memory");
            } catch (const UsageError& e) {
              return e.what();
            }
            return {};
          },
          ""));
}

void check_finite(CLI::Option* option, double lo, double hi, bool lo_open) {
  char range[96];
  std::snprintf(range, sizeof range, "%s%g, %g]", lo_open ? "(" : "[", lo, hi);
  const std::string bounds = range;
  option->check(CLI::Validator(
      [bounds, lo, hi, lo_open](std::string& text) -> std::string {
        double v = 0.0;
        // CLI11's own number parse; NaN and inf parse, and every comparison with NaN is false,
        // so CLI::Range would let them through.
        if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
        if (!std::isfinite(v)) return "must be a finite number, got " + text;
        if ((lo_open ? v <= lo : v < lo) || v > hi) return "must lie in " + bounds + ", got " + text;
        return {};
      },
      "FINITE in " + bounds));
}

void add_seed_option(CLI::App& cmd, std::uint64_t& seed, const std::string& help) {
  cmd.add_option("--seed", seed, help)
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            std::uint64_t v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            const bool ok = !text.empty() && ec == std::errc() && end == text.data() + text.size();
            return ok ? std::string() : std::string("must be a whole number in 0..18446744073709551615");
          },
          "0..2^64-1", "SEED"))
      ->capture_default_str();
}

int max_cpu_threads() {
  // More threads than this only adds contention; 100000 made the machine unusable (issue 11).
  constexpr int kPerCore = 4;
  return kPerCore * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

SignalSource resolve_input(const std::string& input, CsvOptions& csv, double& fs, bool fs_given) {
  SignalSource s = resolve_signal_source(input, csv, fs_given ? std::optional<double>(fs) : std::nullopt, kSeedFs);
  fs = s.fs;
  csv.column = s.column;
  spdlog::info("{}: {}", input, s.description());
  return s;  // its warnings are said by the run or detection (after the options' checks: a usage error stays one line)
}

void add_threads_note(CLI::App& cmd) {
  cmd.footer(
      "Global options (also after the subcommand): -q/--quiet, -v/--verbose (a line per training epoch), --threads N "
      "(CPU threads for training, scoring and the CPU band-pass; 0: OMP_NUM_THREADS, else one per core)");
}

const std::string& InputArgs::single() const {
  static const std::string none;
  return is_batch(inputs, manifest) || inputs.empty() ? none : inputs.front();
}

void add_inputs_options(CLI::App& cmd, InputArgs& in, CsvOptions& csv) {
  cmd.add_option("inputs", in.inputs,
                 "Recordings: ECG CSV files (one numeric column used), WFDB records (.hea/.dat, one channel), EDF/EDF+/BDF "
                 "files (.edf/.bdf, one signal), or directories (every *.csv except *_beats.csv, *.hea, *.edf, *.bdf in "
                 "them, sorted). One file: outputs in --out as always; several: one folder per recording under --out "
                 "plus summary.csv, summary.json and index.html");
  cmd.add_option("--manifest", in.manifest,
                 "File listing recordings, one per line: path[,reference[,column]] ('#' comments; paths relative to "
                 "the manifest)");
  cmd.add_option("--jobs", in.jobs,
                 "Recordings processed at a time (threads of this process); LibTorch threads per recording: --threads, "
                 "else cores / jobs")
      ->check(CLI::Range(1, kMaxJobs))
      ->capture_default_str();
  cmd.add_option("--shard", in.shard,
                 "K/N: only every N-th recording from the K-th (0-based), for job arrays; slurm: this Slurm "
                 "array task's part. The summary is left to `ecgpipe summarize OUT` once every part is done");
  add_column_options(cmd, csv);
}

void require_inputs(const InputArgs& in) {
  if (in.inputs.empty() && in.manifest.empty()) throw UsageError("give a recording, a directory or --manifest FILE");
}

void run_many(const CLI::App& cmd, const InputArgs& in, const std::string& out_dir, bool json,
              const std::function<void(const BatchItem&, const std::string&)>& work,
              const std::function<void(const std::vector<BatchItem>&)>& prepare) {
  std::vector<BatchItem> items = expand_inputs(in.inputs, in.manifest);
  const bool sharded = !in.shard.empty();
  if (sharded) {
    const Shard shard = parse_shard(in.shard);
    items = select_shard(items, shard);
    spdlog::info("shard {}/{}: {} recordings", shard.index, shard.count, items.size());
  }
  // --threads is the global option: LibTorch threads per recording when given, else the cores
  // shared out. LibTorch's thread count is process-wide (at::set_num_threads stores one number
  // that each thread applies to its own OpenMP team when it first runs parallel work), so it is
  // set once here, before the jobs start, and every job gets the same.
  int threads = 0;
  if (const CLI::App* app = cmd.get_parent())
    if (const CLI::Option* t = app->get_option_no_throw("--threads"); t != nullptr && t->count() > 0) threads = t->as<int>();
  if (in.jobs > 1 || threads > 0) set_cpu_threads(threads_per_job(threads, in.jobs));
  check_output_dir(out_dir);
  // One batch per --out at a time; the parts of a job array share it (each recording's folder is
  // then locked by its own run: src/pipeline/pipeline.cpp, detect_run.cpp).
  const OutputLock lock(out_dir, sharded ? OutputLock::Mode::shared : OutputLock::Mode::exclusive);
  remove_summary(out_dir);  // stale from here on; written anew at the end
  spdlog::info("{} recordings, {} at a time, {} CPU threads each -> {}/", items.size(), in.jobs, cpu_threads(), out_dir);
  if (prepare) prepare(items);
  BatchOptions options;
  options.jobs = in.jobs;
  options.progress = ::isatty(STDERR_FILENO) == 1 && spdlog::should_log(spdlog::level::info);
  const auto outcomes = run_batch(items, options, [&](const BatchItem& item) {
    work(item, out_dir.empty() || out_dir.back() == '/' ? out_dir + item.name : out_dir + "/" + item.name);
  });
  const auto rows = collect_batch_rows(out_dir, outcomes);
  // The parts of a job array run at once: none writes the summary, which `summarize` makes from
  // every folder once all are done (scripts/slurm/submit.sh queues it).
  if (!sharded) write_summary(out_dir, rows);
  if (json) std::cout << summary_json(rows) << std::endl;
  std::size_t failed = 0;
  for (const auto& o : outcomes) failed += o.ok ? 0 : 1;
  spdlog::info("{} of {} recordings done; {}", outcomes.size() - failed, outcomes.size(),
               sharded ? "run `ecgpipe summarize " + out_dir + "` once every shard is done"
                       : "wrote " + out_dir + "/summary.csv, summary.json, index.html");
  const ExitCode code = batch_exit_code(outcomes);
  if (code != ExitCode::ok)
    throw Error(code, std::to_string(failed) + " of " + std::to_string(outcomes.size()) + " recordings failed (each error in " +
                          out_dir + "/summary.csv)");
}

}  // namespace ecgpipe::cli
