// Stage 4 on the GPU: beats between consecutive gates, zero-padded into a rows x max_length matrix.
//
// 1. mark_beats: keep[c] = 1 when min_length <= gates[c+1] - gates[c] <= max_length (and counts
//    kept candidates that would read outside the signal, which the CPU reference rejects).
// 2. cub::DeviceScan::ExclusiveSum in place (d_in == d_out): keep[c] becomes row_of[c], the number of kept
//    candidates before c. Row r is therefore the r-th kept candidate, as in select_beats, on every
//    run and device; no row depends on the order in which warps happen to run.
// 3. finish_count: rows = row_of[C-1] + keep(C-1), plus the out-of-bounds count, copied to the host
//    in one transfer (the only synchronization): the matrix size must be known to allocate it.
// 4. pad_beats_kernel: one warp per candidate, warp-strided zero-padded row copy.
//
// pad_table_cuda (the robust preset, whose rows come from beat_windows on the host): the table is
// checked and uploaded, then pad_table_kernel writes a row per warp with the same row copy.
#include <cub/device/device_scan.cuh>
#include <cstdint>
#include <string>

#include "ecgpipe/signal/beats_cuda.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe {
namespace {

using launch::grid_for;
using launch::kBlockSize;
using launch::kFullMask;
using launch::kWarpSize;

// The one definition of "kept", shared by every kernel below (so they can never disagree).
__device__ __forceinline__ bool is_kept(std::int64_t length, int min_length, int max_length) {
  return length >= min_length && length <= max_length;
}

// Host-visible summary of the selection, copied back in one transfer.
struct Selection {
  std::int64_t rows;
  unsigned long long out_of_bounds;  // kept candidates outside [0, signal size)
};

// Mapping: one thread per candidate c in [0, candidates) (grid-stride).
__global__ void mark_beats(DeviceSpan<const std::int64_t> gates, std::int64_t signal_size, int min_length,
                           int max_length, std::int64_t* keep, Selection* selection) {
  const std::int64_t candidates = static_cast<std::int64_t>(gates.size) - 1;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < candidates; c += stride) {
    const std::int64_t start = gates.data[c];
    const std::int64_t length = gates.data[c + 1] - start;
    const bool kept = is_kept(length, min_length, max_length);
    keep[c] = kept ? 1 : 0;
    if (kept && (start < 0 || length < 0 || gates.data[c + 1] > signal_size)) {
      atomicAdd(&selection->out_of_bounds, 1ull);
    }
  }
}

// rows = exclusive sum at the last candidate + whether it is kept. Mapping: a single thread.
__global__ void finish_count(DeviceSpan<const std::int64_t> gates, int min_length, int max_length,
                             const std::int64_t* row_of, Selection* selection) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const std::int64_t last = static_cast<std::int64_t>(gates.size) - 2;
  const std::int64_t length = gates.data[last + 1] - gates.data[last];
  selection->rows = row_of[last] + (is_kept(length, min_length, max_length) ? 1 : 0);
}

// One zero-padded row, written by a whole warp: lane `lane` writes columns lane, lane + 32, ... of
// `out`, the beat's sample while the column is inside the beat and 0 after it (so the matrix needs
// no prior memset). Shared by both padding kernels below.
__device__ __forceinline__ void write_padded_row(int lane, const float* in, std::int64_t length, int max_length,
                                                 float* out) {
  for (int col = lane; col < max_length; col += kWarpSize) out[col] = col < length ? in[col] : 0.0f;
}

// Mapping: warp w handles candidates c = w, w + warps, ... (grid-stride by warps). `kept` and the
// loop bounds are warp-uniform, so all 32 lanes reach the full-mask shuffle. For a kept candidate,
// lane l writes columns l, l + 32, l + 64, ... of its row: the signal sample while the column is
// inside the beat, 0 after it (so the matrix needs no prior memset).
//
// The row index: the seed's leader takes it with an atomicAdd on a shared counter and broadcasts it
// with __shfl_sync. An atomic hands out rows in whatever order the warps get there, so the
// matrix would change from run to run. Here the leader (lane 0) reads its row from the prefix sum
// instead (deterministic, the CPU's order) and broadcasts it with __shfl_sync as the seed does;
// its atomicAdd only counts the rows written, which debug builds check against `rows`.
__global__ void pad_beats_kernel(DeviceSpan<const float> signal, DeviceSpan<const std::int64_t> gates,
                                 const std::int64_t* row_of, int min_length, int max_length, float* matrix,
                                 std::int64_t* starts, std::int32_t* lengths, unsigned long long* written) {
  const std::int64_t candidates = static_cast<std::int64_t>(gates.size) - 1;
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  for (std::int64_t c = warp; c < candidates; c += warps) {
    const std::int64_t start = gates.data[c];
    const std::int64_t length = gates.data[c + 1] - start;
    if (!is_kept(length, min_length, max_length)) continue;  // warp-uniform
    std::int64_t row = 0;
    if (lane == 0) {
      row = row_of[c];
      atomicAdd(written, 1ull);
      starts[row] = start;
      lengths[row] = static_cast<std::int32_t>(length);
    }
    row = __shfl_sync(kFullMask, row, 0);
    write_padded_row(lane, signal.data + start, length, max_length, matrix + row * static_cast<std::int64_t>(max_length));
  }
}

// Rows from an explicit table. Mapping: warp w handles rows r = w, w + warps, ... (grid-stride by
// warps). Lane 0 reads the row's start and length and broadcasts them with __shfl_sync (as
// pad_beats_kernel's leader broadcasts its row); the warp then writes row r with
// write_padded_row. The loop bounds are warp-uniform, so all 32 lanes reach the full-mask
// shuffles. The table was checked against the signal on the host (pad_table_cuda).
__global__ void pad_table_kernel(DeviceSpan<const float> signal, DeviceSpan<const std::int64_t> starts,
                                 const std::int32_t* lengths, int max_length, float* matrix) {
  const auto rows = static_cast<std::int64_t>(starts.size);
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarpSize;
  for (std::int64_t r = warp; r < rows; r += warps) {
    std::int64_t start = 0;
    std::int32_t length = 0;
    if (lane == 0) {
      start = starts.data[r];
      length = lengths[r];
    }
    start = __shfl_sync(kFullMask, start, 0);
    length = __shfl_sync(kFullMask, length, 0);
    write_padded_row(lane, signal.data + start, length, max_length, matrix + r * static_cast<std::int64_t>(max_length));
  }
}

}  // namespace

DeviceBeats pad_beats_cuda(DeviceSpan<const float> signal, DeviceSpan<const std::int64_t> gates,
                           const BeatLimits& limits, cudaStream_t stream) {
  DeviceBeats beats;
  if (gates.size < 2) return beats;  // no candidate, no beat
  const auto candidates = static_cast<std::int64_t>(gates.size) - 1;

  DeviceBuffer<std::int64_t> row_of(static_cast<std::size_t>(candidates), stream);
  DeviceBuffer<Selection> selection(1, stream);
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(selection.data(), 0, sizeof(Selection), stream));
  mark_beats<<<grid_for(candidates), kBlockSize, 0, stream>>>(gates, static_cast<std::int64_t>(signal.size),
                                                              limits.min_length, limits.max_length, row_of.data(),
                                                              selection.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("mark_beats");

  std::size_t temp_bytes = 0;
  ECGPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, row_of.data(), row_of.data(), candidates, stream));
  // At least one byte: CUB reads a null temp pointer as a size query and would do nothing.
  DeviceBuffer<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1, stream);
  ECGPIPE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, row_of.data(), row_of.data(), candidates, stream));
  finish_count<<<1, 1, 0, stream>>>(gates, limits.min_length, limits.max_length, row_of.data(), selection.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("finish_count");

  Selection host{};
  copy_to_host(&host, selection.cspan(), 1, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host.out_of_bounds > 0) {
    throw InternalError(std::to_string(host.out_of_bounds) + " beat(s) lie outside the signal of " +
                        std::to_string(signal.size) + " samples");
  }
  beats.rows = static_cast<std::size_t>(host.rows);
  if (beats.rows == 0) return beats;

  // rows > 0 implies 0 <= min_length <= length <= max_length for some beat, so max_length >= 0.
  const auto width = static_cast<std::size_t>(limits.max_length);
  beats.matrix = DeviceBuffer<float>(beats.rows * width, stream);
  beats.start = DeviceBuffer<std::int64_t>(beats.rows, stream);
  beats.length = DeviceBuffer<std::int32_t>(beats.rows, stream);
  DeviceBuffer<unsigned long long> written(1, stream);
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(written.data(), 0, sizeof(unsigned long long), stream));
  pad_beats_kernel<<<grid_for(candidates * kWarpSize), kBlockSize, 0, stream>>>(
      signal, gates, row_of.data(), limits.min_length, limits.max_length, beats.matrix.data(), beats.start.data(),
      beats.length.data(), written.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("pad_beats_kernel");
#ifndef NDEBUG
  // Debug builds only (it costs a second synchronization): every kept candidate wrote one row.
  unsigned long long host_written = 0;
  copy_to_host(&host_written, written.cspan(), 1, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_written != beats.rows) {
    throw InternalError("beat padding wrote " + std::to_string(host_written) + " rows, expected " +
                        std::to_string(beats.rows));
  }
#endif
  return beats;
}

DeviceBeats pad_table_cuda(DeviceSpan<const float> signal, const BeatTable& table, int max_length, cudaStream_t stream) {
  if (table.start.size() != table.length.size()) throw InternalError("beat table: starts and lengths differ in count");
  const auto n = static_cast<std::int64_t>(signal.size);
  // The checks of pad_beats_cpu, on the host where the table is (the kernel trusts them).
  for (std::size_t r = 0; r < table.size(); ++r) {
    const std::int64_t start = table.start[r], length = table.length[r];
    if (start < 0 || length < 0 || length > max_length || start > n - length) {
      throw InternalError("beat " + std::to_string(r) + " lies outside the signal");
    }
  }
  DeviceBeats beats;
  beats.rows = table.size();
  if (beats.rows == 0) return beats;

  const auto width = static_cast<std::size_t>(max_length);  // >= 0: some length lies in [0, max_length]
  beats.start = DeviceBuffer<std::int64_t>(beats.rows, stream);
  beats.length = DeviceBuffer<std::int32_t>(beats.rows, stream);
  beats.matrix = DeviceBuffer<float>(beats.rows * width, stream);
  copy_to_device(beats.start.span(), table.start.data(), beats.rows, stream);
  copy_to_device(beats.length.span(), table.length.data(), beats.rows, stream);
  if (width == 0) return beats;
  pad_table_kernel<<<grid_for(static_cast<std::int64_t>(beats.rows) * kWarpSize), kBlockSize, 0, stream>>>(
      signal, beats.start.cspan(), beats.length.data(), max_length, beats.matrix.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("pad_table_kernel");
  return beats;
}

}  // namespace ecgpipe
