// Internal: heart-rate variability as JSON (`ecgpipe rhythm --json` "hrv", report.json), apart
// from include/ecgpipe/rhythm/hrv.hpp so that no public header exposes nlohmann::json. Numbers
// are rounded to what they mean: ms to 0.1, ms^2 to 1, ratios to 0.01, percent to 0.1; NaN (an
// undefined figure) is null.
#pragma once

#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "common/json_number.hpp"
#include "ecgpipe/rhythm/hrv.hpp"

namespace ecgpipe {

namespace hrv_json_detail {
// v rounded to `decimals` (json_number.hpp's rounding; null where not finite), whole numbers as
// integers (457, not 457.0).
inline nlohmann::json rounded(double v, int decimals) {
  if (decimals == 0 && std::isfinite(v)) return static_cast<std::int64_t>(std::llround(v));
  return json_number(v, decimals);
}
}  // namespace hrv_json_detail

inline nlohmann::json hrv_json(const HrvResult& h) {
  using hrv_json_detail::rounded;
  return {{"rr_intervals", h.rr_intervals},
          {"nn_intervals", h.nn_intervals},
          {"nn_seconds", json_number(h.nn_seconds, 1)},
          {"mean_nn_ms", rounded(h.mean_nn_ms, 1)},
          {"sdnn_ms", rounded(h.sdnn_ms, 1)},
          {"sdann_ms", rounded(h.sdann_ms, 1)},
          {"sdnn_index_ms", rounded(h.sdnn_index_ms, 1)},
          {"rmssd_ms", rounded(h.rmssd_ms, 1)},
          {"pnn50_percent", rounded(h.pnn50_percent, 1)},
          {"segments", h.segments},
          {"vlf_ms2", rounded(h.vlf_ms2, 0)},
          {"lf_ms2", rounded(h.lf_ms2, 0)},
          {"hf_ms2", rounded(h.hf_ms2, 0)},
          {"total_ms2", rounded(h.total_ms2, 0)},
          {"lf_hf", rounded(h.lf_hf, 2)}};
}

}  // namespace ecgpipe
