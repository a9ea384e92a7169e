// Internal (model code only): a LightVae's parameters and buffers in and out of the model file
// (model.safetensors: src/model/safetensors.hpp), beside ecgpipe's meta record
// (include/ecgpipe/model/model_file.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "model/light_vae.hpp"
#include "model/model_file_format.hpp"

namespace ecgpipe::detail {

// The model file's bytes: `model` (moved to the CPU) and `meta_json`, serialised in memory; the
// caller writes them through an OutputSet (src/common/output_set.hpp), whole or not at all.
std::string serialise_model(LightVae& model, const std::string& meta_json);

// Copies `content` (from `path`) into `model`. InputError unless its tensors are exactly the
// model's (check_model_tensors, src/model/model_file_format.hpp: names, shapes, finite values).
void load_model(LightVae& model, const SafetensorsContent& content, const std::string& path, std::int64_t cols);

}  // namespace ecgpipe::detail
