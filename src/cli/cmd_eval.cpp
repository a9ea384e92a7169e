// `ecgpipe eval --reference REF DETECTIONS.csv`: beat-detection Se / +P / F1 (issue 4), with
// EC57's VF-episode exclusion for a WFDB .atr reference, the AUROC of an outlier score and, with a
// class column, EC57's beat-classification statistics (issue 10, src/eval/ec57.cpp).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/io/wfdb.hpp"

namespace ecgpipe::cli {

namespace {
struct EvalArgs {
  std::string reference;
  std::string detections;
  std::string score_column;
  EvalOptions options;  // tolerance 150 ms: the ANSI/AAMI EC57 match window
  bool no_vf_exclusion = false;
  bool json = false;
  CLI::Option* fs_option = nullptr;
};
constexpr int kJsonIndent = 2;
}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval",
      "Match detected R peaks to reference beats (one to one within +-tolerance, as WFDB bxb / "
      "AAMI EC57) and report TP, FN, FP, Se, +P and F1, the AUROC of an outlier score and, with a class "
      "column, the EC57 beat-classification matrix and VEB / SVEB Se and +P (as bxb -S)");
  cmd->add_option("DETECTIONS", args->detections,
                  "CSV of detected R-peak samples: column r_peak (ecgpipe beats.csv), else "
                  "sample, else the first column; optionally a score column (--score-column) and a class "
                  "column (class: N, S, V, F, Q per beat)")
      ->required();
  cmd->add_option("--reference", args->reference,
                  "reference annotations: a WFDB annotation file (.atr; VF episodes are excluded) or a "
                  "CSV (sample,symbol; no rhythm information); non-beat annotations are skipped")
      ->required();
  // EC57's window is 150 ms; a second is longer than a whole RR interval at 60 bpm.
  constexpr double kMaxToleranceMs = 1000.0;
  check_finite(cmd->add_option("--tolerance-ms", args->options.tolerance_ms,
                               "match window, ms (a distance equal to it matches)")
                   ->capture_default_str(),
               0.0, kMaxToleranceMs);
  args->fs_option = cmd->add_option("--fs", args->options.fs,
                                    "sampling rate of both files, Hz [default: the rate in the .hea beside a .atr "
                                    "reference (REC.hea for REC.atr), else 250]");
  check_finite(args->fs_option, kMinFs, kMaxFs);
  cmd->add_flag("--no-vf-exclusion", args->no_vf_exclusion,
                "compare beats inside the reference's ventricular flutter/fibrillation episodes too "
                "(EC57 and bxb leave them out)");
  cmd->add_option("--score-column", args->score_column,
                  "outlier score column of DETECTIONS for the AUROC (abnormal S/V/F/Q vs N among matched "
                  "beats) [default: score, else recon_error, else no AUROC]");
  cmd->add_flag("--json", args->json, "print a JSON object instead of text");
  cmd->callback([args]() {
    EvalOptions options = args->options;
    // A .atr holds sample numbers only; its record's header (same name, .hea) holds the rate.
    const std::filesystem::path reference(args->reference);
    if (args->fs_option->count() == 0 && reference.extension() == ".atr") {
      const std::filesystem::path header = std::filesystem::path(reference).replace_extension(".hea");
      if (std::filesystem::exists(header)) options.fs = read_wfdb_header(header.string()).fs;
    }
    options.vf_exclusion = !args->no_vf_exclusion;
    const EvalReport report = evaluate_files(args->reference, args->detections, options, args->score_column);
    if (args->json)
      std::cout << eval_report_json(report).dump(kJsonIndent) << '\n';
    else
      std::cout << eval_report_text(report);
  });
}

}  // namespace ecgpipe::cli
