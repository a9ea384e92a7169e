// A double as a JSON value: the number where it is finite, null where it is not (an undefined
// ratio such as Se without reference beats is NaN). JSON has neither NaN nor infinity; testing
// isfinite (not isnan) says so for both, and nlohmann::json would write either as null anyway, so
// every report keeps its bytes. The one helper for report.json, eval --json and the batch summary.
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace ecgpipe {

inline nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// `v` rounded to `digits` decimals, for figures that mean no more (issue 27: a pause of
// 4.758333333333212 s is 4.758 s; a rate of 75.03466 bpm is 75.0 bpm). Non-finite values pass.
// The one rounding of report.json, the batch summary and the HRV's JSON.
inline double rounded(double v, int digits) {
  if (!std::isfinite(v)) return v;
  const double scale = std::pow(10.0, digits);
  const double r = std::round(v * scale) / scale;
  return r == 0.0 ? 0.0 : r;  // no "-0.00" from a small negative
}
inline nlohmann::json json_number(double v, int digits) { return json_number(rounded(v, digits)); }

}  // namespace ecgpipe
