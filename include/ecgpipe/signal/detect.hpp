// Beat detection that holds up on real ECG (issue 4): sampling-rate aware windows, the
// `--preset seed|robust` switch, and the robust R-peak detector.
//
// Robust detector (Pan-Tompkins style, split for the GPU):
//  per sample (kernel-shaped work, O(n)):
//   1. y  = the Ricker band-pass (bandpass.hpp; 0.12 s wide -> a ~12 Hz QRS band), shifted by the
//           wavelet's half width so that y[i] lines up with x[i];
//   2. e  = y^2 (rectified: inverted QRS complexes count like upright ones);
//   3. m  = centred moving average of e over kIntegrationS (the QRS energy envelope);
//   4. candidates = positions where m is the maximum of its +-kCandidateHalfS neighbourhood
//      (the first of equal values), above a round-off floor: a compact list, a few per beat.
//  per candidate (gathers around each position, a thread per candidate on a GPU):
//   5. features: m (energy), the largest |y[i+1] - y[i]| within the QRS window (slope).
//  on the host, over the compact candidate list only (sequential, cheap):
//   6. adaptive thresholds: signal and noise peak levels (SPK/NPK) follow the accepted and
//      rejected candidates; THR1 = NPK + kThresholdFraction * (SPK - NPK), THR2 = THR1 / 2;
//      a refractory period, T-wave rejection by slope, search-back at THR2 when an RR interval
//      exceeds kSearchBackRr x the recent mean RR.
//   7. each accepted candidate is refined to the largest |x - local mean| within +-kRefineHalfS.
// The CPU and a GPU path therefore give identical detections whenever their candidate lists
// (positions and feature values) are identical. Every floating-point value of steps 1-5 and 7 is
// defined as a fixed sequence of correctly rounded IEEE operations (sums in index order, no fused
// multiply-add), so the GPU kernels (kernels/signal/detect.cu) reproduce the CPU's bit for bit on the
// same band-pass input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/enum_names.hpp"
#include "ecgpipe/common/sample_rate.hpp"

namespace ecgpipe {

enum class Preset { seed, robust };

// robust, seed: the one name table (enum_names.hpp): --preset, preset_name and the model file's
// "preset" record read it.
const EnumNames<Preset>& preset_names();
const char* preset_name(Preset preset);

// The band-pass taps of a preset (bandpass.hpp): the seed's own for its gates; zero-sum for the
// robust detector, so that an offset in the input does not move its beats.
constexpr RickerTaps ricker_taps(Preset preset) {
  return preset == Preset::robust ? RickerTaps::zero_sum : RickerTaps::seed;
}

// --- Sampling-rate scaling. The seed's windows are sample counts tuned on 250 Hz data; as
// durations they carry over to any rate. Each default below times 250 Hz gives the seed's count.
inline constexpr double kSeedFs = 250.0;            // the seed notebook's sampling rate
inline constexpr double kRickerWidthS = 0.12;       // 30 taps at 250 Hz
inline constexpr double kNmsWindowS = 0.72;         // 180 samples at 250 Hz
inline constexpr double kMinBeatS = 0.4;            // 100 samples at 250 Hz
inline constexpr double kMaxBeatS = 1.024;          // 256 samples at 250 Hz

// UsageError unless fs is finite and within [kMinFs, kMaxFs] (ecgpipe/common/sample_rate.hpp).
void validate_fs(double fs);

// round(seconds * fs), at least 1.
int samples_for(double seconds, double fs);

// The seed's windows in samples at `fs`: (30, 180, 100, 256) at 250 Hz, (43, 259, 144, 368) at
// 360 Hz. max_length is rounded to the nearest multiple of kModelLengthMultiple (the VAE input).
struct SampleWindows {
  int ricker_width = 30;
  int nms_window = 180;
  int min_length = 100;
  int max_length = 256;
};
SampleWindows seed_windows(double fs);

// Where the R peak sits relative to a seed beat's start: the NMS compares the window's centre,
// and the causal wavelet delays the band-pass by half its width. The robust preset lays its rows
// out with the same offset, so column r_offset of every row is the R peak in both presets.
std::int64_t seed_r_offset(int nms_window, int ricker_width);

// --- The robust detector. Durations in seconds (named, with the reason for each value).
inline constexpr double kIntegrationS = 0.15;       // Pan-Tompkins' moving-window integration ~ a wide QRS
inline constexpr double kFloorFraction = 1e-3;     // candidates below 1e-3 (-60 dB) of the largest RMS
                                                    // envelope are FFT round-off, not signal
inline constexpr double kCandidateHalfS = 0.2;      // one candidate per 0.4 s at most = the refractory span
inline constexpr double kRefractoryS = 0.2;         // physiological: no second QRS within 200 ms
inline constexpr double kTWaveS = 0.36;             // a peak this soon after a QRS may be its T wave
inline constexpr double kTWaveSlopeRatio = 0.5;     // ... and is, when its slope is below half the QRS's
inline constexpr double kSearchBackRr = 1.66;       // Pan-Tompkins: look back when RR > 1.66 x mean RR
inline constexpr double kThresholdFraction = 0.25;  // THR1 = NPK + 0.25 (SPK - NPK) (Pan-Tompkins)
inline constexpr double kSearchBackThreshold = 0.5; // THR2 = 0.5 THR1 (Pan-Tompkins)
inline constexpr double kPeakUpdate = 0.125;        // SPK/NPK exponential averaging weight (Pan-Tompkins)
inline constexpr double kSearchBackUpdate = 0.25;   // SPK weight for a beat found by search-back
inline constexpr double kLearningS = 2.0;           // thresholds initialised on the first 2 s
inline constexpr double kInitSignalFraction = 0.5;  // SPK starts at half the largest early peak
inline constexpr double kInitNoiseFraction = 0.5;   // NPK starts at half the mean early peak
inline constexpr int kRrHistory = 8;                // mean RR over the last 8 intervals (Pan-Tompkins)
inline constexpr double kRefineHalfS = 0.05;        // R peak refined within +-50 ms
inline constexpr double kBaselineHalfS = 0.1;       // local mean for the refinement over +-100 ms

struct DetectOptions {
  double fs = kSeedFs;
  int ricker_width = 30;  // band-pass taps (samples), as --ricker-width
};

// The detector's windows in samples at options.fs, computed once (validated: UsageError for a bad
// fs or ricker_width < 2) and shared by the CPU and GPU paths, so both use the same counts.
struct DetectWindows {
  std::int64_t delay = 0;           // band-pass delay: (ricker_width - 1) / 2
  std::int64_t wrapped = 0;         // leading band-pass outputs touched by the circular wrap: ricker_width - 1
  std::int64_t half = 0;            // moving-average / slope half window: samples_for(kIntegrationS) / 2
  std::int64_t candidate_half = 0;  // candidate neighbourhood: samples_for(kCandidateHalfS)
  std::int64_t refine_half = 0;     // samples_for(kRefineHalfS)
  std::int64_t baseline_half = 0;   // samples_for(kBaselineHalfS)
};
DetectWindows detect_windows(const DetectOptions& options);

// One candidate peak: position (sample) and its features.
struct Candidate {
  std::int64_t position = 0;
  double energy = 0.0;  // m at the position
  double slope = 0.0;   // max |y[i+1] - y[i]| within +-kIntegrationS/2
};

// Per-sample stage (steps 1-5): the band-pass output `bandpass` is bandpass_cpu(x, ricker_width).
// The envelope m[i] is (sum of y[j]^2 for j = max(0, i-half) .. min(n-1, i+half), added in index
// order from 0.0) / (2 half + 1): a definition a parallel GPU reproduces exactly (a running prefix
// sum, cheaper on one core, rounds differently at every sample).
std::vector<Candidate> find_candidates(const std::vector<double>& bandpass, const DetectOptions& options);

// The building blocks of find_candidates and refine_peaks, over part of a recording, so that a
// recording read in chunks (detect_stream.hpp) computes every value exactly as the whole-record
// functions do.
//
// y(i) is the band-pass lined up with the signal: bandpass[i + delay] where i + delay lies in
// [wrapped, n), else 0 (step 1).
inline constexpr std::int64_t kUnknownLength = INT64_MAX;  // n while a stream has not ended
// Step 1 for the positions [lo, hi): y(i), from the band-pass outputs held for [bp_begin, bp_end)
// (bp_end = n once the whole record's are there; outputs at or past bp_end count as past the end).
std::vector<double> aligned_bandpass(const double* bandpass, std::int64_t bp_begin, std::int64_t bp_end, std::int64_t lo,
                                     std::int64_t hi, const DetectWindows& windows);
// How far from a position the refinement reads samples: max(refine_half, baseline_half).
inline std::int64_t refine_reach(const DetectWindows& w) { return w.refine_half > w.baseline_half ? w.refine_half : w.baseline_half; }
struct ScannedCandidate {
  Candidate candidate;
  double envelope = 0.0;  // m at the position: the floor (a fraction of the largest m) is applied last
};
struct CandidateScan {
  std::vector<ScannedCandidate> found;  // ascending positions in [core_begin, core_end)
  double max_envelope = 0.0;            // the largest m over [core_begin, core_end)
};
// Steps 2-5 for the positions [core_begin, core_end) of an n-sample recording (n may be
// kUnknownLength), from y on [y_begin, y_end), which must cover [core_begin - h - half,
// core_end + h + half) within [0, n) (h = candidate_half): every sum then runs over the same
// indices in the same order as over the whole record. The floor is not applied.
CandidateScan scan_candidates(const double* y, std::int64_t y_begin, std::int64_t y_end, std::int64_t n,
                              std::int64_t core_begin, std::int64_t core_end, const DetectWindows& windows);
// The candidates above the floor (kFloorFraction^2 x the largest envelope of the whole record).
std::vector<Candidate> above_floor(const std::vector<ScannedCandidate>& found, double max_envelope);

// Round-off is not signal. A flat line away from zero (a lead off at a DC level, an ADC at its
// rail) band-passes to round-off alone, ~1e-16 of its level, and the floor above, relative to the
// record's own largest envelope, would take those ripples for beats. So a candidate whose RMS
// band-pass amplitude (Candidate::energy) is at most kRoundOffFraction x the recording's largest
// |sample| is dropped: a thousandth of one float32 step at that magnitude (FLT_EPSILON), a million
// times above the ripples and a thousand times below the smallest change a float32 sample there
// can make. Every path applies it on the host, before classify_candidates.
inline constexpr double kRoundOffFraction = 1e-3 * 1.1920928955078125e-07;
std::vector<Candidate> above_round_off(std::vector<Candidate> candidates, double max_abs_sample);
// The largest |x[i]| (0 for none): the recordings' samples are finite (the readers refuse others).
double max_abs_sample(const float* x, std::size_t n);
// Step 7 for one position p of an n-sample signal (n may be kUnknownLength) from x on
// [x_begin, ...), which must hold x[p - r .. p + r] within [0, n), r = max(refine_half, baseline_half).
std::int64_t refine_peak(const float* x, std::int64_t x_begin, std::int64_t n, std::int64_t p, const DetectWindows& windows);

// Refined peaks sorted, duplicates dropped: two refined peaks can meet (or cross) only in
// pathological input, and R peaks stay strictly ascending.
std::vector<std::int64_t> sorted_unique_peaks(std::vector<std::int64_t> peaks);

// Host stage (step 6): the accepted candidates' positions (ascending), from the candidate list
// alone.
std::vector<std::int64_t> classify_candidates(const std::vector<Candidate>& candidates, const DetectOptions& options);

// Step 7: each position moved to the largest |x - local mean| within +-kRefineHalfS.
std::vector<std::int64_t> refine_peaks(const std::vector<float>& signal, const std::vector<std::int64_t>& positions,
                                       double fs);

struct Detection {
  std::vector<std::int64_t> r_peaks;  // ascending, strictly
  std::size_t candidates = 0;
};

// The end of a streamed detector (detect_stream.hpp on the CPU, detect_cuda.hpp's on the GPU),
// which scans and refines as the samples pass: the floor over `found` (ascending positions; the
// whole record's largest envelope), step 6, and each accepted candidate's refined position
// (refined[i] is found[i]'s), sorted and unique.
Detection detection_from_scan(const std::vector<ScannedCandidate>& found, const std::vector<std::int64_t>& refined,
                              double max_envelope, double max_abs_sample, const DetectOptions& options);

// Steps 1-7 on the CPU.
Detection detect_beats_cpu(const std::vector<float>& signal, const std::vector<double>& bandpass,
                           const DetectOptions& options);

// Beat rows for the VAE from R peaks: row i spans [R_i - r_offset, R_{i+1} - r_offset) (the seed's
// layout: one beat, R at column r_offset), cut at max_length and at the end of the signal and
// zero-padded by pad_beats_cpu. The last beat runs to max_length; a beat whose row would start
// before sample 0 is left out. So start + r_offset is the beat's R peak.
BeatTable beat_windows(const std::vector<std::int64_t>& r_peaks, std::int64_t samples, std::int64_t r_offset,
                       int max_length);

}  // namespace ecgpipe
