// The template distances on the GPU (src/model/template_distance_cuda.hpp; the CPU references are
// LibTorch's, src/model/template_distance.cpp, and without LibTorch src/model/beat_medians_cpu.cpp). Three kernels instead of ~5 LibTorch launches per block
// of 512 beats (900 for 93 k beats, 14 ms on an H100):
//  1. block_medians: a CUDA block per (template block b, sample c) loads column c of b's span
//     (<= 1024 rows) into shared memory, padded with +inf, bitonic-sorts it and keeps the lower
//     median (index (m-1)/2, as torch.median);
//  2. template_energy: a thread per template block sums its template's squares in sample order;
//  3. row_distances: a warp per row, lanes over the samples, then a fixed xor-shuffle tree.
#include <cstdint>
#include <cmath>

#include "model/template_distance_cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/vae_types.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe::detail {
namespace {

constexpr int kSortThreads = static_cast<int>(kMaxTemplateSpanCuda);  // one value per thread
constexpr float kMinEnergy = static_cast<float>(kMinTemplateEnergy);  // vae_types.hpp's floor, as the float the sums are

__device__ __forceinline__ std::int64_t span_begin(std::int64_t b, std::int64_t block_rows, std::int64_t span) {
  const std::int64_t lo = b * block_rows - (span - block_rows) / 2;
  return lo < 0 ? 0 : lo;
}

// blockIdx.x = b * cols + c; thread t holds row lo + t of column c (or +inf past the span).
__global__ void block_medians(const float* rows, std::int64_t n, int cols, std::int64_t block_rows, std::int64_t span,
                              float* templates) {
  __shared__ float v[kSortThreads];
  const std::int64_t b = blockIdx.x / cols;
  const int c = static_cast<int>(blockIdx.x % cols);
  const std::int64_t lo = span_begin(b, block_rows, span);
  const std::int64_t hi = lo + span < n ? lo + span : n;
  const int m = static_cast<int>(hi - lo);
  const int t = static_cast<int>(threadIdx.x);
  v[t] = t < m ? rows[(lo + t) * cols + c] : INFINITY;
  __syncthreads();
  // Bitonic sort, ascending: for each (size k, distance j) thread t compares t with t ^ j.
  for (int k = 2; k <= kSortThreads; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      const int partner = t ^ j;
      if (partner > t) {
        const bool ascending = (t & k) == 0;
        const float a = v[t], p = v[partner];
        if ((a > p) == ascending) {
          v[t] = p;
          v[partner] = a;
        }
      }
      __syncthreads();
    }
  if (t == 0) templates[b * cols + c] = v[(m - 1) / 2];
}

// A thread per template block: mean of its squares (samples in order), floored.
__global__ void template_energy(const float* templates, std::int64_t blocks, int cols, float* energy) {
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; b < blocks;
       b += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += templates[b * cols + c] * templates[b * cols + c];
    const float mean = sum / static_cast<float>(cols);
    energy[b] = mean > kMinEnergy ? mean : kMinEnergy;
  }
}

// A warp per row (grid-stride over rows): lane l sums samples l, l+32, ...; then a fixed xor tree.
__global__ void row_distances(const float* rows, std::int64_t n, int cols, std::int64_t block_rows, const float* templates,
                              const float* energy, float* out) {
  const int lane = static_cast<int>(threadIdx.x % launch::kWarpSize);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / launch::kWarpSize);
  for (std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / launch::kWarpSize; i < n; i += warps) {
    const std::int64_t b = i / block_rows;
    const float* x = rows + i * cols;
    const float* tmpl = templates + b * cols;
    float sum = 0.0f;
    for (int c = lane; c < cols; c += launch::kWarpSize) {
      const float d = x[c] - tmpl[c];
      sum += d * d;
    }
    for (int offset = launch::kWarpSize / 2; offset > 0; offset >>= 1) sum += __shfl_xor_sync(launch::kFullMask, sum, offset);
    if (lane == 0) out[i] = sum / static_cast<float>(cols) / energy[b];
  }
}

}  // namespace

void template_distance_cuda(DeviceSpan<const float> rows, std::int64_t n, int cols, std::int64_t block_rows, std::int64_t span,
                            DeviceSpan<float> out, cudaStream_t stream) {
  if (n <= 0) return;
  if (cols <= 0 || block_rows <= 0 || span < block_rows || span > kMaxTemplateSpanCuda ||
      rows.size < static_cast<std::size_t>(n) * static_cast<std::size_t>(cols) || out.size < static_cast<std::size_t>(n)) {
    throw InternalError("template_distance_cuda: bad sizes");
  }
  const std::int64_t blocks = (n + block_rows - 1) / block_rows;
  DeviceBuffer<float> templates(static_cast<std::size_t>(blocks * cols), stream), energy(static_cast<std::size_t>(blocks), stream);
  block_medians<<<static_cast<unsigned>(blocks * cols), kSortThreads, 0, stream>>>(rows.data, n, cols, block_rows, span,
                                                                                     templates.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("block_medians");
  template_energy<<<launch::grid_for(blocks), launch::kBlockSize, 0, stream>>>(templates.data(), blocks, cols, energy.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("template_energy");
  row_distances<<<launch::grid_for(n * launch::kWarpSize), launch::kBlockSize, 0, stream>>>(rows.data, n, cols, block_rows,
                                                                                            templates.data(), energy.data(), out.data);
  ECGPIPE_CUDA_CHECK_LAUNCH("row_distances");
}

}  // namespace ecgpipe::detail
