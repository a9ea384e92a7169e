// Beat matching: see include/ecgpipe/eval/beat_match.hpp.
#include "ecgpipe/eval/beat_match.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "common/clock.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

using detail::kMsPerSecond;

double ratio(std::int64_t num, std::int64_t den) {
  return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : std::numeric_limits<double>::quiet_NaN();
}

// Indices of `v` sorted by (value, index).
std::vector<std::size_t> sorted_order(const std::vector<std::int64_t>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  return order;
}

// Lexicographic DP score: more matches first, then less total distance.
struct Score {
  std::int64_t matches = 0;
  std::int64_t cost = 0;
  bool better_than(const Score& o) const {
    return matches != o.matches ? matches > o.matches : cost < o.cost;
  }
};

enum Step : std::uint8_t { kSkipReference, kSkipDetection, kPair };

// Matches the sorted values r[0..a) and d[0..b) (one cluster); writes pairs into `pairs` as
// (position in r, position in d).
void match_cluster(const std::int64_t* r, std::size_t a, const std::int64_t* d, std::size_t b,
                   std::int64_t tol, std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  if (a == 0 || b == 0) return;
  const std::size_t width = b + 1;
  if ((a + 1) > kMaxMatchDpCells / width) {
    // Too large for the table: greedy earliest-free detection, which maximizes TP.
    std::size_t p = 0;
    for (std::size_t i = 0; i < a && p < b; ++i) {
      while (p < b && d[p] < r[i] - tol) ++p;
      if (p < b && d[p] <= r[i] + tol) pairs.emplace_back(i, p++);
    }
    return;
  }
  std::vector<Score> f((a + 1) * width);
  std::vector<std::uint8_t> step((a + 1) * width, kSkipReference);
  for (std::size_t j = 1; j <= b; ++j) step[j] = kSkipDetection;
  for (std::size_t i = 1; i <= a; ++i) {
    for (std::size_t j = 1; j <= b; ++j) {
      Score best = f[(i - 1) * width + j];
      std::uint8_t how = kSkipReference;
      const Score& left = f[i * width + j - 1];
      if (left.better_than(best)) {
        best = left;
        how = kSkipDetection;
      }
      const std::int64_t dist = std::abs(r[i - 1] - d[j - 1]);
      if (dist <= tol) {
        const Score& diag = f[(i - 1) * width + j - 1];
        const Score paired{diag.matches + 1, diag.cost + dist};
        if (paired.better_than(best)) {
          best = paired;
          how = kPair;
        }
      }
      f[i * width + j] = best;
      step[i * width + j] = how;
    }
  }
  for (std::size_t i = a, j = b; i > 0 && j > 0;) {
    switch (step[i * width + j]) {
      case kPair:
        pairs.emplace_back(i - 1, j - 1);
        --i;
        --j;
        break;
      case kSkipReference:
        --i;
        break;
      default:
        --j;
        break;
    }
  }
}

}  // namespace

double MatchResult::sensitivity() const { return ratio(tp, tp + fn); }
double MatchResult::positive_predictivity() const { return ratio(tp, tp + fp); }
double MatchResult::f1() const { return ratio(2 * tp, 2 * tp + fp + fn); }

MatchResult match_beats(const std::vector<std::int64_t>& reference,
                        const std::vector<std::int64_t>& detections, std::int64_t tol) {
  if (tol < 0) throw InternalError("match_beats: negative tolerance");
  MatchResult m;
  m.matched_detection.assign(reference.size(), -1);
  m.matched_reference.assign(detections.size(), -1);
  const auto r_order = sorted_order(reference);
  const auto d_order = sorted_order(detections);
  std::vector<std::int64_t> r(reference.size()), d(detections.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = reference[r_order[i]];
  for (std::size_t j = 0; j < d.size(); ++j) d[j] = detections[d_order[j]];

  // Clusters: maximal runs of the merged sorted events with gaps <= tol.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::size_t i = 0, j = 0;
  while (i < r.size() || j < d.size()) {
    const std::size_t i0 = i, j0 = j;
    std::int64_t last = 0;
    bool first = true;
    while (i < r.size() || j < d.size()) {
      const bool take_ref = j >= d.size() || (i < r.size() && r[i] <= d[j]);
      const std::int64_t t = take_ref ? r[i] : d[j];
      if (!first && t - last > tol) break;
      first = false;
      last = t;
      take_ref ? ++i : ++j;
    }
    const std::size_t before = pairs.size();
    match_cluster(r.data() + i0, i - i0, d.data() + j0, j - j0, tol, pairs);
    for (std::size_t k = before; k < pairs.size(); ++k) {
      pairs[k].first += i0;
      pairs[k].second += j0;
    }
  }
  for (const auto& [ri, dj] : pairs) {
    m.matched_detection[r_order[ri]] = static_cast<std::int64_t>(d_order[dj]);
    m.matched_reference[d_order[dj]] = static_cast<std::int64_t>(r_order[ri]);
  }
  m.tp = static_cast<std::int64_t>(pairs.size());
  m.fn = static_cast<std::int64_t>(reference.size()) - m.tp;
  m.fp = static_cast<std::int64_t>(detections.size()) - m.tp;
  return m;
}

std::int64_t tolerance_samples(double tolerance_ms, double fs) {
  // Slack far below one sample, far above double rounding of ms * fs / 1000.
  constexpr double kRoundingSlack = 1e-6;
  if (!std::isfinite(tolerance_ms) || tolerance_ms < 0.0)
    throw UsageError("--tolerance-ms must be a non-negative number");
  if (!std::isfinite(fs) || fs <= 0.0) throw UsageError("--fs must be a positive number of Hz");
  return static_cast<std::int64_t>(std::floor(tolerance_ms * fs / kMsPerSecond + kRoundingSlack));
}

}  // namespace ecgpipe
