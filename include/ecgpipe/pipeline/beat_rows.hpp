// The geometry of the VAE's rows for a run's options: which samples of the signal a beat's row
// holds, its length, and where its R peak sits in it. Used by both devices' segmentation, the
// outputs (r_peak = start + r_peak_offset) and the model file.
#pragma once

#include <cstdint>
#include <vector>

#include "ecgpipe/model/outlier_score.hpp"
#include "ecgpipe/signal/beats.hpp"

namespace ecgpipe {

// What of a run's options decides its rows (RunOptions::rows() gives them): this module needs no
// more, and so sits below the pipeline that holds all of them.
struct RowOptions {
  Model model = Model::rr;
  double fs = 0.0;       // Hz
  int ricker_width = 0;  // samples
  int nms_window = 0;    // samples
  BeatLimits limits;
};

// Samples per beat row (the VAE input length): --max-length for the seed model, the centred
// window's length for rr.
int row_length(const RowOptions& options);
// Column of a beat's row that holds its R peak (r_peak = start + this).
std::int64_t r_peak_offset(const RowOptions& options);

// The VAE's rows for detected R peaks (ascending), on either device: the rr model's centred
// windows, or for the seed model the robust preset's seed-like layout (beat_windows).
BeatTable beat_rows(const RowOptions& options, const std::vector<std::int64_t>& r_peaks, std::int64_t samples);
// The R peaks of the seed preset's kept beats (start + the seed's offset).
std::vector<std::int64_t> seed_r_peaks(const RowOptions& options, const BeatTable& seed_beats);

}  // namespace ecgpipe
