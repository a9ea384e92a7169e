// The per-column lower median on the GPU (src/model/column_median_cuda.hpp; the CPU references are
// LibTorch's median(x, 0), src/model/beat_tensor.cpp column_median, and without LibTorch
// src/model/beat_medians_cpu.cpp). A radix select on the floats'
// order-preserving 32-bit keys, 8 bits a pass, four passes; each pass
//  1. column_histograms: a block per (32 columns, a range of rows), lane = column, so that a warp
//     reads 32 neighbouring values of one row (coalesced); the keys that match the digits fixed so
//     far are counted into a shared 32 x 256 histogram, which is then added to the columns' own;
//  2. choose_digits: a thread per column walks its histogram to the bin that holds the rank still
//     wanted, fixes that digit and clears the histogram for the next pass.
// After the last pass the fixed digits are the median's key: a selection, exact. Rows can be
// millions (a 14-day recording), columns a few hundred: a sort per column would move the whole
// matrix several times for one value each.
#include <cstdint>

#include "model/column_median_cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe::detail {
namespace {

constexpr int kColumnsPerBlock = launch::kWarpSize;  // a lane per column
constexpr int kRowLanes = 32;                         // warps per block, each on its own rows
constexpr int kBins = 256;                            // 8 bits a pass
constexpr int kBinStride = kBins + 1;                 // padded: lanes on the same bin hit other banks
constexpr int kPasses = 4;

// Unsigned keys in the floats' order (-0 as +0, so that the two zeros are one value as in a
// comparison); key_value inverts it.
__device__ __forceinline__ unsigned order_key(float f) {
  const unsigned u = __float_as_uint(f == 0.0f ? 0.0f : f);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float key_value(unsigned k) {
  return __uint_as_float((k & 0x80000000u) != 0 ? (k & 0x7fffffffu) : ~k);
}

__global__ void start_select(int cols, std::int64_t rank, unsigned* prefix, unsigned* mask, std::int64_t* wanted) {
  for (int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); c < cols; c += static_cast<int>(gridDim.x * blockDim.x)) {
    prefix[c] = 0;
    mask[c] = 0;
    wanted[c] = rank;
  }
}

// blockDim (32, kRowLanes); blockIdx.x: 32 columns, blockIdx.y: rows [y * rows_per_block, ...).
__global__ void column_histograms(const float* rows, std::int64_t n, int cols, std::int64_t rows_per_block, int shift,
                                  const unsigned* prefix, const unsigned* mask, unsigned* hist) {
  __shared__ unsigned h[kColumnsPerBlock * kBinStride];
  const int lane = static_cast<int>(threadIdx.x), warp = static_cast<int>(threadIdx.y);
  const int thread = warp * kColumnsPerBlock + lane, threads = kColumnsPerBlock * kRowLanes;
  for (int i = thread; i < kColumnsPerBlock * kBinStride; i += threads) h[i] = 0;
  __syncthreads();
  const int c = static_cast<int>(blockIdx.x) * kColumnsPerBlock + lane;
  const std::int64_t lo = static_cast<std::int64_t>(blockIdx.y) * rows_per_block;
  const std::int64_t hi = lo + rows_per_block < n ? lo + rows_per_block : n;
  if (c < cols) {
    const unsigned want = prefix[c], m = mask[c];
    for (std::int64_t r = lo + warp; r < hi; r += kRowLanes) {
      const unsigned k = order_key(rows[r * cols + c]);
      if ((k & m) == want) atomicAdd(&h[lane * kBinStride + static_cast<int>((k >> shift) & 0xffu)], 1u);
    }
  }
  __syncthreads();
  for (int i = thread; i < kColumnsPerBlock * kBins; i += threads) {
    const int col = static_cast<int>(blockIdx.x) * kColumnsPerBlock + i / kBins, bin = i % kBins;
    const unsigned v = h[(i / kBins) * kBinStride + bin];
    if (v != 0 && col < cols) atomicAdd(&hist[static_cast<std::int64_t>(col) * kBins + bin], v);
  }
}

// A thread per column: the bin holding rank `wanted` fixes this pass's digit; on the last pass
// (shift 0) the fixed key is the median.
__global__ void choose_digits(int cols, int shift, unsigned* prefix, unsigned* mask, std::int64_t* wanted, unsigned* hist,
                              float* out) {
  for (int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); c < cols; c += static_cast<int>(gridDim.x * blockDim.x)) {
    unsigned* hc = hist + static_cast<std::int64_t>(c) * kBins;
    const std::int64_t k = wanted[c];
    std::int64_t below = 0;
    int bin = 0;
    for (; bin < kBins - 1 && below + hc[bin] <= k; ++bin) below += hc[bin];
    wanted[c] = k - below;
    prefix[c] |= static_cast<unsigned>(bin) << shift;
    mask[c] |= 0xffu << shift;
    for (int b = 0; b < kBins; ++b) hc[b] = 0;
    if (shift == 0) out[c] = key_value(prefix[c]);
  }
}

}  // namespace

void column_median_cuda(DeviceSpan<const float> rows, std::int64_t n, int cols, DeviceSpan<float> out, cudaStream_t stream) {
  if (n <= 0 || cols <= 0) return;
  if (n > 0xffffffffLL || rows.size < static_cast<std::size_t>(n) * static_cast<std::size_t>(cols) ||
      out.size < static_cast<std::size_t>(cols)) {
    throw InternalError("column_median_cuda: bad sizes");
  }
  const auto ucols = static_cast<std::size_t>(cols);
  DeviceBuffer<unsigned> prefix(ucols, stream), mask(ucols, stream), hist(ucols * kBins, stream);
  DeviceBuffer<std::int64_t> wanted(ucols, stream);
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(hist.data(), 0, hist.size() * sizeof(unsigned), stream));
  start_select<<<launch::grid_for(cols), launch::kBlockSize, 0, stream>>>(cols, (n - 1) / 2, prefix.data(), mask.data(), wanted.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("start_select");
  // About four blocks an SM of a large GPU over the rows, at least 256 rows a block.
  const unsigned column_blocks = static_cast<unsigned>((cols + kColumnsPerBlock - 1) / kColumnsPerBlock);
  const std::int64_t wanted_blocks = 512 / column_blocks + 1, by_rows = (n + 255) / 256;
  const std::int64_t row_blocks = wanted_blocks < by_rows ? wanted_blocks : by_rows;
  const std::int64_t rows_per_block = (n + row_blocks - 1) / row_blocks;
  const dim3 grid(column_blocks, static_cast<unsigned>(row_blocks)), block(kColumnsPerBlock, kRowLanes);
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = 8 * (kPasses - 1 - pass);
    column_histograms<<<grid, block, 0, stream>>>(rows.data, n, cols, rows_per_block, shift, prefix.data(), mask.data(), hist.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("column_histograms");
    choose_digits<<<launch::grid_for(cols), launch::kBlockSize, 0, stream>>>(cols, shift, prefix.data(), mask.data(), wanted.data(),
                                                                              hist.data(), out.data);
    ECGPIPE_CUDA_CHECK_LAUNCH("choose_digits");
  }
}

}  // namespace ecgpipe::detail
