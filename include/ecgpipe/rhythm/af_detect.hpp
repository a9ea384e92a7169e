// Atrial fibrillation from beat times: the RR part of rhythm analysis (docs/accuracy.md, "Rhythm").
//
// AF's ventricular response is irregularly irregular: no interval predicts the next. What else
// makes RR intervals irregular is ectopy, and it is regular in its own way: an isolated premature
// beat is a short interval followed by a long one, bigeminy and trigeminy repeat every 2 or 3
// intervals. So the irregularity of a beat is measured on the intervals left after removing
// premature beats (an interval under `premature` x the local median RR followed by one over
// `compensatory` x it: both intervals go), as the smallest over lags 1, 2 and 3 of the median
// |RR(i) - RR(i-lag)| over a window of intervals, over their median RR, at two scales: `window`
// intervals, which carry sustained AF through stretches of calmer response, and `short_window`,
// which resolves paroxysms of under a minute that the long median cannot (most of the AF
// database's missed episodes were 3-61 beats). A beat is AF when the larger of the two is above
// `threshold`. Runs of AF shorter than `min_run` beats inside other rhythm are dropped, then runs
// of other rhythm shorter than it inside AF (a median flickering at its threshold is not an
// episode); at the record's ends, runs of AF shorter than half `short_window` (where each
// window is half one repeated end value). The numbers were chosen by leave-one-record-out
// cross-validation on the MIT-BIH AF database's beat times (scripts/tune-af.py;
// docs/accuracy.md, "Rhythm"): one set for every recording. Beats known to be ventricular
// (`ventricular`, from a classifier or an annotation file's labels) are left out with both their
// intervals, like premature beats.
//
// With the signal there is atrial activity to look at (beat_features.hpp, AtrialActivity): where P
// waves keep their shape from beat to beat (P-wave consistency at or above `p_wave_consistent`)
// or match the recording's median beat's (P-wave context at or above `p_wave_typical`), the atria
// are organised and irregular intervals are sinus arrhythmia or ectopy, not AF (MIT-BIH 115's
// marked sinus arrhythmia reads as AF from intervals alone: consistency 0.92, context 0.97; the
// sinus stretches of 201 between its other rhythms: context 0.95). 0.4 lies between fibrillatory
// waves (consistency 0.04 and 0.05 in DS1's two AF records, 0.02 in synth's) and sinus (0.6 to
// 0.95); 0.9 above AF's context (0.62 and 0.74). Both were set by looking at these, not fitted:
// two records with AF are too few to fit on.
//
// Where APCs fill most cycles (issue 24: DS2's 232; synth apc-bradycardia), consecutive P waves
// alternate between sinus and ectopic shapes and the median beat is an APC, so neither measure
// sees the sinus P waves (synth: consistency <= 0.11). The beats that end the longest cycles do:
// they are the sinus beats after the pauses. So each candidate AF run (after the short runs are
// absorbed) is checked once more: for each of its beats, among the run's own beats within 32 of
// it (not ventricular, not in artefact), the fifth with the longest RR before, and the median
// correlation of each one's P part with the previous one's (AtrialActivity::p_parts). At or above
// `p_wave_long_cycle` the beat is not AF; then the short runs again. Only the run's own beats: a
// paroxysm beside slower sinus rhythm would otherwise take its longest cycles from the sinus side
// (MIT-BIH 201's 37-s episode at 8 min was lost that way). 0.5 was set by looking, like the other
// two: synth apc-bradycardia >= 0.52; at 0.5 DS1's AF figures are those without the check, at
// 0.4 they fall (duration Se 96.8 -> 90.9 %).
//
// A second lead (second_lead.hpp: MIT-BIH's V1, the SVDB's ECG2) is read for the same two measures
// (AtrialActivity::lead2_p_consistency, lead2_p_context): a beat is organised where either lead
// says so, by the same thresholds. Where noise hides the P waves of one lead the other may show
// them: SVDB 854 (sinus rhythm, frequent S and V beats, a noisy ECG1) was AF for 665 s, 361 s with
// ECG2's P waves; DS1's two AF records, whose V1 shows fibrillatory waves, lose no AF to it. The
// long-cycle check reads both leads' P parts (AtrialActivity::lead2_p_parts) and takes the larger
// median: 854 down to 236 s more, DS1's AF figures again unchanged.
//
// What beat times cannot tell: atrial flutter with fixed conduction is regular (it needs the
// flutter waves of the signal), and AF with a regularised response (complete heart block) is
// not irregular. Both read as not-AF here.
#pragma once

#include <cstdint>
#include <string_view>
#include <string>
#include <vector>

#include "ecgpipe/classify/beat_features.hpp"

namespace ecgpipe {

enum class Rhythm : std::uint8_t {
  N = 0,     // none of the below (sinus or any rhythm the beats and P waves do not tell apart)
  AFIB = 1,  // atrial fibrillation
  VT = 2,    // ventricular tachycardia: a run of >= 3 V at >= 100 bpm (ectopic_rhythm.hpp)
  SVTA = 3,  // supraventricular tachyarrhythmia: a run of >= 3 S at >= 100 bpm
  B = 4,     // ventricular bigeminy: >= 3 consecutive N-V cycles
  T = 5,     // ventricular trigeminy: >= 3 consecutive N-N-V cycles
  IVR = 6,   // idioventricular rhythm: a run of >= 3 V under 100 bpm
};
// The rhythms the beats' classes name (ectopic_rhythm.hpp), in the order the report, `rhythm` and
// the evaluation list them.
inline constexpr Rhythm kEctopicRhythms[] = {Rhythm::VT, Rhythm::SVTA, Rhythm::B, Rhythm::T, Rhythm::IVR};
// "N", "AFIB", "VT", "SVTA", "B", "T", "IVR": as MIT-BIH names rhythms, without the parenthesis.
const char* rhythm_name(Rhythm r);
// The Rhythm of a name as rhythm_name writes it or MIT-BIH's aux ("(AFIB", "(VT", "(T"; a trailing
// NUL or spaces ignored); N for any other rhythm (sinus "(N", "(SBR", flutter "(AFL", ...).
Rhythm rhythm_named(std::string_view name);

struct AfOptions {
  int window = 64;             // intervals in the median of successive differences (centred)
  int short_window = 16;       // the same over fewer intervals: the second scale
  double premature = 0.9;      // an interval below this x the local median RR ...
  double compensatory = 1.0;   // ... followed by one above this x it: a premature beat
  double threshold = 0.07;     // AF above this irregularity (median |dRR| / median RR) at either scale
  int local_median = 15;       // intervals in the local median RR of the premature-beat test
  int min_run = 32;            // beats: shorter runs of AF, then of other rhythm, are absorbed
  float p_wave_consistent = 0.4f;  // a P-wave consistency at or above this: organised atria, not AF
  float p_wave_typical = 0.9f;     // a P-wave context at or above this: the same
  float p_wave_long_cycle = 0.5f;  // a long-cycle P-wave consistency at or above this: the same
};

// The irregularity of each beat (see above: the larger of the two scales'); one value per beat
// of `r_peaks` (sorted sample numbers). `ventricular`: empty, or one flag per beat. Fewer than 3
// beats: all 0 (nothing to measure). InputError if `r_peaks` is not strictly increasing.
std::vector<float> rr_irregularity(const std::vector<std::int64_t>& r_peaks, const AfOptions& options = {},
                                   const std::vector<char>& ventricular = {});

// The irregularity of one stretch of intervals (any unit), as rr_irregularity measures each
// window: the smallest over lags 1-3 of the median |RR(j) - RR(j - lag)|, over the median RR. NaN
// with fewer than 4 intervals (no lag-3 difference). svt_runs.hpp judges a run of tachycardia by it.
double interval_irregularity(const std::vector<double>& rr);

// Each beat's rhythm: AFIB where its irregularity is above options.threshold and (with `atrial`,
// one value per beat in each measure) neither P-wave measure says organised atria; then runs
// shorter than options.min_run absorbed; then, with `atrial`'s P parts (p_length > 0), the
// long-cycle check above and the short runs again. `artefact` (signal quality's beat flags, one
// per beat) keeps beats in noise out: their intervals are left out as a ventricular beat's are,
// and they are N before the absorption (a detector's false beats in noise are as irregular as AF;
// a recording in artefact throughout has no AF, and a burst shorter than a run inside an episode
// leaves it whole).
std::vector<Rhythm> af_rhythm(const std::vector<std::int64_t>& r_peaks, const AfOptions& options = {},
                              const std::vector<char>& ventricular = {}, const AtrialActivity* atrial = nullptr,
                              const std::vector<bool>* artefact = nullptr);

}  // namespace ecgpipe
