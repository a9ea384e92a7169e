// Internal (model code only): scoring every beat with a trained (or loaded) LightVae.
#pragma once

#include <torch/torch.h>

#include "detail/light_vae.hpp"
#include "ecgpipe/vae.hpp"

namespace ecgpipe::detail {

// Every beat's scores in signal order (reconstruction error at the latent mean, and the seed's
// loss per beat with z = mu: a deterministic negative ELBO), template distances, latent means,
// the outlier score (`score`, else recon_error) and the report extras, into `result`.
void score_all(LightVae& model, const torch::Tensor& data, bool on_cuda, const ScoreFunction& score, TrainResult& result);

}  // namespace ecgpipe::detail
