// Launch geometry and small device helpers shared by the kernels (internal to kernels/; CUDA only).
#pragma once

#include <cstdint>

namespace ecgpipe::launch {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // every lane of a full warp takes part in a shuffle
// 256 threads = 8 full warps per block (a multiple of 32, so full-mask shuffles are valid), enough
// warps per SM to hide the load latency of these memory-bound, register-light kernels.
constexpr int kBlockSize = 256;
// Grid cap for grid-stride loops: 4096 x 256 = 1M threads is several times what an H100
// (132 SMs x 2048 resident threads) holds at once, so larger grids would only add block overhead.
constexpr std::int64_t kMaxGridBlocks = 4096;

// Blocks for `threads` threads of kBlockSize each, at least 1 and at most kMaxGridBlocks.
inline unsigned grid_for(std::int64_t threads) {
  const std::int64_t blocks = (threads + kBlockSize - 1) / kBlockSize;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxGridBlocks ? kMaxGridBlocks : blocks));
}

// The larger of two values, the one definition every kernel uses: `b` when a < b, else `a` (for
// the finite values the kernels compare this is max; NaN never reaches them). Only in .cu files.
__device__ __forceinline__ double max_of(double a, double b) { return a < b ? b : a; }

}  // namespace ecgpipe::launch
