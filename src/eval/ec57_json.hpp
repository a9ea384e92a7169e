// Internal: EC57 beat-classification statistics as JSON (`eval --json` and report.json
// "evaluation" -> "ec57"). Kept out of include/ecgpipe/eval/ec57.hpp so that no public header exposes
// nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include "ecgpipe/eval/ec57.hpp"

namespace ecgpipe {

// {"matrix": {"Nn": .., "Ns": .., ..., "Oq": ..}, (bxb's counter names: reference upper case,
//  detected lower case; no "Oo")
//  "qrs"|"veb"|"sveb": {"tp", "fn", "fp", "se", "ppv"}} with se/ppv null when undefined.
nlohmann::json ec57_json(const Ec57Matrix& m);

}  // namespace ecgpipe
