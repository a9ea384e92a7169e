// Internal (model code only): the seed's LightVAE as a LibTorch module, and its loss.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <utility>

namespace ecgpipe::detail {

// Swish with one learnable slope shared by every layer, as in the seed (a single `sigma` module).
struct SwishImpl : torch::nn::Module {
  SwishImpl();
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor alpha;
};
TORCH_MODULE(Swish);

struct LightVaeImpl : torch::nn::Module {
  explicit LightVaeImpl(std::int64_t dims);

  // Depthwise [1,2,1] filter with stride 2: halves the length.
  torch::Tensor down(const torch::Tensor& x);
  // Nearest-neighbour x2 upsampling written as a broadcast: same values as nn::Upsample, but
  // its backward is a cheap sum instead of the slow upsample_nearest1d_backward kernel.
  static torch::Tensor up(const torch::Tensor& x);

  // (mu, logvar) of rows of `dims` samples.
  std::pair<torch::Tensor, torch::Tensor> encode(const torch::Tensor& input);
  torch::Tensor decode(const torch::Tensor& z);

  std::int64_t dims;
  Swish sigma{nullptr};
  torch::nn::Conv1d conv0{nullptr}, conv1{nullptr}, conv2{nullptr}, convA{nullptr}, convB{nullptr};
  torch::nn::Linear restore{nullptr};
  torch::nn::Conv1d conv3{nullptr}, conv4{nullptr}, conv5{nullptr};
  torch::Tensor down_filter;
};
TORCH_MODULE(LightVae);

// The seed's loss, summed over the batch: sum_b mean_t (recon - x)^2  -  0.1 * sum_b mean_k (1 +
// logvar - mu^2 - exp(logvar)).
torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar);

// z ~ N(mu, exp(logvar)) with LibTorch's (seeded) generator.
torch::Tensor reparameterize(const torch::Tensor& mu, const torch::Tensor& logvar);

}  // namespace ecgpipe::detail
