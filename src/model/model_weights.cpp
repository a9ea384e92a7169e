// The model file's weights (src/model/model_weights.hpp): a LightVae's tensors into and out of
// model.safetensors (model_file.cpp opens it and reads its meta record without LibTorch).
#include "model/model_weights.hpp"

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
  std::vector<ExpectedTensor> shapes;
  for (const auto& [name, tensor] : expected) shapes.push_back({name, {tensor.sizes().begin(), tensor.sizes().end()}});
  check_model_tensors(content, path, cols, shapes);
  std::map<std::string, const TensorF32*> found;
  for (const auto& [name, t] : content.tensors) found.emplace(name, &t);
  torch::NoGradGuard no_grad;
  for (auto& [name, tensor] : expected) {
    const auto& values = found.at(name)->values;
    tensor.copy_(torch::from_blob(const_cast<float*>(values.data()), tensor.sizes(), torch::kFloat32));
  }
}

}  // namespace detail
}  // namespace ecgpipe
