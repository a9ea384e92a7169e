// Where the VAE trains: whether train_and_score (vae.hpp) takes a GPU matrix without LibTorch, on
// ecgpipe's own kernels (src/model/flat_training.hpp says when), so that a run that will train one
// need not load LibTorch at all. Apart from vae.hpp: the model code's internals ask it too.
#pragma once

#include <cstdint>

namespace ecgpipe {

// For a matrix on the GPU of `cols` samples a row. Never throws.
bool trains_without_torch(std::int64_t cols);

}  // namespace ecgpipe
