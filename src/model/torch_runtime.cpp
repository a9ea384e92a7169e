// LibTorch's runtime as the rest of ecgpipe sees it (include/ecgpipe/model/vae.hpp): version, CUDA,
// CPU threads.
#include <torch/torch.h>

#include "ecgpipe/model/torch_runtime.hpp"

namespace ecgpipe {

std::string torch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

bool torch_cuda_available() { return torch::cuda::is_available(); }

void set_cpu_threads(int threads) {
  if (threads > 0) at::set_num_threads(threads);
}

int cpu_threads() { return at::get_num_threads(); }

}  // namespace ecgpipe
