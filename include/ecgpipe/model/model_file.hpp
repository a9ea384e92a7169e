// model.pt: a LibTorch archive of the trained LightVAE's parameters and buffers plus a meta
// record (JSON text) saying how its beats were made, so that `ecgpipe score` can make a new
// recording's beats with exactly those parameters.
#pragma once

#include <string>

namespace ecgpipe {

struct RunOptions;

// The meta JSON text stored in a model file. InputError for a missing file, a file that is not a
// LibTorch archive, or an archive without ecgpipe's record.
std::string read_model_meta(const std::string& model_path);

// The meta record saved in model.pt: model format, beat representation (preset, fs, windows,
// beat length), normalisation, version.
std::string model_meta_json(const RunOptions& options);
// Sets `options` to score with the model at `model_path` whose meta record is `meta_json`:
// its beat parameters, and model_in. InputError for another format, model or a damaged record.
void apply_model_meta(const std::string& meta_json, const std::string& model_path, RunOptions& options);

}  // namespace ecgpipe
