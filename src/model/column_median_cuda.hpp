// Internal: the per-column median on the GPU, the kernels of kernels/model/column_median.cu
// (normalise_rows_cuda.hpp says why not LibTorch's). CUDA builds only; no LibTorch here.
#pragma once

#include <cstdint>

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe::detail {

// out[c] = the lower median (torch.median's: the value of rank (n - 1) / 2) of column c of `rows`
// (n x cols, row-major, on the device), exactly: a selection, equal to LibTorch's bit for bit
// except that a median of zero is +0 where LibTorch may give -0. Finite values; n < 2^32.
void column_median_cuda(DeviceSpan<const float> rows, std::int64_t n, int cols, DeviceSpan<float> out, cudaStream_t stream);

}  // namespace ecgpipe::detail
#endif
