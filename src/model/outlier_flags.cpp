// Which beats are outliers (include/ecgpipe/model/outlier_score.hpp, flag_outliers).
#include <algorithm>

#include "ecgpipe/model/outlier_score.hpp"

namespace ecgpipe {

OutlierFlags flag_outliers(const std::vector<float>& scores, double quantile) {
  OutlierFlags out;
  std::vector<float> sorted = scores;
  std::sort(sorted.begin(), sorted.end());
  const double pos = quantile * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  out.threshold = sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
  out.flags.resize(scores.size());
  for (std::size_t i = 0; i < out.flags.size(); ++i) out.flags[i] = scores[i] > out.threshold;
  return out;
}

}  // namespace ecgpipe
