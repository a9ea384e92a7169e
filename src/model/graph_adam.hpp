// Internal (model code only): Adam whose whole step can be captured in a CUDA graph.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace ecgpipe::detail {

// Adam with PyTorch's defaults (betas 0.9/0.999, eps 1e-8, no weight decay), written with the
// step count as a device tensor so that a whole training step, the update included, can be
// captured once in a CUDA graph and replayed (torch::optim::Adam keeps the count on the host and
// would freeze the bias correction into the graph). Same arithmetic on the CPU.
class GraphAdam {
 public:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

  // The parameters (and their gradients) are moved into one flat buffer each, every parameter
  // becoming a view into it: the update is then a handful of kernels over one buffer instead of
  // ~10 kernels per parameter tensor (19 of them), the difference that matters once a step is a
  // replayed graph. The arithmetic per element is unchanged.
  GraphAdam(const std::vector<torch::Tensor>& params, double lr);

  // Zeroed in place (not set to None): gradients keep their addresses across graph replays.
  void zero_grad();
  void step();

  // The flat buffers every parameter and gradient is a view into (the fused training step,
  // src/model/light_vae_fused.hpp, reads the one and writes the other directly).
  const torch::Tensor& parameters() const { return flat_; }
  const torch::Tensor& gradients() const { return grad_; }

 private:
  torch::Tensor flat_, grad_, m_, v_, step_;
  double lr_;
};

}  // namespace ecgpipe::detail
