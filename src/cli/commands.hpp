// The subcommands of the ecgpipe executable; each registers itself on the CLI11 app.
// Subcommand callbacks throw ecgpipe::Error; only main() catches.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ecgpipe/io/signal_source.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ecgpipe {
struct CsvOptions;
struct SampleWindows;
struct ViewOptions;
struct BatchItem;
enum class Device;
enum class Preset;
enum class Model;
}  // namespace ecgpipe

namespace ecgpipe::cli {

void add_run_command(CLI::App& app);
void add_analyze_command(CLI::App& app);
void add_synth_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_score_command(CLI::App& app);
void add_rhythm_command(CLI::App& app);

// The input file, --column and --no-header (written into `input` and `csv`, which must outlive
// the command's parsing).
void add_input_options(CLI::App& cmd, std::string& input, CsvOptions& csv);
// The enum options: their names in any case (the enum's one name table, enum_names.hpp), the
// default shown by name; any other value is a usage error listing the names.
// --device auto|cpu|cuda (auto|cpu without `with_cuda`), with its general help unless `help` is given.
void add_device_option(CLI::App& cmd, Device& device, bool with_cuda = true, const std::string& help = "");
// --preset robust|seed.
void add_preset_option(CLI::App& cmd, Preset& preset, const std::string& help);
// --model rr|seed.
void add_model_option(CLI::App& cmd, Model& model);
// --chunk-seconds S (run, score, detect): RunOptions::chunk_seconds.
void add_chunk_option(CLI::App& cmd, double& seconds);
// --gpu-memory SIZE (parse_memory_size: "8G", "512M", bytes): the GPU memory a run may plan for.
void add_gpu_memory_option(CLI::App& cmd, std::optional<std::uint64_t>& bytes);
// --reference FILE (run, score): reference beats to evaluate the detections and scores against.
void add_reference_option(CLI::App& cmd, std::string& reference);
// --start TEXT (run, analyze, score): when a recording whose file says none started; the option,
// to ask whether it was given. check_start_option then refuses it for a batch (each recording has
// its own start) and checks its text before any input is read; apply_start_option, once the
// recording's source is resolved, gives it its start where given (apply_given_start).
CLI::Option* add_start_option(CLI::App& cmd, std::string& start);
void check_start_option(const CLI::Option& option, const std::string& start, bool batch);
void apply_start_option(const CLI::Option& option, const std::string& start, const std::string& input, SignalSource& source);
void add_detect_command(CLI::App& app);
void add_view_command(CLI::App& app);
// --port/--bind of the viewer (`view`), with a prefix for `run --view-port/--view-bind`.
void add_view_server_options(CLI::App& cmd, ViewOptions& options, const std::string& prefix);
void add_selftest_command(CLI::App& app);

// A number option that must be finite and lie in [lo, hi] (or (lo, hi] with lo_open): NaN, inf
// and values out of range are usage errors (exit 2) naming the option.
void check_finite(CLI::Option* option, double lo, double hi, bool lo_open = false);
// The most --threads accepted: 4 per hardware thread.
int max_cpu_threads();

// --seed: a whole number in 0..2^64-1, digits only (CLI11 read "-1" as 2^64-1 and a 23-digit
// seed as some other number, with exit 0: issue 25).
void add_seed_option(CLI::App& cmd, std::uint64_t& seed, const std::string& help);


// The global options (-q, -v, --threads) in a subcommand's --help, which CLI11 lists only in the
// top-level help although they work after the subcommand too (issue 27: --threads "missing").
void add_threads_note(CLI::App& cmd);

// One recording's signal and rate (io/signal_source.hpp): `fs` and `csv.column` are set to what is
// read, unless --fs (`fs_given`) fixed the rate; what was chosen is logged (info). Its warnings
// (a default rate, an irregular time column) are said by run_pipeline / detect_file's caller.
SignalSource resolve_input(const std::string& input, CsvOptions& csv, double& fs, bool fs_given);

void add_summarize_command(CLI::App& app);

// run, detect and score take one recording or many: files, directories (every recording in
// them), --manifest FILE, --jobs N recordings at a time.
struct InputArgs {
  std::vector<std::string> inputs;
  std::string manifest;
  int jobs = 1;
  std::string shard;  // --shard K/N or slurm: this job-array task's part (batch.hpp); "" = all
  // The one input of a single-recording call (not is_batch); "" otherwise.
  const std::string& single() const;
};
// The inputs (positional), --manifest, --jobs, --column and --no-header.
void add_inputs_options(CLI::App& cmd, InputArgs& in, CsvOptions& csv);
// UsageError when neither an input nor --manifest was given.
void require_inputs(const InputArgs& in);
// Runs `work(item, folder)` for every recording of `in` (batch.hpp), each into its folder
// out_dir/NAME, `in.jobs` at a time with the LibTorch threads shared out (threads_per_job of the
// global --threads of `cmd`'s parent); then writes the cohort summary (summary.hpp) into out_dir,
// prints summary.json with `json`, and throws Error(some_failed) naming the count if any failed.
// `prepare` (optional) runs once over all the recordings before any `work` (--cohort-model's training).
void run_many(const CLI::App& cmd, const InputArgs& in, const std::string& out_dir, bool json,
              const std::function<void(const BatchItem&, const std::string&)>& work,
              const std::function<void(const std::vector<BatchItem>&)>& prepare = {});

}  // namespace ecgpipe::cli
