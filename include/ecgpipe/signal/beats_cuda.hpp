// Stage 4, the beat matrix on the GPU (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/signal/beats.hpp.
#pragma once

#include <cstdint>

#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

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

}  // namespace ecgpipe
