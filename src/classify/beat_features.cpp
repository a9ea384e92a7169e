// Per-beat classifier features: see include/ecgpipe/classify/beat_features.hpp. Mirrors
// scripts/train-classifier.py's features() line by line (numpy's median: the mean of the two middle
// values of an even count; numpy's percentile: linear interpolation).
#include "ecgpipe/classify/beat_features.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstddef>

#include "classify/column_median.hpp"
#include "common/parallel.hpp"
#include "common/sorted_window.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

namespace {

constexpr std::size_t kLocalContext = 10;  // beats each side for the local RR statistics (~20 s)
// The premature-beat density: beats each side (~1 min: long enough that one run of APCs does not
// make a rhythm of it, short enough to follow paroxysmal atrial fibrillation), and how much shorter
// than the local median a premature RR is (ln: 10 %). Chosen by record-wise cross-validation on DS1
// among 16/32/64/96/128 beats and 0.05/0.1/0.15/0.2 (scripts/train-classifier.py --cv).
constexpr std::size_t kDensityContext = 64;
constexpr double kPrematureLogRatio = -0.1;
// The P-wave context: beats each side (~30 s) and the percentile (a minority of 20 % suffices).
// Chosen by the same cross-validation among (10 beats, median) and (32 beats, 80th percentile).
constexpr std::size_t kPWaveContextBeats = 32;
constexpr double kPWavePercentile = 80.0;
// The long cycles: RR before at least this percentile of the recording's, the longest 20 %. Not
// tuned: a fifth of the beats is enough for a median P wave and few enough to be the sinus beats
// after the pauses where APCs fill most cycles; the one value measured by record-wise
// cross-validation on DS1 and the SVDB (docs/accuracy.md, "Features tried").
constexpr double kLongCyclePercentile = 80.0;
constexpr double kTiny = 1e-9;     // keeps a ratio finite when its denominator is exactly zero

// The beats within `each_side` of beat i, clipped to the n beats: [first, end).
struct BeatRange {
  std::size_t first, end;
};
BeatRange beats_around(std::size_t i, std::size_t n, std::size_t each_side) {
  return {i > each_side ? i - each_side : 0, std::min(n, i + each_side + 1)};
}

// Samples in `seconds` at fs, rounded half up (the training script rounds the same way).
int samples_in(double seconds, double fs) { return static_cast<int>(std::floor(seconds * fs + 0.5)); }

double median_of(std::vector<double> v) { return detail::median_in_place(v); }  // by value: reorders its copy

double percentile_of_sorted(const std::vector<double>& v, double q) {  // numpy's default ("linear")
  const double pos = q / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  // numpy's lerp, both branches: from the nearer end, so the result is exact at either end.
  const double t = pos - static_cast<double>(lo), d = v[hi] - v[lo];
  return t >= 0.5 ? v[hi] - d * (1.0 - t) : v[lo] + d * t;
}

// A beat's window minus its median, as doubles: the windows are kept as the signal's floats
// (half the memory of doubles, issue 12) and each value is formed when read, the same double
// (double(x) - median) every time.
struct CenteredRow {
  const float* raw;
  double median;
  double operator[](int k) const { return static_cast<double>(raw[k]) - median; }
};

// Pearson correlation of row[lo, hi) with templ[lo, hi).
double correlation(const CenteredRow& row, const std::vector<double>& templ, int lo, int hi) {
  const double n = hi - lo;
  double ma = 0.0, mt = 0.0;
  for (int k = lo; k < hi; ++k) ma += row[k], mt += templ[k];
  ma /= n, mt /= n;
  double at = 0.0, aa = 0.0, tt = 0.0;
  for (int k = lo; k < hi; ++k) {
    const double a = row[k] - ma, t = templ[k] - mt;
    at += a * t, aa += a * a, tt += t * t;
  }
  return at / (std::sqrt(aa) * std::sqrt(tt) + kTiny);
}

// Work per thread below which the loops stay on one thread (thread start-up is ~20 us).
constexpr std::size_t kMinBeatsPerThread = 1024;

}  // namespace

const char* beat_feature_name(int f) {
  static const char* const names[kBeatFeatureCount] = {
      "lpre", "lpost", "lprepost", "lpreloc", "lprerec", "lloc", "lprep80", "lpostloc", "width", "dwidth", "awid",
      "dawid", "eqn", "ampn", "cq", "cw", "cp", "ct", "cq2", "cw2", "dq", "lirr", "dprem", "pctx", "ltrend",
      "cplong", "dcplong"};
  if (f < 0 || f >= kBeatFeatureCount) throw InternalError("beat_feature_name: no feature " + std::to_string(f));
  return names[f];
}

FeatureWindow feature_window(double fs) {
  const int before = samples_in(0.25, fs), after = samples_in(0.45, fs);
  return FeatureWindow{before, before + after};
}

std::vector<float> feature_windows(const std::vector<float>& signal, const std::vector<std::int64_t>& r_peaks, double fs,
                                   int threads) {
  const FeatureWindow fw = feature_window(fs);
  const auto L = static_cast<std::size_t>(fw.length);
  const auto signal_n = static_cast<std::int64_t>(signal.size());
  std::vector<float> windows(r_peaks.size() * L, 0.0f);
  // On threads: 1.4 M beats' windows are 0.8 GB of scattered reads from the signal.
  detail::parallel_chunks(r_peaks.size(), threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      for (std::size_t k = 0; k < L; ++k) {
        const std::int64_t s = r_peaks[i] - fw.before + static_cast<std::int64_t>(k);
        if (s >= 0 && s < signal_n) windows[i * L + k] = signal[static_cast<std::size_t>(s)];
      }
  });
  return windows;
}

std::vector<float> beat_features(const std::vector<float>& signal, const std::vector<std::int64_t>& r_peaks, double fs,
                                 int threads, AtrialActivity* atrial) {
  if (!(fs > 0.0)) throw InternalError("beat_features: fs must be positive");
  const std::vector<float> windows = feature_windows(signal, r_peaks, fs, threads);
  return beat_features_from_windows(windows.data(), static_cast<std::size_t>(feature_window(fs).length), r_peaks, fs, threads,
                                    atrial);
}

namespace {
// Each row's median (the windows are compared less their medians: a baseline offset is no shape).
std::vector<double> row_medians(const float* windows, std::size_t stride, std::size_t n, int length, int threads) {
  std::vector<double> medians(n);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    std::vector<double> row;
    for (std::size_t i = begin; i < end; ++i) {
      const float* wi = windows + i * stride;
      row.assign(wi, wi + length);
      medians[i] = median_of(row);
    }
  });
  return medians;
}

// The P-wave context (kPWaveContext): the kPWavePercentile-th percentile of each beat's P-part
// correlation with the median beat over the beats around it.
std::vector<float> p_wave_context(const std::vector<double>& p_corr, int threads) {
  std::vector<float> out(p_corr.size());
  detail::parallel_chunks(p_corr.size(), threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    detail::for_each_clipped_window(p_corr, begin, end, kPWaveContextBeats, [&](std::size_t i, const std::vector<double>& window) {
      out[i] = static_cast<float>(percentile_of_sorted(window, kPWavePercentile));
    });
  });
  return out;
}

// AtrialActivity::p_consistency: each P-wave part (row[0, p_hi)) against the previous beat's (no
// template: AF leaves none to compare with), the median over the beats around it.
std::vector<float> p_wave_consistency(const float* windows, std::size_t stride, const std::vector<double>& medians, int p_hi,
                                      int threads) {
  const std::size_t n = medians.size();
  std::vector<double> pair(n, 0.0);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    std::vector<double> previous(static_cast<std::size_t>(p_hi));
    for (std::size_t i = std::max<std::size_t>(begin, 1); i < end; ++i) {
      const CenteredRow a{windows + (i - 1) * stride, medians[i - 1]};
      for (int k = 0; k < p_hi; ++k) previous[static_cast<std::size_t>(k)] = a[k];
      pair[i] = correlation(CenteredRow{windows + i * stride, medians[i]}, previous, 0, p_hi);
    }
  });
  if (n >= 2) pair[0] = pair[1];
  std::vector<float> out(n, 0.0f);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    detail::for_each_clipped_window(pair, begin, end, kPWaveContextBeats, [&](std::size_t i, const std::vector<double>& window) {
      out[i] = static_cast<float>(detail::median_of_sorted(window));
    });
  });
  return out;
}

// AtrialActivity::p_parts: each row's P part [0, p_hi) less its mean, over its norm (zero where
// flat), so that two beats' correlation is the dot product of their rows.
std::vector<float> p_wave_parts(const float* windows, std::size_t stride, const std::vector<double>& medians, int p_hi,
                                int threads) {
  const std::size_t n = medians.size(), length = static_cast<std::size_t>(p_hi);
  std::vector<float> parts(n * length, 0.0f);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const CenteredRow w{windows + i * stride, medians[i]};
      double mean = 0.0, norm = 0.0;
      for (int k = 0; k < p_hi; ++k) mean += w[k];
      mean /= p_hi;
      for (int k = 0; k < p_hi; ++k) norm += (w[k] - mean) * (w[k] - mean);
      const double scale = norm > 0.0 ? 1.0 / std::sqrt(norm) : 0.0;
      float* row = parts.data() + i * length;
      for (int k = 0; k < p_hi; ++k) row[k] = static_cast<float>((w[k] - mean) * scale);
    }
  });
  return parts;
}
}  // namespace

std::vector<float> lead2_qrs_correlation(const float* windows, std::size_t stride, std::size_t n, double fs, int threads,
                                         AtrialActivity* atrial) {
  if (!(fs > 0.0)) throw InternalError("lead2_qrs_correlation: fs must be positive");
  const FeatureWindow fw = feature_window(fs);
  if (stride < static_cast<std::size_t>(fw.length)) throw InternalError("lead2_qrs_correlation: rows shorter than the window");
  std::vector<float> out(n, 0.0f);
  if (n == 0) return out;
  const std::vector<double> medians = row_medians(windows, stride, n, fw.length, threads);
  const std::vector<double> templ = detail::column_median(windows, stride, medians, n, fw.length, std::vector<char>(n, 1), threads);
  const int q = samples_in(0.08, fs);
  std::vector<double> p_corr(atrial != nullptr ? n : 0);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const CenteredRow wi{windows + i * stride, medians[i]};
      out[i] = static_cast<float>(correlation(wi, templ, fw.before - q, fw.before + q + 1));
      if (atrial != nullptr) p_corr[i] = correlation(wi, templ, 0, fw.before - q);  // kPCorr's definition
    }
  });
  if (atrial != nullptr) {
    atrial->p_context = p_wave_context(p_corr, threads);
    atrial->p_consistency = p_wave_consistency(windows, stride, medians, fw.before - q, threads);
    atrial->p_length = static_cast<std::size_t>(fw.before - q);
    atrial->p_parts = p_wave_parts(windows, stride, medians, fw.before - q, threads);
  }
  return out;
}

namespace {
// AtrialActivity::qrs_shift: each row's shift whose QRS (row[q_lo + s, q_hi + s)) correlates best
// with templ[q_lo, q_hi). The shifted QRS (R + s ± q, |s| <= 0.05 s) stays inside the window
// (R - 0.25 s .. R + 0.45 s).
std::vector<std::int32_t> qrs_shifts(const float* windows, std::size_t stride, const std::vector<double>& medians,
                                     const std::vector<double>& templ, int q_lo, int q_hi, int L, double fs, int threads) {
  const std::size_t n = medians.size();
  const int reach = std::min({samples_in(kQrsAlignHalfS, fs), q_lo, L - q_hi});  // the bound binds only at a few Hz
  const int step = std::max(1, samples_in(0.001, fs));
  // The template's QRS centred once: each shift then needs one pass over the row (37 shifts of
  // 59 samples a beat at 360 Hz; with correlation() per shift this step was 20 % of `analyze`'s
  // classification time, fs^2 of it).
  const int m = q_hi - q_lo;
  std::vector<double> t(static_cast<std::size_t>(m));
  double t_mean = 0.0, t_norm = 0.0;
  for (int k = 0; k < m; ++k) t_mean += templ[static_cast<std::size_t>(q_lo + k)];
  t_mean /= m;
  for (int k = 0; k < m; ++k) {
    t[static_cast<std::size_t>(k)] = templ[static_cast<std::size_t>(q_lo + k)] - t_mean;
    t_norm += t[static_cast<std::size_t>(k)] * t[static_cast<std::size_t>(k)];
  }
  t_norm = std::sqrt(t_norm);
  std::vector<std::int32_t> shift(n, 0);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      // Row samples q_lo + s .. q_hi + s against the template's q_lo .. q_hi. The row is its
      // window less its median, so its sums carry no large offset to cancel.
      auto corr_at = [&](int s) {
        const CenteredRow row{windows + i * stride + (q_lo + s), medians[i]};
        double sum = 0.0, sum_sq = 0.0, dot = 0.0;
        for (int k = 0; k < m; ++k) {
          const double a = row[k];
          sum += a, sum_sq += a * a, dot += a * t[static_cast<std::size_t>(k)];
        }
        const double var = std::max(0.0, sum_sq - sum * sum / m);
        return dot / (std::sqrt(var) * t_norm + kTiny);  // the template is centred: dot needs no row mean
      };
      double best = corr_at(0);
      int at = 0;
      auto consider = [&](int s) {
        const double c = corr_at(s);
        if (c > best || (c == best && std::abs(s) < std::abs(at))) best = c, at = s;
      };
      // Every `step`-th shift, then each one around the best: every shift below 1.5 kHz; from there,
      // a 1-ms grid first (at 10 kHz every shift was 1.6 M multiply-adds a beat, 20 times the
      // other features').
      for (int s = -(reach / step) * step; s <= reach; s += step)
        if (s != 0) consider(s);
      const int centre = at;
      for (int s = std::max(-reach, centre - step + 1); s <= std::min(reach, centre + step - 1); ++s)
        if (s % step != 0) consider(s);
      shift[i] = static_cast<std::int32_t>(at);
    }
  });
  return shift;
}
}  // namespace

std::vector<float> beat_features_from_windows(const float* windows, std::size_t stride, const std::vector<std::int64_t>& r_peaks,
                                              double fs, int threads, AtrialActivity* atrial) {
  if (!(fs > 0.0)) throw InternalError("beat_features: fs must be positive");
  const std::size_t n = r_peaks.size();
  constexpr auto F = static_cast<std::size_t>(kBeatFeatureCount);
  std::vector<float> out(n * F, 0.0f);
  if (n == 0) return out;
  auto at = [&](std::size_t i, int f) -> float& { return out[i * F + static_cast<std::size_t>(f)]; };
  // The beats that end the longest cycles (RR before >= the 80th percentile): kPCorrLongCycle's
  // template. Without an RR (one beat) every beat.
  std::vector<char> long_cycle(n, 1);

  // Rhythm.
  if (n >= 2) {
    std::vector<double> pre(n), post(n);
    for (std::size_t i = 1; i < n; ++i) pre[i] = post[i - 1] = static_cast<double>(r_peaks[i] - r_peaks[i - 1]) / fs;
    pre[0] = pre[1], post[n - 1] = post[n - 2];
    // One sorted copy for the recording's median RR and the long cycles' threshold.
    std::vector<double> sorted = pre;
    std::sort(sorted.begin(), sorted.end());
    const double record = detail::median_of_sorted(sorted);
    const double longest = percentile_of_sorted(sorted, kLongCyclePercentile);
    for (std::size_t i = 0; i < n; ++i) long_cycle[i] = pre[i] >= longest;
    std::vector<double> log_pre(n);
    for (std::size_t i = 0; i < n; ++i) log_pre[i] = std::log(pre[i]);
    std::vector<double> step(n);  // |ln(RR_i / RR_i-1)|; beat 0 borrows beat 1's
    for (std::size_t i = 1; i < n; ++i) step[i] = std::fabs(log_pre[i] - log_pre[i - 1]);
    step[0] = step[1];
    // The trend: ln RR against the median of the up to 3 before (numpy's median). Beats 1 and 2
    // have one distinct value before them: beat 0 borrows beat 1's RR, so beat 2's two are equal
    // and their mean is either.
    for (std::size_t i = 1; i < n; ++i) {
      const double a = log_pre[i - 1];
      double before = a;
      if (i >= 3) {
        const double b = log_pre[i - 2], c = log_pre[i - 3];
        before = std::max(std::min(a, b), std::min(std::max(a, b), c));
      }
      at(i, kLogPreTrend) = static_cast<float>(log_pre[i] - before);
    }
    std::vector<char> premature(n);
    detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
      detail::for_each_clipped_window(pre, begin, end, kLocalContext, [&](std::size_t i, const std::vector<double>& window) {
        const double local = detail::median_of_sorted(window), p80 = percentile_of_sorted(window, 80.0);
        at(i, kLogPreRr) = static_cast<float>(std::log(pre[i]));
        at(i, kLogPostRr) = static_cast<float>(std::log(post[i]));
        at(i, kLogPrePost) = static_cast<float>(std::log(pre[i] / post[i]));
        const double pre_local = std::log(pre[i] / local);
        at(i, kLogPreLocal) = static_cast<float>(pre_local);
        premature[i] = pre_local < kPrematureLogRatio;
        at(i, kLogPreRecord) = static_cast<float>(std::log(pre[i] / record));
        at(i, kLogLocalRr) = static_cast<float>(std::log(local));
        at(i, kLogPreLocalP80) = static_cast<float>(std::log(pre[i] / p80));
        at(i, kLogPostLocal) = static_cast<float>(std::log(post[i] / local));
      });
      detail::for_each_clipped_window(step, begin, end, kLocalContext, [&](std::size_t i, const std::vector<double>& window) {
        at(i, kLocalIrregularity) = static_cast<float>(detail::median_of_sorted(window));
      });
    });
    // A running count over the flags (integers: the same fraction as numpy's mean of 0/1 values).
    std::vector<std::size_t> count(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) count[i + 1] = count[i] + (premature[i] ? 1 : 0);
    for (std::size_t i = 0; i < n; ++i) {
      const auto [lo, hi] = beats_around(i, n, kDensityContext);
      at(i, kPrematureDensity) = static_cast<float>(static_cast<double>(count[hi] - count[lo]) / static_cast<double>(hi - lo));
    }
  }

  // Morphology: windows R - 0.25 s .. R + 0.45 s, each minus its median.
  const FeatureWindow fw = feature_window(fs);
  const int before = fw.before, L = fw.length;
  if (stride < static_cast<std::size_t>(L)) throw InternalError("beat_features: window rows shorter than the window");
  const int q = samples_in(0.08, fs), h = samples_in(0.1, fs);
  const std::vector<double> medians = row_medians(windows, stride, n, L, threads);
  const std::vector<char> all(n, 1);
  const std::vector<double> templ = detail::column_median(windows, stride, medians, n, L, all, threads);  // the median beat
  const std::vector<double> templ_long = detail::column_median(windows, stride, medians, n, L, long_cycle, threads);
  const int q_lo = before - q, q_hi = before + q + 1;
  std::vector<double> qrs_corr(n), p_corr(n), energy(n), width(n), area_width(n), abs_amp(n);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const CenteredRow wi{windows + i * stride, medians[i]};
      qrs_corr[i] = correlation(wi, templ, q_lo, q_hi);
      at(i, kQrsCorr) = static_cast<float>(qrs_corr[i]);
      at(i, kWindowCorr) = static_cast<float>(correlation(wi, templ, 0, L));
      p_corr[i] = correlation(wi, templ, 0, before - q);
      at(i, kPCorr) = static_cast<float>(p_corr[i]);
      const double p_long = correlation(wi, templ_long, 0, before - q);
      at(i, kPCorrLongCycle) = static_cast<float>(p_long);
      at(i, kPCorrLongCycleGain) = static_cast<float>(p_long - p_corr[i]);
      at(i, kTCorr) = static_cast<float>(correlation(wi, templ, before + q, L));
      double e = 0.0;
      for (int k = q_lo; k < q_hi; ++k) e += wi[k] * wi[k];
      energy[i] = e;
      abs_amp[i] = std::fabs(wi[before]);
      // Slope span and area width within R ± h.
      double dmax = 0.0, amax = 0.0, asum = 0.0;
      for (int k = before - h; k <= before + h; ++k) {
        amax = std::max(amax, std::fabs(wi[k])), asum += std::fabs(wi[k]);
        if (k < before + h) dmax = std::max(dmax, std::fabs(wi[k + 1] - wi[k]));
      }
      int first = -1, last = -1;
      for (int k = 0; k < 2 * h; ++k)
        if (std::fabs(wi[before - h + k + 1] - wi[before - h + k]) > 0.25 * dmax) {
          if (first < 0) first = k;
          last = k;
        }
      if (first < 0) first = 0, last = 2 * h - 1;  // a flat beat: the whole span (as numpy's argmax gives)
      width[i] = (last - first + 1) / fs;
      area_width[i] = asum / fs / (amax + kTiny);
    }
  });
  std::vector<float> context = p_wave_context(p_corr, threads);
  for (std::size_t i = 0; i < n; ++i) at(i, kPWaveContext) = context[i];
  if (atrial != nullptr) {
    const int p_hi = before - q;
    atrial->p_consistency = p_wave_consistency(windows, stride, medians, p_hi, threads);
    atrial->p_context = std::move(context);
    // The P parts, for the long cycles of rhythm analysis.
    atrial->p_length = static_cast<std::size_t>(p_hi);
    atrial->p_parts = p_wave_parts(windows, stride, medians, p_hi, threads);
  }
  std::vector<char> dominant(n);
  const double qrs_corr_median = median_of(qrs_corr);
  for (std::size_t i = 0; i < n; ++i) dominant[i] = qrs_corr[i] >= qrs_corr_median;
  const std::vector<double> templ2 = detail::column_median(windows, stride, medians, n, L, dominant, threads);
  double templ2_energy = kTiny;
  for (int k = q_lo; k < q_hi; ++k) templ2_energy += templ2[static_cast<std::size_t>(k)] * templ2[static_cast<std::size_t>(k)];
  const double energy_median = median_of(energy), width_median = median_of(width),
               area_median = median_of(area_width), amp_median = median_of(abs_amp);
  detail::parallel_chunks(n, threads, kMinBeatsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const CenteredRow wi{windows + i * stride, medians[i]};
      at(i, kQrsCorrDominant) = static_cast<float>(correlation(wi, templ2, q_lo, q_hi));
      at(i, kWindowCorrDominant) = static_cast<float>(correlation(wi, templ2, 0, L));
      double d = 0.0;
      for (int k = q_lo; k < q_hi; ++k) d += (wi[k] - templ2[static_cast<std::size_t>(k)]) * (wi[k] - templ2[static_cast<std::size_t>(k)]);
      at(i, kLogQrsDistance) = static_cast<float>(std::log(d / templ2_energy + 1e-6));
      at(i, kLogQrsEnergy) = static_cast<float>(std::log(energy[i] / energy_median + kTiny));
      at(i, kRAmplitude) = static_cast<float>(wi[before] / (amp_median + kTiny));
      at(i, kQrsWidth) = static_cast<float>(width[i]);
      at(i, kQrsWidthRel) = static_cast<float>(width[i] - width_median);
      at(i, kAreaWidth) = static_cast<float>(area_width[i]);
      at(i, kAreaWidthRel) = static_cast<float>(area_width[i] - area_median);
    }
  });
  if (atrial != nullptr) atrial->qrs_shift = qrs_shifts(windows, stride, medians, templ2, q_lo, q_hi, L, fs, threads);
  return out;
}

std::vector<std::int64_t> qrs_aligned(const std::vector<std::int64_t>& r_peaks, const std::vector<std::int32_t>& qrs_shift) {
  if (qrs_shift.empty()) return r_peaks;
  if (qrs_shift.size() != r_peaks.size())
    throw InternalError("qrs_aligned: " + std::to_string(qrs_shift.size()) + " shifts for " + std::to_string(r_peaks.size()) + " beats");
  std::vector<std::int64_t> out(r_peaks.size());
  for (std::size_t i = 0; i < r_peaks.size(); ++i) {
    out[i] = r_peaks[i] + qrs_shift[i];
    if (i > 0 && out[i] <= out[i - 1]) out[i] = out[i - 1] + 1;
  }
  return out;
}

}  // namespace ecgpipe
