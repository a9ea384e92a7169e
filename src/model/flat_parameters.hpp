// Internal (model code only): the LightVAE's parameters as the fused kernels hold them, one flat
// float buffer (kernels/model/light_vae_math.cuh make_layout), without LibTorch: each tensor's
// name, place and shape, the initial values of a training, and the model file written from the
// buffer (the same bytes as model_weights.cpp writes for the LibTorch module with these values).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/safetensors.hpp"

namespace ecgpipe::detail {

struct FlatTensor {
  const char* name;  // LibTorch's name for it ("conv0.weight")
  int offset;        // first float in the flat buffer
  std::vector<std::int64_t> shape;
  int fan_in;        // inputs per output, for the initial values' bound; 0: not drawn (sigma.alpha)
};

// Every parameter of the model for rows of `dims` samples, in the buffer's (LibTorch's
// parameters()) order.
std::vector<FlatTensor> light_vae_flat_tensors(int dims);

// Initial parameters, drawn as LibTorch's layers draw theirs (Conv1d and Linear: weights and biases
// uniform in +-1/sqrt(fan_in), kaiming_uniform with a = sqrt(5); Swish's alpha 1), from ecgpipe's own
// generator (std::mt19937_64 seeded from `seed`, tensors in buffer order): the same values on every
// device and standard library.
std::vector<float> light_vae_initial_parameters(int dims, std::uint64_t seed);

// The flat parameters of the model file `content` (from `path`) for rows of `dims` samples: its
// tensors checked as LibTorch's load checks them (check_model_tensors: InputError naming `path`).
std::vector<float> flat_parameters_from(const SafetensorsContent& content, const std::string& path, int dims);

// The model file's bytes for the parameters `flat` of a model for rows of `dims` samples, with
// `meta_json`: tensors by name in LibTorch's order of names, the fixed down_filter buffer included.
std::string serialise_flat_model(const std::vector<float>& flat, int dims, const std::string& meta_json);

}  // namespace ecgpipe::detail
