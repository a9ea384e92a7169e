// Shared CUDA plumbing: the one place a failed CUDA call becomes an exception.
#include "ecgpipe/common/cuda.hpp"

#include "ecgpipe/config.hpp"  // ECGPIPE_CUDA_ARCHITECTURES

#include <string>

namespace ecgpipe {

void throw_cuda_error(const char* call, const char* message, const char* file, int line) {
  throw CudaError(std::string(call) + " failed: " + message + " (" + file + ":" + std::to_string(line) + ")");
}

const char* built_cuda_architectures() { return ECGPIPE_CUDA_ARCHITECTURES; }

void throw_no_kernel_image(cudaError_t status, const char* call) {
  std::string gpu = "this GPU";
  int device = 0, major = 0, minor = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    major = prop.major;
    minor = prop.minor;
    gpu = std::string(prop.name) + " (compute capability " + std::to_string(major) + "." + std::to_string(minor) + ", sm_" +
          std::to_string(major * 10 + minor) + ")";
  }
  (void)cudaGetLastError();  // the queries above may have failed too; the error is reported here
  const std::string want = major > 0 ? std::to_string(major * 10 + minor) : "<your GPU's>";
  const std::string fix = status == cudaErrorUnsupportedPtxVersion
                              ? "update the NVIDIA driver (it is older than the PTX), rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + want +
                                    "-real, or run with --device cpu"
                              : "rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + want + " or run with --device cpu";
  throw DeviceError(std::string("no CUDA kernel image for ") + gpu + ": this ecgpipe holds code for CUDA architectures " +
                    built_cuda_architectures() + "; " + fix + " (" + call + ": " + cudaGetErrorString(status) + ")");
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
