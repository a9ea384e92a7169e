// The model file's weights (src/model/model_weights.hpp): a LightVae's tensors into and out of
// model.safetensors (model_file.cpp opens it and reads its meta record without LibTorch).
#include "model/model_weights.hpp"

#include <cmath>
#include <map>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe {
namespace {

// Every tensor the model holds, by the names LibTorch gives them ("conv0.weight", "down_filter").
std::map<std::string, torch::Tensor> model_tensors(detail::LightVae& model) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& p : model->named_parameters()) out.emplace(p.key(), p.value());
  for (const auto& b : model->named_buffers()) out.emplace(b.key(), b.value());
  return out;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

namespace detail {

std::string serialise_model(LightVae& model, const std::string& meta_json) {
  model->to(torch::kCPU);
  SafetensorsContent content;
  content.metadata = {{kModelFormatKey, kModelFormat}, {kModelMetaKey, meta_json}};
  for (const auto& [name, tensor] : model_tensors(model)) {
    const auto t = tensor.detach().to(torch::kFloat32).contiguous();
    TensorF32 out;
    out.shape.assign(t.sizes().begin(), t.sizes().end());
    out.values.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    content.tensors.emplace_back(name, std::move(out));
  }
  return encode_safetensors(content);
}

void load_model(LightVae& model, const SafetensorsContent& content, const std::string& path, std::int64_t cols) {
  auto expected = model_tensors(model);
  std::map<std::string, const TensorF32*> found;
  for (const auto& [name, t] : content.tensors) found.emplace(name, &t);
  // The decoder's first layer tells the beat length the model was trained on (restore:
  // Linear(latent, beat length)): said first, as the likeliest mismatch.
  const auto restore = found.find("restore.weight");
  if (restore != found.end() && restore->second->shape.size() == 2 && restore->second->shape[1] == kLatentDim &&
      restore->second->shape[0] != cols)
    throw InputError("model " + path + " takes beats of " + std::to_string(restore->second->shape[0]) + " samples, not " +
                     std::to_string(cols));
  for (const auto& [name, tensor] : expected) {
    const auto it = found.find(name);
    if (it == found.end()) throw InputError("model " + path + " has no tensor " + name);
    const std::vector<std::int64_t> want(tensor.sizes().begin(), tensor.sizes().end());
    if (it->second->shape != want)
      throw InputError("model " + path + ": tensor " + name + " has shape " + shape_text(it->second->shape) + ", not " +
                       shape_text(want));
    for (std::size_t i = 0; i < it->second->values.size(); ++i)
      if (!std::isfinite(it->second->values[i]))
        throw InputError("model " + path + ": tensor " + name + " holds a value that is not finite (element " +
                         std::to_string(i) + ")");
  }
  for (const auto& [name, t] : found)
    if (expected.count(name) == 0) throw InputError("model " + path + " has a tensor this model does not: " + name);
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : expected) {
    const auto& values = found.at(name)->values;
    tensor.copy_(torch::from_blob(const_cast<float*>(values.data()), tensor.sizes(), torch::kFloat32));
  }
}

}  // namespace detail
}  // namespace ecgpipe
