// Supraventricular tachycardia runs: see include/ecgpipe/rhythm/svt_runs.hpp.
#include "ecgpipe/rhythm/svt_runs.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "classify/column_median.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

SvtRunChanges continue_svt_runs(const std::vector<std::int64_t>& r_peaks, double fs, std::vector<BeatClass>& classes,
                                const std::vector<Rhythm>& rhythm, const SvtRunOptions& o) {
  const std::size_t n = r_peaks.size();
  if (classes.size() != n || (!rhythm.empty() && rhythm.size() != n))
    throw InternalError("continue_svt_runs: " + std::to_string(classes.size()) + " classes and " +
                        std::to_string(rhythm.size()) + " rhythms for " + std::to_string(n) + " beats");
  const auto in_af = [&](std::size_t i) { return !rhythm.empty() && rhythm[i] == Rhythm::AFIB; };
  const auto outside = [&](std::size_t i) { return in_af(i) || classes[i] == BeatClass::V; };
  // pre[i]: the interval before beat i, in samples (none before the first).
  std::vector<double> pre(n, std::numeric_limits<double>::infinity());
  for (std::size_t i = 1; i < n; ++i) pre[i] = static_cast<double>(r_peaks[i] - r_peaks[i - 1]);
  const double max_rr = o.max_rr_s * fs;
  SvtRunChanges changes;
  std::vector<double> before;  // the intervals before the onset, reordered by the median (numpy's, as the script's)
  for (std::size_t i = 2; i < n;) {
    const std::size_t from = i > o.rhythm_before ? i - o.rhythm_before : 1;
    before.assign(pre.begin() + static_cast<std::ptrdiff_t>(from), pre.begin() + static_cast<std::ptrdiff_t>(i));
    const double limit = std::min(o.faster * detail::median_in_place(before), max_rr);
    if (outside(i) || !(pre[i] < limit && pre[i] <= o.abrupt * pre[i - 1])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < n && !outside(end) && pre[end] < limit) ++end;
    if (end - i >= o.min_irregular_beats &&
        interval_irregularity(std::vector<double>(pre.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                                  pre.begin() + static_cast<std::ptrdiff_t>(end))) > o.irregular) {
      for (std::size_t k = i; k < end; ++k)
        if (classes[k] == BeatClass::S) {
          classes[k] = BeatClass::N;
          ++changes.irregular;
        }
      i = end;
      continue;
    }
    const std::size_t head = std::min(end, i + o.s_within);
    const bool began_ectopic =
        std::any_of(classes.begin() + static_cast<std::ptrdiff_t>(i), classes.begin() + static_cast<std::ptrdiff_t>(head),
                    [](BeatClass c) { return c == BeatClass::S; });
    if (end - i >= o.min_beats && end - i <= o.max_beats && began_ectopic) {
      for (std::size_t k = i; k < end; ++k)
        if (classes[k] == BeatClass::N) {
          classes[k] = BeatClass::S;
          ++changes.continued;
        }
    }
    i = end;  // > i: the onset test held for beat i itself
  }
  return changes;
}

}  // namespace ecgpipe
