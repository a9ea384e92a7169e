// Internal (model code only): the standard normal draws of the training without LibTorch (the
// reparameterisation's eps), numbered per stream so that draw k is the same on every device
// (kernels/common/philox.cuh): the GPU's (kernels/model/normal_draws.cu) and the CPU reference's
// (normal_draws.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace ecgpipe::detail {

// out[i] = draw first + i of stream `stream_id` under `seed`, for i < count.
void normal_draws_cpu(std::uint64_t seed, std::uint32_t stream_id, std::uint64_t first, float* out, std::size_t count);

#ifdef ECGPIPE_WITH_CUDA
// The same into device memory, asynchronous on `stream`.
void normal_draws_cuda(std::uint64_t seed, std::uint32_t stream_id, std::uint64_t first, DeviceSpan<float> out,
                       cudaStream_t stream);
#endif

}  // namespace ecgpipe::detail
