// `ecgpipe summarize DIR...`: rebuilds the cohort summary (summary.csv, summary.json, index.html)
// from existing output folders, e.g. after recordings were run by separate processes or nodes.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "common/paths.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/batch/batch_summary.hpp"

namespace ecgpipe::cli {
namespace {

struct SummarizeArgs {
  std::vector<std::string> dirs;
  std::string out;
  bool json = false;
};

std::string folder_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void add_summarize_command(CLI::App& app) {
  auto a = std::make_shared<SummarizeArgs>();
  auto* cmd = app.add_subcommand("summarize",
                                 "Rebuild summary.csv, summary.json and index.html from output folders (each DIR: a "
                                 "recording's folder, or a directory of them such as a batch's --out)");
  cmd->add_option("dirs", a->dirs, "Output folders, or directories holding them")->required();
  cmd->add_option("--out", a->out, "Where to write the summary [default: DIR when one directory of folders is given]");
  cmd->add_flag("--json", a->json, "Print summary.json to stdout");
  cmd->callback([a] {
    std::vector<SummaryRow> rows;
    bool one_parent = a->dirs.size() == 1;
    for (const auto& dir : a->dirs) {
      if (!detail::is_directory(dir)) throw InputError(dir + ": not a directory");
      const std::vector<std::string> folders = output_folders(dir);
      if (!folders.empty()) {
        for (const auto& f : folders) rows.push_back(read_output_folder(f, folder_name(f)));
      } else {
        rows.push_back(read_output_folder(dir, folder_name(dir)));  // InputError if it is not one
        one_parent = false;
      }
    }
    std::sort(rows.begin(), rows.end(), [](const SummaryRow& x, const SummaryRow& y) { return x.name < y.name; });
    for (std::size_t i = 1; i < rows.size(); ++i)
      if (rows[i].name == rows[i - 1].name)
        throw UsageError("two output folders named " + rows[i].name + " (" + rows[i - 1].folder + ", " + rows[i].folder +
                         "): the summary names each recording once");
    std::string out = a->out;
    if (out.empty()) {
      if (!one_parent) throw UsageError("--out is needed unless one directory of output folders is given");
      out = a->dirs.front();
    }
    write_summary(out, rows);
    std::size_t failed = 0;
    for (const auto& r : rows) failed += r.ok ? 0 : 1;
    spdlog::info("{} recordings ({} failed) -> {}/summary.csv, summary.json, index.html", rows.size(), failed, out);
    if (a->json) std::cout << summary_json(rows) << std::endl;
  });
}

}  // namespace ecgpipe::cli
