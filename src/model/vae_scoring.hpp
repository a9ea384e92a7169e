// Internal (model code only): scoring every beat with a trained (or loaded) LightVae.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <type_traits>

#include "model/light_vae.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/model/vae_types.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include "model/light_vae_fused.hpp"
#endif

namespace ecgpipe::detail {

// Every beat's scores in signal order (reconstruction error at the latent mean, and the seed's
// loss per beat with z = mu: a deterministic negative ELBO), template distances, latent means,
// the outlier score (`score`, else recon_error) and the report extras, into `result`.
// `trained_flat`: the parameters already in the fused kernels' layout (GraphAdam's buffer after a
// fused training), else undefined (they are gathered from the model when the kernels score).
void score_all(LightVae& model, const torch::Tensor& data, bool on_cuda, const ScoreFunction& score, TrainResult& result,
               const torch::Tensor& trained_flat = torch::Tensor());

// The fused kernels (src/model/light_vae_fused.hpp) for rows of `dims` on this CUDA device: the
// GPU gives them the shared memory and ECGPIPE_FUSED_VAE is not "0" (which keeps LibTorch's
// kernels, for comparison). False in builds without LibTorch CUDA.
bool fused_kernels_usable(std::int64_t dims);

#ifdef ECGPIPE_TORCH_CUDA
// A tensor's memory as the span a kernel launcher takes (contiguous tensors only).
template <class T>
DeviceSpan<T> span_of(const torch::Tensor& t) {
  return {t.data_ptr<std::remove_const_t<T>>(), static_cast<std::size_t>(t.numel())};
}

// The model's parameters copied into the fused kernels' flat layout (checked by name).
torch::Tensor fused_parameters(LightVae& model);
// Per row of `rows` (on the GPU): mse, KL term, mu[2] (kFusedScoreValues columns), decoded from
// z = mu, or from mu + eps exp(logvar / 2) when `eps` (rows x 2) is defined.
torch::Tensor fused_scores(const torch::Tensor& flat, std::int64_t dims, const torch::Tensor& rows, const torch::Tensor& eps);
#endif

}  // namespace ecgpipe::detail
