// The Adam update over the flat parameter buffer (src/model/adam_update.hpp; the element's
// arithmetic is kernels/model/adam_math.cuh, its CPU reference src/model/adam_update.cpp). A
// grid-stride loop, a thread per parameter: a few thousand floats, one launch per training step.
#include "model/adam_update.hpp"

#include <string>

#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/model/adam_math.cuh"

namespace ecgpipe::detail {
namespace {

__global__ void adam_kernel(float* params, const float* grad, float* m, float* v, std::int64_t n, adam::Scalars s) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    adam::update(params[i], grad[i], m[i], v[i], s);
}

}  // namespace

void adam_update_cuda(DeviceSpan<float> params, DeviceSpan<const float> grad, DeviceSpan<float> m, DeviceSpan<float> v,
                      adam::Scalars s, cudaStream_t stream) {
  if (grad.size != params.size || m.size != params.size || v.size != params.size)
    throw InternalError("adam_update_cuda: buffers of " + std::to_string(params.size) + " parameters differ in size");
  if (params.size == 0) return;
  const auto n = static_cast<std::int64_t>(params.size);
  adam_kernel<<<launch::grid_for(n), launch::kBlockSize, 0, stream>>>(params.data, grad.data, m.data, v.data, n, s);
  ECGPIPE_CUDA_CHECK_LAUNCH("adam_kernel");
}

}  // namespace ecgpipe::detail
