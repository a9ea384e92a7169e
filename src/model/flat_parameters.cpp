// The LightVAE's flat parameter buffer without LibTorch (src/model/flat_parameters.hpp).
#include "model/flat_parameters.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string_view>

#include "ecgpipe/common/error.hpp"
#include "kernels/model/light_vae_math.cuh"
#include "model/light_vae_fused.hpp"
#include "model/model_file_format.hpp"
#include "model/safetensors.hpp"

namespace ecgpipe::detail {

namespace lv = light_vae;

namespace {

// The model's one buffer: the fixed [1, 2, 1] filter of its downsampling (light_vae.cpp).
constexpr const char* kDownFilter = "down_filter";
const std::vector<std::int64_t> kDownFilterShape{1, 1, 3};

std::int64_t count_of(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (const std::int64_t d : shape) count *= d;
  return count;
}

}  // namespace

std::vector<FlatTensor> light_vae_flat_tensors(int dims) {
  const lv::Layout l = lv::make_layout(dims);
  const auto conv = [](int out, int in) { return std::vector<std::int64_t>{out, in, 3}; };
  const auto vec = [](int n) { return std::vector<std::int64_t>{n}; };
  constexpr int k = 3;  // every conv's kernel
  return {{"sigma.alpha", l.alpha, vec(1), 0},
          {"conv0.weight", l.w0, conv(4, 1), 1 * k},   {"conv0.bias", l.b0, vec(4), 1 * k},
          {"conv1.weight", l.w1, conv(8, 4), 4 * k},   {"conv1.bias", l.b1, vec(8), 4 * k},
          {"conv2.weight", l.w2, conv(16, 8), 8 * k},  {"conv2.bias", l.b2, vec(16), 8 * k},
          {"convA.weight", l.wA, conv(lv::kLatent, 16), 16 * k}, {"convA.bias", l.bA, vec(lv::kLatent), 16 * k},
          {"convB.weight", l.wB, conv(lv::kLatent, 16), 16 * k}, {"convB.bias", l.bB, vec(lv::kLatent), 16 * k},
          {"restore.weight", l.wR, {dims, lv::kLatent}, lv::kLatent}, {"restore.bias", l.bR, vec(dims), lv::kLatent},
          {"conv3.weight", l.w3, conv(4, 8), 8 * k},   {"conv3.bias", l.b3, vec(4), 8 * k},
          {"conv4.weight", l.w4, conv(2, 4), 4 * k},   {"conv4.bias", l.b4, vec(2), 4 * k},
          {"conv5.weight", l.w5, conv(1, 2), 2 * k},   {"conv5.bias", l.b5, vec(1), 2 * k}};
}

int light_vae_fused_offset(int dims, const char* name) {
  for (const FlatTensor& t : light_vae_flat_tensors(dims))
    if (std::string_view(t.name) == name) return t.offset;
  return -1;
}

std::vector<float> light_vae_initial_parameters(int dims, std::uint64_t seed) {
  std::vector<float> flat(static_cast<std::size_t>(light_vae_fused_parameters(dims)));
  // Salted: the initial weights are not drawn from the numbers that split the beats (training_loop.hpp).
  constexpr std::uint64_t kInitSalt = 0x9E3779B97F4A7C15ull;
  std::mt19937_64 rng(seed ^ kInitSalt);
  for (const FlatTensor& t : light_vae_flat_tensors(dims)) {
    const std::int64_t count = count_of(t.shape);
    float* v = flat.data() + t.offset;
    if (t.fan_in == 0) {
      std::fill(v, v + count, 1.0f);  // Swish's slope starts at 1, as in the seed
      continue;
    }
    const double bound = 1.0 / std::sqrt(static_cast<double>(t.fan_in));
    for (std::int64_t i = 0; i < count; ++i) {
      const double u = static_cast<double>(rng() >> 11) * 0x1p-53;  // [0, 1), 53 bits
      v[i] = static_cast<float>((2.0 * u - 1.0) * bound);
    }
  }
  return flat;
}

std::vector<float> flat_parameters_from(const SafetensorsContent& content, const std::string& path, int dims) {
  const std::vector<FlatTensor> table = light_vae_flat_tensors(dims);
  std::vector<ExpectedTensor> expected{{kDownFilter, kDownFilterShape}};
  for (const FlatTensor& t : table) expected.push_back({t.name, t.shape});
  check_model_tensors(content, path, dims, expected);
  std::vector<float> flat(static_cast<std::size_t>(light_vae_fused_parameters(dims)));
  for (const FlatTensor& t : table)
    for (const auto& [name, values] : content.tensors)
      if (name == t.name) std::copy(values.values.begin(), values.values.end(), flat.begin() + t.offset);
  return flat;
}

std::string serialise_flat_model(const std::vector<float>& flat, int dims, const std::string& meta_json) {
  if (flat.size() != static_cast<std::size_t>(light_vae_fused_parameters(dims)))
    throw InternalError("serialise_flat_model: " + std::to_string(flat.size()) + " parameters for rows of " +
                        std::to_string(dims));
  SafetensorsContent content;
  content.metadata = {{kModelFormatKey, kModelFormat}, {kModelMetaKey, meta_json}};
  for (const FlatTensor& t : light_vae_flat_tensors(dims)) {
    TensorF32 out;
    out.shape = t.shape;
    out.values.assign(flat.begin() + t.offset, flat.begin() + t.offset + count_of(t.shape));
    content.tensors.emplace_back(t.name, std::move(out));
  }
  content.tensors.push_back({kDownFilter, TensorF32{kDownFilterShape, {1.0f, 2.0f, 1.0f}}});
  // LibTorch's writer (model_weights.cpp) takes the tensors in the order of their names.
  std::sort(content.tensors.begin(), content.tensors.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return encode_safetensors(content);
}

}  // namespace ecgpipe::detail
