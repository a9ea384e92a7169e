// model.safetensors: the trained LightVAE's parameters and buffers (safetensors: flat float32
// tensors behind a bounded JSON header, no code; docs/formats.md) plus a meta record (JSON text)
// saying how its beats were made, so that `ecgpipe score` can make a new recording's beats with
// exactly those parameters.
#pragma once

#include <string>

namespace ecgpipe {

struct RunOptions;

// The meta JSON text stored in a model file. InputError naming the file for a missing or special
// file, an old LibTorch model.pt, and any file that is not a whole, undamaged ecgpipe model.
std::string read_model_meta(const std::string& model_path);

// The meta record saved in model.safetensors: model format, beat representation (preset, fs, windows,
// beat length), normalisation, version.
std::string model_meta_json(const RunOptions& options);
// Sets `options` to score with the model at `model_path` whose meta record is `meta_json`:
// its beat parameters, and model_in. InputError for another format, model or a damaged record.
void apply_model_meta(const std::string& meta_json, const std::string& model_path, RunOptions& options);

}  // namespace ecgpipe
