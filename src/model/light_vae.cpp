// The seed's LightVAE (src/model/light_vae.hpp).
#include "model/light_vae.hpp"

#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe::detail {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// Encoder/decoder kernel size and padding of every Conv1d in the seed ("same" length).
constexpr int kKernel = 3;
constexpr int kPad = 1;
constexpr int kStride = 1;

nn::Conv1d conv(int in, int out) {
  return nn::Conv1d(nn::Conv1dOptions(in, out, kKernel).stride(kStride).padding(kPad));
}

}  // namespace

SwishImpl::SwishImpl() { alpha = register_parameter("alpha", torch::ones({1})); }
torch::Tensor SwishImpl::forward(const torch::Tensor& x) { return x * torch::sigmoid(alpha * x); }

LightVaeImpl::LightVaeImpl(std::int64_t dims) : dims(dims) {
  sigma = register_module("sigma", Swish());
  conv0 = register_module("conv0", conv(1, 4));
  conv1 = register_module("conv1", conv(4, 8));
  conv2 = register_module("conv2", conv(8, 16));
  convA = register_module("convA", conv(16, kLatentDim));
  convB = register_module("convB", conv(16, kLatentDim));
  // The seed's Linear(2, 16 * n // 16), viewed as 8 channels of n/8 samples.
  restore = register_module("restore", nn::Linear(kLatentDim, 16 * dims / 16));
  conv3 = register_module("conv3", conv(8, 4));
  conv4 = register_module("conv4", conv(4, 2));
  conv5 = register_module("conv5", conv(2, 1));
  // The fixed [1, 2, 1] anti-aliasing filter (not normalised, as in the seed); not trained.
  down_filter = register_buffer("down_filter", torch::tensor({1.0f, 2.0f, 1.0f}).view({1, 1, 3}));
}

torch::Tensor LightVaeImpl::down(const torch::Tensor& x) {
  const auto channels = x.size(1);
  return F::conv1d(x, down_filter.expand({channels, 1, 3}), F::Conv1dFuncOptions().stride(2).padding(1).groups(channels));
}

torch::Tensor LightVaeImpl::up(const torch::Tensor& x) {
  return x.unsqueeze(-1).expand({x.size(0), x.size(1), x.size(2), 2}).reshape({x.size(0), x.size(1), 2 * x.size(2)});
}

std::pair<torch::Tensor, torch::Tensor> LightVaeImpl::encode(const torch::Tensor& input) {
  auto x = input.view({-1, 1, dims});
  x = down(sigma(conv0(x)));
  x = down(sigma(conv1(x)));
  x = down(sigma(conv2(x)));
  return {convA(x).mean(2), convB(x).mean(2)};
}

torch::Tensor LightVaeImpl::decode(const torch::Tensor& z) {
  auto x = restore(z).view({-1, 8, dims / 8});
  x = sigma(conv3(up(x)));
  x = sigma(conv4(up(x)));
  return conv5(up(x)).view({-1, dims});
}

torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar) {
  auto mse = (recon - x).square().mean(1).sum();
  auto kld = -kKlWeight * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1).sum();
  return mse + kld;
}

torch::Tensor reparameterize(const torch::Tensor& mu, const torch::Tensor& logvar) {
  auto std = torch::exp(0.5 * logvar);
  return mu + torch::randn_like(std) * std;
}

}  // namespace ecgpipe::detail
