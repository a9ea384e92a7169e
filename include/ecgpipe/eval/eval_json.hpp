// Internal: an evaluation as a JSON object (`eval --json`, report.json's "evaluation"). Kept out
// of include/ecgpipe/eval/evaluate.hpp so that no public header exposes nlohmann::json.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"

namespace ecgpipe {

// Se/+P/F1/AUROC are null when undefined.
nlohmann::json eval_report_json(const EvalReport& report);

// EC57's AF statistics (durations in seconds at `fs`); ratios null when undefined.
nlohmann::json af_stats_json(const AfStats& stats, double fs);
// {"VT": af_stats_json of its RhythmStats, "SVTA": ..., "B": ..., "T": ..., "IVR": ...}.
nlohmann::json rhythm_stats_json(const std::vector<RhythmStats>& stats, double fs);
// "AF (EC57, epicmp -a): episode Se ... +P ...; duration Se ... +P ...", then a line for each
// rhythm of `rhythms` with an episode on either side.
std::string episode_stats_text(const AfStats& af, const std::vector<RhythmStats>& rhythms);

}  // namespace ecgpipe
