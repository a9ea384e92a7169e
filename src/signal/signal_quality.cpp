// Signal quality: artefact spans (see signal_quality.hpp).
#include "ecgpipe/signal/signal_quality.hpp"

#include "common/spans.hpp"

#include <algorithm>
#include <cmath>

namespace ecgpipe {
namespace {

using Span = SampleSpan;

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

std::int64_t samples_of(double seconds, double fs) { return std::max<std::int64_t>(1, std::llround(seconds * fs)); }

// The centred moving mean of x over `len` samples (shorter at the ends), by a running sum in double.
std::vector<float> moving_mean(const float* x, std::int64_t n, std::int64_t len) {
  std::vector<float> out(static_cast<std::size_t>(n));
  const std::int64_t before = len / 2, after = len - before - 1;
  double sum = 0.0;
  std::int64_t lo = 0, hi = -1;  // x[lo..hi] is summed
  for (std::int64_t i = 0; i < n; ++i) {
    while (hi < std::min(n - 1, i + after)) sum += x[++hi];
    while (lo < i - before) sum -= x[lo++];
    out[static_cast<std::size_t>(i)] = static_cast<float>(sum / static_cast<double>(hi - lo + 1));
  }
  return out;
}

}  // namespace

double SignalQuality::artefact_seconds(double fs) const {
  std::int64_t n = 0;
  for (const auto& s : spans) n += s.second - s.first;
  return fs > 0 ? static_cast<double>(n) / fs : 0.0;
}

SignalQuality assess_signal_quality(const float* x, std::size_t n_samples, const std::vector<std::int64_t>& r_peaks,
                                    double fs, const QualityOptions& o) {
  SignalQuality q;
  q.beat_artefact.assign(r_peaks.size(), false);
  const auto n = static_cast<std::int64_t>(n_samples);
  if (n == 0 || !(fs > 0)) return q;

  // The QRS amplitude scale A: the median peak-to-peak within qrs_half_s of the R peaks.
  const std::int64_t half = samples_of(o.qrs_half_s, fs);
  std::vector<double> amplitude;
  amplitude.reserve(r_peaks.size());
  for (std::int64_t r : r_peaks) {
    const std::int64_t a = std::clamp<std::int64_t>(r - half, 0, n - 1), b = std::clamp<std::int64_t>(r + half, 0, n - 1);
    const auto [lo, hi] = std::minmax_element(x + a, x + b + 1);
    amplitude.push_back(static_cast<double>(*hi) - static_cast<double>(*lo));
  }
  const double qrs_amplitude = median_of(amplitude);

  // The fast part (x minus its mean over fast_mean_s: muscle noise; ECG waves other than the
  // QRS are slower) and the slow part (the mean over slow_mean_s: baseline swings).
  const std::vector<float> fast_mean = moving_mean(x, n, samples_of(o.fast_mean_s, fs));
  const std::vector<float> slow = moving_mean(x, n, samples_of(o.slow_mean_s, fs));
  const auto fast = [&](std::int64_t i) { return static_cast<double>(x[i]) - static_cast<double>(fast_mean[static_cast<std::size_t>(i)]); };

  std::vector<Span> spans;
  const std::int64_t win = samples_of(o.window_s, fs), clear = samples_of(o.qrs_clear_s, fs), pad = samples_of(o.window_pad_s, fs);
  std::size_t next_peak = 0;
  for (std::int64_t w0 = 0; w0 < n; w0 += win) {
    const std::int64_t w1 = std::min(n, w0 + win);
    double sum_sq = 0.0;
    std::int64_t counted = 0;
    float lo = x[w0], hi = x[w0], slow_lo = slow[static_cast<std::size_t>(w0)], slow_hi = slow_lo;
    while (next_peak < r_peaks.size() && r_peaks[next_peak] + clear < w0) ++next_peak;
    std::size_t p = next_peak;
    for (std::int64_t i = w0; i < w1; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
      slow_lo = std::min(slow_lo, slow[static_cast<std::size_t>(i)]);
      slow_hi = std::max(slow_hi, slow[static_cast<std::size_t>(i)]);
      while (p < r_peaks.size() && r_peaks[p] + clear < i) ++p;
      if (p < r_peaks.size() && std::llabs(r_peaks[p] - i) <= clear) continue;  // a QRS, not noise
      sum_sq += fast(i) * fast(i);
      ++counted;
    }
    const bool flat = w1 - w0 >= win / 2 && hi == lo;
    const bool noisy = qrs_amplitude > 0 && counted > 0 &&
                       std::sqrt(sum_sq / static_cast<double>(counted)) > o.noise_fraction * qrs_amplitude;
    const bool swinging = qrs_amplitude > 0 && static_cast<double>(slow_hi) - static_cast<double>(slow_lo) > o.swing_fraction * qrs_amplitude;
    // Padded: noise fades in and out around the window that shows it.
    if (flat || noisy || swinging) spans.emplace_back(std::max<std::int64_t>(0, w0 - pad), std::min(n, w1 + pad));
  }

  // Gaps that are not known to be pauses.
  if (qrs_amplitude > 0 && r_peaks.size() >= 2) {
    std::vector<double> rr(r_peaks.size() - 1);
    for (std::size_t i = 1; i < r_peaks.size(); ++i) rr[i - 1] = static_cast<double>(r_peaks[i] - r_peaks[i - 1]);
    const std::int64_t margin = samples_of(o.gap_margin_s, fs), after_t = samples_of(o.gap_t_wave_s, fs);
    for (std::size_t i = 0; i < rr.size(); ++i) {
      if (rr[i] < o.gap_min_s * fs) continue;
      const std::size_t a = i >= 4 ? i - 4 : 0, b = std::min(rr.size(), i + 5);
      std::vector<double> local(rr.begin() + static_cast<std::ptrdiff_t>(a), rr.begin() + static_cast<std::ptrdiff_t>(b));
      if (rr[i] < o.gap_ratio * median_of(local)) continue;
      const std::int64_t g0 = std::min(n, r_peaks[i] + std::max(margin, after_t)), g1 = std::min(n, r_peaks[i + 1] - margin);
      if (g1 <= g0) continue;
      const auto [lo, hi] = std::minmax_element(x + g0, x + g1);
      double sum_sq = 0.0;
      for (std::int64_t k = g0; k < g1; ++k) sum_sq += fast(k) * fast(k);
      const bool swing = static_cast<double>(*hi) - static_cast<double>(*lo) >= o.gap_range_fraction * qrs_amplitude;
      const bool noisy = std::sqrt(sum_sq / static_cast<double>(g1 - g0)) > o.noise_fraction * qrs_amplitude;
      if (swing || noisy) spans.emplace_back(r_peaks[i], std::min(n, r_peaks[i + 1] + 1));
    }
  }

  q.spans = merged_spans(std::move(spans));
  std::size_t s = 0;
  for (std::size_t i = 0; i < r_peaks.size(); ++i) {
    while (s < q.spans.size() && q.spans[s].second <= r_peaks[i]) ++s;
    q.beat_artefact[i] = s < q.spans.size() && q.spans[s].first <= r_peaks[i];
  }
  return q;
}

}  // namespace ecgpipe
