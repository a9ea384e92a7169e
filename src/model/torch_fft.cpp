// The CPU band-pass's circular convolution (src/signal/circular_convolution.hpp) by LibTorch's FFT:
// pocketfft in Debian's build, MKL in the PyTorch wheels, held to one thread here
// (with_one_fft_thread). LibTorch's because it is already a dependency, fast on any size and
// MIT-licensed (FFTW would be GPL; Debian's KISS FFT CMake config breaks under CMake 4:
// ../shared/GPU.md).
#include "signal/circular_convolution.hpp"

#include <dlfcn.h>
#include <torch/torch.h>

#include <cstring>
#include <utility>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// MKL's thread count for the calling thread alone (MKL_Set_Num_Threads_Local), looked up at run
// time: LibTorch's CPU FFT is MKL's in the PyTorch wheels, and MKL computes one transform
// differently on 1 and on 2, 4 or 16 threads (the GPU host's LibTorch 2.11, 2026-11-26: irfft(rfft(x))
// of 65536 doubles, other bits for each count; so the band-pass, the seed preset's gates and with
// them the R peaks depended on --threads and OMP_NUM_THREADS). Null where LibTorch has no MKL
// (Debian's: pocketfft, whose bits did not change with the count). Looked up in the loaded
// libtorch_cpu first: neither the Python module's LibTorch nor the command line's (loaded with
// dlopen) is in the global namespace.
using SetLocalThreads = int (*)(int);
SetLocalThreads mkl_set_local_threads() {
  static const SetLocalThreads fn = [] {
    constexpr const char* kName = "MKL_Set_Num_Threads_Local";
    void* symbol = nullptr;
    if (void* lib = ::dlopen("libtorch_cpu.so", RTLD_LAZY | RTLD_NOLOAD)) {
      symbol = ::dlsym(lib, kName);
      ::dlclose(lib);  // NOLOAD took a reference to a library that stays loaded
    }
    if (symbol == nullptr) symbol = ::dlsym(RTLD_DEFAULT, kName);
    return reinterpret_cast<SetLocalThreads>(symbol);
  }();
  return fn;
}

// Runs `transform` with LibTorch's FFT on one MKL thread in this thread (other threads keep
// theirs): the same bits whatever the thread count. The blocks are small enough (2^16 points)
// that one thread costs little; the count goes back to what it was, also on an exception.
template <typename F>
void with_one_fft_thread(F&& transform) {
  const SetLocalThreads set = mkl_set_local_threads();
  if (set == nullptr) {
    transform();
    return;
  }
  struct Restore {
    SetLocalThreads set;
    int before;
    ~Restore() { set(before); }
  } restore{set, set(1)};
  transform();
}

class TorchCircularConvolution final : public CircularConvolution {
 public:
  TorchCircularConvolution(const std::vector<double>& kernel, std::int64_t length) : length_(length) {
    if (length <= 0 || static_cast<std::int64_t>(kernel.size()) > length)
      throw InternalError("make_circular_convolution: kernel longer than the transform");
    torch::NoGradGuard no_grad;
    auto k = torch::zeros({length_}, torch::TensorOptions().dtype(torch::kFloat64));
    std::memcpy(k.data_ptr<double>(), kernel.data(), kernel.size() * sizeof(double));
    with_one_fft_thread([&] { spectrum_ = torch::fft::rfft(k); });  // complex128, length/2 + 1
  }

  void apply(const float* input, std::int64_t available, double* out, std::int64_t first,
             std::int64_t count) const override {
    if (available < 0 || available > length_ || first < 0 || count < 0 || first + count > length_)
      throw InternalError("CircularConvolution::apply: bad sizes");
    torch::NoGradGuard no_grad;
    auto x = torch::zeros({length_}, torch::TensorOptions().dtype(torch::kFloat64));
    double* xd = x.data_ptr<double>();
    for (std::int64_t i = 0; i < available; ++i) xd[i] = static_cast<double>(input[i]);
    with_one_fft_thread([&] {
      const auto y = torch::fft::irfft(torch::fft::rfft(x) * spectrum_, length_).contiguous();
      std::memcpy(out, y.data_ptr<double>() + first, static_cast<std::size_t>(count) * sizeof(double));
    });
  }

 private:
  std::int64_t length_;
  torch::Tensor spectrum_;
};

}  // namespace

std::unique_ptr<CircularConvolution> make_circular_convolution(const std::vector<double>& kernel, std::int64_t length) {
  return std::make_unique<TorchCircularConvolution>(kernel, length);
}

}  // namespace ecgpipe
