// Beat matching (EC57), AUROC, AAMI classes and the evaluation of a detector: see
// include/ecgpipe/evaluate.hpp. Reading the files: src/eval_files.cpp; the reports:
// src/eval_report.cpp.
#include "ecgpipe/evaluate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "detail/clock.hpp"
#include "ecgpipe/error.hpp"

namespace ecgpipe {
namespace {

using detail::kMsPerSecond;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ratio(std::int64_t num, std::int64_t den) {
  return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : kNaN;
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

constexpr std::array<char, 5> kAamiClasses{'N', 'S', 'V', 'F', 'Q'};

}  // namespace

double MatchResult::sensitivity() const { return ratio(tp, tp + fn); }
double MatchResult::positive_predictivity() const { return ratio(tp, tp + fp); }
double MatchResult::f1() const { return ratio(2 * tp, 2 * tp + fp + fn); }
double ClassCounts::sensitivity() const { return ratio(detected, reference); }

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
  if (!std::isfinite(fs) || fs <= 0.0) throw UsageError("--fs must be positive");
  return static_cast<std::int64_t>(std::floor(tolerance_ms * fs / kMsPerSecond + kRoundingSlack));
}

double auroc(const std::vector<float>& scores, const std::vector<int>& labels) {
  if (scores.size() != labels.size()) throw InternalError("auroc: scores and labels differ in size");
  for (float s : scores)
    if (std::isnan(s)) throw InternalError("auroc: NaN score");
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  double positive_rank_sum = 0.0;
  std::size_t positives = 0;
  for (std::size_t lo = 0; lo < order.size();) {
    std::size_t hi = lo;
    while (hi < order.size() && scores[order[hi]] == scores[order[lo]]) ++hi;
    // 1-based ranks lo+1 .. hi share their average.
    const double avg_rank = 0.5 * static_cast<double>(lo + 1 + hi);
    for (std::size_t k = lo; k < hi; ++k) {
      if (labels[order[k]] != 0) {
        positive_rank_sum += avg_rank;
        ++positives;
      }
    }
    lo = hi;
  }
  const std::size_t negatives = scores.size() - positives;
  if (positives == 0 || negatives == 0) return kNaN;
  const double p = static_cast<double>(positives);
  const double u = positive_rank_sum - p * (p + 1.0) / 2.0;
  return u / (p * static_cast<double>(negatives));
}

char aami_class(char symbol) {
  switch (symbol) {
    case 'N': case 'L': case 'R': case 'e': case 'j':
      return 'N';
    case 'A': case 'a': case 'J': case 'S':
      return 'S';
    case 'V': case 'E':
      return 'V';
    case 'F':
      return 'F';
    case '/': case 'f': case 'Q':
      return 'Q';
    default:
      return 0;
  }
}

std::vector<ClassCounts> per_class_counts(const ReferenceBeats& reference, const MatchResult& match) {
  std::vector<ClassCounts> out;
  for (char c : kAamiClasses) out.push_back(ClassCounts{c, 0, 0});
  for (std::size_t i = 0; i < reference.symbols.size(); ++i) {
    const char c = aami_class(reference.symbols[i]);
    const auto it = std::find(kAamiClasses.begin(), kAamiClasses.end(), c);
    if (it == kAamiClasses.end()) continue;
    ClassCounts& cc = out[static_cast<std::size_t>(it - kAamiClasses.begin())];
    ++cc.reference;
    if (i < match.matched_detection.size() && match.matched_detection[i] >= 0) ++cc.detected;
  }
  return out;
}

namespace {

bool in_any(const std::vector<Episode>& episodes, std::int64_t t) {
  return std::any_of(episodes.begin(), episodes.end(), [t](const Episode& e) { return t >= e.start && t < e.end; });
}

// AUROC of `scores` for matched beats of class `positive` (0: all of S V F Q) against matched N.
AurocResult auroc_for(const ReferenceBeats& ref, const MatchResult& m, const std::vector<float>& scores,
                      char positive) {
  AurocResult r;
  r.positive = positive == 0 ? "abnormal" : std::string(1, positive);
  std::vector<float> s;
  std::vector<int> labels;
  for (std::size_t i = 0; i < ref.symbols.size(); ++i) {
    const std::int64_t d = m.matched_detection[i];
    if (d < 0) continue;
    const char c = aami_class(ref.symbols[i]);
    const bool pos = positive == 0 ? c != 'N' : c == positive;
    if (c != 'N' && !pos) continue;
    s.push_back(scores[static_cast<std::size_t>(d)]);
    labels.push_back(pos ? 1 : 0);
    ++(pos ? r.positives : r.negatives);
  }
  r.auroc = auroc(s, labels);
  return r;
}

}  // namespace

EvalReport evaluate_detections(const ReferenceBeats& reference, const std::vector<std::int64_t>& r_peaks,
                               const std::vector<float>& scores, const EvalOptions& o) {
  if (!scores.empty() && scores.size() != r_peaks.size())
    throw InternalError("evaluate_detections: " + std::to_string(scores.size()) + " scores for " +
                        std::to_string(r_peaks.size()) + " detections");
  EvalReport rep;
  rep.fs = o.fs;
  rep.tolerance_ms = o.tolerance_ms;
  rep.tolerance_samples = tolerance_samples(o.tolerance_ms, o.fs);
  rep.skipped_non_beats = reference.skipped_non_beats;
  rep.vf_exclusion = o.vf_exclusion;
  rep.reference_has_rhythm = reference.has_rhythm;

  // EC57 / bxb: no beat-by-beat comparison inside VF episodes, for either side.
  const std::vector<Episode> none;
  const std::vector<Episode>& episodes = o.vf_exclusion ? reference.vf_episodes : none;
  ReferenceBeats ref;
  ref.skipped_non_beats = reference.skipped_non_beats;
  std::int64_t last = 0;  // the last event, where an episode "to the end" stops for its duration
  for (std::size_t i = 0; i < reference.samples.size(); ++i) {
    last = std::max(last, reference.samples[i] + 1);
    if (in_any(episodes, reference.samples[i])) {
      ++rep.excluded_reference_beats;
      continue;
    }
    ref.samples.push_back(reference.samples[i]);
    ref.symbols.push_back(reference.symbols[i]);
  }
  std::vector<std::int64_t> det;
  std::vector<float> det_scores;
  for (std::size_t j = 0; j < r_peaks.size(); ++j) {
    last = std::max(last, r_peaks[j] + 1);
    if (in_any(episodes, r_peaks[j])) {
      ++rep.excluded_detections;
      continue;
    }
    det.push_back(r_peaks[j]);
    if (!scores.empty()) det_scores.push_back(scores[j]);
  }
  for (Episode e : episodes) {
    rep.excluded_episodes.push_back(e);
    const std::int64_t end = e.end == kEpisodeToEnd ? std::max(last, e.start) : e.end;
    rep.excluded_seconds += static_cast<double>(end - e.start) / o.fs;
  }

  rep.match = match_beats(ref.samples, det, rep.tolerance_samples);
  rep.classes = per_class_counts(ref, rep.match);
  if (!scores.empty()) {
    for (float v : det_scores)
      if (!std::isfinite(v)) throw InputError("evaluate_detections: a detection's score is not finite");
    rep.aurocs.push_back(auroc_for(ref, rep.match, det_scores, 0));
    for (char c : kAamiClasses)
      if (c != 'N') rep.aurocs.push_back(auroc_for(ref, rep.match, det_scores, c));
  }
  return rep;
}

}  // namespace ecgpipe
