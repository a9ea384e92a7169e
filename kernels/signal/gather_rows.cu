// Stage 4 of the GPU's chunked path (issue 29): rows of the beat matrix (and the classifier's
// windows) gathered from each piece of the signal while it is on the device, so the whole signal
// never is (include/ecgpipe/signal/beats_cuda.hpp: gather_rows_cuda).
#include <cstdint>

#include "ecgpipe/signal/beats_cuda.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe {
namespace {

using launch::grid_for;
using launch::kBlockSize;
using launch::kWarpSize;

// Mapping: a warp per row r in [row_begin, row_end) (grid-stride over warps); its lanes copy the
// row's columns that fall in the piece [x_begin, x_end), warp-strided (coalesced reads and writes).
__global__ void gather_rows_kernel(DeviceSpan<const float> x, std::int64_t x_begin, const std::int64_t* starts,
                                   const std::int32_t* lengths, std::int32_t fixed_length, std::int64_t row_begin,
                                   std::int64_t row_end, float* matrix, std::size_t stride) {
  const std::int64_t x_end = x_begin + static_cast<std::int64_t>(x.size);
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  for (std::int64_t r = row_begin + warp; r < row_end; r += warps) {
    const std::int64_t start = starts[r];
    const std::int64_t length = lengths != nullptr ? lengths[r] : fixed_length;
    const std::int64_t lo = start > x_begin ? start : x_begin;
    const std::int64_t hi = start + length < x_end ? start + length : x_end;
    float* row = matrix + static_cast<std::size_t>(r) * stride;
    for (std::int64_t s = lo + lane; s < hi; s += kWarpSize) row[s - start] = x.data[s - x_begin];
  }
}

}  // namespace

void gather_rows_cuda(DeviceSpan<const float> x, std::int64_t x_begin, const std::int64_t* starts,
                      const std::int32_t* lengths, std::int32_t fixed_length, std::int64_t row_begin,
                      std::int64_t row_end, float* matrix, std::size_t stride, cudaStream_t stream) {
  if (row_end <= row_begin || x.size == 0) return;
  gather_rows_kernel<<<grid_for((row_end - row_begin) * kWarpSize), kBlockSize, 0, stream>>>(
      x, x_begin, starts, lengths, fixed_length, row_begin, row_end, matrix, stride);
  ECGPIPE_CUDA_CHECK_LAUNCH("gather_rows_kernel");
}

}  // namespace ecgpipe
