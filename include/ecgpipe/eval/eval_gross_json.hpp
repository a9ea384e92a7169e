// Internal: many records' evaluation as JSON (`eval --reference-dir ... --json`, `eval --pairs
// ... --json`). Kept out of include/ecgpipe/eval/eval_gross.hpp so that no public header exposes
// nlohmann::json (as eval_json.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "ecgpipe/eval/eval_gross.hpp"

namespace ecgpipe {

// {"records": [one object per record: its eval_report_json with "record", "fs_source" and "qrs",
//  "veb", "sveb" ({tp, fn, fp, se, ppv}; veb and sveb null without classes)],
//  "gross": {"records", "class_records", "qrs", "veb", "sveb", "ec57" (the summed matrix, null
//  without classes)},
//  "average": {"qrs"|"veb"|"sveb": {"se", "ppv", "se_records", "ppv_records"}},
//  "skipped": [{"record", "missing", "expected"}]}; ratios null when undefined.
nlohmann::json gross_evaluation_json(const GrossEvaluation& gross);

}  // namespace ecgpipe
