// Internal: the rr model's row normalisation (BeatMatrix::normalise) on the GPU, the kernels of
// kernels/model/normalise_rows.cu (with column_median_cuda.hpp's). CUDA builds only; no LibTorch.
//
// Why not LibTorch's median: the first use of its sort/median kernels in a process costs 0.13 s on
// an H100 (loading their code from LibTorch's CUDA library), 20 % of a 24-hour run's model stage;
// the computing itself is under a millisecond.
#pragma once

#include <cstdint>

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe::detail {

// In place, LibTorch's definition (beat_tensor.cpp normalise_rows): each row minus its lower
// median; then every value divided by the RMS of the column medians (by 1 where that is 0). The
// medians equal LibTorch's exactly; the RMS is a float sum in column order, LibTorch's in an order
// of its own, so the values agree to rounding and repeat bit for bit.
void normalise_rows_cuda(DeviceSpan<float> rows, std::int64_t n, int cols, cudaStream_t stream);

}  // namespace ecgpipe::detail
#endif
