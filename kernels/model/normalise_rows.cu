// The rr model's row normalisation on the GPU (src/model/normalise_rows_cuda.hpp; the CPU
// references are LibTorch's, src/model/beat_tensor.cpp normalise_rows, and without LibTorch
// src/model/beat_medians_cpu.cpp):
//  1. subtract_row_medians: a block per row; each thread ranks its values against the whole row
//     (ties by position, so exactly one value has each rank) and the one of rank (cols - 1) / 2,
//     the lower median as torch.median's, is taken from every value. Rows are a few hundred
//     samples: the cols^2 comparisons read one row from L1 and cost less than a sort's passes;
//  2. the column medians (column_median.cu);
//  3. rms_scale: one thread, the RMS of the column medians summed in column order (1 if 0);
//  4. divide_rows: every value over it.
#include <cstdint>

#include "model/normalise_rows_cuda.hpp"
#include "model/column_median_cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe::detail {
namespace {

__global__ void subtract_row_medians(float* rows, std::int64_t n, int cols) {
  __shared__ float median;
  const int want = (cols - 1) / 2;
  for (std::int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    float* x = rows + r * cols;
    for (int i = static_cast<int>(threadIdx.x); i < cols; i += static_cast<int>(blockDim.x)) {
      const float v = x[i];
      int rank = 0;
      for (int j = 0; j < cols; ++j) {
        const float w = x[j];
        rank += (w < v || (w == v && j < i)) ? 1 : 0;
      }
      if (rank == want) median = v;
    }
    __syncthreads();
    const float m = median;
    for (int i = static_cast<int>(threadIdx.x); i < cols; i += static_cast<int>(blockDim.x)) x[i] -= m;
    __syncthreads();  // every thread has read `median` and ranked this row before the next row's
  }
}

__global__ void rms_scale(const float* medians, int cols, float* scale) {
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += medians[c] * medians[c];
  const float rms = sqrtf(sum / static_cast<float>(cols));
  *scale = rms > 0.0f ? rms : 1.0f;  // a flat recording stays as it is rather than turning into NaN
}

__global__ void divide_rows(float* rows, std::int64_t count, const float* scale) {
  const float s = *scale;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    rows[i] = rows[i] / s;
}

}  // namespace

void normalise_rows_cuda(DeviceSpan<float> rows, std::int64_t n, int cols, cudaStream_t stream) {
  if (n <= 0 || cols <= 0) return;
  const std::int64_t count = n * static_cast<std::int64_t>(cols);
  if (rows.size < static_cast<std::size_t>(count)) throw InternalError("normalise_rows_cuda: bad sizes");
  // A warp per 32 values of a row, at most a block of kBlockSize; rows beyond the grid by stride.
  const int threads = cols < launch::kBlockSize ? (cols + launch::kWarpSize - 1) / launch::kWarpSize * launch::kWarpSize : launch::kBlockSize;
  const auto row_blocks = static_cast<unsigned>(n < launch::kMaxGridBlocks ? n : launch::kMaxGridBlocks);
  subtract_row_medians<<<row_blocks, threads, 0, stream>>>(rows.data, n, cols);
  ECGPIPE_CUDA_CHECK_LAUNCH("subtract_row_medians");
  DeviceBuffer<float> medians(static_cast<std::size_t>(cols), stream), scale(1, stream);
  column_median_cuda(DeviceSpan<const float>{rows.data, rows.size}, n, cols, medians.span(), stream);
  rms_scale<<<1, 1, 0, stream>>>(medians.data(), cols, scale.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("rms_scale");
  divide_rows<<<launch::grid_for(count), launch::kBlockSize, 0, stream>>>(rows.data, count, scale.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("divide_rows");
}

}  // namespace ecgpipe::detail
