// LibTorch's runtime as the rest of ecgpipe sees it (include/ecgpipe/model/torch_runtime.hpp):
// version, CUDA, threads. With LibTorch: in libecgpipe_torch.so for the command line, linked into
// the tests and the Python module (whose load_torch_in_background has nothing to do).
#include <torch/torch.h>

#include "ecgpipe/model/torch_runtime.hpp"
#include "model/torch_module.hpp"

namespace ecgpipe {

std::string torch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

bool torch_cuda_available() { return torch::cuda::is_available(); }

int torch_threads() { return at::get_num_threads(); }

bool torch_loaded() { return true; }

// LibTorch is linked in (the tests, the Python module) or this is the module itself: nothing to load.
void load_torch_in_background() {}

namespace detail {
void set_torch_threads(int threads) {
  if (threads > 0) at::set_num_threads(threads);
}
}  // namespace detail

}  // namespace ecgpipe
