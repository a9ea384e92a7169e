// Internal: the functions of libecgpipe_torch.so, the model code and everything else that uses
// LibTorch, which the command line loads when first needed (torch_module_loader.cpp) instead of
// linking it (LibTorch's libraries take 0.3-0.5 s to load and initialise before main; docs/
// architecture.md "Targets"). The tests and the Python module link the same code directly.
// The table is the whole interface: ecgpipe's own types across it, one compiler and one build
// (the loader checks the build stamp), so no C ABI is needed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ecgpipe/config.hpp"
#include "ecgpipe/model/vae.hpp"
#include "signal/circular_convolution.hpp"

namespace ecgpipe::detail {

struct TorchModule {
  // torch_module_build_stamp() of the build that made the module: one from another is refused.
  const char* build;
  TrainResult (*train_and_score)(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                                 const std::string& meta_json, const ScoreFunction& score);
  TrainResult (*score_with_model)(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score);
  void (*normalise_rows_cpu)(float* rows, std::int64_t n, std::int64_t cols);
  std::unique_ptr<CircularConvolution> (*make_circular_convolution)(const std::vector<double>& kernel,
                                                                     std::int64_t length);
  void (*set_torch_threads)(int threads);
  int (*torch_threads)();
  bool (*torch_cuda_available)();
};

// The symbol libecgpipe_torch.so exports (extern "C": found by name with dlsym).
inline constexpr const char* kTorchModuleSymbol = "ecgpipe_torch_module";

// LibTorch's thread count, applied where LibTorch is (torch_runtime.cpp; the loader passes it on
// once the module is loaded).
void set_torch_threads(int threads);
// The count set with set_cpu_threads, 0 if none (cpu_threads.cpp).
int requested_cpu_threads();

// What the loader and the module must agree on, compiled into both: the version, the compiler and
// the sizes of the types that cross (a module from another build or compiler is refused).
inline std::string torch_module_build_stamp() {
  return std::string("ecgpipe " ECGPIPE_VERSION ", " __VERSION__ ", ") + std::to_string(sizeof(TorchModule)) + "/" +
         std::to_string(sizeof(TrainOptions)) + "/" + std::to_string(sizeof(TrainResult)) + "/" +
         std::to_string(sizeof(BeatMatrix));
}

}  // namespace ecgpipe::detail
