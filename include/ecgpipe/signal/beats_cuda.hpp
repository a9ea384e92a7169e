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

// Rows of a matrix cut from a signal that arrives in pieces (issue 29, the GPU's chunked path):
// for each row r in [row_begin, row_end), the samples of [starts[r], starts[r] + length_r) that lie
// in the piece x = signal[x_begin, x_begin + x.size) go to row r at column (sample - starts[r]);
// nothing else is written (the caller zeroes the matrix once: every row then ends as
// pad_table_cuda's, and a window reaching outside the signal keeps zeros there). length_r is
// lengths[r], or fixed_length when lengths is null; rows are `stride` floats. A warp per row.
// Asynchronous. (kernels/signal/gather_rows.cu)
void gather_rows_cuda(DeviceSpan<const float> x, std::int64_t x_begin, const std::int64_t* starts,
                      const std::int32_t* lengths, std::int32_t fixed_length, std::int64_t row_begin,
                      std::int64_t row_end, float* matrix, std::size_t stride, cudaStream_t stream);

}  // namespace ecgpipe
