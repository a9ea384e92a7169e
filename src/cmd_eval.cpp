// `ecgpipe eval --reference REF.csv DETECTIONS.csv`: beat-detection Se / +P / F1 (issue 4).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "ecgpipe/evaluate.hpp"

namespace ecgpipe::cli {

namespace {
struct EvalArgs {
  std::string reference;
  std::string detections;
  double tolerance_ms = 150.0;  // ANSI/AAMI EC57 match window
  double fs = 250.0;
  bool json = false;
};
constexpr int kJsonIndent = 2;
}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval",
      "Match detected R peaks to reference beats (one to one within +-tolerance, as WFDB bxb / "
      "AAMI EC57) and report TP, FN, FP, Se, +P and F1");
  cmd->add_option("DETECTIONS", args->detections,
                  "CSV of detected R-peak samples: column r_peak (ecgpipe beats.csv), else "
                  "sample, else the first column")
      ->required();
  cmd->add_option("--reference", args->reference,
                  "reference annotations CSV (sample,symbol); non-beat symbols are skipped")
      ->required();
  cmd->add_option("--tolerance-ms", args->tolerance_ms, "match window, ms (a distance equal to it matches)")
      ->capture_default_str();
  cmd->add_option("--fs", args->fs, "sampling rate of both files, Hz")->capture_default_str();
  cmd->add_flag("--json", args->json, "print a JSON object instead of text");
  cmd->callback([args]() {
    const EvalReport report =
        evaluate_files(args->reference, args->detections, args->tolerance_ms, args->fs);
    if (args->json)
      std::cout << eval_report_json(report).dump(kJsonIndent) << '\n';
    else
      std::cout << eval_report_text(report);
  });
}

}  // namespace ecgpipe::cli
