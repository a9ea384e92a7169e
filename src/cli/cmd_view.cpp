// `ecgpipe view OUT_DIR`: the recording and the run's results in a browser (view.hpp).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "ecgpipe/view/view.hpp"

namespace ecgpipe::cli {

void add_view_server_options(CLI::App& cmd, ViewOptions& options, const std::string& prefix) {
  cmd.add_option(prefix + "port", options.port, "TCP port of the viewer (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd.add_option(prefix + "bind", options.bind,
                 "Address the viewer listens on; the default serves this machine only (the data is an ECG)")
      ->capture_default_str();
}

void add_view_command(CLI::App& app) {
  auto options = std::make_shared<ViewOptions>();
  auto* cmd = app.add_subcommand("view", "Look at a recording and its results in a browser (serves on 127.0.0.1)");
  cmd->add_option("out_dir", options->out_dir, "Output folder of `ecgpipe run` or `ecgpipe score`")->required();
  add_view_server_options(*cmd, *options, "--");
  cmd->add_option("--reference", options->reference,
                  "Reference beats (sample,symbol CSV or WFDB .atr) to show beside the detections, misses and false "
                  "positives highlighted [default: the run's --reference]");
  cmd->add_option("--recording", options->recording, "The recording, if it moved [default: report.json's input path]");
  cmd->callback([options] { serve_view(*options, std::cout); });
}

}  // namespace ecgpipe::cli
