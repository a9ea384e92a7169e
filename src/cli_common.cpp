// Options that several subcommands share, defined once so their names, checks and help agree.
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "ecgpipe/csv.hpp"

namespace ecgpipe::cli {

void add_input_options(CLI::App& cmd, std::string& input, CsvOptions& csv) {
  cmd.add_option("file", input, "ECG CSV file (one numeric column used), or a WFDB record's .hea/.dat (one channel)")
      ->required();
  cmd.add_option("--column", csv.column, "Column to read: header name or 0-based index (default: 'heartbeats', else 0); for a WFDB record, "
                 "the channel: description (e.g. MLII) or 0-based index (default 0)");
  cmd.add_flag_callback("--no-header", [&csv] { csv.has_header = false; }, "The file has no header line");
}

void add_device_option(CLI::App& cmd, std::string& device) {
  cmd.add_option("--device", device, "cpu, cuda, or auto (cuda when a GPU and CUDA LibTorch are present)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}, CLI::ignore_case))
      ->capture_default_str();
}

void add_model_option(CLI::App& cmd, std::string& model) {
  cmd.add_option("--model", model,
                 "rr: R-centred, normalised beats scored by shape and rhythm (finds premature beats); seed: the "
                 "notebook's rows and reconstruction error")
      ->check(CLI::IsMember({"rr", "seed"}, CLI::ignore_case))
      ->capture_default_str();
}

void add_reference_option(CLI::App& cmd, std::string& reference) {
  cmd.add_option("--reference", reference,
                 "Reference beats (sample,symbol CSV or WFDB .atr): adds Se/+P and the score's AUROC per AAMI class "
                 "to report.json, and colours report.html's latent plot by class");
}

}  // namespace ecgpipe::cli
