// ecgpipe: ECG recording -> heartbeats -> VAE -> outlier scores.
// The only place that catches: every failure becomes one line on stderr and a documented exit
// code (docs/cli.md, "Exit codes").
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/commands.hpp"
#include "common/log_format.hpp"
#include "common/text.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "cli/crash_report.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/vae.hpp"
#include "common/output_set.hpp"

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define ECGPIPE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ECGPIPE_SANITIZED 1
#endif

// Ends the process without running static destructors and atexit handlers: LibTorch's and the
// CUDA runtime's (its primary context torn down, the caching allocator's memory freed) took ~0.25
// s after the last line of a GPU run on an H100, 11 % of the whole run, while the driver releases
// all of it when the process ends anyway. Everything ecgpipe writes is complete by now: output
// sets are committed (renamed into place) before their command returns, and stdout/stderr are
// flushed here. Under the sanitizers the normal exit stays, for LeakSanitizer's check at exit.
[[noreturn]] void finish(int code) {
  spdlog::shutdown();  // flushes the logger
  std::fflush(nullptr);
#ifdef ECGPIPE_SANITIZED
  std::exit(code);
#else
  std::_Exit(code);
#endif
}

int run_main(int argc, char** argv) {
  using ecgpipe::ExitCode;
  // SIGINT/SIGTERM remove the temporaries of an output set being written (output.hpp).
  ecgpipe::install_output_signal_handlers();
  ecgpipe::install_crash_report();
  // Logs go to stderr; results go to stdout and files.
  auto logger = spdlog::stderr_color_mt("ecgpipe");
  logger->set_formatter(ecgpipe::visible_log_formatter("%^%l%$: %*"));
  spdlog::set_default_logger(logger);

  CLI::App app{"ecgpipe " ECGPIPE_VERSION ": ECG recording -> segmented heartbeats -> VAE -> ranked abnormal beats"};
  app.set_version_flag("--version", std::string("ecgpipe ") + ECGPIPE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // -q/-v also after the subcommand: `ecgpipe run FILE -q`
  app.option_defaults()->always_capture_default();
  bool quiet = false, verbose = false;
  int threads = 0;
  app.add_flag("-q,--quiet", quiet, "Only warnings and errors on stderr");
  app.add_flag("-v,--verbose", verbose, "Debug output on stderr");
  app.add_option("--threads", threads,
                 "CPU threads for training, scoring and the CPU band-pass (0: OMP_NUM_THREADS, else one per core); "
                 "give each of N parallel jobs cores/N")
      ->check(CLI::Range(0, ecgpipe::cli::max_cpu_threads()));
  // Runs after parsing, before the subcommand's callback does any work.
  app.parse_complete_callback([&] {
    spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
    ecgpipe::set_cpu_threads(threads);
  });
  ecgpipe::cli::add_run_command(app);
  ecgpipe::cli::add_analyze_command(app);
  ecgpipe::cli::add_score_command(app);
  ecgpipe::cli::add_synth_command(app);
  ecgpipe::cli::add_eval_command(app);
  ecgpipe::cli::add_rhythm_command(app);
  ecgpipe::cli::add_bench_command(app);
  ecgpipe::cli::add_detect_command(app);
  ecgpipe::cli::add_view_command(app);
  ecgpipe::cli::add_selftest_command(app);
  ecgpipe::cli::add_summarize_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // "A subcommand is required" for `ecgpipe frobnicate`: say which word is unknown and what
    // there is instead (issue 25).
    if (app.get_subcommands().empty()) {
      for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--threads") {
          ++i;
          continue;
        }
        if (arg.empty() || arg[0] == '-') continue;
        std::string names;
        for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
        std::fprintf(stderr, "ecgpipe: usage error: unknown subcommand '%s'; the subcommands are %s (see ecgpipe --help)\n",
                     ecgpipe::text::visible(ecgpipe::text::shorten(arg)).c_str(), names.c_str());
        return static_cast<int>(ExitCode::usage);
      }
    }
    std::fprintf(stderr, "ecgpipe: usage error: %s (see ecgpipe --help)\n",
                 ecgpipe::text::visible(ecgpipe::text::shorten(e.what())).c_str());
    return static_cast<int>(ExitCode::usage);
  } catch (const ecgpipe::Error& e) {
    // Cut: a message may quote input (a path, a line), which can be megabytes long; visible: which
    // may hold a terminal's control sequences.
    std::fprintf(stderr, "ecgpipe: error: %s\n", ecgpipe::text::visible(ecgpipe::text::shorten(e.what(), 2000)).c_str());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecgpipe: internal error: %s\n", ecgpipe::text::visible(e.what()).c_str());
    return static_cast<int>(ExitCode::internal);
  }
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

int main(int argc, char** argv) { finish(run_main(argc, argv)); }
