// Internal (model code only): what makes a safetensors file an ecgpipe model file
// (model.safetensors; docs/formats.md), and opening one. Free of LibTorch: the meta record is read
// before LibTorch is loaded (src/model/torch_module_loader.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/safetensors.hpp"

namespace ecgpipe::detail {

// Metadata keys beside the tensors. "format" names the content, so that another safetensors file
// (someone's PyTorch weights) is told apart from a damaged ecgpipe model.
inline constexpr const char* kModelFormatKey = "format";
inline constexpr const char* kModelFormat = "ecgpipe-lightvae";
inline constexpr const char* kModelMetaKey = "ecgpipe.meta";

// A tensor a model holds: its name and shape.
struct ExpectedTensor {
  std::string name;
  std::vector<std::int64_t> shape;
};

// InputError naming `path` unless `content` holds exactly the tensors `expected`, by name and
// shape (a model for beats of another length than `cols` says so first, as the likeliest
// mismatch), every value finite (a NaN weight would make every score NaN), and "down_filter" the
// fixed [1, 2, 1] (the GPU's kernels assume it: a file that changed it would score differently
// there than on the CPU).
void check_model_tensors(const SafetensorsContent& content, const std::string& path, std::int64_t cols,
                         const std::vector<ExpectedTensor>& expected);

// The checked content of the model file at `path`; InputError naming it for a missing or special
// file, a LibTorch model.pt of an earlier ecgpipe (refused: such an archive can carry code, and
// LibTorch's loader trusts its offsets), and anything decode_safetensors refuses.
SafetensorsContent open_model(const std::string& path);

}  // namespace ecgpipe::detail
