// The subcommands of the ecgpipe executable; each registers itself on the CLI11 app.
// Subcommand callbacks throw ecgpipe::Error; only main() catches.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ecgpipe {
struct CsvOptions;
struct SampleWindows;
struct ViewOptions;
struct BatchItem;
}  // namespace ecgpipe

namespace ecgpipe::cli {

void add_run_command(CLI::App& app);
void add_synth_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_score_command(CLI::App& app);

// The input file, --column and --no-header (written into `input` and `csv`, which must outlive
// the command's parsing).
void add_input_options(CLI::App& cmd, std::string& input, CsvOptions& csv);
// --device cpu|cuda|auto into `device` (parse_device turns it into a Device).
void add_device_option(CLI::App& cmd, std::string& device);
// --model rr|seed into `model` (parse_model turns it into a Model).
void add_model_option(CLI::App& cmd, std::string& model);
// --reference FILE (run, score): reference beats to evaluate the detections and scores against.
void add_reference_option(CLI::App& cmd, std::string& reference);
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
// The sample windows (--ricker-width, --nms-window, --min-length, --max-length) within bounds
// that are durations at `fs` (UsageError naming the option otherwise); fs itself by validate_fs.
void check_windows(const SampleWindows& w, double fs);

}  // namespace ecgpipe::cli
