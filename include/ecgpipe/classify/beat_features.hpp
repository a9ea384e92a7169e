// Per-beat features for the AAMI beat classifier (classify.hpp), from the raw signal, the R peaks
// and the sampling rate only. Plain C++ on the host: the classifier needs a few hundred samples per
// beat, so on the GPU path the pipeline brings the signal to the host once (2.6 MB for 30 minutes
// at 360 Hz) and both devices compute the same features from the same R peaks.
//
// Every feature is either a duration in seconds (the same at any sampling rate) or relative to the
// same recording (a ratio to its median, a correlation with its dominant beat), never a raw
// amplitude: patients, leads and gains differ, so only these transfer to an unseen recording
// (de Chazal et al. 2004's inter-patient lesson). Rhythm features come in three frames, so that a
// dominant ectopic rhythm cannot hide itself in all of them at once: absolute seconds, relative
// to the neighbours (local median, local 80th percentile), and the shape of the beat's own RR pair
// (pre/post: an atrial premature beat followed by a pause is short-long even when such beats are
// the local majority). scripts/train-classifier.py computes exactly these (same order, same
// definitions); the two must change together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ecgpipe {

struct AtrialActivity;  // below

// Feature columns, in the order the model expects them.
enum BeatFeature : int {
  kLogPreRr = 0,     // ln RR before the beat, seconds
  kLogPostRr,        // ln RR after, seconds
  kLogPrePost,       // ln(pre / post): short-long = premature beat followed by a pause
  kLogPreLocal,      // ln(pre / median RR of the 21 beats around it)
  kLogPreRecord,     // ln(pre / the recording's median RR)
  kLogLocalRr,       // ln local median RR, seconds (the local rate)
  kLogPreLocalP80,   // ln(pre / local 80th-percentile RR): the longer cycles, the sinus rate in a run of APCs
  kLogPostLocal,     // ln(post / local median RR)
  kQrsWidth,         // seconds between the first and last |slope| > 25 % of the beat's maximum, within R ± 0.1 s
  kQrsWidthRel,      // that minus the recording's median width
  kAreaWidth,        // ∑|x| / max|x| within R ± 0.1 s, in seconds (wide QRS = large)
  kAreaWidthRel,     // that minus the recording's median
  kLogQrsEnergy,     // ln(QRS energy / the recording's median QRS energy)
  kRAmplitude,       // signed amplitude at R / the recording's median |amplitude at R|
  kQrsCorr,          // correlation of the QRS (R ± 0.08 s) with the recording's median beat's
  kWindowCorr,       // correlation of the whole window (R - 0.25 s .. R + 0.45 s) with the median beat
  kPCorr,            // correlation of the P-wave part (R - 0.25 s .. R - 0.08 s)
  kTCorr,            // correlation of the ST-T part (R + 0.08 s .. R + 0.45 s)
  kQrsCorrDominant,  // QRS correlation with the dominant template (median of the half most like the first)
  kWindowCorrDominant,  // whole-window correlation with the dominant template
  kLogQrsDistance,   // ln(‖QRS − dominant QRS‖² / ‖dominant QRS‖²)
  kLocalIrregularity,  // median |ln(RR_k / RR_k-1)| of the 21 beats around it: atrial fibrillation's
                       // normal beats are "premature" by every other rhythm feature, this says why
  kPrematureDensity,   // the fraction of the 129 beats around it (64 each side) whose pre RR is < e^-0.1 (0.905)
                       // of their local median: a rhythm where "premature" is common (atrial fibrillation) is
                       // no background for premature beats; one where it is rare (sinus) makes one stand out
  kPWaveContext,       // the 80th percentile of kPCorr over the 65 beats around it (32 each side): do P waves
                       // that match the recording's beat occur here? In atrial fibrillation none do; in sinus
                       // rhythm most do, and where APCs are most beats the sinus minority (> 20 %) still does
  kLogPreTrend,        // ln(pre / the median of the up to 3 RR before it): premature against the beat's own
                       // recent past, which a run of APCs cannot pull down as it pulls the local median
  kPCorrLongCycle,     // correlation of the P-wave part with the median P-wave part of the beats whose RR before
                       // is at least the recording's 80th percentile: the beats that end the longest cycles,
                       // sinus beats after the pauses even where APCs are most beats and the median beat is one
  kPCorrLongCycleGain,  // that minus kPCorr: a beat more like the long-cycle P than like the median beat's P
  kBeatFeatureCount
};

const char* beat_feature_name(int feature);

// Row-major beats x kBeatFeatureCount. Beat i's window is R - 0.25 s .. R + 0.45 s (zero outside
// the signal) minus its median. RR of the first beat borrows the second's and the last's post-RR
// the one before; fewer than 2 beats: every rhythm feature is 0. fs > 0; r_peaks ascending.
// `threads` CPU threads share the beats (and the template's samples); every thread count gives the
// same features, bit for bit.
//
// `atrial`, when given, receives what rhythm analysis reads of the atria (af_detect.hpp).
std::vector<float> beat_features(const std::vector<float>& signal, const std::vector<std::int64_t>& r_peaks, double fs,
                                 int threads = 1, AtrialActivity* atrial = nullptr);

// Per beat, whether P waves are there (af_detect.hpp reads them; not model features).
struct AtrialActivity {
  // The median over the 65 beats around it (32 each side) of the correlation of each beat's
  // P-wave part (R - 0.25 s .. R - 0.08 s) with the previous beat's. Repeated P waves give ~0.6 to
  // 0.95 (sinus, sinus arrhythmia); fibrillatory waves, at no fixed time before the QRS, ~0
  // (MIT-BIH 201 and 203 in AF: 0.04 and 0.05). Beat 0 borrows beat 1's pair.
  std::vector<float> p_consistency;
  // The kPWaveContext feature: the P-wave part against the recording's median beat. Where AF
  // fills most of a recording the median beat has no P wave and this says little; where sinus
  // dominates it tells sinus stretches between other rhythms (MIT-BIH 201: 0.95).
  std::vector<float> p_context;
  // Each beat's P-wave part itself, minus its mean and over its norm (all zero where flat), so
  // that the correlation of two beats' is the dot product of their rows: row-major beats x
  // p_length. Rhythm analysis compares the P waves of the beats that end the longest cycles of a
  // candidate AF run (af_detect.hpp), which no per-beat value fixed before the runs can give.
  std::vector<float> p_parts;
  std::size_t p_length = 0;
  // The same two measures in a second lead (second_lead.hpp), or empty: a recording with one lead,
  // or a second lead with no consistent QRS. A lead that shows P waves where the primary hides them
  // (SVDB's ECG2 beside its noisy ECG1; MIT-BIH's V1) tells organised atria the primary cannot.
  std::vector<float> lead2_p_consistency;
  std::vector<float> lead2_p_context;
  std::vector<float> lead2_p_parts;  // the second lead's p_parts (same p_length: same rate), or empty
  // Not atrial, but read beside the above by what follows classification: each beat's shift in
  // samples (R' = R + shift) that best aligns its QRS (R' ± 0.08 s) with the recording's dominant
  // beat (kQrsCorrDominant's template), within ± kQrsAlignHalfS; ties keep the smaller shift, 0
  // first. The detector refines each R peak to the largest deflection, and where a QRS's R and S
  // are about as large it takes R in one beat and S in the next (MIT-BIH 108, SVDB 826 and 802:
  // 20-40 % of beats, 20-30 ms apart), which adds that jitter to every interval: SVDB 802's RMSSD
  // was 59.6 ms against 45.0 at the reference annotations' beats, 44.6 aligned (docs/accuracy.md,
  // "Heart-rate variability"). Heart-rate variability reads R' (qrs_aligned below); beats.csv
  // keeps the detector's R peaks.
  std::vector<std::int32_t> qrs_shift;
};
// How far a QRS is shifted to align it: the detector's refinement reach (kRefineHalfS), which
// bounds how far apart its two choices of one beat can be.
inline constexpr double kQrsAlignHalfS = 0.05;
// r_peaks + qrs_shift, kept strictly ascending (a beat never moves to or before the one before
// it); r_peaks as they are where `qrs_shift` is empty (no features computed). InternalError for
// another size.
std::vector<std::int64_t> qrs_aligned(const std::vector<std::int64_t>& r_peaks, const std::vector<std::int32_t>& qrs_shift);

// The samples beat i's morphology features read: signal[R_i - before .. R_i - before + length)
// (R - 0.25 s .. R + 0.45 s), zero outside the signal.
struct FeatureWindow {
  int before = 0;
  int length = 0;
};
FeatureWindow feature_window(double fs);
// Those windows cut from a signal in memory: row-major beats x length.
std::vector<float> feature_windows(const std::vector<float>& signal, const std::vector<std::int64_t>& r_peaks, double fs,
                                   int threads = 1);
// beat_features from the windows alone (as a recording read in pieces gathers them): the same
// features, bit for bit. Beat i's window is windows[i * stride .. i * stride + length), stride >=
// length (the rr model's rows start with exactly these windows: R - 0.25 s, then >= 0.7 s).
std::vector<float> beat_features_from_windows(const float* windows, std::size_t stride, const std::vector<std::int64_t>& r_peaks,
                                              double fs, int threads = 1, AtrialActivity* atrial = nullptr);

// The second lead's feature (issue 24): kQrsCorr's definition on the other lead, the correlation of
// each beat's QRS (R ± 0.08 s) with the recording's median beat in that lead. A ventricular beat's
// QRS differs from the sinus beats' in almost every lead, but a lead where it looks alike (MLII for
// some left-ventricular foci, SVDB's ECG1) hides it; V1 or ECG2 then tells it. `windows`: that
// lead's feature_window rows (R - 0.25 s .. R + 0.45 s at the same R peaks), row i at i * stride;
// n beats. The model with this feature appended is the classifier's `lead2` model (classify.hpp).
inline constexpr const char* kLead2FeatureName = "l2cq";
// `atrial`, when given, receives that lead's p_consistency and p_context (AtrialActivity's
// definitions, bit for bit what beat_features_from_windows gives for the same rows) and nothing else:
// rhythm analysis reads a second lead's P waves (af_detect.hpp) without its other features' cost.
std::vector<float> lead2_qrs_correlation(const float* windows, std::size_t stride, std::size_t n, double fs, int threads = 1,
                                         AtrialActivity* atrial = nullptr);

}  // namespace ecgpipe
