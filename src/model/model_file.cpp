// The model file (include/ecgpipe/model/model_file.hpp, src/model/model_file_format.hpp): opening
// model.safetensors and its meta record, without LibTorch (the weights in and out of a LightVae are
// model_weights.cpp's), so that reading a model's meta record does not load LibTorch.
#include "model/model_file_format.hpp"

#include "common/file_read.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"

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

}  // namespace detail

std::string read_model_meta(const std::string& model_path) {
  return detail::open_model(model_path).metadata.at(detail::kModelMetaKey);
}

}  // namespace ecgpipe
