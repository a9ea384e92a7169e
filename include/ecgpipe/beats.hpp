// Stage 4: beat segments between consecutive gates, zero-padded into a beats x max_length matrix.
//
// Candidate c spans [gate[c], gate[c+1]) of the raw signal; it is kept when
// min_length <= length <= max_length. Kept beats keep their order (row r is the r-th kept
// candidate), so the matrix is the same on every run and device.
#pragma once

#include <cstdint>
#include <vector>

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/cuda.hpp"
#endif

namespace ecgpipe {

struct BeatLimits {
  int min_length = 100;
  int max_length = 256;
};

// The kept beats: start sample and length of each row.
struct BeatTable {
  std::vector<std::int64_t> start;
  std::vector<std::int32_t> length;
  std::size_t size() const { return start.size(); }
};

BeatTable select_beats(const std::vector<std::int64_t>& gates, const BeatLimits& limits);

// CPU reference: row-major rows x max_length, zero-padded past each beat's length.
std::vector<float> pad_beats_cpu(const std::vector<float>& signal, const BeatTable& beats,
                                 int max_length);

#ifdef ECGPIPE_WITH_CUDA
// GPU path: a warp per candidate; lane 0 takes the row, broadcasts it with __shfl_sync, lanes
// write the row warp-strided. Rows come from a prefix sum of the keep mask, so the matrix equals
// pad_beats_cpu's. Returns the matrix (rows x max_length) and the kept starts/lengths on the
// device; `rows` is the host-side count.
struct DeviceBeats {
  DeviceBuffer<float> matrix;
  DeviceBuffer<std::int64_t> start;
  DeviceBuffer<std::int32_t> length;
  std::size_t rows = 0;
};
DeviceBeats pad_beats_cuda(DeviceSpan<const float> signal, DeviceSpan<const std::int64_t> gates,
                           const BeatLimits& limits, cudaStream_t stream);

// GPU path for rows given as a table (the robust preset's beat_windows): the table is checked on
// the host like pad_beats_cpu (InternalError for a row outside the signal or longer than
// max_length), uploaded (start/length of the result), and padded by a warp per row whose lane 0
// broadcasts the row's start and length with __shfl_sync. The matrix equals
// pad_beats_cpu(signal, table, max_length). Asynchronous: no synchronization.
DeviceBeats pad_table_cuda(DeviceSpan<const float> signal, const BeatTable& table, int max_length,
                           cudaStream_t stream);
#endif

}  // namespace ecgpipe
