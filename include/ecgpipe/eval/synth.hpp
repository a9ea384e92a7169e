// `ecgpipe synth`: a synthetic single-lead ECG with ground-truth beat annotations.
//
// Model: every beat is a sum of Gaussian waves (P, Q, R, S, T; the T wave is an asymmetric
// Gaussian, slower rise than fall) placed around the beat's R time, with beat-to-beat jitter of
// each wave's amplitude, width and position and a respiratory modulation of the QRS amplitude.
// The RR series is mean RR x (1 + respiratory sinus arrhythmia + AR(1) noise), with a total
// standard deviation of `hrv` x mean RR; the T wave's delay scales with sqrt(RR) (QT follows RR).
// A beat slot is abnormal with probability `abnormal_rate`, split into:
//  * V, premature ventricular: no P, wide and tall QRS, inverted T, coupling interval
//    kPvcCoupling x RR, then a full compensatory pause (the sinus rhythm goes on undisturbed,
//    its next beat is hidden);
//  * A, premature atrial: normal QRS and T, inverted or absent P, coupling kPacCoupling x RR,
//    resets the sinus node (non-compensatory pause);
//  * dropped beat: a P wave with no QRS (a blocked beat), a pause of about 2 RR; not a beat,
//    so it is not in the truth file.
// On top of the clean ECG: baseline wander (two slow sinusoids), mains hum, and white Gaussian
// noise at `snr_db` = 20 log10(normal R amplitude / noise RMS).
//
// Scenarios (`scenario`, `ecgpipe synth --scenario NAME`) replace the rhythm above with one of
// the failure modes of beat classification (the rates and intervals are fixed constants,
// src/eval/synth.cpp; abnormal_rate and the shares are not used; the waves, wander and noise are as
// above):
//  * apc-bradycardia: sinus bradycardia (the CLI's default rate becomes 45 bpm) in which an APC
//    (A) follows most sinus beats, often two in a row, each resetting the sinus node, so the
//    next sinus beat ends a long pause: APCs outnumber sinus beats and arrive at the local
//    median RR;
//  * bigeminy: stretches of ventricular bigeminy (N V N V ..., 8-30 cycles, compensatory pauses)
//    between sinus stretches of 6-20 beats;
//  * vt-runs: runs of 3-10 PVCs at 160 bpm between sinus stretches of 10-30 beats;
//  * fusion: fusion beats (F: sinus P, then the average of the normal and the ventricular QRS-T,
//    at 0.97 RR) in 10 % of the sinus slots, PVCs in 5 %;
//  * junctional-escape: sinus arrest in 8 % of the slots, ended by a junctional escape beat (j:
//    narrow QRS, no P wave) 1.5 s after the last beat;
//  * paroxysmal-af: sinus stretches of 60-150 beats and atrial fibrillation episodes of 80-250
//    beats in turn (in AF: no P wave, fibrillatory waves of 5-7 Hz, independent RR intervals
//    around 0.65 s); its beats are N (as MIT-BIH labels AF-conducted beats) and the rhythm truth,
//    OUT_rhythm.csv (sample,rhythm: "(N", "(AFIB" as the AF database's files), holds the onsets
//    and offsets at the first beat of each rhythm;
//  * af: atrial fibrillation throughout, as paroxysmal-af's episodes (a short recording of a
//    patient in AF); its rhythm truth is one "(AFIB" at sample 0;
//  * flutter: sinus stretches of 60-150 beats and atrial flutter episodes of 80-250 beats in
//    turn. In flutter the atria circle at one cycle per episode (0.19-0.24 s, 250-315 /min),
//    drawing a sawtooth (MLII's slow descent and quick rise, 0.25 mV peak to peak) with no
//    isoelectric line; the AV node conducts every 2nd or every 4th wave, in blocks of 8-40 beats
//    (2:1 near 140 bpm and 4:1 near 70 bpm, alternating), each QRS a fixed 0.24 s (+-5 ms) after
//    its wave's start, so RR is regular within a block. Beats N; rhythm truth "(AFL" / "(N" as
//    paroxysmal-af's;
//  * af-aberrant: paroxysmal-af, with Ashman beats in AF: a beat after a short interval (< 0.85
//    x AF's mean) that follows a long one (> 1.15 x) is conducted with right bundle branch block
//    aberration (broad slurred S, QRS ~130 ms, no P) with probability 0.7; symbol a (AAMI S), as
//    MIT-BIH labels aberrated beats; rhythm truth AFIB over them;
//  * svta-runs: sinus stretches of 10-30 beats, then a run of 3-15 APCs (A) at 150-200 bpm (the
//    rate drawn per run; at least 4/3 of --heart-rate), the first at half the sinus RR; sinus
//    resumes 1.2 sinus RR after the run. Rhythm truth "(SVTA" at each run's first beat, "(N" at
//    the sinus beat after it;
//  * svta-long: svta-runs with runs of 20-80 APCs after sinus stretches of 20-60 beats (MIT-BIH
//    209's runs are 14-74 beats at ~160 bpm): past its first ten beats a run is the neighbourhood
//    its beats' prematurity is measured against;
//  * noise: sinus rhythm (N beats only) with bursts of noise every 40-80 s, 4-12 s long, of
//    three kinds in turn: muscle (broadband, 0.35 mV RMS), electrode motion (swings of 1.5 mV at
//    0.7-2.3 Hz and steps of up to 1.2 mV) and baseline wander (2.5 mV at 0.4 Hz); the noise
//    truth, OUT_noise.csv (start_sample,end_sample,kind), lists them. Every pause, run or
//    ectopic beat reported is wrong, and none may lie in a burst.
//
// Randomness comes only from std::mt19937_64 (whose output the standard fixes) through this
// file's own uniform and normal transforms, so a seed gives the same bytes on every platform.
//
// The truth sample of a beat is the maximum of the clean ECG (no wander, hum or noise) within
// the beat's QRS, so it is the true R peak (every kind of beat here has an upright R).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ecgpipe/eval/evaluate.hpp"

namespace ecgpipe {

enum class SynthScenario {
  none,
  apc_bradycardia,
  bigeminy,
  vt_runs,
  fusion,
  junctional_escape,
  paroxysmal_af,
  af,
  flutter,
  svta_runs,
  af_aberrant,
  noise,
  svta_long
};

// "none", "apc-bradycardia", "bigeminy", "vt-runs", "fusion", "junctional-escape", "paroxysmal-af", "af", "flutter",
// "svta-runs", "svta-long", "af-aberrant", "noise"; UsageError
// (listing them) for anything else.
SynthScenario parse_synth_scenario(const std::string& name);
std::string synth_scenario_name(SynthScenario scenario);
inline constexpr double kApcBradycardiaHeartRate = 45.0;  // the CLI's rate for apc-bradycardia

struct SynthOptions {
  double fs = 250.0;                   // sampling rate, Hz
  std::int64_t samples = 150000;       // record length (600 s at 250 Hz)
  double heart_rate = 70.0;            // mean sinus rate, beats per minute
  double hrv = 0.05;                   // RR standard deviation as a fraction of the mean RR
  double wander_mv = 0.1;              // baseline wander amplitude, mV
  double mains_hz = 50.0;              // mains frequency, Hz
  double mains_mv = 0.02;              // mains hum amplitude, mV
  double snr_db = 30.0;                // noise level; infinity: no noise
  double abnormal_rate = 0.05;         // probability that a beat slot is abnormal
  // How abnormal slots split among the kinds (normalized by their sum).
  double pvc_share = 0.5;
  double pac_share = 0.35;
  double dropped_share = 0.15;
  std::uint64_t seed = 1;
  SynthScenario scenario = SynthScenario::none;
};

struct SynthBeat {
  std::int64_t sample = 0;  // 0-based R-peak sample
  char symbol = 'N';        // WFDB symbol: N, V, A, F (fusion) or j (junctional escape)
};

// A burst of the noise scenario: [start, end) samples and its kind ("muscle", "motion", "wander").
struct SynthNoise {
  std::int64_t start = 0, end = 0;
  std::string kind;
};

struct SynthRecord {
  std::vector<double> signal;     // mV, what is written (before %.4f rounding)
  std::vector<double> clean;      // the ECG waves alone (no wander, hum or noise)
  std::vector<SynthBeat> beats;   // ascending sample
  // Rhythm truth (paroxysmal-af, af, af-aberrant, flutter, svta-runs): changes, the first at sample 0.
  std::vector<RhythmChange> rhythm;
  std::vector<SynthNoise> noise;     // noise truth (the noise scenario): the bursts, in order
  std::size_t normal = 0, pvc = 0, pac = 0, dropped = 0, fusion = 0, escape = 0, aberrant = 0;
  std::size_t abnormal() const { return pvc + pac + dropped + fusion + escape + aberrant; }
};

// Limits checked by validate() (UsageError outside them).
inline constexpr double kSynthMinFs = 100.0;       // the 10 ms wide R wave needs >= 100 Hz
inline constexpr double kSynthMaxFs = 20000.0;
inline constexpr std::int64_t kSynthMaxSamples = 200'000'000;  // ~1.6 GB of doubles x2
inline constexpr double kSynthMinHeartRate = 20.0;
inline constexpr double kSynthMaxHeartRate = 220.0;
inline constexpr double kSynthMaxHrv = 0.2;  // RR is clamped at 3 std, so RR > 0.4 x mean RR
// Baseline wander and mains hum up to 100 mV: ten times the input range of an ECG amplifier's
// signal path (+-10 mV), so stress tests can go past it, and every sample stays a short number.
inline constexpr double kSynthMaxArtefactMv = 100.0;
// Noise down to -60 dB: an RMS a thousand times the R wave, far below where a detector finds
// anything; below that the noise (and %.4f text) grows without bound, and overflows at -6200 dB.
inline constexpr double kSynthMinSnrDb = -60.0;

// Samples in `duration_s` seconds at `fs` (rounded); UsageError unless it is at least 1 and fs is within
// [kSynthMinFs, kSynthMaxFs].
std::int64_t synth_samples_for_duration(double duration_s, double fs);

// UsageError for any option out of range (non-positive length, negative amplitude, NaN...).
void validate(const SynthOptions& options);

// Generates the record (validates first).
SynthRecord synthesize(const SynthOptions& options);

// "dir/rec.csv" -> "dir/rec_beats.csv" ("dir/rec" -> "dir/rec_beats.csv").
std::string default_truth_path(const std::string& signal_path);

// "dir/rec.csv" -> "dir/rec_rhythm.csv": the rhythm truth, written beside the signal when the
// record has one.
std::string rhythm_truth_path(const std::string& signal_path);
std::string format_rhythm_truth_csv(const std::vector<RhythmChange>& rhythm);

// "dir/rec.csv" -> "dir/rec_noise.csv": the noise truth (start_sample,end_sample,kind), written
// beside the signal when the record has bursts.
std::string noise_truth_path(const std::string& signal_path);
std::string format_noise_truth_csv(const std::vector<SynthNoise>& noise);

// The file contents: header "heartbeats", one "%.4f" value per line; header
// "sample,symbol,class" (the MIT-BIH *_beats.csv columns, then the AAMI class of the symbol by
// aami_class: N, S, V, F; a junctional escape j is N).
// digits == 0: "%.4f" (millivolts to 0.1 uV, like the MIT-BIH CSVs); digits 1..17: that many
// significant digits ("%.{digits-1}e", the seed's 17-digit files are ~24 bytes a line).
inline constexpr int kMaxSignalDigits = 17;
std::string format_signal_csv(const std::vector<double>& signal, int digits = 0);
std::string format_truth_csv(const std::vector<SynthBeat>& beats);

// Writes both files, each through a temporary name in its directory renamed into place; on
// failure no partial file is left and OutputError names the path. UsageError if the two paths
// are the same.
void write_synth_files(const SynthRecord& record, const std::string& signal_path,
                       const std::string& truth_path, int digits = 0);

// One line: "<samples> samples (<seconds> s at <fs> Hz), <beats> beats: N .., V .., A ..,
// <dropped> dropped (abnormal ..%)"; with a scenario, then "; F .., j .. (scenario NAME)".
std::string synth_summary(const SynthRecord& record, const SynthOptions& options);

}  // namespace ecgpipe
