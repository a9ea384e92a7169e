// The report's rows and latent grid of a training (src/model/report_extras.hpp).
#include "model/report_extras.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/model/outlier_score.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace ecgpipe::detail {

// On a GPU torch's quantile sorts with a kernel module loaded for this alone (90 ms on an H100);
// the values are already on the host.
float quantile_of(std::vector<float> v, float q) {
  const float rank = q * static_cast<float>(v.size() - 1);
  const auto below = static_cast<std::size_t>(rank);
  const std::size_t above = static_cast<std::size_t>(std::ceil(rank));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(above), v.end());
  const float hi = v[above];
  const float lo = below == above ? hi : *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(above));
  const float w = rank - static_cast<float>(below);
  return w < 0.5f ? lo + w * (hi - lo) : hi - (hi - lo) * (1.0f - w);
}

void choose_report_rows(TrainResult& r, std::int64_t n) {
  r.sample_index.clear();
  const std::int64_t m = std::min<std::int64_t>(n, kSampleRows);
  for (std::int64_t i = 0; i < m; ++i) r.sample_index.push_back(i * n / m);
  const auto top = top_scores(r.score.data(), r.score.size(), kTopOutliers);
  r.outlier_index.assign(top.begin(), top.end());
}

std::vector<float> rows_to_host(const float* rows, int cols, const std::vector<std::int64_t>& index, void* cuda_stream) {
  const auto row = static_cast<std::size_t>(cols);
  std::vector<float> out(index.size() * row);
  if (cuda_stream != nullptr) {
#ifdef ECGPIPE_WITH_CUDA
    const auto stream = static_cast<cudaStream_t>(cuda_stream);
    for (std::size_t k = 0; k < index.size(); ++k)
      copy_to_host(out.data() + k * row, DeviceSpan<const float>{rows + index[k] * cols, row}, row, stream);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // `out` is read on return
    return out;
#else
    throw InternalError("rows_to_host: device rows in a build without CUDA");
#endif
  }
  for (std::size_t k = 0; k < index.size(); ++k) std::memcpy(out.data() + k * row, rows + index[k] * cols, sizeof(float) * row);
  return out;
}

void place_latent_grid(TrainResult& r, std::int64_t n) {
  static_assert(kLatentDim == 2, "the decoded grid is two-dimensional");
  constexpr float kLowQuantile = 0.01f, kHighQuantile = 0.99f;
  float lo[kLatentDim], hi[kLatentDim];
  for (int d = 0; d < kLatentDim; ++d) {
    std::vector<float> axis(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      axis[static_cast<std::size_t>(i)] = r.latent_mean[static_cast<std::size_t>(i * kLatentDim + d)];
    lo[d] = quantile_of(axis, kLowQuantile);
    hi[d] = quantile_of(std::move(axis), kHighQuantile);
  }
  // Row-major grid: x steps along a row, y down the rows (steps 0, 1/4, ..., 1, exact in float).
  r.grid_latent.resize(static_cast<std::size_t>(kGridSide * kGridSide * kLatentDim));
  for (int gy = 0; gy < kGridSide; ++gy)
    for (int gx = 0; gx < kGridSide; ++gx) {
      const float sx = static_cast<float>(gx) / (kGridSide - 1), sy = static_cast<float>(gy) / (kGridSide - 1);
      float* z = &r.grid_latent[static_cast<std::size_t>((gy * kGridSide + gx) * kLatentDim)];
      z[0] = lo[0] + sx * (hi[0] - lo[0]);
      z[1] = lo[1] + sy * (hi[1] - lo[1]);
    }
}

}  // namespace ecgpipe::detail
