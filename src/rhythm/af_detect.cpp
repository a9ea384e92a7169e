// AF from beat times: see include/ecgpipe/rhythm/af_detect.hpp.
#include "ecgpipe/rhythm/af_detect.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "ecgpipe/common/error.hpp"
#include "rhythm/rolling_median.hpp"

namespace ecgpipe {
namespace {

constexpr int kMaxLag = 3;  // bigeminy repeats every 2 intervals, trigeminy every 3
const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

const char* rhythm_name(Rhythm r) {
  switch (r) {
    case Rhythm::AFIB: return "AFIB";
    case Rhythm::VT: return "VT";
    case Rhythm::SVTA: return "SVTA";
    case Rhythm::B: return "B";
    case Rhythm::T: return "T";
    case Rhythm::N: break;
  }
  return "N";
}

Rhythm rhythm_named(std::string_view name) {
  if (!name.empty() && name.front() == '(') name.remove_prefix(1);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\0')) name.remove_suffix(1);
  for (Rhythm r : {Rhythm::AFIB, Rhythm::VT, Rhythm::SVTA, Rhythm::B, Rhythm::T})
    if (name == rhythm_name(r)) return r;
  return Rhythm::N;
}

namespace {

// The intervals left once premature and known ventricular beats have gone with both their
// intervals (af_detect.hpp), and where each was among all intervals.
struct KeptIntervals {
  std::vector<double> rr;        // in samples: the ratios need no rate
  std::vector<std::size_t> at;   // interval i ends at beat i + 1
  std::size_t intervals = 0;     // all of them, kept or not
};

KeptIntervals kept_intervals(const std::vector<std::int64_t>& r_peaks, const AfOptions& o, const std::vector<char>& ventricular) {
  const std::size_t beats = r_peaks.size();
  std::vector<double> rr(beats - 1);
  for (std::size_t i = 0; i + 1 < beats; ++i) {
    if (r_peaks[i + 1] <= r_peaks[i])
      throw InputError("beat times are not increasing: beat " + std::to_string(i + 1) + " at sample " +
                       std::to_string(r_peaks[i + 1]) + " after " + std::to_string(r_peaks[i]));
    rr[i] = static_cast<double>(r_peaks[i + 1] - r_peaks[i]);
  }
  // Premature beats: a short interval then a long one, against the local median; both go.
  const std::vector<double> local = detail::rolling_median(rr, o.local_median);
  std::vector<char> ectopic(rr.size(), 0);
  for (std::size_t i = 0; i + 1 < rr.size(); ++i)
    ectopic[i] = rr[i] < o.premature * local[i] && rr[i + 1] > o.compensatory * local[i + 1];
  // A known ventricular beat i + 1 ends interval i: it goes like a premature beat.
  if (!ventricular.empty())
    for (std::size_t i = 0; i < rr.size(); ++i) ectopic[i] = ectopic[i] || ventricular[i + 1];
  KeptIntervals k;
  k.intervals = rr.size();
  for (std::size_t i = 0; i < rr.size(); ++i)
    if (!ectopic[i] && !(i > 0 && ectopic[i - 1])) {
      k.rr.push_back(rr[i]);
      k.at.push_back(i);
    }
  return k;
}

// Each kept interval's irregularity over `window` kept intervals: the smallest over lags 1-3 of
// the median |RR(j) - RR(j - lag)|, over the median RR; NaN where a window holds no difference.
std::vector<double> irregularity(const std::vector<double>& rk, int window) {
  const std::vector<double> median_rr = detail::rolling_median(rk, window);
  std::vector<double> irr(rk.size(), std::numeric_limits<double>::infinity());
  for (int lag = 1; lag <= kMaxLag; ++lag) {
    std::vector<double> d(rk.size(), kNaN);
    for (std::size_t j = static_cast<std::size_t>(lag); j < rk.size(); ++j) d[j] = std::fabs(rk[j] - rk[j - static_cast<std::size_t>(lag)]);
    const std::vector<double> m = detail::rolling_median(d, window);
    // The smallest over the lags; a NaN (a window without differences) stays NaN.
    for (std::size_t j = 0; j < rk.size(); ++j) {
      const double v = m[j] / median_rr[j];
      irr[j] = std::isnan(v) || std::isnan(irr[j]) ? kNaN : std::min(irr[j], v);
    }
  }
  return irr;
}

}  // namespace

std::vector<float> rr_irregularity(const std::vector<std::int64_t>& r_peaks, const AfOptions& o,
                                   const std::vector<char>& ventricular) {
  const std::size_t beats = r_peaks.size();
  if (!ventricular.empty() && ventricular.size() != beats) throw InternalError("rr_irregularity: one flag per beat");
  std::vector<float> out(beats, 0.0f);
  if (beats < 3) return out;
  const KeptIntervals k = kept_intervals(r_peaks, o, ventricular);
  if (k.rr.empty()) return out;
  // The larger of the two scales' (NaN where either is: a window without differences).
  std::vector<double> irr = irregularity(k.rr, o.window);
  const std::vector<double> short_irr = irregularity(k.rr, o.short_window);
  for (std::size_t j = 0; j < irr.size(); ++j)
    irr[j] = std::isnan(irr[j]) || std::isnan(short_irr[j]) ? kNaN : std::max(irr[j], short_irr[j]);
  // Back to beats: interval i ends at beat i + 1; a removed interval takes the value of the last
  // kept one before it (none yet: 0), and beat 0 that of beat 1.
  double last = kNaN;
  std::size_t j = 0;
  for (std::size_t i = 0; i < k.intervals; ++i) {
    if (j < k.at.size() && k.at[j] == i) last = irr[j++];
    out[i + 1] = std::isnan(last) ? 0.0f : static_cast<float>(last);
  }
  out[0] = out[1];
  return out;
}

std::vector<Rhythm> af_rhythm(const std::vector<std::int64_t>& r_peaks, const AfOptions& o,
                              const std::vector<char>& ventricular, const AtrialActivity* atrial,
                              const std::vector<bool>* artefact) {
  if (atrial != nullptr && (atrial->p_consistency.size() != r_peaks.size() || atrial->p_context.size() != r_peaks.size()))
    throw InternalError("af_rhythm: P-wave measures for every beat");
  if (artefact != nullptr && artefact->size() != r_peaks.size()) throw InternalError("af_rhythm: one artefact flag per beat");
  if (!ventricular.empty() && ventricular.size() != r_peaks.size())
    throw InternalError("af_rhythm: one ventricular flag per beat");
  // A beat in artefact leaves its two intervals out, as a ventricular beat does.
  std::vector<char> left_out = ventricular;
  if (artefact != nullptr) {
    left_out.resize(r_peaks.size(), 0);
    for (std::size_t i = 0; i < r_peaks.size(); ++i) left_out[i] = left_out[i] || (*artefact)[i];
  }
  const std::vector<float> irr = rr_irregularity(r_peaks, o, left_out);
  std::vector<Rhythm> out(irr.size(), Rhythm::N);
  for (std::size_t i = 0; i < irr.size(); ++i)
    if (irr[i] > o.threshold && !(artefact != nullptr && (*artefact)[i]) &&
        (atrial == nullptr || !(atrial->p_consistency[i] >= o.p_wave_consistent || atrial->p_context[i] >= o.p_wave_typical)))
      out[i] = Rhythm::AFIB;
  // Short runs inside others: first of AF, then of the rest; a run at either end of the record
  // stays (it may be the part of an episode that the record cut).
  for (const Rhythm run_of : {Rhythm::AFIB, Rhythm::N}) {
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    for (std::size_t s = 0, i = 1; i <= out.size(); ++i)
      if (i == out.size() || out[i] != out[s]) {
        if (out[s] == run_of && s > 0 && i < out.size() && i - s < static_cast<std::size_t>(o.min_run)) runs.push_back({s, i});
        s = i;
      }
    const Rhythm other = run_of == Rhythm::AFIB ? Rhythm::N : Rhythm::AFIB;
    for (const auto& [s, e] : runs) std::fill(out.begin() + static_cast<std::ptrdiff_t>(s), out.begin() + static_cast<std::ptrdiff_t>(e), other);
  }
  return out;
}

}  // namespace ecgpipe
