// Internal (model code only): the model file on disk, a LibTorch archive of a LightVae's
// parameters and buffers plus ecgpipe's meta record (include/ecgpipe/model/model_file.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "model/light_vae.hpp"

namespace ecgpipe::detail {

// The model file's bytes: `model` (moved to the CPU) and `meta_json`, serialised in memory
// (LibTorch's file writer throws from a destructor when the disk fills: std::terminate); the
// caller writes them through an OutputSet (src/common/output_set.hpp).
std::string serialise_model(LightVae& model, const std::string& meta_json);

// The archive at `path`; InputError for a missing file or one that is not a LibTorch archive.
torch::serialize::InputArchive open_model(const std::string& path);

// Loads `archive` (from `path`) into `model`; InputError if it cannot be loaded or takes beats
// of another length than `cols`.
void load_model(LightVae& model, torch::serialize::InputArchive& archive, const std::string& path, std::int64_t cols);

}  // namespace ecgpipe::detail
