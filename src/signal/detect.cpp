// The robust R-peak detector and the sampling-rate scaling (see include/ecgpipe/signal/detect.hpp).
#include "ecgpipe/signal/detect.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>

#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/signal/beat_matrix.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/signal/detect_cuda.hpp"
#endif

namespace ecgpipe {

const EnumNames<Preset>& preset_names() {
  static const EnumNames<Preset> names{{"robust", Preset::robust}, {"seed", Preset::seed}};
  return names;
}

const char* preset_name(Preset preset) { return name_in(preset_names(), preset); }

void validate_fs(double fs) {
  if (!std::isfinite(fs) || fs < kMinFs || fs > kMaxFs) {
    char buf[128];  // %g: std::to_string(1e300) is 300 digits
    std::snprintf(buf, sizeof buf, "--fs must be between %g and %g Hz, got %g", kMinFs, kMaxFs, fs);
    throw UsageError(buf);
  }
}

int samples_for(double seconds, double fs) {
  return std::max(1, static_cast<int>(std::lround(seconds * fs)));
}

SampleWindows seed_windows(double fs) {
  validate_fs(fs);
  SampleWindows w;
  w.ricker_width = samples_for(kRickerWidthS, fs);
  w.nms_window = samples_for(kNmsWindowS, fs);
  w.min_length = samples_for(kMinBeatS, fs);
  // The VAE input length must be a multiple of kModelLengthMultiple: the nearest one, at least one.
  const double units = kMaxBeatS * fs / kModelLengthMultiple;
  w.max_length = kModelLengthMultiple * std::max(1, static_cast<int>(std::lround(units)));
  return w;
}

std::int64_t seed_r_offset(int nms_window, int ricker_width) {
  return nms_center_offset(nms_window) - (ricker_width - 1) / 2;
}

namespace {

// out[i] = max v[i - before .. i + after] (clipped to the array), O(n) with a monotonic deque.
// An empty range (before or after negative enough) is not used here.
std::vector<double> sliding_max(const std::vector<double>& v, std::int64_t before, std::int64_t after) {
  const auto n = static_cast<std::int64_t>(v.size());
  std::vector<double> out(v.size());
  std::deque<std::int64_t> dq;
  std::int64_t next = 0;  // next index to push
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t hi = std::min(n - 1, i + after), lo = i - before;
    for (; next <= hi; ++next) {
      while (!dq.empty() && v[static_cast<std::size_t>(dq.back())] <= v[static_cast<std::size_t>(next)]) dq.pop_back();
      dq.push_back(next);
    }
    while (!dq.empty() && dq.front() < lo) dq.pop_front();
    out[static_cast<std::size_t>(i)] = dq.empty() ? -HUGE_VAL : v[static_cast<std::size_t>(dq.front())];
  }
  return out;
}

}  // namespace

DetectWindows detect_windows(const DetectOptions& o) {
  validate_fs(o.fs);
  if (o.ricker_width < 2) throw UsageError("--ricker-width must be at least 2 samples");
  DetectWindows w;
  w.delay = (o.ricker_width - 1) / 2;
  w.wrapped = o.ricker_width - 1;
  w.half = samples_for(kIntegrationS, o.fs) / 2;
  w.candidate_half = samples_for(kCandidateHalfS, o.fs);
  w.refine_half = samples_for(kRefineHalfS, o.fs);
  w.baseline_half = samples_for(kBaselineHalfS, o.fs);
  return w;
}

CandidateScan scan_candidates(const double* y, std::int64_t y_begin, std::int64_t y_end, std::int64_t n,
                              std::int64_t core_begin, std::int64_t core_end, const DetectWindows& w) {
  CandidateScan scan;
  if (core_begin >= core_end) return scan;
  const std::int64_t half = w.half, h = w.candidate_half;
  // The envelope over [m_begin, m_end): the core and h either side (the candidates' neighbourhoods).
  const std::int64_t m_begin = std::max<std::int64_t>(0, core_begin - h), m_end = std::min(n, core_end + h);
  if (std::max<std::int64_t>(0, m_begin - half) < y_begin || std::min(n, m_end + half) > y_end) {
    throw InternalError("scan_candidates: the band-pass window does not cover the envelope's sums");
  }
  auto yv = [&](std::int64_t i) { return y[static_cast<std::size_t>(i - y_begin)]; };

  // 2-3. Energy y^2, centred moving average over kIntegrationS (a fixed divisor: the envelope
  // fades towards the record's ends instead of growing from few samples).
  // Each m[i] is its own sum of the window's energies, added in index order: a GPU thread per
  // sample computes exactly this (kernels/signal/detect.cu), so both give the same bits. A running
  // prefix sum (O(1) per sample) cannot be reproduced bit for bit by a parallel scan, whose
  // additions are grouped differently; the window is only ~2 x 0.075 s (55 samples at 360 Hz).
  const std::int64_t e_begin = std::max<std::int64_t>(0, m_begin - half), e_end = std::min(n, m_end + half);
  std::vector<double> e(static_cast<std::size_t>(e_end - e_begin));
  for (std::int64_t j = e_begin; j < e_end; ++j) {
    const double v = yv(j);
    e[static_cast<std::size_t>(j - e_begin)] = v * v;
  }
  const double divisor = static_cast<double>(2 * half + 1);
  std::vector<double> m(static_cast<std::size_t>(m_end - m_begin));
  for (std::int64_t i = m_begin; i < m_end; ++i) {
    const std::int64_t lo = std::max<std::int64_t>(0, i - half), hi = std::min(n, i + half + 1);
    double sum = 0.0;
    for (std::int64_t j = lo; j < hi; ++j) sum += e[static_cast<std::size_t>(j - e_begin)];
    m[static_cast<std::size_t>(i - m_begin)] = sum / divisor;
  }

  // 4. Candidates: the maximum of m within +-h, the first of equal values (a symmetric QRS can
  // give two exactly equal humps). A flat zero stretch has no candidate (m = 0 there). The
  // window's ends are the record's ends or at least h beyond the core, so the clipped maxima are
  // the whole record's.
  const std::vector<double> left = sliding_max(m, h, -1);   // max m[i-h .. i-1]
  const std::vector<double> right = sliding_max(m, -1, h);  // max m[i+1 .. i+h]
  for (std::int64_t i = core_begin; i < core_end; ++i) {
    const auto k = static_cast<std::size_t>(i - m_begin);
    const double v = m[k];
    scan.max_envelope = std::max(scan.max_envelope, v);
    if (!(v > 0.0) || !(v > left[k]) || !(v >= right[k])) continue;
    // 5. Features gathered around each candidate.
    ScannedCandidate c;
    c.candidate.position = i;
    c.candidate.energy = std::sqrt(v);  // RMS amplitude: thresholds on a linear scale
    c.envelope = v;
    for (std::int64_t j = std::max<std::int64_t>(0, i - half); j < std::min(n - 1, i + half); ++j)
      c.candidate.slope = std::max(c.candidate.slope, std::fabs(yv(j + 1) - yv(j)));
    scan.found.push_back(c);
  }
  return scan;
}

std::vector<double> aligned_bandpass(const double* bandpass, std::int64_t bp_begin, std::int64_t bp_end, std::int64_t lo,
                                     std::int64_t hi, const DetectWindows& w) {
  // The wavelet's taps sit at the start of the circular kernel, so its centre delays the output by
  // (width-1)/2. The first width-1 outputs mix in the end of the record (circular wrap-around) and
  // are set to 0.
  std::vector<double> y(static_cast<std::size_t>(hi - lo), 0.0);
  for (std::int64_t i = lo; i < hi; ++i) {
    const std::int64_t o = i + w.delay;
    if (o < w.wrapped || o >= bp_end) continue;
    if (o < bp_begin) throw InternalError("aligned_bandpass: band-pass output " + std::to_string(o) + " is no longer held");
    y[static_cast<std::size_t>(i - lo)] = bandpass[static_cast<std::size_t>(o - bp_begin)];
  }
  return y;
}

std::vector<Candidate> above_floor(const std::vector<ScannedCandidate>& found, double max_envelope) {
  // A floor relative to the largest envelope (a reduction on a GPU): exact zeros band-pass to
  // round-off ripples (~1e-16), which must not become beats in a flat stretch.
  const double floor = kFloorFraction * kFloorFraction * max_envelope;
  std::vector<Candidate> out;
  for (const auto& c : found)
    if (c.envelope > floor) out.push_back(c.candidate);
  return out;
}

std::vector<Candidate> above_round_off(std::vector<Candidate> candidates, double max_abs_sample) {
  const double floor = kRoundOffFraction * max_abs_sample;
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(), [floor](const Candidate& c) { return !(c.energy > floor); }),
                   candidates.end());
  return candidates;
}

double max_abs_sample(const float* x, std::size_t n) {
  float m = 0.0f;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return static_cast<double>(m);
}

std::vector<Candidate> find_candidates(const std::vector<double>& bandpass, const DetectOptions& o) {
  const DetectWindows w = detect_windows(o);
  const auto n = static_cast<std::int64_t>(bandpass.size());
  if (n == 0) return {};
  // 1. Line the band-pass up with the signal.
  const std::vector<double> y = aligned_bandpass(bandpass.data(), 0, n, 0, n, w);
  const CandidateScan scan = scan_candidates(y.data(), 0, n, n, 0, n, w);
  return above_floor(scan.found, scan.max_envelope);
}

std::vector<std::int64_t> classify_candidates(const std::vector<Candidate>& cands, const DetectOptions& o) {
  validate_fs(o.fs);
  std::vector<std::int64_t> beats;
  if (cands.empty()) return beats;
  const std::int64_t refractory = samples_for(kRefractoryS, o.fs), t_wave = samples_for(kTWaveS, o.fs),
                     learning = samples_for(kLearningS, o.fs);

  // Learning phase: the candidates of the first kLearningS from the first candidate on.
  double spk = 0.0, npk = 0.0;
  {
    double max_e = 0.0, sum_e = 0.0;
    std::size_t k = 0;
    for (; k < cands.size() && cands[k].position < cands.front().position + learning; ++k) {
      max_e = std::max(max_e, cands[k].energy);
      sum_e += cands[k].energy;
    }
    spk = kInitSignalFraction * max_e;
    npk = kInitNoiseFraction * sum_e / static_cast<double>(k);
  }
  auto thr1 = [&] { return npk + kThresholdFraction * (spk - npk); };

  std::deque<std::int64_t> rr;  // the last kRrHistory RR intervals
  double last_slope = 0.0;
  std::int64_t last = 0;
  bool have_last = false;
  std::size_t since = 0;  // first candidate after the last accepted beat

  auto mean_rr = [&] {
    double s = 0.0;
    for (auto v : rr) s += static_cast<double>(v);
    return s / static_cast<double>(rr.size());
  };
  // T-wave test: soon after the last QRS and much less steep than it.
  auto is_t_wave = [&](const Candidate& c) {
    return have_last && c.position - last < t_wave && c.slope < kTWaveSlopeRatio * last_slope;
  };
  auto accept = [&](std::size_t j, double weight) {
    const Candidate& c = cands[j];
    spk = weight * c.energy + (1.0 - weight) * spk;
    if (have_last) {
      rr.push_back(c.position - last);
      if (rr.size() > static_cast<std::size_t>(kRrHistory)) rr.pop_front();
    }
    last = c.position;
    last_slope = c.slope;
    have_last = true;
    beats.push_back(c.position);
    since = j + 1;
  };

  for (std::size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    // Search-back: the RR interval has grown past kSearchBackRr x the mean, so a beat was
    // probably missed: take the largest candidate in between that passes THR2.
    while (have_last && !rr.empty() && static_cast<double>(c.position - last) > kSearchBackRr * mean_rr()) {
      std::size_t best = cands.size();
      for (std::size_t j = since; j < i; ++j) {
        const Candidate& b = cands[j];
        if (b.position - last < refractory || is_t_wave(b)) continue;
        if (best == cands.size() || b.energy > cands[best].energy) best = j;
      }
      if (best == cands.size() || !(cands[best].energy > kSearchBackThreshold * thr1())) break;
      accept(best, kSearchBackUpdate);
    }
    if (have_last && c.position - last < refractory) continue;
    if (c.energy > thr1() && !is_t_wave(c)) {
      accept(i, kPeakUpdate);
    } else {
      npk = kPeakUpdate * c.energy + (1.0 - kPeakUpdate) * npk;
    }
  }
  return beats;
}

std::vector<std::int64_t> sorted_unique_peaks(std::vector<std::int64_t> peaks) {
  std::sort(peaks.begin(), peaks.end());
  peaks.erase(std::unique(peaks.begin(), peaks.end()), peaks.end());
  return peaks;
}

Detection detection_from_scan(const std::vector<ScannedCandidate>& found, const std::vector<std::int64_t>& refined,
                              double max_envelope, double max_abs, const DetectOptions& options) {
  if (refined.size() != found.size()) throw InternalError("detection_from_scan: a refined position per candidate expected");
  Detection d;
  const std::vector<Candidate> candidates = above_round_off(above_floor(found, max_envelope), max_abs);
  d.candidates = candidates.size();
  const std::vector<std::int64_t> accepted = classify_candidates(candidates, options);
  // Every accepted position is one of found's (ascending), so one forward search finds them all.
  std::vector<std::int64_t> peaks;
  peaks.reserve(accepted.size());
  auto it = found.begin();
  for (const std::int64_t p : accepted) {
    it = std::lower_bound(it, found.end(), p, [](const ScannedCandidate& c, std::int64_t q) { return c.candidate.position < q; });
    if (it == found.end() || it->candidate.position != p) throw InternalError("detection_from_scan: accepted an unknown candidate");
    peaks.push_back(refined[static_cast<std::size_t>(it - found.begin())]);
  }
  d.r_peaks = sorted_unique_peaks(std::move(peaks));
  return d;
}

std::int64_t refine_peak(const float* x, std::int64_t x_begin, std::int64_t n, std::int64_t p, const DetectWindows& w) {
  if (p < 0 || p >= n) throw InternalError("R peak " + std::to_string(p) + " lies outside the signal");
  const std::int64_t r = w.refine_half, b = w.baseline_half;
  if (std::max<std::int64_t>(0, p - refine_reach(w)) < x_begin) throw InternalError("refine_peak: the signal window starts too late");
  auto xv = [&](std::int64_t i) { return x[static_cast<std::size_t>(i - x_begin)]; };
  const std::int64_t blo = std::max<std::int64_t>(0, p - b), bhi = std::min(n - 1, p + b);
  double base = 0.0;
  for (std::int64_t i = blo; i <= bhi; ++i) base += xv(i);
  base /= static_cast<double>(bhi - blo + 1);
  std::int64_t best = p;
  double best_v = -1.0;
  for (std::int64_t i = std::max<std::int64_t>(0, p - r); i <= std::min(n - 1, p + r); ++i) {
    const double v = std::fabs(xv(i) - base);
    if (v > best_v) {
      best_v = v;
      best = i;
    }
  }
  return best;
}

std::vector<std::int64_t> refine_peaks(const std::vector<float>& x, const std::vector<std::int64_t>& positions, double fs) {
  const DetectWindows w = detect_windows(DetectOptions{fs, 2});  // the refinement's windows depend on fs alone
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<std::int64_t> out;
  out.reserve(positions.size());
  for (std::int64_t p : positions) out.push_back(refine_peak(x.data(), 0, n, p, w));
  return sorted_unique_peaks(std::move(out));
}

Detection detect_beats_cpu(const std::vector<float>& signal, const std::vector<double>& bandpass, const DetectOptions& o) {
  if (signal.size() != bandpass.size()) throw InternalError("signal and band-pass lengths differ");
  Detection d;
  const std::vector<Candidate> cands = above_round_off(find_candidates(bandpass, o), max_abs_sample(signal.data(), signal.size()));
  d.candidates = cands.size();
  d.r_peaks = refine_peaks(signal, classify_candidates(cands, o), o.fs);
  return d;
}

#ifdef ECGPIPE_WITH_CUDA
Detection detect_beats_cuda(DeviceSpan<const float> signal, DeviceSpan<const double> bandpass, const DetectOptions& o,
                            cudaStream_t stream) {
  if (signal.size != bandpass.size) throw InternalError("signal and band-pass lengths differ");
  const DetectWindows w = detect_windows(o);
  Detection d;
  const std::vector<Candidate> cands = above_round_off(find_candidates_cuda(bandpass, w, stream), max_abs_cuda(signal, stream));
  d.candidates = cands.size();
  // Step 6 stays on the host: sequential logic over the compact list (a few entries per beat).
  d.r_peaks = refine_peaks_cuda(signal, classify_candidates(cands, o), w, stream);
  return d;
}
#endif

BeatTable beat_windows(const std::vector<std::int64_t>& r_peaks, std::int64_t samples, std::int64_t r_offset, int max_length) {
  BeatTable t;
  for (std::size_t i = 0; i < r_peaks.size(); ++i) {
    const std::int64_t start = r_peaks[i] - r_offset;
    if (start < 0) continue;
    std::int64_t end = i + 1 < r_peaks.size() ? r_peaks[i + 1] - r_offset : start + max_length;
    end = std::min({end, start + static_cast<std::int64_t>(max_length), samples});
    if (end <= start) continue;
    t.start.push_back(start);
    t.length.push_back(static_cast<std::int32_t>(end - start));
  }
  return t;
}

}  // namespace ecgpipe
