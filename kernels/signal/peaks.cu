// Stage 3 on the GPU: the seed's NMS gate, with an exact O(n) sliding-window maximum.
//
// Sliding max (van Herk / Gil-Werman): cut the signal into segments of `window` samples aligned
// to multiples of `window`; prefix[i] = max of i's segment from its start to i, suffix[i] = max
// from i to its segment's end. A window [p, p + window - 1] covers the tail of p's segment and the
// head of the next one (or exactly one whole segment), so
//     max(y[p .. p + window - 1]) = max(suffix[p], prefix[p + window - 1]).
// Both arrays come from one kernel doing warp-level segmented max-scans (O(1) work per sample,
// coalesced), against the seed's O(window) re-scan per position. A max of doubles is exact, and
// the gate compares with ==, so the gates equal detect_gates_cpu's bit for bit.
//
// Gate + fix-up are evaluated inside cub::DeviceSelect::If over the positions 0 .. n - window
// (a counting iterator), which compacts the kept positions in ascending order. The count is the
// only value copied to the host, and the only stream synchronization.
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_select.cuh>
#include <cstdint>
#include <limits>
#include <string>

#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/peaks_cuda.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe {
namespace {

using launch::grid_for;
using launch::kBlockSize;
using launch::kFullMask;
using launch::kWarpSize;
using launch::max_of;

// Samples one warp scans (rounded up to whole segments): 8 chunks of 32 amortize the per-span
// set-up, and n / 256 spans still give thousands of warps for an ECG-sized signal.
constexpr std::int64_t kSpanTarget = 256;


// Segmented prefix and suffix maxima over segments [k * window, (k + 1) * window).
// Mapping: one warp per span of `span` samples (a whole number of segments, so no segment
// crosses two warps), grid-stride over spans. Inside a span the warp walks 32-sample chunks,
// lane l holding sample base + l: forward for prefix (Hillis-Steele max-scan with __shfl_up_sync,
// restricted to the lane's segment, then the running max carried in from the previous chunk),
// backward for suffix (the mirror image with __shfl_down_sync). Samples past the end read -inf.
// Every loop bound is warp-uniform, so all 32 lanes reach each full-mask shuffle.
__global__ void segment_prefix_suffix_max(DeviceSpan<const double> y, std::int64_t window, std::int64_t span,
                                          double* prefix, double* suffix) {
  const double kLowest = -std::numeric_limits<double>::infinity();
  const std::int64_t n = static_cast<std::int64_t>(y.size);
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  const std::int64_t spans = (n + span - 1) / span;
  // span <= window + kSpanTarget < 2^32, so offsets inside a span fit in 32 bits (cheap modulo).
  const unsigned w = static_cast<unsigned>(window);

  for (std::int64_t s = warp; s < spans; s += warps) {
    const std::int64_t s0 = s * span;
    const std::int64_t s1 = (s0 + span < n) ? s0 + span : n;  // [s0, s1), s0 a multiple of window

    // Prefix maxima, chunks in ascending order.
    double carry = kLowest;  // prefix max at the last sample of the previous chunk
    for (std::int64_t base = s0; base < s1; base += kWarpSize) {
      const std::int64_t i = base + lane;
      double v = i < s1 ? y.data[i] : kLowest;
      const unsigned o = static_cast<unsigned>(i - s0) % w;  // offset of i in its segment
      for (int d = 1; d < kWarpSize; d <<= 1) {
        const double other = __shfl_up_sync(kFullMask, v, d);
        if (lane >= d && o >= static_cast<unsigned>(d)) v = max_of(v, other);  // i - d in i's segment
      }
      // v now covers [max(segment start, base), i]; the segment began before this chunk iff o > lane.
      if (o > static_cast<unsigned>(lane)) v = max_of(v, carry);
      if (i < s1) prefix[i] = v;
      carry = __shfl_sync(kFullMask, v, kWarpSize - 1);
    }

    // Suffix maxima, chunks in descending order.
    carry = kLowest;  // suffix max at the first sample of the following chunk
    for (std::int64_t base = s0 + ((s1 - s0 - 1) / kWarpSize) * kWarpSize; base >= s0; base -= kWarpSize) {
      const std::int64_t i = base + lane;
      double v = i < s1 ? y.data[i] : kLowest;
      const unsigned e = w - 1u - static_cast<unsigned>(i - s0) % w;  // samples after i in its segment
      for (int d = 1; d < kWarpSize; d <<= 1) {
        const double other = __shfl_down_sync(kFullMask, v, d);
        if (lane + d < kWarpSize && e >= static_cast<unsigned>(d)) v = max_of(v, other);  // i + d in i's segment
      }
      // The segment runs on past this chunk iff e > 31 - lane (it ends inside the span, whose
      // later chunks were done first; a segment cut short by n just sees -inf there).
      if (e > static_cast<unsigned>(kWarpSize - 1 - lane)) v = max_of(v, carry);
      if (i < s1) suffix[i] = v;
      carry = __shfl_sync(kFullMask, v, 0);
    }
  }
}

// Gate and the seed's fix-up at window start p, read by cub::DeviceSelect::If.
struct GateFixup {
  const double* y;
  const double* prefix;
  const double* suffix;
  std::int64_t n;
  std::int64_t window;
  std::int64_t center;

  __device__ bool gate(std::int64_t p) const {
    // window >= kMinNmsWindow keeps the compared sample p + center inside the window.
    return max_of(suffix[p], prefix[p + window - 1]) == y[p + center];
  }
  __device__ bool operator()(std::int64_t p) const { return gate(p) && (p == 0 || !gate(p - 1)); }
};

}  // namespace

DeviceBuffer<std::int64_t> detect_gates_cuda(DeviceSpan<const double> y, int window, std::size_t& count,
                                             cudaStream_t stream) {
  if (window < kMinNmsWindow) {
    throw UsageError("--nms-window must be at least " + std::to_string(kMinNmsWindow) + " samples, got " + std::to_string(window));
  }
  count = 0;
  const auto n = static_cast<std::int64_t>(y.size);
  if (n < window) return {};

  const std::int64_t positions = n - window + 1;
  const std::int64_t per_warp = (kSpanTarget + window - 1) / window;  // whole segments per warp
  const std::int64_t span = per_warp * window;

  DeviceBuffer<double> prefix(y.size, stream);
  DeviceBuffer<double> suffix(y.size, stream);
  const std::int64_t spans = (n + span - 1) / span;
  segment_prefix_suffix_max<<<grid_for(spans * kWarpSize), kBlockSize, 0, stream>>>(y, window, span, prefix.data(),
                                                                                    suffix.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("segment_prefix_suffix_max");

  const GateFixup keep{y.data, prefix.data(), suffix.data(), n, window, nms_center_offset(window)};
  const thrust::counting_iterator<std::int64_t> first(0);
  DeviceBuffer<std::int64_t> selected(static_cast<std::size_t>(positions), stream);
  DeviceBuffer<std::int64_t> selected_count(1, stream);
  std::size_t temp_bytes = 0;
  ECGPIPE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, first, selected.data(), selected_count.data(),
                                           positions, keep, stream));
  // At least one byte: CUB reads a null temp pointer as a size query and would do nothing.
  DeviceBuffer<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1, stream);
  ECGPIPE_CUDA_CHECK(cub::DeviceSelect::If(temp.data(), temp_bytes, first, selected.data(), selected_count.data(),
                                           positions, keep, stream));

  std::int64_t host_count = 0;
  copy_to_host(&host_count, selected_count.cspan(), 1, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  count = static_cast<std::size_t>(host_count);

  // Hand back a buffer of exactly `count` positions, so its size() and span() can be trusted.
  DeviceBuffer<std::int64_t> gates(count, stream);
  if (count > 0) {
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(gates.data(), selected.data(), count * sizeof(std::int64_t),
                                       cudaMemcpyDeviceToDevice, stream));
  }
  return gates;
}

}  // namespace ecgpipe
