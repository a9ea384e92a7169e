// `ecgpipe selftest [--junit FILE] [--device cpu|auto] [--epochs N]`: the GPU runner's smoke test
// (src/cli/selftest.hpp). Prints the environment and one line per check; exit 0 only if every check
// that ran passed (skipped GPU checks on a machine without a GPU do not fail it), 1 otherwise.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "common/paths.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "cli/junit.hpp"
#include "common/output_set.hpp"
#include "cli/selftest.hpp"

namespace ecgpipe::cli {
namespace {

struct SelftestArgs {
  std::string junit;
  Device device = Device::automatic;
  int epochs = kSelftestEpochs;
};

const char* status_word(TestCaseResult::Status s) {
  switch (s) {
    case TestCaseResult::Status::passed: return "PASS";
    case TestCaseResult::Status::failed: return "FAIL";
    case TestCaseResult::Status::skipped: return "SKIP";
  }
  return "?";
}

}  // namespace

void add_selftest_command(CLI::App& app) {
  auto a = std::make_shared<SelftestArgs>();
  auto* cmd = app.add_subcommand("selftest",
                                 "Run every stage on the bundled sample on the CPU and each usable GPU and compare them "
                                 "(exit 0: all passed; 1: a check failed)");
  cmd->add_option("--junit", a->junit, "Also write the results as JUnit XML to this file (for CI)");
  add_device_option(*cmd, a->device, /*with_cuda=*/false, "auto: CPU and, where usable, the GPU; cpu: the CPU only");
  cmd->add_option("--epochs", a->epochs, "Training epochs per run")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->callback([a] {
    for (const auto& line : selftest_environment()) std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    namespace fs = std::filesystem;
    char templ[] = "/tmp/ecgpipe-selftest.XXXXXX";
    if (::mkdtemp(templ) == nullptr) throw OutputError("selftest: cannot create a scratch folder under /tmp");
    const fs::path work = templ;
    SelftestOptions options;
    options.work_dir = work.string();
    options.epochs = a->epochs;
    options.want_cuda = a->device != Device::cpu;
    std::vector<TestCaseResult> results;
    try {
      results = run_selftest(options);
    } catch (...) {
      detail::remove_tree(work.string());
      throw;
    }
    detail::remove_tree(work.string());
    std::size_t failed = 0, ran = 0;
    for (const auto& r : results) {
      std::printf("%s  %-5s %-40s %7.3f s  %s\n", status_word(r.status), r.classname.c_str(), r.name.c_str(), r.seconds,
                  r.message.c_str());
      failed += r.status == TestCaseResult::Status::failed;
      ran += r.status != TestCaseResult::Status::skipped;
    }
    std::printf("selftest: %zu passed, %zu failed, %zu skipped\n", ran - failed, failed, results.size() - ran);
    std::fflush(stdout);
    if (!a->junit.empty()) {
      OutputSet file;  // whole or not at all, like every output
      file.text(a->junit) << junit_xml("ecgpipe selftest", results);
      file.commit();
    }
    if (failed > 0) throw Error(ExitCode::internal, "selftest: " + std::to_string(failed) + " check(s) failed");
  });
}

}  // namespace ecgpipe::cli
