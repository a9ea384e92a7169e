// AF from beat times: see include/ecgpipe/rhythm/af_detect.hpp.
#include "ecgpipe/rhythm/af_detect.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "classify/column_median.hpp"
#include "ecgpipe/common/error.hpp"
#include "rhythm/rolling_median.hpp"
#include "rhythm/rhythm_runs.hpp"

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
    case Rhythm::IVR: return "IVR";
    case Rhythm::N: break;
  }
  return "N";
}

Rhythm rhythm_named(std::string_view name) {
  if (!name.empty() && name.front() == '(') name.remove_prefix(1);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\0')) name.remove_suffix(1);
  if (name == rhythm_name(Rhythm::AFIB)) return Rhythm::AFIB;
  for (Rhythm r : kEctopicRhythms)
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

// Whether beat i's own P-wave measures say the atria are organised (af_detect.hpp).
bool organised(const AtrialActivity& a, std::size_t i, const AfOptions& o) {
  if (a.p_consistency[i] >= o.p_wave_consistent || a.p_context[i] >= o.p_wave_typical) return true;
  // Either lead's P waves, by the same thresholds: a lead that shows them where the other hides
  // them is enough (af_rhythm checked that the second lead has measures for every beat or none).
  return !a.lead2_p_context.empty() &&
         (a.lead2_p_consistency[i] >= o.p_wave_consistent || a.lead2_p_context[i] >= o.p_wave_typical);
}

// Runs of AF shorter than options.min_run inside other rhythm become it, then runs of other
// rhythm shorter than that inside AF become AF. A run at one end of the record stays (it may be
// the part of an episode that the record cut), but for a run of AF shorter than half the short
// window: there each centred window is half one repeated end value (rolling_median.hpp), and one
// premature or missed beat at the end made the last beat an AF episode of one beat and one sample
// (SVDB 860's beats; DS1 118 and 207 from their .atr beats). Not the other way: AF's last few
// beats called N cost a few seconds, not an episode, and absorbing them into AF changes the run
// the long-cycle check then reads (MIT-BIH 201's last 3 beats: 31 more beats vetoed).
void absorb_short_runs(std::vector<Rhythm>& out, const AfOptions& o) {
  const auto min_run = static_cast<std::size_t>(std::max(0, o.min_run));
  const auto min_edge_af = std::min(min_run, static_cast<std::size_t>(std::max(0, o.short_window / 2)));
  for (const Rhythm run_of : {Rhythm::AFIB, Rhythm::N}) {
    const Rhythm other = run_of == Rhythm::AFIB ? Rhythm::N : Rhythm::AFIB;
    for (const auto& [s, e] : detail::runs_of(out)) {
      if (out[s] != run_of || (s == 0 && e == out.size())) continue;  // a record that is one run keeps it
      const bool inside = s > 0 && e < out.size();
      const bool absorbed = inside ? e - s < min_run : run_of == Rhythm::AFIB && e - s < min_edge_af;
      if (absorbed)
        std::fill(out.begin() + static_cast<std::ptrdiff_t>(s), out.begin() + static_cast<std::ptrdiff_t>(e), other);
    }
  }
}

// The long-cycle P-wave consistency of each beat of the AF run [first, end) (af_detect.hpp):
// among the run's beats within kLongCycleEachSide of it, not left out, the fifth (at least 2)
// with the longest RR before (ties: the earlier), in time order, the median correlation of each
// one's P part with the previous one's; NaN with fewer than 2 such beats. Only the run's own
// beats: a short paroxysm beside slower sinus rhythm (MIT-BIH 201 at 8 min) would otherwise take
// its longest cycles, and their P waves, from the sinus side.
constexpr std::size_t kLongCycleEachSide = 32;
constexpr std::size_t kLongCycleShare = 5;
std::vector<double> long_cycle_consistency(const std::vector<std::int64_t>& r_peaks, const std::vector<char>& left_out,
                                           const AtrialActivity& a, std::size_t first, std::size_t end) {
  std::vector<double> out(end - first, kNaN);
  std::vector<std::size_t> order;
  std::vector<double> pairs;
  const auto pre = [&](std::size_t i) { return i == 0 ? 0 : r_peaks[i] - r_peaks[i - 1]; };
  const auto longer = [&](std::size_t x, std::size_t y) { return pre(x) != pre(y) ? pre(x) > pre(y) : x < y; };
  for (std::size_t i = first; i < end; ++i) {
    order.clear();
    for (std::size_t j = std::max(first, i > kLongCycleEachSide ? i - kLongCycleEachSide : 0);
         j < std::min(end, i + kLongCycleEachSide + 1); ++j)
      if (left_out.empty() || !left_out[j]) order.push_back(j);
    if (order.size() < 2) continue;
    const std::size_t k = std::max<std::size_t>(2, order.size() / kLongCycleShare);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), longer);
    std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
    // Each lead's median; either lead's repeated P waves are organised atria, as in organised().
    for (const std::vector<float>* parts : {&a.p_parts, &a.lead2_p_parts}) {
      if (parts->empty()) continue;
      pairs.clear();
      for (std::size_t j = 1; j < k; ++j) {
        const float* x = parts->data() + order[j - 1] * a.p_length;
        const float* y = parts->data() + order[j] * a.p_length;
        double dot = 0.0;
        for (std::size_t t = 0; t < a.p_length; ++t) dot += static_cast<double>(x[t]) * static_cast<double>(y[t]);
        pairs.push_back(dot);
      }
      const double median = detail::median_in_place(pairs);
      if (std::isnan(out[i - first]) || median > out[i - first]) out[i - first] = median;
    }
  }
  return out;
}

}  // namespace

double interval_irregularity(const std::vector<double>& rr) {
  if (rr.size() <= static_cast<std::size_t>(kMaxLag)) return kNaN;
  std::vector<double> d(rr);
  const double median_rr = detail::median_in_place(d);
  double smallest = std::numeric_limits<double>::infinity();
  for (std::size_t lag = 1; lag <= static_cast<std::size_t>(kMaxLag); ++lag) {
    d.clear();
    for (std::size_t j = lag; j < rr.size(); ++j) d.push_back(std::fabs(rr[j] - rr[j - lag]));
    smallest = std::min(smallest, detail::median_in_place(d) / median_rr);
  }
  return smallest;
}

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
  if (atrial != nullptr && (atrial->p_consistency.size() != r_peaks.size() || atrial->p_context.size() != r_peaks.size() ||
                            atrial->p_parts.size() != r_peaks.size() * atrial->p_length))
    throw InternalError("af_rhythm: P-wave measures for every beat");
  if (atrial != nullptr && (atrial->lead2_p_consistency.size() != atrial->lead2_p_context.size() ||
                            (!atrial->lead2_p_context.empty() && atrial->lead2_p_context.size() != r_peaks.size())))
    throw InternalError("af_rhythm: the second lead's P-wave measures for every beat, or none");
  if (atrial != nullptr && !atrial->lead2_p_parts.empty() && atrial->lead2_p_parts.size() != atrial->p_parts.size())
    throw InternalError("af_rhythm: the second lead's P parts for every beat, or none");
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
        (atrial == nullptr || !organised(*atrial, i, o)))
      out[i] = Rhythm::AFIB;
  absorb_short_runs(out, o);
  if (atrial == nullptr || atrial->p_length == 0) return out;
  // The beats that end each run's longest cycles: where their P waves repeat, the atria are
  // organised (APCs in most cycles between sinus beats); then the runs again.
  bool vetoed = false;
  for (const auto& [s, e] : detail::runs_of(out)) {
    if (out[s] != Rhythm::AFIB) continue;
    const std::vector<double> c = long_cycle_consistency(r_peaks, left_out, *atrial, s, e);
    for (std::size_t j = s; j < e; ++j)
      if (c[j - s] >= o.p_wave_long_cycle) out[j] = Rhythm::N, vetoed = true;
  }
  if (vetoed) absorb_short_runs(out, o);
  return out;
}

}  // namespace ecgpipe
