// The meta record of model.safetensors (include/ecgpipe/model/model_file.hpp): how the model's beats are made.
#include <nlohmann/json.hpp>

#include "common/json_file.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "common/json_text.hpp"

namespace ecgpipe {
namespace {

// Format of the meta record in model.safetensors; bump when its meaning changes.
constexpr int kModelFormat = 1;

}  // namespace

std::string model_meta_json(const RunOptions& o) {
  nlohmann::json j;
  j["format"] = kModelFormat;
  j["ecgpipe_version"] = ECGPIPE_VERSION;
  j["model"] = "LightVAE";
  j["latent_dim"] = kLatentDim;
  j["preset"] = preset_name(o.preset);
  j["fs"] = o.fs;
  j["ricker_width"] = o.ricker_width;
  j["nms_window"] = o.nms_window;
  j["min_length"] = o.limits.min_length;
  j["max_length"] = o.limits.max_length;
  j["beats"] = model_name(o.model);       // how rows are made and scored (score.hpp)
  j["row_length"] = row_length(o.rows());        // the beat length the model takes
  j["normalisation"] = o.model == Model::rr ? "per-beat median, per-recording median-beat RMS" : "none";
  j["trained_on"] = o.input;
  return json_text(j);
}

// An int field of the meta record (is_json_int: no float, no wrap).
static int meta_int(const nlohmann::json& j, const char* key, const std::string& model_path) {
  const auto& v = j.at(key);
  if (!is_json_int(v)) {
    throw InputError("model " + model_path + " has a damaged ecgpipe record: \"" + key + "\" is " + v.dump() +
                     ", not an integer");
  }
  return v.get<int>();
}

// A name that ecgpipe itself wrote (preset_name, model_name), read back exactly: no case folding,
// which is for people typing options (cli_common.cpp).
template <typename E>
static E meta_name(const std::string& name, const char* key, const EnumNames<E>& names, const std::string& model_path) {
  if (const auto value = value_named(names, name)) return *value;
  throw InputError("model " + model_path + " has a damaged ecgpipe record: \"" + key + "\" is \"" + name + "\", not one of " +
                   braced_names(names));
}

void apply_model_meta(const std::string& meta_json, const std::string& model_path, RunOptions& o) {
  try {
    const auto j = parse_json_bounded(meta_json, "model " + model_path + " (its ecgpipe.meta record)");
    const int format = meta_int(j, "format", model_path);
    if (format != kModelFormat) {
      throw InputError("model " + model_path + " has format " + std::to_string(format) + " (made by ecgpipe " +
                       j.value("ecgpipe_version", std::string("?")) + "); this ecgpipe reads format " +
                       std::to_string(kModelFormat));
    }
    if (meta_int(j, "latent_dim", model_path) != kLatentDim || j.at("model").get<std::string>() != "LightVAE") {
      throw InputError("model " + model_path + " is not a " + std::to_string(kLatentDim) + "-D LightVAE");
    }
    o.preset = meta_name(j.at("preset").get<std::string>(), "preset", preset_names(), model_path);
    o.fs = j.at("fs").get<double>();
    o.ricker_width = meta_int(j, "ricker_width", model_path);
    o.nms_window = meta_int(j, "nms_window", model_path);
    o.limits.min_length = meta_int(j, "min_length", model_path);
    o.limits.max_length = meta_int(j, "max_length", model_path);
    // Models written before the rr model existed have no "beats" record: they are seed models.
    o.model = meta_name(j.value("beats", std::string("seed")), "beats", model_names(), model_path);
  } catch (const nlohmann::json::exception& e) {
    throw InputError("model " + model_path + " has a damaged ecgpipe record: " + e.what());
  }
  o.model_in = model_path;
}

}  // namespace ecgpipe
