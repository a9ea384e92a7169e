// Internal: an evaluation as a JSON object (`eval --json`, report.json's "evaluation"). Kept out
// of include/ecgpipe/eval/evaluate.hpp so that no public header exposes nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"

namespace ecgpipe {

// Se/+P/F1/AUROC are null when undefined.
nlohmann::json eval_report_json(const EvalReport& report);

// EC57's AF statistics (durations in seconds at `fs`); ratios null when undefined.
nlohmann::json af_stats_json(const AfStats& stats, double fs);

}  // namespace ecgpipe
