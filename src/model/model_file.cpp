// The model file (include/ecgpipe/model/model_file.hpp, src/model/model_weights.hpp):
// model.safetensors, the LightVae's tensors plus ecgpipe's meta record as metadata.
#include "model/model_weights.hpp"

#include <cmath>
#include <map>

#include "common/file_read.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe {
namespace {

// Metadata keys beside the tensors. "format" names the content, so that another safetensors file
// (someone's PyTorch weights) is told apart from a damaged ecgpipe model.
constexpr const char* kFormatKey = "format";
constexpr const char* kFormat = "ecgpipe-lightvae";
constexpr const char* kMetaKey = "ecgpipe.meta";

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
  content.metadata = {{kFormatKey, kFormat}, {kMetaKey, meta_json}};
  for (const auto& [name, tensor] : model_tensors(model)) {
    const auto t = tensor.detach().to(torch::kFloat32).contiguous();
    TensorF32 out;
    out.shape.assign(t.sizes().begin(), t.sizes().end());
    out.values.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
    content.tensors.emplace_back(name, std::move(out));
  }
  return encode_safetensors(content);
}

SafetensorsContent open_model(const std::string& path) {
  const std::string bytes = read_regular_file(path, kMaxSafetensorsFileBytes, "model file");
  // ecgpipe's model.pt was a LibTorch archive: a zip file.
  if (bytes.compare(0, 4, "PK\x03\x04") == 0)
    throw InputError("model " + path + " is a LibTorch archive (model.pt of an earlier ecgpipe), which this ecgpipe does "
                     "not open: such files can carry code. Train again with `ecgpipe run` to get model.safetensors");
  SafetensorsContent content = decode_safetensors(bytes, "model " + path);
  const auto format = content.metadata.find(kFormatKey);
  if (format == content.metadata.end() || format->second != kFormat)
    throw InputError("model " + path + " is a safetensors file but not an ecgpipe model (metadata \"format\" is not \"" +
                     kFormat + "\")");
  if (content.metadata.count(kMetaKey) == 0)
    throw InputError("model " + path + " is not an ecgpipe model file (no " + kMetaKey + " record)");
  return content;
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

std::string read_model_meta(const std::string& model_path) {
  return detail::open_model(model_path).metadata.at(kMetaKey);
}

}  // namespace ecgpipe
