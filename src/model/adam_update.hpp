// Internal (model code only): the Adam update of the training without LibTorch, over one flat
// parameter buffer, on the GPU (kernels/model/adam.cu) and its CPU reference (adam_update.cpp).
// The same update as GraphAdam (src/model/graph_adam.hpp), PyTorch's Adam with its defaults.
#pragma once

#include <cstddef>

#include "ecgpipe/config.hpp"
#include "kernels/model/adam_math.cuh"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace ecgpipe::detail {

// The scalars of step `t` (1-based) at learning rate `lr`.
adam::Scalars adam_scalars(double lr, long long t);

// params -= the Adam step for `grad`, updating the moments m and v (each `n` floats).
void adam_update_cpu(float* params, const float* grad, float* m, float* v, std::size_t n, adam::Scalars s);

#ifdef ECGPIPE_WITH_CUDA
// The same on the GPU, asynchronous on `stream`; bit for bit the CPU's (no fused multiply-add).
void adam_update_cuda(DeviceSpan<float> params, DeviceSpan<const float> grad, DeviceSpan<float> m, DeviceSpan<float> v,
                      adam::Scalars s, cudaStream_t stream);
#endif

}  // namespace ecgpipe::detail
