// Outlier scoring: see include/ecgpipe/model/outlier_score.hpp.
#include "ecgpipe/model/outlier_score.hpp"

#include <algorithm>
#include <cmath>

#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/vae_types.hpp"
#include "ecgpipe/signal/beat_matrix.hpp"

namespace ecgpipe {

const EnumNames<Model>& model_names() {
  static const EnumNames<Model> names{{"rr", Model::rr}, {"seed", Model::seed}};
  return names;
}

const char* model_name(Model model) { return name_in(model_names(), model); }

CentredWindow centred_window(double fs) {
  CentredWindow w;
  w.before = samples_for(kWindowBeforeS, fs);
  const int span = w.before + samples_for(kWindowAfterS, fs);
  w.length = (span + kModelLengthMultiple - 1) / kModelLengthMultiple * kModelLengthMultiple;
  return w;
}

BeatTable centred_windows(const std::vector<std::int64_t>& r_peaks, std::int64_t samples, const CentredWindow& w) {
  BeatTable t;
  for (const std::int64_t r : r_peaks) {
    const std::int64_t start = r - w.before;
    if (start < 0 || start >= samples) continue;
    t.start.push_back(start);
    t.length.push_back(static_cast<std::int32_t>(std::min<std::int64_t>(w.length, samples - start)));
  }
  return t;
}

namespace {

// Per beat i >= 1: f(RR before, RR after or 0 for the last beat, the local RR window sorted).
template <class Term>
std::vector<float> per_beat_rr(const std::vector<std::int64_t>& r_peaks, Term term) {
  const std::size_t n = r_peaks.size();
  std::vector<float> out(n, 0.0f);
  if (n < 2) return out;
  std::vector<double> rr(n);  // rr[i] = interval before beat i; rr[0] borrows rr[1]
  for (std::size_t i = 1; i < n; ++i) rr[i] = static_cast<double>(r_peaks[i] - r_peaks[i - 1]);
  rr[0] = rr[1];
  std::vector<double> window;
  for (std::size_t i = 1; i < n; ++i) {
    const std::size_t lo = i > static_cast<std::size_t>(kRrContext) ? i - kRrContext : 0;
    const std::size_t hi = std::min(n, i + kRrContext + 1);
    window.assign(rr.begin() + static_cast<std::ptrdiff_t>(lo), rr.begin() + static_cast<std::ptrdiff_t>(hi));
    std::sort(window.begin(), window.end());
    if (rr[i] > 0.0) out[i] = static_cast<float>(term(rr[i], i + 1 < n ? rr[i + 1] : 0.0, window));
  }
  return out;
}

}  // namespace

std::vector<float> rhythm_term(const std::vector<std::int64_t>& r_peaks) {
  return per_beat_rr(r_peaks, [](double pre, double post, const std::vector<double>& sorted) {
    const double median = sorted[sorted.size() / 2];
    // 80th percentile, nearest rank below: the longer cycles of the ~20 s around the beat.
    const double p80 = sorted[(sorted.size() - 1) * 4 / 5];
    const double short_long = post > 0.0 ? std::max(0.0, std::log(post / pre)) : 0.0;
    return std::max(0.0, std::log(median / pre)) + kShortLongWeight * short_long +
           kSinusWeight * std::max(0.0, std::log(p80 / pre));
  });
}

std::vector<float> prematurity(const std::vector<std::int64_t>& r_peaks) {
  return per_beat_rr(r_peaks, [](double pre, double, const std::vector<double>& sorted) {
    return std::max(0.0, std::log(sorted[sorted.size() / 2] / pre));
  });
}

namespace {

// ln(v / median(v)) per value; a floor keeps an exactly-zero value or median finite.
std::vector<double> log_ratio_to_median(const std::vector<float>& v) {
  constexpr double kFloor = 1e-12;
  std::vector<float> sorted(v);
  const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), mid, sorted.end());
  const double median = std::max(kFloor, static_cast<double>(*mid));
  std::vector<double> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = std::log(std::max(kFloor, static_cast<double>(v[i])) / median);
  return out;
}

}  // namespace

std::vector<float> score_rr(const std::vector<float>& recon_error, const std::vector<float>& template_distance,
                            const std::vector<float>& prem) {
  const std::size_t n = recon_error.size();
  if (template_distance.size() != n || prem.size() != n) throw InternalError("score_rr: per-beat terms differ in length");
  std::vector<float> out(n);
  if (n == 0) return out;
  const auto shape = log_ratio_to_median(recon_error), distance = log_ratio_to_median(template_distance);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(shape[i] + distance[i] + kPrematurityWeight * prem[i]);
  return out;
}

std::vector<std::size_t> top_scores(const float* scores, std::size_t n, std::size_t k) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(scores[i])) idx.push_back(i);
  k = std::min(k, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::size_t a, std::size_t b) { return scores[a] > scores[b] || (scores[a] == scores[b] && a < b); });
  idx.resize(k);
  return idx;
}

}  // namespace ecgpipe
