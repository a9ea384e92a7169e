// Synthetic ECG with ground truth: see include/ecgpipe/eval/synth.hpp for the model.
#include "ecgpipe/eval/synth.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string_view>
#include <system_error>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "common/output_set.hpp"

namespace ecgpipe {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSecondsPerMinute = 60.0;

// --- Randomness: mt19937_64 plus our own transforms (std::*_distribution differ across
// standard libraries).
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

class Rng {
 public:
  // Independent streams per component, so that e.g. changing --snr leaves the rhythm alone.
  Rng(std::uint64_t seed, std::uint64_t stream) : engine_(splitmix64(seed ^ splitmix64(stream))) {}

  // Uniform in [0, 1): the top 53 bits of one draw.
  double uniform() {
    constexpr int kMantissaBits = 53;
    constexpr int kDropBits = 64 - kMantissaBits;
    return static_cast<double>(engine_() >> kDropBits) * std::ldexp(1.0, -kMantissaBits);
  }

  // Standard normal by Box-Muller (both values used).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    spare_ = radius * std::sin(2.0 * kPi * u2);
    has_spare_ = true;
    return radius * std::cos(2.0 * kPi * u2);
  }

  // Normal clamped to +-kClamp standard deviations (keeps jittered shapes sane).
  double clamped_normal() {
    constexpr double kClamp = 3.0;
    return std::clamp(normal(), -kClamp, kClamp);
  }

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

enum Stream : std::uint64_t { kRhythmStream = 1, kShapeStream, kWanderStream, kNoiseStream, kBurstStream };

// --- Waves. An asymmetric Gaussian: amplitude * exp(-dt^2 / (2 sigma^2)), sigma_left before
// the center, sigma_right after it.
struct Wave {
  double offset_s;  // center relative to the beat's R time
  double amplitude_mv;
  double sigma_left_s;
  double sigma_right_s;
};

// Normal sinus beat, MLII-like lead, at RR = 1 s (the T wave's offset and widths scale with
// sqrt(RR / 1 s), as in ECGSYN). Amplitudes and durations are textbook values: PR ~ 160 ms,
// QRS ~ 80-100 ms, R ~ 1.2 mV, QT ~ 400 ms at 60 bpm.
constexpr Wave kNormalP{-0.165, 0.15, 0.025, 0.025};
constexpr Wave kNormalQ{-0.030, -0.10, 0.010, 0.010};
constexpr Wave kNormalR{0.0, 1.20, 0.0095, 0.0095};
constexpr Wave kNormalS{0.030, -0.25, 0.011, 0.011};
constexpr Wave kNormalT{0.300, 0.32, 0.060, 0.040};  // slower rise than fall
// Premature ventricular beat: no P, wide tall R with a deep wide S (QRS ~ 140 ms), inverted
// broad T (secondary repolarization change).
constexpr Wave kPvcR{0.0, 1.60, 0.025, 0.020};
constexpr Wave kPvcS{0.055, -0.50, 0.025, 0.025};
constexpr Wave kPvcT{0.320, -0.45, 0.070, 0.050};
// Premature atrial beat: ectopic P, inverted and with a shorter PR (low atrial focus), or absent.
constexpr Wave kPacP{-0.120, -0.10, 0.020, 0.020};
constexpr double kPacAbsentPProbability = 0.5;

constexpr double kReferenceRrS = 1.0;       // RR at which the templates above hold
constexpr double kPvcCoupling = 0.6;        // PVC comes at 0.6 RR after the last sinus beat
constexpr double kPacCoupling = 0.7;        // PAC comes at 0.7 RR
constexpr double kRefractoryS = 0.2;        // no two QRS closer than this (ventricular refractory)

// --- Scenarios (synth.hpp). Timing jitter of ectopic beats: 3 % of their interval.
constexpr double kScenarioJitter = 0.03;
// apc-bradycardia: an APC follows 85 % of sinus beats, 40 % of those as a pair, at 0.55 sinus RR
// (0.73 s at 45 bpm); the sinus beat after the last APC comes 1.25 sinus RR later (1.7 s). Per
// cycle 1 N and 0.85 x 1.4 = 1.19 A: the APCs outnumber the sinus beats, and the APC coupling is
// the most common RR, i.e. the local median.
constexpr double kBradyApcProbability = 0.85;
constexpr double kBradyApcPairProbability = 0.4;
constexpr double kBradyApcCoupling = 0.55;
constexpr double kBradyPostApcPause = 1.25;
// bigeminy: sinus stretches of 6-20 beats and bigeminy stretches of 8-30 N-V cycles in turn.
constexpr std::size_t kBigeminySinusBeats[2] = {6, 20};
constexpr std::size_t kBigeminyCycles[2] = {8, 30};
// vt-runs: sinus stretches of 10-30 beats, then a run of 3-10 PVCs at 160 bpm.
constexpr std::size_t kVtSinusBeats[2] = {10, 30};
constexpr std::size_t kVtRunBeats[2] = {3, 10};
constexpr double kVtRateBpm = 160.0;
// fusion: 10 % of sinus slots a fusion beat at 0.97 RR (the ventricular focus fires just before
// the sinus impulse would reach the ventricles), 5 % a PVC. The fusion beat's QRS-T is the
// average of the normal and the ventricular one.
constexpr double kFusionProbability = 0.10;
constexpr double kFusionPvcProbability = 0.05;
constexpr double kFusionCoupling = 0.97;
constexpr double kFusionWeight = 0.5;
// junctional-escape: 8 % of sinus slots the sinus node fails (sinus arrest); the junction
// escapes 1.5 s after the last beat (its own rate, 40 bpm), at least 1.3 sinus RR.
constexpr double kSinusArrestProbability = 0.08;
constexpr double kJunctionalEscapeS = 1.5;
constexpr double kEscapeOverSinus = 1.3;
// paroxysmal-af: sinus stretches of 60-150 beats and AF episodes of 80-250 beats in turn. In AF
// the ventricles answer at random: each RR independent, uniform in 0.6..1.4 x 0.65 s (~92 bpm);
// no P wave, fibrillatory waves instead: two sines of 5.3 and 7.1 Hz, 0.05 mV together, from
// the episode's first beat until just before the sinus P wave that ends it.
constexpr std::size_t kAfSinusBeats[2] = {60, 150};
constexpr std::size_t kAfEpisodeBeats[2] = {80, 250};
constexpr double kAfMeanRrS = 0.65;
constexpr double kAfRrSpread = 0.4;
constexpr double kFWaveMv = 0.05;
constexpr double kFWaveHz[2] = {5.3, 7.1};
constexpr double kFWaveWeight[2] = {0.6, 0.4};
constexpr double kFWaveEndBeforeSinusS = 0.25;  // the sinus P wave starts ~0.2 s before its R
// flutter: sinus stretches as paroxysmal-af's, flutter episodes of 80-250 beats. The atrial
// cycle is drawn per episode; conduction alternates 2:1 and 4:1 in blocks of 8-40 beats; each
// conducted wave's QRS comes kFlutterAvS (+- 5 ms) after the wave starts. The sawtooth falls
// for 70 % of the cycle and rises in the rest (MLII's inverted flutter waves), 0.25 mV peak to
// peak, and runs from the wave before the first conducted one to kFWaveEndBeforeSinusS before
// the sinus beat that ends the episode.
constexpr double kFlutterCycleS[2] = {0.19, 0.24};
constexpr std::size_t kFlutterBlockBeats[2] = {8, 40};
constexpr int kFlutterConduction[2] = {2, 4};
constexpr double kFlutterAvS = 0.24, kFlutterAvJitterS = 0.005;
constexpr double kFlutterWaveMv = 0.25, kFlutterFallShare = 0.7;
// af-aberrant: paroxysmal-af's rhythm, and in AF the Ashman phenomenon: a beat after a short
// interval that follows a long one (under 0.85 and over 1.15 x the mean AF interval) finds the
// right bundle still refractory and is conducted with right bundle branch block aberration, with
// probability 0.7: MLII's broad slurred S, QRS ~130 ms. MIT-BIH labels such beats a (AAMI S).
constexpr double kAshmanShort = 0.85, kAshmanLong = 1.15, kAshmanProbability = 0.7;
constexpr Wave kAberrantR{0.0, 1.00, 0.011, 0.011};
constexpr Wave kAberrantS{0.045, -0.40, 0.022, 0.022};
// svta-runs: sinus stretches of 10-30 beats, then a run of 3-15 APCs (an ectopic atrial focus
// firing at 150-200 bpm, its rate drawn per run, at least 4/3 of the sinus rate); the first comes
// at kSvtaCoupling x the sinus RR (at least the run's cycle), and sinus resumes kSvtaPause x RR
// after the run's last beat (the focus reset the sinus node).
constexpr std::size_t kSvtaSinusBeats[2] = {10, 30};
constexpr std::size_t kSvtaRunBeats[2] = {3, 15};
// svta-long: the same, with runs long enough to fill the neighbourhood a beat's prematurity is
// measured against (21 RR intervals): 20-80 APCs after 20-60 sinus beats, as MIT-BIH 209's runs
// of 14-74 beats at ~160 bpm.
constexpr std::size_t kSvtaLongSinusBeats[2] = {20, 60};
constexpr std::size_t kSvtaLongRunBeats[2] = {20, 80};
constexpr double kSvtaRateBpm[2] = {150.0, 200.0};
constexpr double kSvtaCoupling = 0.5, kSvtaPause = 1.2, kSvtaFasterThanSinus = 0.75;

// Beat-to-beat variation (standard deviations, relative unless in seconds).
constexpr double kAmplitudeJitter = 0.05;
constexpr double kWidthJitter = 0.03;
constexpr double kOffsetJitterS = 0.002;
// Respiration: 15 breaths/min; it modulates the QRS amplitude (the heart's electrical axis
// moves) and the RR (respiratory sinus arrhythmia).
constexpr double kRespirationHz = 0.25;
constexpr double kQrsRespirationDepth = 0.05;
// RR variability: half of the variance from the respiratory sinusoid, half from a slow AR(1)
// (coefficient 0.9 per beat, i.e. a memory of ~10 beats, the LF band).
constexpr double kRsaVarianceShare = 0.5;
constexpr double kRrAr1Coefficient = 0.9;
constexpr double kRrClampStd = 3.0;
// Baseline wander: a respiratory and a slower (0.07 Hz, body movement) sinusoid; their
// weights sum to 1 so the wander stays within +-wander_mv.
constexpr double kWanderSlowHz = 0.07;
constexpr double kWanderRespirationWeight = 0.6;
constexpr double kWanderSlowWeight = 0.4;

constexpr double kWaveSupportSigmas = 6.0;  // a Gaussian is below 2e-8 of its peak beyond 6 sigma
constexpr double kLeadS = 1.5;              // beats are laid out from 1.5 s before to after the record
constexpr double kQrsSearchS = 0.05;        // the R peak is looked for within +-50 ms of the R time

void add_wave(std::vector<double>& y, double fs, double r_time_s, const Wave& w) {
  if (w.amplitude_mv == 0.0) return;
  const double center = r_time_s + w.offset_s;
  const double lo_t = center - kWaveSupportSigmas * w.sigma_left_s;
  const double hi_t = center + kWaveSupportSigmas * w.sigma_right_s;
  const auto n = static_cast<std::int64_t>(y.size());
  const std::int64_t lo = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(lo_t * fs)));
  const std::int64_t hi = std::min<std::int64_t>(n - 1, static_cast<std::int64_t>(std::floor(hi_t * fs)));
  for (std::int64_t i = lo; i <= hi; ++i) {
    const double dt = static_cast<double>(i) / fs - center;
    const double sigma = dt < 0 ? w.sigma_left_s : w.sigma_right_s;
    y[static_cast<std::size_t>(i)] += w.amplitude_mv * std::exp(-0.5 * dt * dt / (sigma * sigma));
  }
}

Wave jittered(const Wave& w, Rng& rng, double amplitude_scale) {
  Wave out = w;
  out.amplitude_mv *= amplitude_scale * (1.0 + kAmplitudeJitter * rng.clamped_normal());
  const double width = 1.0 + kWidthJitter * rng.clamped_normal();
  out.sigma_left_s *= width;
  out.sigma_right_s *= width;
  if (w.offset_s != 0.0) out.offset_s += kOffsetJitterS * rng.clamped_normal();  // R is the anchor
  return out;
}

// T wave of a beat preceded by an RR of rr_s: QT scales with sqrt(RR) (Bazett).
Wave rr_scaled_t(const Wave& t, double rr_s) {
  const double k = std::sqrt(rr_s / kReferenceRrS);
  return Wave{t.offset_s * k, t.amplitude_mv, t.sigma_left_s * k, t.sigma_right_s * k};
}

enum class Kind { normal, pvc, pac, dropped, fusion, escape, af, flutter, svta, aberrant };

struct Event {
  double time_s;  // R time (for a dropped beat: when its R would have been)
  double rr_s;    // the RR before it
  Kind kind;
};

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0.0; }

// The sinus node's RR series: mean RR x (1 + respiratory sinus arrhythmia + AR(1)), clamped.
// The AR(1) state starts in its stationary distribution (one normal draw at construction).
class SinusRr {
 public:
  SinusRr(const SynthOptions& o, Rng& rng, double resp_phase)
      : rng_(rng),
        hrv_(o.hrv),
        rsa_amplitude_(o.hrv * std::sqrt(2.0 * kRsaVarianceShare)),  // sine var = A^2/2
        ar_scale_(o.hrv * std::sqrt(1.0 - kRsaVarianceShare)),
        ar_innovation_(std::sqrt(1.0 - kRrAr1Coefficient * kRrAr1Coefficient)),
        resp_phase_(resp_phase),
        ar_(rng.normal()) {}
  // The next sinus interval after a firing at sinus_t, around mean_rr.
  double next(double sinus_t, double mean_rr) {
    ar_ = kRrAr1Coefficient * ar_ + ar_innovation_ * rng_.normal();
    const double dev = rsa_amplitude_ * std::sin(2.0 * kPi * kRespirationHz * sinus_t + resp_phase_) + ar_scale_ * ar_;
    return mean_rr * (1.0 + std::clamp(dev, -kRrClampStd * hrv_, kRrClampStd * hrv_));
  }

 private:
  Rng& rng_;
  double hrv_, rsa_amplitude_, ar_scale_, ar_innovation_, resp_phase_;
  double ar_;
};

// The default rhythm: each sinus slot is normal, PVC, PAC or dropped at the options' rates.
std::vector<Event> default_rhythm(const SynthOptions& o, Rng& rhythm, SinusRr& sinus, double end_s) {
  const double rr_mean = kSecondsPerMinute / o.heart_rate;
  const double share_sum = o.pvc_share + o.pac_share + o.dropped_share;
  const double p_pvc = o.abnormal_rate * o.pvc_share / share_sum;
  const double p_pac = o.abnormal_rate * o.pac_share / share_sum;
  std::vector<Event> events;
  double sinus_t = -kLeadS - rr_mean * rhythm.uniform();  // last sinus-node firing
  double last_qrs_t = -std::numeric_limits<double>::infinity();
  while (sinus_t < end_s) {
    const double rr = sinus.next(sinus_t, rr_mean);
    const double u = rhythm.uniform();
    const double scheduled = sinus_t + rr;
    Event e{scheduled, rr, Kind::normal};
    if (u < p_pvc) {
      // Ectopic ventricular beat; the sinus beat due at `scheduled` falls in the refractory
      // period and is hidden, so the sinus schedule goes on: full compensatory pause.
      e = Event{sinus_t + kPvcCoupling * rr, kPvcCoupling * rr, Kind::pvc};
      sinus_t = scheduled;
    } else if (u < p_pvc + p_pac) {
      // Ectopic atrial beat: resets the sinus node.
      e = Event{sinus_t + kPacCoupling * rr, kPacCoupling * rr, Kind::pac};
      sinus_t = e.time_s;
    } else if (u < o.abnormal_rate) {
      e.kind = Kind::dropped;  // P wave, blocked: no QRS
      sinus_t = scheduled;
    } else {
      sinus_t = scheduled;
    }
    if (e.kind != Kind::dropped) {
      e.time_s = std::max(e.time_s, last_qrs_t + kRefractoryS);
      if (e.kind == Kind::pac) sinus_t = e.time_s;
      last_qrs_t = e.time_s;
    }
    events.push_back(e);
  }
  return events;
}

// Beats of a scenario, appended in time order; no two QRS closer than the refractory period.
class Beats {
 public:
  // Places a beat at time t (later if refractory); returns its time.
  double add(double t, Kind kind) {
    t = std::max(t, last_ + kRefractoryS);
    const double rr = std::isfinite(last_) ? t - last_ : kReferenceRrS;
    events_.push_back(Event{t, rr, kind});
    last_ = t;
    return t;
  }
  double last() const { return last_; }
  std::vector<Event> take() { return std::move(events_); }

 private:
  std::vector<Event> events_;
  double last_ = -std::numeric_limits<double>::infinity();
};

// An integer in [lo, hi], uniformly.
std::size_t uniform_count(Rng& rng, std::size_t lo, std::size_t hi) {
  return lo + std::min(hi - lo, static_cast<std::size_t>(rng.uniform() * static_cast<double>(hi - lo + 1)));
}

// The flutter waves of one episode: a wave starts at first_s + k cycle_s, until end_s.
struct FlutterWaves {
  double first_s, cycle_s, end_s;
};

// The failure-mode scenarios (synth.hpp documents each; the constants are at the top of the file).
// `flutter` receives the flutter scenario's episodes.
std::vector<Event> scenario_rhythm(const SynthOptions& o, Rng& rhythm, SinusRr& sinus, double end_s,
                                   std::vector<FlutterWaves>& flutter) {
  const double rr_mean = kSecondsPerMinute / o.heart_rate;
  Beats beats;
  double t = -kLeadS - rr_mean * rhythm.uniform();  // the last sinus-node firing
  beats.add(t, Kind::normal);
  // A sinus stretch of between range[0] and range[1] beats (drawn), from t; t ends at its last beat.
  const auto sinus_stretch = [&](const std::size_t (&range)[2]) {
    const std::size_t normals = uniform_count(rhythm, range[0], range[1]);
    for (std::size_t k = 0; k < normals && t < end_s; ++k) t = beats.add(t + sinus.next(t, rr_mean), Kind::normal);
  };
  // One interval of AF's ventricular response: independent, uniform around kAfMeanRrS.
  const auto af_rr = [&] { return kAfMeanRrS * (1.0 + kAfRrSpread * (2.0 * rhythm.uniform() - 1.0)); };
  while (t < end_s) {
    switch (o.scenario) {
      case SynthScenario::apc_bradycardia: {
        // A sinus beat, then (most cycles) one or two APCs at a short coupling; each APC resets
        // the sinus node, whose next beat comes a long pause later.
        const double rr = sinus.next(t, rr_mean);
        if (rhythm.uniform() < kBradyApcProbability) {
          const std::size_t apcs = rhythm.uniform() < kBradyApcPairProbability ? 2 : 1;
          double last = beats.last();
          for (std::size_t k = 0; k < apcs; ++k)
            last = beats.add(last + kBradyApcCoupling * rr * (1.0 + kScenarioJitter * rhythm.clamped_normal()), Kind::pac);
          t = beats.add(last + kBradyPostApcPause * rr, Kind::normal);
        } else {
          t = beats.add(t + rr, Kind::normal);
        }
        break;
      }
      case SynthScenario::bigeminy: {
        // Sinus stretches and bigeminy stretches (N V N V ...) in turn; each V comes at
        // kPvcCoupling x RR and hides the next sinus beat (compensatory pause).
        sinus_stretch(kBigeminySinusBeats);
        const std::size_t cycles = uniform_count(rhythm, kBigeminyCycles[0], kBigeminyCycles[1]);
        for (std::size_t k = 0; k < cycles && t < end_s; ++k) {
          const double rr1 = sinus.next(t, rr_mean);
          beats.add(t + kPvcCoupling * rr1, Kind::pvc);
          const double rr2 = sinus.next(t + rr1, rr_mean);
          t = beats.add(t + rr1 + rr2, Kind::normal);
        }
        break;
      }
      case SynthScenario::vt_runs: {
        // Sinus stretches, then a run of 3-10 PVCs at the VT rate; sinus resumes one sinus
        // cycle after the run's last beat.
        sinus_stretch(kVtSinusBeats);
        const std::size_t run = uniform_count(rhythm, kVtRunBeats[0], kVtRunBeats[1]);
        const double rr = sinus.next(t, rr_mean);
        double last = beats.add(t + kPvcCoupling * rr, Kind::pvc);
        const double cycle = kSecondsPerMinute / kVtRateBpm;
        for (std::size_t k = 1; k < run; ++k)
          last = beats.add(last + cycle * (1.0 + kScenarioJitter * rhythm.clamped_normal()), Kind::pvc);
        t = beats.add(last + sinus.next(last, rr_mean), Kind::normal);
        break;
      }
      case SynthScenario::fusion: {
        // Each sinus slot: a fusion beat (a late ventricular focus firing as the sinus impulse
        // arrives), a PVC, or a normal beat.
        const double rr = sinus.next(t, rr_mean);
        const double u = rhythm.uniform();
        if (u < kFusionProbability) {
          beats.add(t + kFusionCoupling * rr, Kind::fusion);
        } else if (u < kFusionProbability + kFusionPvcProbability) {
          beats.add(t + kPvcCoupling * rr, Kind::pvc);
        } else {
          beats.add(t + rr, Kind::normal);
        }
        t += rr;  // the sinus schedule goes on in every case
        break;
      }
      case SynthScenario::junctional_escape: {
        // Sinus arrest now and then: no P, no beat, until the junction escapes after its own,
        // longer interval; the sinus node then starts again from the escape beat.
        const double rr = sinus.next(t, rr_mean);
        if (rhythm.uniform() < kSinusArrestProbability) {
          const double escape = std::max(kJunctionalEscapeS, kEscapeOverSinus * rr);
          t = beats.add(beats.last() + escape * (1.0 + kScenarioJitter * rhythm.clamped_normal()), Kind::escape);
        } else {
          t = beats.add(t + rr, Kind::normal);
        }
        break;
      }
      case SynthScenario::paroxysmal_af:
      case SynthScenario::af_aberrant: {
        // A sinus stretch, then an AF episode; sinus resumes one sinus cycle after its last beat.
        // af-aberrant: Ashman beats in AF (its draws only there, so paroxysmal-af's stay as they were).
        sinus_stretch(kAfSinusBeats);
        const std::size_t af = uniform_count(rhythm, kAfEpisodeBeats[0], kAfEpisodeBeats[1]);
        double last = t, previous_rr = 0.0;
        for (std::size_t k = 0; k < af && last < end_s; ++k) {
          const double rr = af_rr();
          const bool ashman = o.scenario == SynthScenario::af_aberrant && rr < kAshmanShort * kAfMeanRrS &&
                              previous_rr > kAshmanLong * kAfMeanRrS && rhythm.uniform() < kAshmanProbability;
          last = beats.add(last + rr, ashman ? Kind::aberrant : Kind::af);
          previous_rr = rr;
        }
        t = beats.add(last + sinus.next(last, rr_mean), Kind::normal);
        break;
      }
      case SynthScenario::flutter: {
        // A sinus stretch, then a flutter episode: the atria circle from a wave after the last
        // sinus beat's T; every 2nd or 4th wave conducts; sinus resumes one sinus cycle after
        // the episode's last beat.
        sinus_stretch(kAfSinusBeats);
        const std::size_t count = uniform_count(rhythm, kAfEpisodeBeats[0], kAfEpisodeBeats[1]);
        const double cycle = kFlutterCycleS[0] + (kFlutterCycleS[1] - kFlutterCycleS[0]) * rhythm.uniform();
        const double first = t + 0.5 * sinus.next(t, rr_mean);  // the first wave, after the last sinus T
        int ratio = kFlutterConduction[rhythm.uniform() < 0.5 ? 0 : 1];
        std::size_t wave = static_cast<std::size_t>(ratio);
        std::size_t block = uniform_count(rhythm, kFlutterBlockBeats[0], kFlutterBlockBeats[1]);
        double last = t;
        for (std::size_t k = 0; k < count && last < end_s; ++k) {
          if (block-- == 0) {
            ratio = ratio == kFlutterConduction[0] ? kFlutterConduction[1] : kFlutterConduction[0];
            block = uniform_count(rhythm, kFlutterBlockBeats[0], kFlutterBlockBeats[1]) - 1;
          }
          last = beats.add(first + static_cast<double>(wave) * cycle + kFlutterAvS + kFlutterAvJitterS * rhythm.clamped_normal(),
                           Kind::flutter);
          wave += static_cast<std::size_t>(ratio);
        }
        t = beats.add(last + sinus.next(last, rr_mean), Kind::normal);
        flutter.push_back({first, cycle, t - kFWaveEndBeforeSinusS});
        break;
      }
      case SynthScenario::svta_runs:
      case SynthScenario::svta_long: {
        // A sinus stretch, then a run of APCs at the focus's rate.
        const bool long_runs = o.scenario == SynthScenario::svta_long;
        sinus_stretch(long_runs ? kSvtaLongSinusBeats : kSvtaSinusBeats);
        const std::size_t* bounds = long_runs ? kSvtaLongRunBeats : kSvtaRunBeats;
        const std::size_t run = uniform_count(rhythm, bounds[0], bounds[1]);
        // A tachycardia over a fast sinus rate too (--heart-rate near 200): at most 0.75 x the mean RR.
        const double rate = kSvtaRateBpm[0] + (kSvtaRateBpm[1] - kSvtaRateBpm[0]) * rhythm.uniform();
        const double cycle = std::min(kSvtaFasterThanSinus * rr_mean, kSecondsPerMinute / rate);
        const double rr = sinus.next(t, rr_mean);
        double last = beats.add(t + std::max(cycle, kSvtaCoupling * rr), Kind::svta);
        for (std::size_t k = 1; k < run; ++k)
          last = beats.add(last + cycle * (1.0 + kScenarioJitter * rhythm.clamped_normal()), Kind::svta);
        t = beats.add(last + kSvtaPause * sinus.next(last, rr_mean), Kind::normal);
        break;
      }
      case SynthScenario::af:
        // Persistent AF: every beat conducted at random (a short recording of a patient in AF).
        t = beats.add(t + af_rr(), Kind::af);
        break;
      case SynthScenario::noise:
        // Sinus rhythm throughout: every pause, run or ectopic beat reported is the noise's.
        t = beats.add(t + sinus.next(t, rr_mean), Kind::normal);
        break;
      case SynthScenario::none:
        throw InternalError("scenario_rhythm: no scenario");
    }
  }
  return beats.take();
}

// A bound as %g prints it (std::to_string would give 100.000000).
std::string bound_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string range_text(double lo, double hi) { return "[" + bound_text(lo) + ", " + bound_text(hi) + "]"; }

}  // namespace

std::int64_t synth_samples_for_duration(double duration_s, double fs) {
  if (!std::isfinite(duration_s) || duration_s <= 0.0)
    throw UsageError("--duration must be a positive number of seconds");
  // The rate's bounds, as validate() says them ("--fs inf" was "not positive").
  if (!std::isfinite(fs) || fs < kSynthMinFs || fs > kSynthMaxFs)
    throw UsageError("--fs must be within " + range_text(kSynthMinFs, kSynthMaxFs) + " Hz");
  const double n = std::round(duration_s * fs);
  if (n < 1.0) throw UsageError("--duration is shorter than one sample");
  if (n > static_cast<double>(kSynthMaxSamples))
    throw UsageError("--duration gives more than " + std::to_string(kSynthMaxSamples) + " samples");
  return static_cast<std::int64_t>(n);
}


void validate(const SynthOptions& o) {
  if (!std::isfinite(o.fs) || o.fs < kSynthMinFs || o.fs > kSynthMaxFs)
    throw UsageError("--fs must be within " + range_text(kSynthMinFs, kSynthMaxFs) + " Hz");
  if (o.samples < 1) throw UsageError("the record must have at least one sample (duration 0?)");
  if (o.samples > kSynthMaxSamples)
    throw UsageError("--samples must be at most " + std::to_string(kSynthMaxSamples));
  if (!std::isfinite(o.heart_rate) || o.heart_rate < kSynthMinHeartRate ||
      o.heart_rate > kSynthMaxHeartRate)
    throw UsageError("--heart-rate must be within " + range_text(kSynthMinHeartRate, kSynthMaxHeartRate) + " bpm");
  if (!std::isfinite(o.hrv) || o.hrv < 0.0 || o.hrv > kSynthMaxHrv)
    throw UsageError("--hrv must be within " + range_text(0.0, kSynthMaxHrv));
  if (!finite_nonneg(o.wander_mv) || o.wander_mv > kSynthMaxArtefactMv)
    throw UsageError("--wander-mv must be within " + range_text(0.0, kSynthMaxArtefactMv) + " mV");
  if (!finite_nonneg(o.mains_mv) || o.mains_mv > kSynthMaxArtefactMv)
    throw UsageError("--mains-mv must be within " + range_text(0.0, kSynthMaxArtefactMv) + " mV");
  if (!std::isfinite(o.mains_hz) || o.mains_hz <= 0.0) throw UsageError("--mains-hz must be a positive number of Hz");
  // The default 50 Hz is --fs 100's Nyquist frequency: name both values and how to do without hum.
  if (o.mains_mv > 0.0 && o.mains_hz >= o.fs / 2)
    throw UsageError("--mains-hz " + bound_text(o.mains_hz) + " is not below fs/2 = " + bound_text(o.fs / 2) + " Hz (--fs " +
                     bound_text(o.fs) + "): give a lower --mains-hz, or --mains-mv 0 for no hum");
  if (std::isnan(o.snr_db) || o.snr_db < kSynthMinSnrDb)
    throw UsageError("--snr must be a number of dB >= " + bound_text(kSynthMinSnrDb) + ", or inf");
  if (!std::isfinite(o.abnormal_rate) || o.abnormal_rate < 0.0 || o.abnormal_rate > 1.0)
    throw UsageError("--abnormal-rate must be within [0, 1]");
  if (!finite_nonneg(o.pvc_share) || !finite_nonneg(o.pac_share) || !finite_nonneg(o.dropped_share) ||
      o.pvc_share + o.pac_share + o.dropped_share <= 0.0)
    throw UsageError("abnormal beat shares must be >= 0 with a positive sum");
}

namespace {

// The noise scenario's bursts (synth.hpp): one every kBurstGapS[0..1] s, kBurstS[0..1] s long,
// of the three kinds in turn, each faded in and out over kBurstRampS (a burst does not start
// with a step, which a detector would take as a beat).
constexpr double kBurstGapS[2] = {40.0, 80.0}, kBurstS[2] = {4.0, 12.0}, kBurstRampS = 0.2;
constexpr double kMuscleRmsMv = 0.35;                      // muscle: broadband, 0.35 mV RMS
constexpr double kMotionMv = 1.5, kMotionHz[2] = {0.7, 2.3};  // electrode motion: large swings, 0.7-2.3 Hz
constexpr double kMotionSpikeMv = 1.2, kMotionSpikesPerS = 1.5;  // ... and steps of the electrode's contact
constexpr double kWanderBurstMv = 2.5, kWanderBurstHz = 0.4;  // baseline wander: a slow swing of 2.5 mV

void add_noise_bursts(const SynthOptions& o, SynthRecord& rec) {
  Rng burst(o.seed, kBurstStream);
  const double duration_s = static_cast<double>(o.samples) / o.fs;
  const char* const kinds[3] = {"muscle", "motion", "wander"};
  int kind = 0;
  for (double t = kBurstGapS[0] * burst.uniform() + 10.0;; kind = (kind + 1) % 3) {
    const double len = kBurstS[0] + (kBurstS[1] - kBurstS[0]) * burst.uniform();
    if (t + len > duration_s) break;
    const auto first = static_cast<std::int64_t>(std::ceil(t * o.fs));
    const auto last = std::min(o.samples, static_cast<std::int64_t>(std::ceil((t + len) * o.fs)));
    const double phase = 2.0 * kPi * burst.uniform();
    double step = 0.0;
    for (std::int64_t k = first; k < last; ++k) {
      const double tk = static_cast<double>(k) / o.fs - t;
      const double ramp = std::min({1.0, tk / kBurstRampS, (len - tk) / kBurstRampS});
      double v = 0.0;
      switch (kind) {
        case 0:
          v = kMuscleRmsMv * burst.normal();
          break;
        case 1:
          if (burst.uniform() < kMotionSpikesPerS / o.fs) step = kMotionSpikeMv * (2.0 * burst.uniform() - 1.0);
          v = kMotionMv * (0.6 * std::sin(2.0 * kPi * kMotionHz[0] * tk + phase) + 0.4 * std::sin(2.0 * kPi * kMotionHz[1] * tk)) +
              step;
          break;
        default:
          v = kWanderBurstMv * std::sin(2.0 * kPi * kWanderBurstHz * tk + phase);
          break;
      }
      rec.signal[static_cast<std::size_t>(k)] += std::max(0.0, ramp) * v;
    }
    rec.noise.push_back({first, last, kinds[kind]});
    t += len + kBurstGapS[0] + (kBurstGapS[1] - kBurstGapS[0]) * burst.uniform();
  }
}

}  // namespace

SynthRecord synthesize(const SynthOptions& o) {
  validate(o);
  const auto n = static_cast<std::size_t>(o.samples);
  const double duration_s = static_cast<double>(o.samples) / o.fs;

  // --- Rhythm: a list of events from kLeadS before the record to kLeadS after it, so the
  // record's edges look like the middle of a recording.
  Rng rhythm(o.seed, kRhythmStream);
  const double resp_phase = 2.0 * kPi * rhythm.uniform();
  SinusRr sinus(o, rhythm, resp_phase);
  std::vector<FlutterWaves> flutter;
  const std::vector<Event> events = o.scenario == SynthScenario::none
                                        ? default_rhythm(o, rhythm, sinus, duration_s + kLeadS)
                                        : scenario_rhythm(o, rhythm, sinus, duration_s + kLeadS, flutter);

  // --- Waves.
  SynthRecord rec;
  rec.clean.assign(n, 0.0);
  Rng shape(o.seed, kShapeStream);
  for (const Event& e : events) {
    const double qrs_scale =
        1.0 + kQrsRespirationDepth * std::sin(2.0 * kPi * kRespirationHz * e.time_s + resp_phase);
    const auto add = [&](const Wave& w, double scale) { add_wave(rec.clean, o.fs, e.time_s, jittered(w, shape, scale)); };
    const auto normal_qrs_t = [&](double weight) {
      add(kNormalQ, weight * qrs_scale);
      add(kNormalR, weight * qrs_scale);
      add(kNormalS, weight * qrs_scale);
      add(rr_scaled_t(kNormalT, e.rr_s), weight);
    };
    const auto pvc_qrs_t = [&](double weight) {
      add(kPvcR, weight * qrs_scale);
      add(kPvcS, weight * qrs_scale);
      add(kPvcT, weight);
    };
    switch (e.kind) {
      case Kind::normal:
      case Kind::dropped:
        add(kNormalP, 1.0);
        if (e.kind == Kind::dropped) break;
        normal_qrs_t(1.0);
        break;
      case Kind::pac:
      case Kind::svta: {
        const bool absent_p = shape.uniform() < kPacAbsentPProbability;
        const Wave p = jittered(kPacP, shape, 1.0);
        if (!absent_p) add_wave(rec.clean, o.fs, e.time_s, p);
        normal_qrs_t(1.0);
        break;
      }
      case Kind::pvc:
        pvc_qrs_t(1.0);
        break;
      case Kind::fusion:
        // The sinus impulse and the ventricular focus each depolarize part of the ventricles:
        // the sinus P, then the average of the normal and the ventricular QRS-T.
        add(kNormalP, 1.0);
        normal_qrs_t(kFusionWeight);
        pvc_qrs_t(1.0 - kFusionWeight);
        break;
      case Kind::escape:
        normal_qrs_t(1.0);  // junctional: narrow QRS, no P wave
        break;
      case Kind::af:
      case Kind::flutter:
        normal_qrs_t(1.0);  // conducted through the AV node: a normal QRS, no P wave
        break;
      case Kind::aberrant:
        // Conducted with right bundle branch block: no P, a broad slurred S, a normal T.
        add(kNormalQ, qrs_scale);
        add(kAberrantR, qrs_scale);
        add(kAberrantS, qrs_scale);
        add(rr_scaled_t(kNormalT, e.rr_s), 1.0);
        break;
    }
  }
  // Fibrillatory waves over each AF episode (runs of af events).
  const auto in_af = [](Kind k) { return k == Kind::af || k == Kind::aberrant; };
  for (std::size_t i = 0; i < events.size();) {
    if (!in_af(events[i].kind)) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < events.size() && in_af(events[j].kind)) ++j;
    const double from = events[i].time_s - events[i].rr_s;
    const double to = j < events.size() ? events[j].time_s - kFWaveEndBeforeSinusS : duration_s;
    const double phase[2] = {2.0 * kPi * shape.uniform(), 2.0 * kPi * shape.uniform()};
    const auto first = static_cast<std::int64_t>(std::max(0.0, std::ceil(from * o.fs)));
    const auto last = static_cast<std::int64_t>(std::min(static_cast<double>(o.samples), std::ceil(to * o.fs)));
    for (std::int64_t k = first; k < last; ++k) {
      const double tk = static_cast<double>(k) / o.fs;
      double f = 0.0;
      for (int w = 0; w < 2; ++w) f += kFWaveWeight[w] * std::sin(2.0 * kPi * kFWaveHz[w] * tk + phase[w]);
      rec.clean[static_cast<std::size_t>(k)] += kFWaveMv * f;
    }
    i = j;
  }

  // Flutter's sawtooth over each flutter episode.
  for (const FlutterWaves& f : flutter) {
    const auto first = static_cast<std::int64_t>(std::max(0.0, std::ceil(f.first_s * o.fs)));
    const auto last = static_cast<std::int64_t>(std::min(static_cast<double>(o.samples), std::ceil(f.end_s * o.fs)));
    for (std::int64_t k = first; k < last; ++k) {
      const double phase = std::fmod(static_cast<double>(k) / o.fs - f.first_s, f.cycle_s) / f.cycle_s;
      const double saw = phase < kFlutterFallShare ? 0.5 - phase / kFlutterFallShare
                                                   : -0.5 + (phase - kFlutterFallShare) / (1.0 - kFlutterFallShare);
      rec.clean[static_cast<std::size_t>(k)] += kFlutterWaveMv * saw;
    }
  }

  // --- Truth: events whose R time rounds into the record; the sample is the max of the clean
  // ECG within +-kQrsSearchS (clipped to the record).
  const auto search = static_cast<std::int64_t>(std::ceil(kQrsSearchS * o.fs));
  for (const Event& e : events) {
    const auto nominal = static_cast<std::int64_t>(std::llround(e.time_s * o.fs));
    if (nominal < 0 || nominal >= o.samples) continue;
    if (e.kind == Kind::dropped) {
      ++rec.dropped;
      continue;
    }
    const std::int64_t lo = std::max<std::int64_t>(0, nominal - search);
    const std::int64_t hi = std::min<std::int64_t>(o.samples - 1, nominal + search);
    std::int64_t best = lo;
    for (std::int64_t i = lo + 1; i <= hi; ++i)
      if (rec.clean[static_cast<std::size_t>(i)] > rec.clean[static_cast<std::size_t>(best)]) best = i;
    char symbol = 'N';
    switch (e.kind) {
      case Kind::pvc:
        symbol = 'V';
        ++rec.pvc;
        break;
      case Kind::pac:
      case Kind::svta:
        symbol = 'A';
        ++rec.pac;
        break;
      case Kind::aberrant:
        symbol = 'a';
        ++rec.aberrant;
        break;
      case Kind::fusion:
        symbol = 'F';
        ++rec.fusion;
        break;
      case Kind::escape:
        symbol = 'j';
        ++rec.escape;
        break;
      default:
        ++rec.normal;
        break;
    }
    rec.beats.push_back(SynthBeat{best, symbol});
    // The rhythm truth: a change where AF or flutter starts or ends (their conducted beats are N,
    // as MIT-BIH labels them).
    const std::string now = in_af(e.kind)              ? "AFIB"
                            : e.kind == Kind::flutter ? "AFL"
                            : e.kind == Kind::svta    ? "SVTA"
                                                      : "N";
    if ((o.scenario == SynthScenario::paroxysmal_af || o.scenario == SynthScenario::af || o.scenario == SynthScenario::flutter ||
         o.scenario == SynthScenario::svta_runs || o.scenario == SynthScenario::svta_long ||
         o.scenario == SynthScenario::af_aberrant) &&
        (rec.rhythm.empty() || rec.rhythm.back().rhythm != now))
      rec.rhythm.push_back({rec.rhythm.empty() ? 0 : best, now});
  }

  // --- Wander, hum, noise.
  rec.signal = rec.clean;
  Rng wander(o.seed, kWanderStream);
  const double wander_phase_resp = 2.0 * kPi * wander.uniform();
  const double wander_phase_slow = 2.0 * kPi * wander.uniform();
  const double mains_phase = 2.0 * kPi * wander.uniform();
  if (o.wander_mv > 0.0 || o.mains_mv > 0.0) {
    for (std::size_t i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) / o.fs;
      rec.signal[i] +=
          o.wander_mv * (kWanderRespirationWeight * std::sin(2.0 * kPi * kRespirationHz * t + wander_phase_resp) +
                         kWanderSlowWeight * std::sin(2.0 * kPi * kWanderSlowHz * t + wander_phase_slow)) +
          o.mains_mv * std::sin(2.0 * kPi * o.mains_hz * t + mains_phase);
    }
  }
  if (std::isfinite(o.snr_db)) {
    constexpr double kDbPerAmplitudeDecade = 20.0;
    const double noise_rms = kNormalR.amplitude_mv / std::pow(10.0, o.snr_db / kDbPerAmplitudeDecade);
    Rng noise(o.seed, kNoiseStream);
    for (std::size_t i = 0; i < n; ++i) rec.signal[i] += noise_rms * noise.normal();
  }
  if (o.scenario == SynthScenario::noise) add_noise_bursts(o, rec);
  return rec;
}

namespace {
struct ScenarioName {
  SynthScenario scenario;
  const char* name;
};
constexpr ScenarioName kScenarioNames[] = {{SynthScenario::none, "none"},
                                           {SynthScenario::apc_bradycardia, "apc-bradycardia"},
                                           {SynthScenario::bigeminy, "bigeminy"},
                                           {SynthScenario::vt_runs, "vt-runs"},
                                           {SynthScenario::fusion, "fusion"},
                                           {SynthScenario::junctional_escape, "junctional-escape"},
                                           {SynthScenario::paroxysmal_af, "paroxysmal-af"},
                                           {SynthScenario::af, "af"},
                                           {SynthScenario::flutter, "flutter"},
                                           {SynthScenario::svta_runs, "svta-runs"},
                                           {SynthScenario::svta_long, "svta-long"},
                                           {SynthScenario::af_aberrant, "af-aberrant"},
                                           {SynthScenario::noise, "noise"}};
}  // namespace

SynthScenario parse_synth_scenario(const std::string& name) {
  std::string names;
  for (const ScenarioName& s : kScenarioNames) {
    if (name == s.name) return s.scenario;
    names += names.empty() ? "" : ", ";
    names += s.name;
  }
  throw UsageError("--scenario must be one of " + names + " (got '" + name + "')");
}

std::string synth_scenario_name(SynthScenario scenario) {
  for (const ScenarioName& s : kScenarioNames)
    if (s.scenario == scenario) return s.name;
  throw InternalError("synth_scenario_name: unknown scenario");
}

std::string default_truth_path(const std::string& signal_path) {
  namespace fs = std::filesystem;
  const fs::path p(signal_path);
  const std::string ext = p.has_extension() ? p.extension().string() : std::string(".csv");
  return (p.parent_path() / (p.stem().string() + "_beats" + ext)).string();
}

std::string format_signal_csv(const std::vector<double>& signal, int digits) {
  if (digits < 0 || digits > kMaxSignalDigits) {
    throw UsageError("--digits must be 0 (fixed %.4f) or 1.." + std::to_string(kMaxSignalDigits));
  }
  std::string out = "heartbeats\n";
  // "-0.1234\n" plus slack; "-1.2345678901234567e-01\n" is 24 bytes.
  const std::size_t bytes_per_line = digits == 0 ? 9 : static_cast<std::size_t>(digits) + 8;
  out.reserve(out.size() + signal.size() * bytes_per_line);
  // %.4f of the largest double is 316 characters: validate() keeps samples far below, but the
  // text must never be cut, nor the length snprintf wanted taken past the buffer.
  char buf[400];
  for (double v : signal) {
    if (!std::isfinite(v)) throw InternalError("format_signal_csv: a sample is not finite");
    int len = digits == 0 ? std::snprintf(buf, sizeof buf, "%.4f\n", v) : std::snprintf(buf, sizeof buf, "%.*e\n", digits - 1, v);
    if (len < 0 || static_cast<std::size_t>(len) >= sizeof buf)
      throw InternalError("format_signal_csv: a sample's text does not fit");
    const char* text = buf;
    if (std::string_view(buf, static_cast<std::size_t>(len)) == "-0.0000\n") {
      ++text;  // no negative zero in the file
      --len;
    }
    out.append(text, static_cast<std::size_t>(len));
  }
  return out;
}

namespace {
// "dir/rec.csv" -> "dir/rec" + suffix + ".csv" (no extension: ".csv").
std::string truth_path_beside(const std::string& signal_path, const char* suffix) {
  namespace fs = std::filesystem;
  const fs::path p(signal_path);
  const std::string ext = p.has_extension() ? p.extension().string() : std::string(".csv");
  return (p.parent_path() / (p.stem().string() + suffix + ext)).string();
}
}  // namespace

std::string rhythm_truth_path(const std::string& signal_path) { return truth_path_beside(signal_path, "_rhythm"); }

std::string format_rhythm_truth_csv(const std::vector<RhythmChange>& rhythm) {
  std::string out = "sample,rhythm\n";
  for (const RhythmChange& c : rhythm) out += std::to_string(c.sample) + ",(" + c.rhythm + "\n";
  return out;
}

std::string noise_truth_path(const std::string& signal_path) { return truth_path_beside(signal_path, "_noise"); }

std::string format_noise_truth_csv(const std::vector<SynthNoise>& noise) {
  std::string out = "start_sample,end_sample,kind\n";
  for (const SynthNoise& b : noise) out += std::to_string(b.start) + "," + std::to_string(b.end) + "," + b.kind + "\n";
  return out;
}

std::string format_truth_csv(const std::vector<SynthBeat>& beats) {
  std::string out = "sample,symbol,class\n";
  for (const SynthBeat& b : beats) {
    out += std::to_string(b.sample);
    out += ',';
    out += b.symbol;
    out += ',';
    out += aami_class(b.symbol);
    out += '\n';
  }
  return out;
}

void write_synth_files(const SynthRecord& record, const std::string& signal_path,
                       const std::string& truth_path, int digits) {
  namespace fs = std::filesystem;
  const auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec_a, ec_b;
    const fs::path canon_a = fs::weakly_canonical(a, ec_a), canon_b = fs::weakly_canonical(b, ec_b);
    return (ec_a || ec_b) ? fs::path(a).lexically_normal() == fs::path(b).lexically_normal() : canon_a == canon_b;
  };
  if (same(signal_path, truth_path)) throw UsageError("the signal and the truth file must differ: " + signal_path);
  const std::string rhythm_path = record.rhythm.empty() ? std::string() : rhythm_truth_path(signal_path);
  if (!rhythm_path.empty() && same(truth_path, rhythm_path))
    throw UsageError("the truth file must differ from the rhythm truth, " + rhythm_path + " (beside the signal)");
  // Both or neither; a symlink is written through, a FIFO or device written into (output.hpp).
  OutputSet files;
  files.bytes(signal_path, format_signal_csv(record.signal, digits));
  files.bytes(truth_path, format_truth_csv(record.beats));
  if (!rhythm_path.empty()) files.bytes(rhythm_path, format_rhythm_truth_csv(record.rhythm));
  const std::string noise_path = noise_truth_path(signal_path);
  if (!record.noise.empty()) {
    if (same(truth_path, noise_path))
      throw UsageError("the truth file must differ from the noise truth, " + noise_path + " (beside the signal)");
    files.bytes(noise_path, format_noise_truth_csv(record.noise));
  }
  // An earlier scenario's rhythm or noise truth beside the signal describes another recording:
  // it goes with this commit (unless it is the path this one writes its beats to).
  for (const std::string& earlier : {record.rhythm.empty() ? rhythm_truth_path(signal_path) : std::string(),
                                     record.noise.empty() ? noise_path : std::string()})
    if (!earlier.empty() && !same(earlier, truth_path) && !same(earlier, signal_path)) files.remove(earlier);
  files.commit();
}

std::string synth_summary(const SynthRecord& r, const SynthOptions& o) {
  const std::size_t slots = r.beats.size() + r.dropped;
  constexpr double kPercent = 100.0;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%lld samples (%.1f s at %g Hz), %zu beats: N %zu, V %zu, A %zu; %zu dropped; "
                "abnormal %zu of %zu beat slots (%.1f%%)",
                static_cast<long long>(o.samples), static_cast<double>(o.samples) / o.fs, o.fs,
                r.beats.size(), r.normal, r.pvc, r.pac, r.dropped, r.abnormal(), slots,
                slots ? kPercent * static_cast<double>(r.abnormal()) / static_cast<double>(slots) : 0.0);
  if (o.scenario == SynthScenario::none) return buf;
  char extra[128];
  std::snprintf(extra, sizeof extra, "; F %zu, j %zu, a %zu (scenario %s)", r.fusion, r.escape, r.aberrant,
                synth_scenario_name(o.scenario).c_str());
  return std::string(buf) + extra;
}

}  // namespace ecgpipe
