// The meta record of model.pt (include/ecgpipe/model_file.hpp): how the model's beats are made.
#include <nlohmann/json.hpp>

#include "ecgpipe/config.hpp"
#include "ecgpipe/error.hpp"
#include "ecgpipe/model_file.hpp"
#include "ecgpipe/pipeline.hpp"

namespace ecgpipe {
namespace {

// Format of the meta record in model.pt; bump when its meaning changes.
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
  j["row_length"] = row_length(o);        // the beat length the model takes
  j["normalisation"] = o.model == Model::rr ? "per-beat median, per-recording median-beat RMS" : "none";
  j["trained_on"] = o.input;
  return j.dump();
}

void apply_model_meta(const std::string& meta_json, const std::string& model_path, RunOptions& o) {
  try {
    const auto j = nlohmann::json::parse(meta_json);
    const int format = j.at("format").get<int>();
    if (format != kModelFormat) {
      throw InputError("model " + model_path + " has format " + std::to_string(format) + " (made by ecgpipe " +
                       j.value("ecgpipe_version", std::string("?")) + "); this ecgpipe reads format " +
                       std::to_string(kModelFormat));
    }
    if (j.at("latent_dim").get<int>() != kLatentDim || j.at("model").get<std::string>() != "LightVAE") {
      throw InputError("model " + model_path + " is not a " + std::to_string(kLatentDim) + "-D LightVAE");
    }
    o.preset = parse_preset(j.at("preset").get<std::string>());
    o.fs = j.at("fs").get<double>();
    o.ricker_width = j.at("ricker_width").get<int>();
    o.nms_window = j.at("nms_window").get<int>();
    o.limits.min_length = j.at("min_length").get<int>();
    o.limits.max_length = j.at("max_length").get<int>();
    // Models written before the rr model existed have no "beats" record: they are seed models.
    o.model = parse_model(j.value("beats", std::string("seed")));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("model " + model_path + " has a damaged ecgpipe record: " + e.what());
  } catch (const UsageError& e) {
    throw InputError("model " + model_path + ": " + e.what());
  }
  o.model_in = model_path;
}

}  // namespace ecgpipe
