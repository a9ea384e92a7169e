// Heart-rate variability over NN intervals (include/ecgpipe/rhythm/hrv.hpp): the 1996 Task Force's
// time-domain figures and its short-term (5-minute) spectral figures, averaged over the record.
// Where the Task Force leaves a choice, NeuroKit2 0.2.13's choice is taken unless it is less
// accurate (docs/accuracy.md#heart-rate-variability, tests/rhythm/hrv_neurokit_test.py):
//  - an interval's time is its ending beat; segments start at the first beat (as NeuroKit2's
//    SDANN / SDNNI windows);
//  - resampling at 4 Hz by a cubic spline (Kubios' choice; NeuroKit2 uses a quadratic spline,
//    which loses 1.5 % of a 0.25 Hz modulation at 70 bpm, the cubic 0.02 %; linear interpolation
//    loses 25 %, a low-pass of its own);
//  - within each 5-minute segment: the linear trend removed (what drifts slower than the segment
//    would otherwise leak into VLF), then Welch as NeuroKit2 sets it up: Hann windows of half the
//    length, half overlapping, each zero-padded to the segment's length (1/300 Hz bins);
//  - band power: the sum of the bins in [lo, hi) times the bin width, so that the bins' total is
//    the segment's variance exactly (Parseval); NeuroKit2's trapezoid drops half a bin at each edge.
#include "ecgpipe/rhythm/hrv.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/parallel.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kResampleHz = 4.0;  // Nyquist 2 Hz, five times the top of HF
constexpr double kNn50Ms = 50.0;
// Task Force bands (Hz), each [lo, hi).
constexpr double kVlfLo = 0.0033, kLfLo = 0.04, kHfLo = 0.15, kHfHi = 0.4;
// A bin on a band edge (0.04 Hz is bin 12 of a 300-s segment) goes to the upper band; the
// tolerance absorbs the round-off of k * df.
constexpr double kEdgeHz = 1e-9;

struct NnPoint {
  double t = 0.0;   // seconds from the first beat: the interval's ending beat
  double ms = 0.0;  // the interval
};

// The NN series as a function of time: a natural cubic spline through each run of points closer
// than `max_gap_s`, a straight line across a longer gap (a spline swings over a long gap: the
// curvature that fits the beats on either side extrapolates into the gap), constant beyond the
// first and last points. Natural end conditions make the run boundaries meet the lines: the
// piece between two runs has zero second derivative at both ends, which is the line.
class NnSpline {
 public:
  NnSpline(const std::vector<NnPoint>& p, double max_gap_s) : p_(p), m_(p.size(), 0.0) {
    std::size_t start = 0;
    for (std::size_t i = 1; i <= p_.size(); ++i)
      if (i == p_.size() || p_[i].t - p_[i - 1].t > max_gap_s) {
        solve_run(start, i);
        start = i;
      }
  }

  double operator()(double t) const {
    if (p_.empty()) return kNaN;
    if (t <= p_.front().t) return p_.front().ms;
    if (t >= p_.back().t) return p_.back().ms;
    const auto it = std::upper_bound(p_.begin(), p_.end(), t, [](double v, const NnPoint& q) { return v < q.t; });
    const auto j = static_cast<std::size_t>(it - p_.begin());  // p_[j-1].t <= t < p_[j].t
    const double h = p_[j].t - p_[j - 1].t, a = (p_[j].t - t) / h, b = 1.0 - a;
    return a * p_[j - 1].ms + b * p_[j].ms + ((a * a * a - a) * m_[j - 1] + (b * b * b - b) * m_[j]) * h * h / 6.0;
  }

 private:
  // Second derivatives of the natural spline through p_[begin, end): the tridiagonal system of
  // continuous slopes at the interior points, M = 0 at both ends (Thomas algorithm; the matrix is
  // diagonally dominant, so no pivoting).
  void solve_run(std::size_t begin, std::size_t end) {
    if (end - begin < 3) return;
    const std::size_t n = end - begin - 2;  // interior points
    std::vector<double> diag(n), upper(n), rhs(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = begin + 1 + k;
      const double h0 = p_[i].t - p_[i - 1].t, h1 = p_[i + 1].t - p_[i].t;
      diag[k] = (h0 + h1) / 3.0;
      upper[k] = h1 / 6.0;
      rhs[k] = (p_[i + 1].ms - p_[i].ms) / h1 - (p_[i].ms - p_[i - 1].ms) / h0;
      if (k > 0) {  // eliminate the lower diagonal, h0 / 6
        const double f = (h0 / 6.0) / diag[k - 1];
        diag[k] -= f * upper[k - 1];
        rhs[k] -= f * rhs[k - 1];
      }
    }
    for (std::size_t k = n; k-- > 0;)
      m_[begin + 1 + k] = (rhs[k] - (k + 1 < n ? upper[k] * m_[begin + 2 + k] : 0.0)) / diag[k];
  }

  const std::vector<NnPoint>& p_;
  std::vector<double> m_;
};

struct BandPowers {
  double vlf = 0.0, lf = 0.0, hf = 0.0, total = 0.0;
};

// Welch over one segment's resampled NN values (ms), detrended: Hann windows of half the length,
// half overlapping, each zero-padded to the segment's length. Only the bins below 0.4 Hz are
// computed, by direct sums (a DFT, not an FFT): the rhythm domain may not include LibTorch, whose
// FFT is the only one the project has (tests/lint/include_order_test.py keeps LibTorch in the model
// code; its pocketfft is compiled in, no header is installed), and 120 bins of 600-point windows
// are 0.2 M multiply-adds a segment, 60 M for 24 hours (tens of ms): an FFT would be a few times
// faster, not worth a new dependency.
BandPowers segment_powers(std::vector<double> x) {
  const std::size_t n = x.size();
  // Linear trend by least squares over the sample index.
  const double nd = static_cast<double>(n), mean_i = (nd - 1.0) / 2.0;
  double mean_x = 0.0;
  for (double v : x) mean_x += v;
  mean_x /= nd;
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double di = static_cast<double>(i) - mean_i;
    sxy += di * (x[i] - mean_x);
    sxx += di * di;
  }
  const double slope = sxx > 0.0 ? sxy / sxx : 0.0;
  for (std::size_t i = 0; i < n; ++i) x[i] -= mean_x + slope * (static_cast<double>(i) - mean_i);

  const std::size_t length = n / 2, hop = length / 2, nfft = n;
  std::vector<double> window(length);
  double window_energy = 0.0;
  for (std::size_t m = 0; m < length; ++m) {  // periodic Hann (scipy's 'hann' for spectra)
    window[m] = 0.5 - 0.5 * std::cos(2.0 * M_PI * static_cast<double>(m) / static_cast<double>(length));
    window_energy += window[m] * window[m];
  }
  const double df = kResampleHz / static_cast<double>(nfft);
  std::size_t bins = 0;  // bins 0 .. bins-1 lie below 0.4 Hz
  while (static_cast<double>(bins) * df < kHfHi - kEdgeHz) ++bins;
  // cos / sin of 2 pi i / nfft: the twiddle of bin k at m is entry (k m) mod nfft, exact.
  std::vector<double> c(nfft), s(nfft);
  for (std::size_t i = 0; i < nfft; ++i) {
    c[i] = std::cos(2.0 * M_PI * static_cast<double>(i) / static_cast<double>(nfft));
    s[i] = std::sin(2.0 * M_PI * static_cast<double>(i) / static_cast<double>(nfft));
  }
  std::vector<double> power(bins, 0.0);  // mean over windows of the bin's power (ms^2)
  std::size_t windows = 0;
  std::vector<double> y(length);
  for (std::size_t start = 0; length > 0 && start + length <= n; start += std::max<std::size_t>(hop, 1)) {
    for (std::size_t m = 0; m < length; ++m) y[m] = window[m] * x[start + m];
    for (std::size_t k = 0; k < bins; ++k) {
      double re = 0.0, im = 0.0;
      std::size_t phase = 0;  // (k m) mod nfft
      for (std::size_t m = 0; m < length; ++m) {
        re += y[m] * c[phase];
        im -= y[m] * s[phase];
        phase += k;
        if (phase >= nfft) phase -= nfft;
      }
      // One-sided density |Y|^2 / (fs sum w^2), doubled above DC, times the bin width df.
      power[k] += (k == 0 ? 1.0 : 2.0) * (re * re + im * im) / (static_cast<double>(nfft) * window_energy);
    }
    ++windows;
  }
  BandPowers b;
  if (windows == 0) return {kNaN, kNaN, kNaN, kNaN};
  for (std::size_t k = 0; k < bins; ++k) {
    const double f = static_cast<double>(k) * df, p = power[k] / static_cast<double>(windows);
    b.total += p;
    if (f >= kHfLo - kEdgeHz) b.hf += p;
    else if (f >= kLfLo - kEdgeHz) b.lf += p;
    else if (f >= kVlfLo - kEdgeHz) b.vlf += p;
  }
  return b;
}

// Segments below which the spectra stay on one thread (a segment is ~0.4 ms; a thread ~20 us).
constexpr std::size_t kMinSegmentsPerThread = 16;

double sample_sd(const std::vector<double>& v) {
  if (v.size() < 2) return kNaN;
  double mean = 0.0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0.0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

HrvResult compute_hrv(const std::vector<std::int64_t>& r_peaks, const std::vector<char>& classes,
                      const std::vector<bool>& usable, double fs, const HrvOptions& o) {
  if (!(std::isfinite(fs) && fs > 0.0)) throw UsageError("HRV: the sampling rate must be positive, got " + std::to_string(fs));
  if (!(std::isfinite(o.segment_s) && o.segment_s >= 10.0 && o.min_nn_s > 0.0 && o.max_nn_s > o.min_nn_s &&
        std::isfinite(o.max_nn_s) && o.min_segment_coverage > 0.0 && o.min_segment_coverage <= 1.0))
    throw UsageError("HRV: options out of bounds (segment >= 10 s, 0 < min NN < max NN, 0 < coverage <= 1)");
  if (classes.size() != r_peaks.size() || (!usable.empty() && usable.size() != r_peaks.size()))
    throw InternalError("compute_hrv: " + std::to_string(r_peaks.size()) + " beats, " + std::to_string(classes.size()) +
                        " classes, " + std::to_string(usable.size()) + " usable flags");
  for (std::size_t i = 1; i < r_peaks.size(); ++i)
    if (r_peaks[i] < r_peaks[i - 1]) throw InternalError("compute_hrv: beats out of order at beat " + std::to_string(i));

  HrvResult r;
  r.mean_nn_ms = r.sdnn_ms = r.sdann_ms = r.sdnn_index_ms = r.rmssd_ms = r.pnn50_percent = kNaN;
  r.vlf_ms2 = r.lf_ms2 = r.hf_ms2 = r.total_ms2 = r.lf_hf = kNaN;
  const std::size_t beats = r_peaks.size();
  if (beats < 2) return r;
  r.rr_intervals = beats - 1;

  // Interval i runs from beat i to beat i + 1; NN when both beats are N and usable and it is
  // physiological. Kept in samples for the successive differences (exact: a difference of
  // exactly 50 ms is not "more than 50 ms", whatever the round-off of a conversion to ms).
  const auto ok = [&](std::size_t b) { return classes[b] == 'N' && (usable.empty() || usable[b]); };
  std::vector<bool> nn(beats - 1, false);
  std::vector<double> values;  // ms, the NN intervals in order
  std::vector<NnPoint> points;
  const double segment_samples = o.segment_s * fs;
  // (segment index, its NN intervals): the intervals come in time order, so the segments do too;
  // only segments that hold an interval exist (beats hours apart allocate nothing).
  std::vector<std::pair<std::size_t, std::vector<double>>> per_segment;
  std::int64_t nn_samples = 0;  // summed in samples: exact, then one division
  for (std::size_t i = 0; i + 1 < beats; ++i) {
    const std::int64_t d = r_peaks[i + 1] - r_peaks[i];
    const double s = static_cast<double>(d) / fs;
    if (!(ok(i) && ok(i + 1) && s >= o.min_nn_s && s <= o.max_nn_s)) continue;
    nn[i] = true;
    nn_samples += d;  // at most the last beat minus the first: no overflow
    const double ms = static_cast<double>(d) * 1000.0 / fs;
    values.push_back(ms);
    const double t = static_cast<double>(r_peaks[i + 1] - r_peaks.front());
    points.push_back({t / fs, ms});
    const auto k = static_cast<std::size_t>(t / segment_samples);
    if (per_segment.empty() || per_segment.back().first != k) per_segment.push_back({k, {}});
    per_segment.back().second.push_back(ms);
  }
  r.nn_intervals = values.size();
  r.nn_seconds = static_cast<double>(nn_samples) / fs;
  r.mean_nn_ms = mean_of(values);
  r.sdnn_ms = sample_sd(values);

  double sum_sq = 0.0;
  std::size_t pairs = 0, nn50 = 0;
  for (std::size_t i = 0; i + 2 < beats; ++i) {
    if (!(nn[i] && nn[i + 1])) continue;
    const std::int64_t dd = (r_peaks[i + 2] - r_peaks[i + 1]) - (r_peaks[i + 1] - r_peaks[i]);
    const double ms = static_cast<double>(dd) * 1000.0 / fs;
    sum_sq += ms * ms;
    ++pairs;
    if (static_cast<double>(dd < 0 ? -dd : dd) * 1000.0 > kNn50Ms * fs) ++nn50;
  }
  if (pairs > 0) {
    r.rmssd_ms = std::sqrt(sum_sq / static_cast<double>(pairs));
    // The Task Force's pNN50: NN50 over the number of NN intervals (NeuroKit2 divides the same way).
    r.pnn50_percent = 100.0 * static_cast<double>(nn50) / static_cast<double>(r.nn_intervals);
  }

  // 5-minute segments: those whose NN intervals cover enough of them.
  std::vector<double> means, sds;
  std::vector<std::size_t> counted;
  for (const auto& [k, v] : per_segment) {
    double covered_ms = 0.0;
    for (double x : v) covered_ms += x;
    if (v.size() < 2 || covered_ms < o.min_segment_coverage * o.segment_s * 1000.0) continue;
    counted.push_back(k);
    means.push_back(mean_of(v));
    sds.push_back(sample_sd(v));
  }
  r.segments = counted.size();
  r.sdann_ms = sample_sd(means);
  r.sdnn_index_ms = mean_of(sds);

  // Frequency domain: each counted segment resampled on its own grid, powers averaged.
  const auto n = static_cast<std::size_t>(std::llround(o.segment_s * kResampleHz));
  if (counted.empty()) return r;
  // A spline bridges up to three intervals at the slowest NN rate: one premature beat and its
  // compensatory pause leave out two intervals; a longer gap (artefact) is bridged by a line.
  const NnSpline spline(points, 3.0 * o.max_nn_s);
  std::vector<BandPowers> powers(counted.size());
  detail::parallel_chunks(counted.size(), o.threads, kMinSegmentsPerThread, [&](std::size_t begin, std::size_t end) {
    std::vector<double> x(n);
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t j = 0; j < n; ++j)
        x[j] = spline(static_cast<double>(counted[i]) * o.segment_s + static_cast<double>(j) / kResampleHz);
      powers[i] = segment_powers(x);
    }
  });
  BandPowers sum;
  for (const BandPowers& b : powers) {
    sum.vlf += b.vlf;
    sum.lf += b.lf;
    sum.hf += b.hf;
    sum.total += b.total;
  }
  const double segments = static_cast<double>(counted.size());
  r.vlf_ms2 = sum.vlf / segments;
  r.lf_ms2 = sum.lf / segments;
  r.hf_ms2 = sum.hf / segments;
  r.total_ms2 = sum.total / segments;
  r.lf_hf = r.hf_ms2 > 0.0 ? r.lf_ms2 / r.hf_ms2 : kNaN;
  return r;
}

std::vector<bool> hrv_usable_beats(const std::vector<bool>& artefact, const std::vector<Rhythm>& rhythm) {
  if (!artefact.empty() && artefact.size() != rhythm.size())
    throw InternalError("hrv_usable_beats: " + std::to_string(artefact.size()) + " artefact flags for " +
                        std::to_string(rhythm.size()) + " beats");
  std::vector<bool> usable(rhythm.size());
  for (std::size_t i = 0; i < rhythm.size(); ++i) usable[i] = !(!artefact.empty() && artefact[i]) && rhythm[i] != Rhythm::AFIB;
  return usable;
}

}  // namespace ecgpipe
