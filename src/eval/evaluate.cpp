// AUROC, per-class counts and the evaluation of a detector: see include/ecgpipe/eval/evaluate.hpp
// (the matching: src/eval/beat_match.cpp; the AAMI classes: src/classify/aami_class.cpp). Reading the files: src/eval/reference_files.cpp; the reports:
// src/eval/eval_report.cpp.
#include "ecgpipe/eval/evaluate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ratio(std::int64_t num, std::int64_t den) {
  return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : kNaN;
}

constexpr std::array<char, 5> kAamiClasses{'N', 'S', 'V', 'F', 'Q'};

}  // namespace

double ClassCounts::sensitivity() const { return ratio(detected, reference); }

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
                               const std::vector<float>& scores, const EvalOptions& o,
                               const std::vector<char>& classes) {
  if (!scores.empty() && scores.size() != r_peaks.size())
    throw InternalError("evaluate_detections: " + std::to_string(scores.size()) + " scores for " +
                        std::to_string(r_peaks.size()) + " detections");
  if (!classes.empty() && classes.size() != r_peaks.size())
    throw InternalError("evaluate_detections: " + std::to_string(classes.size()) + " classes for " +
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
  std::vector<char> det_classes;
  for (std::size_t j = 0; j < r_peaks.size(); ++j) {
    last = std::max(last, r_peaks[j] + 1);
    if (in_any(episodes, r_peaks[j])) {
      ++rep.excluded_detections;
      continue;
    }
    det.push_back(r_peaks[j]);
    if (!scores.empty()) det_scores.push_back(scores[j]);
    if (!classes.empty()) det_classes.push_back(classes[j]);
  }
  for (Episode e : episodes) {
    rep.excluded_episodes.push_back(e);
    const std::int64_t end = e.end == kEpisodeToEnd ? std::max(last, e.start) : e.end;
    rep.excluded_seconds += static_cast<double>(end - e.start) / o.fs;
  }

  rep.match = match_beats(ref.samples, det, rep.tolerance_samples);
  rep.classes = per_class_counts(ref, rep.match);
  if (!classes.empty()) {
    rep.has_classes = true;
    rep.ec57 = ec57_matrix(ref.symbols, det_classes, rep.match);
  }
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
