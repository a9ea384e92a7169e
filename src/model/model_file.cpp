// The model file's LibTorch archive (src/model/model_archive.hpp) and read_model_meta
// (include/ecgpipe/model/model_file.hpp).
#include "model/model_archive.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe {
namespace {

// Archive keys of the model file beside the module's own parameters and buffers.
constexpr const char* kMetaKey = "ecgpipe.meta";

}  // namespace

namespace detail {

std::string serialise_model(LightVae& model, const std::string& meta_json) {
  torch::serialize::OutputArchive archive;
  model->to(torch::kCPU);
  model->save(archive);
  archive.write(kMetaKey, c10::IValue(meta_json));
  std::ostringstream bytes;  // a memory stream cannot fail on a full disk
  try {
    archive.save_to(bytes);
  } catch (const c10::Error& e) {
    throw InternalError(std::string("cannot serialise the model: ") + e.what_without_backtrace());
  }
  return bytes.str();
}

torch::serialize::InputArchive open_model(const std::string& model_path) {
  std::ifstream probe(model_path, std::ios::binary);
  if (!probe) throw InputError("cannot open model " + model_path + ": " + std::strerror(errno));
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(model_path, torch::Device(torch::kCPU));
  } catch (const c10::Error&) {
    throw InputError(model_path + " is not an ecgpipe model file (not a LibTorch archive)");
  }
  return archive;
}

void load_model(LightVae& model, torch::serialize::InputArchive& archive, const std::string& model_path, std::int64_t cols) {
  // Loading replaces the tensors whatever their shapes; the decoder's first layer tells the beat
  // length the model was trained on (restore: Linear(latent, beat length)).
  try {
    model->load(archive);
  } catch (const c10::Error& e) {
    throw InputError("model " + model_path + " cannot be loaded: " + e.what_without_backtrace());
  }
  if (model->restore->weight.size(0) != cols || model->restore->weight.size(1) != kLatentDim) {
    throw InputError("model " + model_path + " takes beats of " + std::to_string(model->restore->weight.size(0)) +
                     " samples, not " + std::to_string(cols));
  }
}

}  // namespace detail

std::string read_model_meta(const std::string& model_path) {
  auto archive = detail::open_model(model_path);
  c10::IValue meta;
  if (!archive.try_read(kMetaKey, meta) || !meta.isString()) {
    throw InputError(model_path + " is not an ecgpipe model file (no " + kMetaKey + " record)");
  }
  return meta.toStringRef();
}

}  // namespace ecgpipe
