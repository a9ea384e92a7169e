// One element of the Adam update (PyTorch's defaults: betas 0.9/0.999, eps 1e-8, no weight
// decay), shared by the kernel (kernels/model/adam.cu, compiled without fused multiply-add) and its
// CPU reference (src/model/adam_update.cpp), so that the two agree bit for bit.
#pragma once

#if defined(__CUDACC__)
#define ECGPIPE_ADAM_HD __host__ __device__
#else
#define ECGPIPE_ADAM_HD
#endif

#include <cmath>

namespace ecgpipe::adam {

constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEps = 1e-8f;
// 1 - beta as PyTorch has them (the difference taken in double, then rounded to float).
constexpr float kOneMinusBeta1 = 0.1f, kOneMinusBeta2 = 0.001f;

// The step's scalars, computed once on the host in double: lr / (1 - beta1^t) and
// sqrt(1 - beta2^t) for step t (1-based).
struct Scalars {
  float step_size;
  float bias2_sqrt;
};

ECGPIPE_ADAM_HD inline void update(float& p, float g, float& m, float& v, Scalars s) {
  m = kBeta1 * m + kOneMinusBeta1 * g;
  v = kBeta2 * v + kOneMinusBeta2 * (g * g);
  p -= s.step_size * m / (sqrtf(v) / s.bias2_sqrt + kEps);
}

}  // namespace ecgpipe::adam
