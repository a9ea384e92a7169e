// Shared CUDA plumbing: the one place a failed CUDA call becomes an exception.
#include "ecgpipe/cuda.hpp"

#include <string>

namespace ecgpipe {

void throw_cuda_error(const char* call, const char* message, const char* file, int line) {
  throw CudaError(std::string(call) + " failed: " + message + " (" + file + ":" + std::to_string(line) + ")");
}

bool cuda_device_available() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear the (non-sticky) error so later checked calls don't see it
    return false;
  }
  return count > 0;
}

}  // namespace ecgpipe

namespace ecgpipe {

std::string cuda_device_summary() {
  int driver = 0, runtime = 0, device = 0;
  ECGPIPE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  ECGPIPE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  ECGPIPE_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  ECGPIPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  // CUDA encodes versions as 1000 * major + 10 * minor.
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  return std::string(prop.name) + ", compute capability " + std::to_string(prop.major) + "." +
         std::to_string(prop.minor) + ", " + std::to_string(prop.totalGlobalMem >> 20) + " MiB; driver supports CUDA " +
         version(driver) + ", runtime " + version(runtime);
}

}  // namespace ecgpipe
