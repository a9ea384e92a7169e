// The subcommands of the ecgpipe executable; each registers itself on the CLI11 app.
// Subcommand callbacks throw ecgpipe::Error; only main() catches.
#pragma once

namespace CLI {
class App;
}

namespace ecgpipe::cli {

void add_run_command(CLI::App& app);
void add_synth_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_score_command(CLI::App& app);
void add_detect_command(CLI::App& app);

}  // namespace ecgpipe::cli
