// Where the VAE runs: whether train_and_score and score_with_model (vae.hpp) take a GPU matrix
// without LibTorch, on ecgpipe's own kernels (src/model/flat_training.hpp says when), so that a run
// that will train or score one need not load LibTorch at all. Apart from vae.hpp: the model
// code's internals ask it too.
#pragma once

#include <cstdint>

namespace ecgpipe {

// For a matrix on the GPU of `cols` samples a row. Never throws.
bool model_runs_without_torch(std::int64_t cols);

}  // namespace ecgpipe
