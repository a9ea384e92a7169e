// Internal (model code only): what the report keeps of a training beside the scores (sample
// rows, top outliers, the decoded latent grid), the part that needs no tensors: which rows, and
// where the grid's points lie. Shared by the LibTorch path (vae_scoring.cpp) and the training
// without LibTorch (flat_trainer.hpp), which fetch the rows and decode the grid each their way.
#pragma once

#include <cstdint>
#include <vector>

#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe::detail {

// torch.quantile(values, q) (linear interpolation), on the host: the same float arithmetic (rank
// q (n-1) in float, lerp as at::lerp computes it). Non-empty `v`.
float quantile_of(std::vector<float> v, float q);

// r.sample_index (evenly spaced beats, at most kSampleRows) and r.outlier_index (the kTopOutliers
// highest of r.score, descending) for a result of `n` beats.
void choose_report_rows(TrainResult& r, std::int64_t n);

// Rows `index` of the row-major matrix `rows` (`cols` floats a row), row after row, on the host.
// Device memory when `cuda_stream` (a cudaStream_t) is not null: one async copy a row on it and a
// single wait. A few hundred rows, so no gather kernel (LibTorch's index_select loaded its kernel
// module for this alone: 60 ms on an H100, measured 2026-11-24).
std::vector<float> rows_to_host(const float* rows, int cols, const std::vector<std::int64_t>& index, void* cuda_stream);

// r.grid_latent: a kGridSide x kGridSide grid spanning the latent means' range (1st..99th
// percentile per axis, robust to outliers), from r.latent_mean (n x kLatentDim, on the host).
void place_latent_grid(TrainResult& r, std::int64_t n);

}  // namespace ecgpipe::detail
