// A sliding sorted window's medians: see rolling_median.hpp.
#include "rhythm/rolling_median.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "common/sorted_window.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe::detail {

std::vector<double> rolling_median(const std::vector<double>& x, int w) {
  if (w < 1) throw InternalError("rolling_median: the window must hold at least one value");
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  std::vector<double> out(x.size(), std::numeric_limits<double>::quiet_NaN());
  if (n == 0) return out;
  if (n <= w) {
    // A series no longer than the window: every window is all of it. (Clamped windows would let
    // the first and last values stand for most of each window, and a 30-s recording of AF split
    // in two around its middle.)
    std::vector<double> all;
    for (const double v : x)
      if (!std::isnan(v)) all.push_back(v);
    if (all.empty()) return out;
    std::sort(all.begin(), all.end());
    std::fill(out.begin(), out.end(), median_of_sorted(all));
    return out;
  }
  const auto at = [&](std::ptrdiff_t j) { return x[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(j, 0, n - 1))]; };
  const std::ptrdiff_t before = w / 2;
  // The window of i = 0: positions -before .. w - before - 1 (the ends clamped), NaNs left out.
  SortedWindow window;
  for (std::ptrdiff_t j = -before; j < w - before; ++j)
    if (!std::isnan(at(j))) window.insert(at(j));
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    if (i > 0) {  // position i - 1 - before leaves, i + w - before - 1 enters
      const double gone = at(i - 1 - before), come = at(i + w - before - 1);
      if (!std::isnan(gone)) window.erase(gone);
      if (!std::isnan(come)) window.insert(come);
    }
    if (!window.empty()) out[static_cast<std::size_t>(i)] = median_of_sorted(window.values());
  }
  return out;
}

}  // namespace ecgpipe::detail
