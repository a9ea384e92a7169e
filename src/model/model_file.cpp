// The model file (include/ecgpipe/model/model_file.hpp, src/model/model_file_format.hpp): opening
// model.safetensors and its meta record, without LibTorch (the weights in and out of a LightVae are
// model_weights.cpp's), so that reading a model's meta record does not load LibTorch.
#include "model/model_file_format.hpp"

#include <cmath>
#include <map>
#include <set>

#include "common/file_read.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe {
namespace detail {

SafetensorsContent open_model(const std::string& path) {
  const std::string bytes = read_regular_file(path, kMaxSafetensorsFileBytes, "model file");
  // ecgpipe's model.pt was a LibTorch archive: a zip file.
  if (bytes.compare(0, 4, "PK\x03\x04") == 0)
    throw InputError("model " + path + " is a LibTorch archive (model.pt of an earlier ecgpipe), which this ecgpipe does "
                     "not open: such files can carry code. Train again with `ecgpipe run` to get model.safetensors");
  SafetensorsContent content = decode_safetensors(bytes, "model " + path);
  const auto format = content.metadata.find(kModelFormatKey);
  if (format == content.metadata.end() || format->second != kModelFormat)
    throw InputError("model " + path + " is a safetensors file but not an ecgpipe model (metadata \"format\" is not \"" +
                     kModelFormat + "\")");
  if (content.metadata.count(kModelMetaKey) == 0)
    throw InputError("model " + path + " is not an ecgpipe model file (no " + kModelMetaKey + " record)");
  return content;
}

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

void check_model_tensors(const SafetensorsContent& content, const std::string& path, std::int64_t cols,
                         const std::vector<ExpectedTensor>& expected) {
  std::map<std::string, const TensorF32*> found;
  for (const auto& [name, t] : content.tensors) found.emplace(name, &t);
  // The decoder's first layer tells the beat length the model was trained on (restore:
  // Linear(latent, beat length)).
  const auto restore = found.find("restore.weight");
  if (restore != found.end() && restore->second->shape.size() == 2 && restore->second->shape[1] == kLatentDim &&
      restore->second->shape[0] != cols)
    throw InputError("model " + path + " takes beats of " + std::to_string(restore->second->shape[0]) + " samples, not " +
                     std::to_string(cols));
  std::set<std::string> names;
  for (const ExpectedTensor& want : expected) {
    names.insert(want.name);
    const auto it = found.find(want.name);
    if (it == found.end()) throw InputError("model " + path + " has no tensor " + want.name);
    if (it->second->shape != want.shape)
      throw InputError("model " + path + ": tensor " + want.name + " has shape " + shape_text(it->second->shape) + ", not " +
                       shape_text(want.shape));
    for (std::size_t i = 0; i < it->second->values.size(); ++i)
      if (!std::isfinite(it->second->values[i]))
        throw InputError("model " + path + ": tensor " + want.name + " holds a value that is not finite (element " +
                         std::to_string(i) + ")");
  }
  for (const auto& [name, t] : found)
    if (names.count(name) == 0) throw InputError("model " + path + " has a tensor this model does not: " + name);
  const auto filter = found.find("down_filter");
  if (filter != found.end() && filter->second->values != std::vector<float>{1.0f, 2.0f, 1.0f})
    throw InputError("model " + path + ": tensor down_filter is not the fixed [1, 2, 1] of ecgpipe's model");
}

}  // namespace detail

std::string read_model_meta(const std::string& model_path) {
  return detail::open_model(model_path).metadata.at(detail::kModelMetaKey);
}

}  // namespace ecgpipe
