// `ecgpipe eval`: detections against reference annotations, as WFDB's bxb (one record) and
// sumstats (many): beat-detection Se / +P / F1 (issue 4) with EC57's VF-episode exclusion, the
// AUROC of an outlier score, EC57's beat-classification statistics with a class column (issue 10,
// src/eval/ec57.cpp), and (issue 27) any annotator's files, the rate from the record's header, and
// gross / average statistics over many records (src/eval/eval_records.cpp, eval_gross.cpp).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli/commands.hpp"
#include "common/text.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/eval/eval_gross.hpp"
#include "ecgpipe/eval/eval_gross_json.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/eval/eval_records.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"
#include "common/json_text.hpp"

namespace ecgpipe::cli {

namespace {
struct EvalArgs {
  std::string reference;
  std::string detections;
  std::string score_column;
  std::string record, annotator = "atr", test_annotator;
  std::string reference_dir, detections_dir, pairs;
  bool skip_missing = false;
  EvalOptions options;  // tolerance 150 ms: the ANSI/AAMI EC57 match window
  bool no_vf_exclusion = false;
  bool json = false;
  CLI::Option* fs_option = nullptr;
  CLI::Option* annotator_option = nullptr;
};
constexpr int kJsonIndent = 2;
constexpr std::size_t kListedRecords = 10;  // records named in one error line, then "and N more"

// The two files of one record, read, at their rate.
RecordEvaluation evaluate_pair(const std::string& record, const EvalFile& reference, const EvalFile& detections,
                               const EvalArgs& a, EvalOptions options) {
  const ReferenceBeats ref = read_reference(reference.path, reference.format);
  if (const std::string unknown = unknown_rhythm_warning(ref.rhythm, reference.path); !unknown.empty()) spdlog::warn("{}", unknown);
  const Detections det = read_detections(detections.path, a.score_column, detections.format);
  if (const std::string unknown = unknown_detected_rhythm_warning(det.unknown_rhythms, detections.path); !unknown.empty())
    spdlog::warn("{}", unknown);
  if (det.sample_column_by_position)  // said, not assumed (as `rhythm` says it)
    spdlog::warn("{}: no 'r_peak' or 'sample' column: beat samples from the first column, '{}'", detections.path,
                 det.sample_column);
  const std::optional<double> fs = a.fs_option->count() > 0 ? std::optional<double>(options.fs) : std::nullopt;
  const EvalRate rate = eval_rate(reference.path, ref.has_rhythm, detections.path, det.from_annotations, fs);
  options.fs = rate.fs;
  return {record, rate.source, evaluate_read(ref, det, options, reference.path, detections.path)};
}

void eval_one(EvalArgs a, const EvalOptions& options) {
  // A record is named without extension (WFDB); data/100.hea names it too.
  constexpr std::string_view kHea = ".hea";
  if (a.record.size() > kHea.size() && a.record.compare(a.record.size() - kHea.size(), kHea.size(), kHea) == 0)
    a.record.resize(a.record.size() - kHea.size());
  const bool by_record = !a.record.empty();
  if (!a.reference.empty() && by_record)
    throw UsageError("eval: give the reference once: --reference FILE or --record REC [--annotator NAME]");
  if (a.reference.empty() && !by_record)
    throw UsageError("eval needs a reference: --reference FILE, or --record REC [--annotator NAME] for REC.NAME");
  if (a.annotator_option->count() > 0 && !by_record)
    throw UsageError("--annotator NAME finds REC.NAME: it needs --record REC or --reference-dir DIR");
  if (!a.test_annotator.empty() && !by_record)
    throw UsageError("--test-annotator NAME finds REC.NAME: it needs --record REC or --detections-dir DIR");
  if (!a.test_annotator.empty() && !a.detections.empty())
    throw UsageError("eval: give the detections once: DETECTIONS or --test-annotator NAME");
  if (a.test_annotator.empty() && a.detections.empty())
    throw UsageError("eval needs detections: DETECTIONS (a CSV or an annotation file), or --record REC --test-annotator NAME");
  const EvalFile reference = by_record ? annotator_file(a.record, a.annotator) : EvalFile{a.reference, EvalFileFormat::guess};
  const EvalFile detections =
      a.test_annotator.empty() ? EvalFile{a.detections, EvalFileFormat::guess} : annotator_file(a.record, a.test_annotator);
  const RecordEvaluation r = evaluate_pair(by_record ? a.record : reference.path, reference, detections, a, options);
  if (r.fs_source == "default")
    spdlog::warn("eval: no record header beside {} or {} and no --fs: {:g} Hz, ecgpipe's CSV default (pass --fs)",
                 reference.path, detections.path, r.report.fs);
  else
    spdlog::info("eval: {:g} Hz (from {})", r.report.fs, r.fs_source);
  if (a.json)
    std::cout << json_text(eval_report_json(r.report), kJsonIndent) << '\n';
  else
    std::cout << text::visible(eval_report_text(r.report), true);  // record names come from file names
}

// "101 (no detections: OUT/101/beats.csv), ..." for an error line or a warning.
std::string list_unpaired(const std::vector<UnpairedRecord>& unpaired) {
  std::string out;
  for (std::size_t i = 0; i < unpaired.size() && i < kListedRecords; ++i)
    out += (i > 0 ? ", " : "") + unpaired[i].record + " (no " + unpaired[i].missing + ": " + unpaired[i].expected + ")";
  if (unpaired.size() > kListedRecords) out += " and " + std::to_string(unpaired.size() - kListedRecords) + " more";
  return out;
}

void eval_many(const EvalArgs& a, const EvalOptions& options) {
  if (!a.detections.empty() || !a.reference.empty() || !a.record.empty())
    throw UsageError("--reference-dir / --pairs compare many records: no DETECTIONS, --reference or --record with them");
  if (!a.score_column.empty()) throw UsageError("--score-column is for one record (the AUROC is not in the gross table)");
  RecordPairs pairs;
  std::string where;
  if (!a.pairs.empty()) {
    if (!a.reference_dir.empty() || !a.detections_dir.empty())
      throw UsageError("--pairs FILE or --reference-dir DIR --detections-dir DIR, not both");
    if (a.annotator_option->count() > 0 || !a.test_annotator.empty())
      throw UsageError("--annotator / --test-annotator name the files of --reference-dir / --detections-dir; a pairs file names its files");
    pairs = read_record_pairs(a.pairs);
    where = a.pairs;
  } else {
    if (a.reference_dir.empty() || a.detections_dir.empty())
      throw UsageError("--reference-dir DIR and --detections-dir DIR go together (records paired by name)");
    pairs = pair_directories(a.reference_dir, a.annotator, a.detections_dir, a.test_annotator);
    where = a.reference_dir + "/*." + a.annotator + " and " + a.detections_dir +
            (a.test_annotator.empty() ? "/*/beats.csv" : "/*." + a.test_annotator);
  }
  if (!pairs.unpaired.empty() && !a.skip_missing)
    throw InputError("records on one side only: " + list_unpaired(pairs.unpaired) +
                     "; --skip-missing leaves them out");
  if (pairs.pairs.empty()) throw InputError("no records to compare in " + where);
  if (!pairs.unpaired.empty())  // each is listed after the table (text) or in "skipped" (--json)
    spdlog::warn("eval: {} record(s) on one side only left out (--skip-missing): {}", pairs.unpaired.size(),
                 list_unpaired(pairs.unpaired));
  std::vector<RecordEvaluation> records;
  std::vector<std::string> defaulted;
  for (const RecordPair& p : pairs.pairs) {
    records.push_back(evaluate_pair(p.record, p.reference, p.detections, a, options));
    if (records.back().fs_source == "default") defaulted.push_back(p.record);
  }
  if (!defaulted.empty()) {
    std::string names;
    for (std::size_t i = 0; i < defaulted.size() && i < kListedRecords; ++i) names += (i > 0 ? ", " : "") + defaulted[i];
    if (defaulted.size() > kListedRecords) names += " and " + std::to_string(defaulted.size() - kListedRecords) + " more";
    spdlog::warn("eval: no record header and no --fs for {} record(s) ({}): {:g} Hz, ecgpipe's CSV default (pass --fs)",
                 defaulted.size(), names, kEvalDefaultFs);
  }
  const GrossEvaluation gross = gross_evaluation(std::move(records), std::move(pairs.unpaired));
  if (a.json)
    std::cout << json_text(gross_evaluation_json(gross), kJsonIndent) << '\n';
  else
    std::cout << text::visible(gross_evaluation_text(gross), true);  // record names come from file names
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* cmd = app.add_subcommand(
      "eval",
      "Match detected R peaks to reference beats (one to one within +-tolerance, as WFDB bxb / "
      "AAMI EC57) and report TP, FN, FP, Se, +P and F1, the AUROC of an outlier score and, with beat "
      "classes, the EC57 beat-classification matrix and VEB / SVEB Se and +P (as bxb -S); over many "
      "records (--reference-dir, --pairs) a row per record and the gross and average rows (as sumstats)");
  cmd->add_option("DETECTIONS", args->detections,
                  "detections: a CSV of R-peak samples (column r_peak, as ecgpipe's beats.csv, else "
                  "sample, else the first; optionally a score column (--score-column), a class column "
                  "(N, S, V, F, Q per beat) and a rhythm column), or a WFDB annotation file of another "
                  "annotator (100.qrs, 100.xqrs: any name but .csv/.txt whose bytes are not text)");
  cmd->add_option("--reference", args->reference,
                  "reference annotations: a WFDB annotation file (100.atr or any annotator's; VF "
                  "episodes are excluded) or a sample,symbol CSV (.csv/.txt; no rhythm information); "
                  "non-beat annotations are skipped");
  cmd->add_option("-r,--record", args->record,
                  "a WFDB record (a path without extension, e.g. data/100), as bxb -r: the reference is "
                  "REC.ANNOTATOR (--annotator), the detections REC.TEST (--test-annotator) or DETECTIONS");
  args->annotator_option = cmd->add_option("-a,--annotator", args->annotator,
                                           "reference annotator of --record / --reference-dir (bxb -a's first name); "
                                           "csv or txt: a sample,symbol CSV")
                               ->capture_default_str();
  cmd->add_option("-t,--test-annotator", args->test_annotator,
                  "test annotator of --record / --detections-dir (bxb -a's second name): REC.NAME "
                  "holds the detections (csv or txt: a CSV)");
  cmd->add_option("--reference-dir", args->reference_dir,
                  "many records: every REC.ANNOTATOR in this directory, paired by record name with "
                  "--detections-dir; prints a row per record and the gross and average rows");
  cmd->add_option("--detections-dir", args->detections_dir,
                  "many records: DIR/REC.TEST (--test-annotator) or, without one, DIR/REC/beats.csv "
                  "(the folders of `ecgpipe detect|run ... --out DIR`)");
  cmd->add_option("--pairs", args->pairs,
                  "many records: a file of lines reference,detections (paths relative to it; # comments)");
  cmd->add_flag("--skip-missing", args->skip_missing,
                "many records: leave out (and list) records found on one side only, instead of refusing");
  // EC57's window is 150 ms; a second is longer than a whole RR interval at 60 bpm.
  constexpr double kMaxToleranceMs = 1000.0;
  check_finite(cmd->add_option("--tolerance-ms", args->options.tolerance_ms,
                               "match window, ms (a distance equal to it matches)")
                   ->capture_default_str(),
               0.0, kMaxToleranceMs);
  args->fs_option = cmd->add_option("--fs", args->options.fs,
                                    "sampling rate of both files, Hz [default: the rate of the record header "
                                    "beside the files (REC.hea for REC.atr); without one, refused when a file "
                                    "is a WFDB annotation file, else 250 with a warning]; an --fs that "
                                    "contradicts that header is refused");
  check_finite(args->fs_option, kMinFs, kMaxFs);
  args->fs_option->default_str("");  // no "=250" in --help: 250 is only the two-CSV fallback
  cmd->add_flag("--no-vf-exclusion", args->no_vf_exclusion,
                "compare beats inside the reference's ventricular flutter/fibrillation episodes too "
                "(EC57 and bxb leave them out)");
  cmd->add_option("--score-column", args->score_column,
                  "outlier score column of DETECTIONS for the AUROC (abnormal S/V/F/Q vs N among matched "
                  "beats) [default: score, else recon_error, else no AUROC]");
  cmd->add_flag("--json", args->json, "print a JSON object instead of text");
  cmd->callback([args]() {
    EvalOptions options = args->options;
    options.vf_exclusion = !args->no_vf_exclusion;
    if (!args->reference_dir.empty() || !args->detections_dir.empty() || !args->pairs.empty())
      eval_many(*args, options);
    else
      eval_one(*args, options);
  });
}

}  // namespace ecgpipe::cli
