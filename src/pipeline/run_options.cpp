// A run's options: their checks and the device choice (include/ecgpipe/pipeline/pipeline.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace ecgpipe {
namespace {

// A GPU, and a LibTorch built with CUDA (known from the build: asking LibTorch would load it,
// which a run does in the background: load_torch_in_background).
bool cuda_usable() {
#if defined(ECGPIPE_WITH_CUDA) && defined(ECGPIPE_TORCH_CUDA)
  return cuda_device_available();
#else
  return false;
#endif
}

}  // namespace

const EnumNames<Device>& device_names() {
  static const EnumNames<Device> names{{"auto", Device::automatic}, {"cpu", Device::cpu}, {"cuda", Device::cuda}};
  return names;
}

const char* device_name(Device d) { return name_in(device_names(), d); }

void validate(const RunOptions& o) {
  validate_fs(o.fs);
  if (o.ricker_width < 2) throw UsageError("--ricker-width must be at least 2 samples");
  if (!(o.chunk_seconds == 0.0 || (o.chunk_seconds >= kMinChunkSeconds && o.chunk_seconds <= kMaxChunkSeconds)))
    throw UsageError("--chunk-seconds must be 0 or between 1 s and a year");
  if (o.nms_window < kMinNmsWindow) throw UsageError("--nms-window must be at least " + std::to_string(kMinNmsWindow) + " samples");
  if (o.limits.min_length < 1) throw UsageError("--min-length must be at least 1 sample");
  if (o.limits.max_length < o.limits.min_length) throw UsageError("--max-length must not be below --min-length");
  if (o.limits.max_length % kModelLengthMultiple != 0) {
    throw UsageError("--max-length must be a multiple of " + std::to_string(kModelLengthMultiple) +
                     " (the VAE halves it three times)");
  }
  if (o.train.epochs < 1 && !o.analyze_only)
    throw UsageError("--epochs must be at least 1 (for no model: ecgpipe analyze)");
  if (o.train.epochs > kMaxEpochs) throw UsageError("--epochs must be at most " + std::to_string(kMaxEpochs));
  if (o.train.batch_size < 0) throw UsageError("--batch-size must be at least 1 (or 0: automatic)");
  if (!(o.outlier_quantile > 0.0 && o.outlier_quantile < 1.0)) throw UsageError("--outlier-quantile must lie in (0, 1)");
  if (o.top_outliers < 1) throw UsageError("--top must be at least 1");
}

Device resolve_device(Device requested) {
  if (requested == Device::cpu) return Device::cpu;
  if (cuda_usable()) return Device::cuda;
  if (requested == Device::cuda) {
#ifdef ECGPIPE_WITH_CUDA
    throw DeviceError("--device cuda: no usable CUDA device, or LibTorch was built without CUDA");
#else
    throw DeviceError("--device cuda: this ecgpipe was built without CUDA");
#endif
  }
  return Device::cpu;
}

void check_windows(const SampleWindows& w, double fs) {
  // Upper bounds as durations, far beyond any physiological value, so that a typo cannot
  // overflow an index or allocate gigabytes: the Ricker wavelet (default 0.12 s) spans a QRS;
  // the NMS window (0.72 s) and the beat lengths (0.4 s, 1.024 s) an RR interval, and no RR
  // interval of a living heart lasts kMaxBeatSeconds.
  constexpr double kMaxRickerSeconds = 1.0, kMaxBeatSeconds = 10.0;
  const auto bound = [fs](double seconds) { return std::max(1, static_cast<int>(std::floor(seconds * fs))); };
  const auto check = [](const char* option, int value, int lo, int hi, double seconds) {
    if (value >= lo && value <= hi) return;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s must lie in %d..%d samples (%g s at this sampling rate), got %d", option, lo, hi,
                  seconds, value);
    throw UsageError(buf);
  };
  validate_fs(fs);
  check("--ricker-width", w.ricker_width, 2, std::max(2, bound(kMaxRickerSeconds)), kMaxRickerSeconds);
  check("--nms-window", w.nms_window, kMinNmsWindow, std::max(kMinNmsWindow, bound(kMaxBeatSeconds)), kMaxBeatSeconds);
  check("--min-length", w.min_length, 1, bound(kMaxBeatSeconds), kMaxBeatSeconds);
  check("--max-length", w.max_length, 1, bound(kMaxBeatSeconds), kMaxBeatSeconds);
}

void check_model_parameters(const RunOptions& o, const std::string& model) {
  try {
    check_windows(SampleWindows{o.ricker_width, o.nms_window, o.limits.min_length, o.limits.max_length}, o.fs);
    if (o.limits.max_length % kModelLengthMultiple != 0 || o.limits.max_length < o.limits.min_length)
      throw UsageError("max_length " + std::to_string(o.limits.max_length) + " is not a beat length the model takes");
  } catch (const UsageError& e) {
    std::string what = e.what();
    for (auto at = what.find("--"); at != std::string::npos; at = what.find("--")) what.erase(at, 2);
    throw InputError("model " + model + " has a damaged ecgpipe record: " + what);
  }
}

}  // namespace ecgpipe
