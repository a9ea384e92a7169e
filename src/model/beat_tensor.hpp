// Internal (model code only): the beat matrix as a LibTorch tensor on its device, without a copy.
#pragma once

#include <torch/torch.h>

#include <optional>

#include "ecgpipe/config.hpp"
#include "ecgpipe/model/vae_types.hpp"
#include "ecgpipe/signal/beat_matrix.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <c10/cuda/CUDAGuard.h>  // CUDAStreamGuard, held as a member
#include <c10/cuda/CUDAStream.h>
#endif

namespace ecgpipe::detail {

// The beat matrix as a tensor on its device, without a copy, with LibTorch set to the pipeline's
// stream for the object's lifetime. The tensor takes the matrix's storage over (BeatMatrix::release
// into torch::from_blob's deleter), so it is freed when the last tensor using it goes.
// Normalises the rows in place when the matrix asks for it (BeatMatrix::normalise).
struct BeatTensor {
  torch::Device device{torch::kCPU};
  torch::Tensor data;
#ifdef ECGPIPE_TORCH_CUDA
  std::optional<c10::cuda::CUDAStreamGuard> stream_guard;
#endif
  explicit BeatTensor(BeatMatrix beats);
};

// See BeatMatrix::normalise. In place. On a GPU by ecgpipe's kernels (normalise_rows_cuda.hpp):
// the same medians, the RMS rounded in its own order.
void normalise_rows(torch::Tensor& x);

// The per-column median of a rows x cols tensor (torch.median(x, 0)'s values). A median sorts a
// copy of what it reads: on the CPU the columns are taken 16 at a time (each column's median is
// its own, so the values are the same), a few MB of copy instead of a second matrix (issue 12:
// 700 k beats); on a GPU ecgpipe's radix select (column_median_cuda.hpp), equal to it exactly.
torch::Tensor column_median(const torch::Tensor& x);

}  // namespace ecgpipe::detail
