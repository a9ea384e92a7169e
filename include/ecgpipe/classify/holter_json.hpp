// Internal: the Holter summary as JSON (report.json "holter"). Kept out of
// include/ecgpipe/classify/holter.hpp so that no public header exposes nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include "ecgpipe/classify/holter.hpp"

namespace ecgpipe {

// NaN -> null; without classes only the rate and pause figures.
nlohmann::json holter_json(const HolterSummary& summary);

}  // namespace ecgpipe
