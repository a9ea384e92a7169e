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
