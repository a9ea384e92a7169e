// CUDA plumbing shared by every GPU stage: error checks, the one owner of device memory
// (DeviceBuffer, move-only, stream-ordered) and the non-owning views kernels take.
// Only compiled when ECGPIPE_WITH_CUDA is defined.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

// Raised for any failed CUDA runtime/cuFFT call or kernel launch; carries where it happened.
struct CudaError : Error {
  explicit CudaError(const std::string& what) : Error(ExitCode::internal, what) {}
};

[[noreturn]] void throw_cuda_error(const char* call, const char* message, const char* file, int line);

// The binary holds no code this GPU can run (cudaErrorNoKernelImageForDevice: its architecture was
// not built; cudaErrorUnsupportedPtxVersion: the driver is older than the PTX): a DeviceError
// (exit 5) naming the GPU's compute capability and the architectures built.
[[noreturn]] void throw_no_kernel_image(cudaError_t status, const char* call);

// The CUDA architectures this binary was built for (CMAKE_CUDA_ARCHITECTURES, e.g. "75-real 90").
const char* built_cuda_architectures();

// One check for every library's status: an overload of check_status per status type (here the
// CUDA runtime's, which CUB returns too; cuFFT's beside its one user, kernels/signal/bandpass.cu), all
// ending in throw_cuda_error with the call's text and its file and line.
inline void check_status(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorUnsupportedPtxVersion) throw_no_kernel_image(status, call);
  throw_cuda_error(call, cudaGetErrorString(status), file, line);
}

}  // namespace ecgpipe

// ECGPIPE_CHECK(call): any CUDA runtime, CUB or cuFFT call; CudaError (exit 1) on failure.
#define ECGPIPE_CHECK(call) ::ecgpipe::check_status((call), #call, __FILE__, __LINE__)
// The same check under its older name (the CUDA runtime's calls across kernels/ and src/).
#define ECGPIPE_CUDA_CHECK(call) ECGPIPE_CHECK(call)
// After a <<<...>>> launch: catches bad launch configurations at once (asynchronous faults
// surface at the next synchronizing call, which is checked too).
#define ECGPIPE_CUDA_CHECK_LAUNCH(name) \
  ::ecgpipe::check_status(cudaGetLastError(), "launch of " name, __FILE__, __LINE__)

namespace ecgpipe {

// Non-owning view of device memory: what kernels and launchers take.
template <class T>
struct DeviceSpan {
  T* data = nullptr;
  std::size_t size = 0;
  bool empty() const { return size == 0; }
};

// The single owner of a device allocation. Allocation and release are stream-ordered
// (cudaMallocAsync / cudaFreeAsync on the stream given at construction), so no call here
// synchronizes the device.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, cudaStream_t stream) : size_(count), stream_(stream) {
    if (count > 0) {
      ECGPIPE_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&data_), count * sizeof(T), stream));
    }
  }
  ~DeviceBuffer() { reset(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      swap(other);
    }
    return *this;
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  cudaStream_t stream() const { return stream_; }
  DeviceSpan<T> span() const { return {data_, size_}; }
  DeviceSpan<const T> cspan() const { return {data_, size_}; }

  // Gives up ownership (e.g. to a torch::from_blob deleter); the caller must cudaFreeAsync it.
  T* release() {
    T* p = data_;
    data_ = nullptr;
    size_ = 0;
    return p;
  }

  // Orders the buffer's release on `stream` from now on (another thread's stream, say). The caller
  // makes sure that its work on the old stream has finished (a host wait) before `stream` frees it.
  void set_stream(cudaStream_t stream) { stream_ = stream; }

  void reset() noexcept {
    // A destructor must not throw: a failed free here means the context is already broken and
    // the failure has been (or will be) reported by the checked call that broke it.
    if (data_ != nullptr) (void)cudaFreeAsync(data_, stream_);
    data_ = nullptr;
    size_ = 0;
  }

 private:
  void swap(DeviceBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(stream_, o.stream_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

// A non-blocking CUDA stream, owned: destroyed after its queued work (stream-ordered frees
// included) has finished. Non-blocking, so no work silently relies on the legacy default stream.
class Stream {
 public:
  Stream() { ECGPIPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    (void)cudaStreamSynchronize(stream_);
    (void)cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// A CUDA event, owned. Synchronisation only by default; cudaEventDefault for one that
// cudaEventElapsedTime can time.
class Event {
 public:
  explicit Event(unsigned int flags = cudaEventDisableTiming) { ECGPIPE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
  ~Event() { (void)cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  operator cudaEvent_t() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Page-locked host memory (cudaHostAlloc), owned, so cudaMemcpyAsync from it is truly asynchronous.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) { ECGPIPE_CUDA_CHECK(cudaHostAlloc(&data_, bytes, cudaHostAllocDefault)); }
  ~PinnedBuffer() { (void)cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
};

// Host <-> device helpers (checked, asynchronous on `stream`).
template <class T>
void copy_to_device(DeviceSpan<T> dst, const T* src, std::size_t count, cudaStream_t stream) {
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(dst.data, src, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}
template <class T>
void copy_to_host(T* dst, DeviceSpan<const T> src, std::size_t count, cudaStream_t stream) {
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(dst, src.data, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
}

// True if a CUDA device can be used by this process (never throws).
bool cuda_device_available();
// The current device, its compute capability and memory, the driver's and runtime's CUDA versions.
std::string cuda_device_summary();

}  // namespace ecgpipe
