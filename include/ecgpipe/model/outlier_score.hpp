// Outlier scoring (issue 5): which model a run trains, the `rr` model's beat windows, and how its
// per-beat terms combine into one outlier score. Plain C++ (no LibTorch): the pipeline computes
// the rhythm term on the host over the compact R-peak list and hands score_rr to the VAE stage.
//
// --model seed: the notebook's rows (a beat from gate to gate, zero-padded, raw millivolts) and
//   score = reconstruction error at the latent mean.
// --model rr (default): a fixed window centred on the R peak, baseline-subtracted per beat and
//   scaled per recording (vae.hpp, BeatMatrix::normalise), and
//     score = ln(recon_error / median)           shape, as the VAE sees it
//           + ln(template_distance / median)     shape, distance from the local median beat (vae.hpp)
//           + kPrematurityWeight * rhythm_term   rhythm: premature beats (S) look normal in shape
//   Every term is relative to the same recording (a ratio to its median, or to its local RR), so
//   scores of different recordings and gains are comparable, and no label is used anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/common/enum_names.hpp"

namespace ecgpipe {

enum class Model { seed, rr };

// rr, seed: the one name table (enum_names.hpp): --model, model_name and the model file's
// "beats" record read it.
const EnumNames<Model>& model_names();
const char* model_name(Model model);

// The rr model's window around each R peak: from kWindowBeforeS before it to kWindowAfterS after
// it: the P wave, the QRS and the T wave of a beat at up to ~110 bpm, but not the next QRS (whose
// position would vary with the RR interval and blur the shape).
inline constexpr double kWindowBeforeS = 0.25;
inline constexpr double kWindowAfterS = 0.45;

struct CentredWindow {
  int before = 0;  // samples before the R peak (column of the R peak in every row)
  int length = 0;  // row length: before + after, rounded up to the VAE's multiple of 8
};
CentredWindow centred_window(double fs);

// Rows [R - before, R - before + length), cut at the end of the signal (the rest zero-padded by
// the padding stage); a beat whose window would start before sample 0 is left out.
BeatTable centred_windows(const std::vector<std::int64_t>& r_peaks, std::int64_t samples, const CentredWindow& window);

// The RR intervals of this many beats on each side give the local rhythm (a median of 21 RR
// intervals, ~20 s: follows heart-rate changes, ignores a few premature beats).
inline constexpr int kRrContext = 10;
// Weight of the rhythm term: a beat 20 % premature (ln 1.25 = 0.22) adds 2.2, about as much as a
// shape ten times further from the median beat than usual (ln 10 = 2.3).
inline constexpr double kPrematurityWeight = 10.0;

// Per beat: max(0, ln(local median RR / RR before the beat)); 0 for the first beat. r_peaks
// ascending.
std::vector<float> prematurity(const std::vector<std::int64_t>& r_peaks);

// The rr model's rhythm term per beat (issue 10): prematurity plus two terms that are not relative
// to the neighbourhood's majority, so a dominant ectopic rhythm cannot hide in them:
//   kShortLongWeight * max(0, ln(RR after / RR before))   the short-long pattern of a premature beat
//                                                         followed by a pause; it compares the beat
//                                                         with its own next cycle, not with its
//                                                         neighbours, so it holds when atrial
//                                                         premature beats are most beats (the sinus
//                                                         beats that end the pauses are long-short: 0)
//   kSinusWeight * max(0, ln(local 80th-percentile RR / RR before))   premature relative to the
//                                                         longer cycles around it, the sinus rate
//                                                         when premature beats are the majority at
//                                                         the median RR
// Both are 0 for a regular rhythm (and within a few % for sinus arrhythmia). The first beat has no
// RR before (0), the last none after (its short-long term is 0). r_peaks ascending. `run` and
// `score` then make it 0 for a beat in detected AF (src/pipeline/run_rhythm.cpp): there every
// interval is irregular, and AF's N beats would outrank the premature beats of the sinus hours.
inline constexpr double kShortLongWeight = 0.5;
inline constexpr double kSinusWeight = 0.5;
std::vector<float> rhythm_term(const std::vector<std::int64_t>& r_peaks);

// The rr model's score per beat from its terms (see above). All vectors have one value per beat.
std::vector<float> score_rr(const std::vector<float>& recon_error, const std::vector<float>& template_distance,
                            const std::vector<float>& prematurity);

// The beats flagged as outliers: the `quantile` of the scores (linear interpolation between order
// statistics, as numpy.quantile's default) and per beat 1 where its score lies above it.
// `scores` must not be empty (src/model/outlier_flags.cpp).
struct OutlierFlags {
  double threshold = 0.0;
  std::vector<std::uint8_t> flags;
};
OutlierFlags flag_outliers(const std::vector<float>& scores, double quantile);

// Indices of the `k` highest of scores[0..n) (higher = more unusual), highest first, ties in
// index order, non-finite scores skipped: the one ranking outliers.csv, the report's outlier rows
// and its scatter use.
std::vector<std::size_t> top_scores(const float* scores, std::size_t n, std::size_t k);

}  // namespace ecgpipe
