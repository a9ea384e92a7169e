// A double as a JSON value: the number where it is finite, null where it is not (an undefined
// ratio such as Se without reference beats is NaN). JSON has neither NaN nor infinity; testing
// isfinite (not isnan) says so for both, and nlohmann::json would write either as null anyway, so
// every report keeps its bytes. The one helper for report.json, eval --json and the batch summary.
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace ecgpipe {

inline nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace ecgpipe
