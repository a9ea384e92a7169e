// Stage 2 on the CPU: the seed's Ricker band-pass (circular convolution in double), by overlap-save
// blocks on a fixed grid (see include/ecgpipe/signal/bandpass.hpp for why a grid).
// The FFT is LibTorch's (pocketfft in Debian's build, MKL in the PyTorch wheels, held to one thread
// here: with_one_fft_thread): already a dependency, fast on any size, and MIT-licensed (FFTW would
// be GPL; Debian's KISS FFT CMake config breaks under CMake 4: ../shared/GPU.md).
#include "ecgpipe/signal/bandpass.hpp"

#include <dlfcn.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

std::vector<double> ricker_wavelet(int width) {
  if (width < 2) throw UsageError("--ricker-width must be at least 2 samples, got " + std::to_string(width));
  std::vector<double> w(static_cast<std::size_t>(width));
  // Same arithmetic as the seed: t = linspace(-3, 3, width); 2/sqrt(width) normalisation.
  const double step = 2.0 * kRickerHalfRange / (width - 1);
  const double scale = 2.0 / std::sqrt(static_cast<double>(width));
  for (int j = 0; j < width; ++j) {
    // numpy.linspace: start + j * step, with the last point set to `stop` exactly.
    const double t = j == width - 1 ? kRickerHalfRange : -kRickerHalfRange + step * j;
    w[static_cast<std::size_t>(j)] = scale * std::exp(-0.5 * t * t) * (1.0 - t * t);
  }
  return w;
}

namespace {

// MKL's thread count for the calling thread alone (MKL_Set_Num_Threads_Local), looked up at run
// time: LibTorch's CPU FFT is MKL's in the PyTorch wheels, and MKL computes one transform
// differently on 1 and on 2, 4 or 16 threads (the GPU host's LibTorch 2.11, 2026-11-26: irfft(rfft(x))
// of 65536 doubles, other bits for each count; so the band-pass, the seed preset's gates and with
// them the R peaks depended on --threads and OMP_NUM_THREADS). Null where LibTorch has no MKL
// (Debian's: pocketfft, whose bits did not change with the count). Looked up in the loaded
// libtorch_cpu first: the Python module's LibTorch is not in the global namespace.
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

}  // namespace

struct BandpassBlocks::Spectrum {
  torch::Tensor kernel;  // complex128, fft_length/2 + 1
};

BandpassBlocks::BandpassBlocks(int width) : width_(width), wavelet_(ricker_wavelet(width)) {
  constexpr std::int64_t kBaseLength = std::int64_t{1} << 16;
  length_ = kBaseLength;
  while (length_ < 4 * static_cast<std::int64_t>(width - 1)) length_ *= 2;
  torch::NoGradGuard no_grad;
  auto k = torch::zeros({length_}, torch::TensorOptions().dtype(torch::kFloat64));
  std::memcpy(k.data_ptr<double>(), wavelet_.data(), wavelet_.size() * sizeof(double));
  torch::Tensor spectrum;
  with_one_fft_thread([&] { spectrum = torch::fft::rfft(k); });
  spectrum_ = std::make_unique<Spectrum>(Spectrum{std::move(spectrum)});
}

BandpassBlocks::~BandpassBlocks() = default;

void BandpassBlocks::block(const float* input, std::int64_t available, double* out, std::int64_t count) const {
  if (available < 0 || available > length_ || count < 0 || count > hop()) throw InternalError("BandpassBlocks::block: bad sizes");
  if (count == 0) return;
  torch::NoGradGuard no_grad;
  auto x = torch::zeros({length_}, torch::TensorOptions().dtype(torch::kFloat64));
  double* xd = x.data_ptr<double>();
  for (std::int64_t i = 0; i < available; ++i) xd[i] = static_cast<double>(input[i]);
  // Circular convolution of length L: its outputs width-1 .. L-1 are the linear convolution's.
  with_one_fft_thread([&] {
    const auto y = torch::fft::irfft(torch::fft::rfft(x) * spectrum_->kernel, length_).contiguous();
    std::memcpy(out, y.data_ptr<double>() + (width_ - 1), static_cast<std::size_t>(count) * sizeof(double));
  });
}

double BandpassBlocks::wrapped_output(const float* head, const float* tail, std::int64_t n, std::int64_t i) const {
  const std::int64_t m = std::min<std::int64_t>(n, width_ - 1);
  double sum = 0.0;
  for (std::int64_t j = 0; j < width_; ++j) {
    std::int64_t s = (i - j) % n;
    if (s < 0) s += n;
    // s <= i < m lies in the head; a wrapped s = n + i - j > n - width + i >= n - m in the tail.
    const float v = s < m ? head[s] : tail[s - (n - m)];
    sum += wavelet_[static_cast<std::size_t>(j)] * static_cast<double>(v);
  }
  return sum;
}

std::vector<double> bandpass_cpu(const std::vector<float>& signal, int width) {
  const BandpassBlocks blocks(width);
  const auto n = static_cast<std::int64_t>(signal.size());
  std::vector<double> out(signal.size());
  const std::int64_t wrapped = std::min<std::int64_t>(n, width - 1);
  for (std::int64_t i = 0; i < wrapped; ++i)
    out[static_cast<std::size_t>(i)] = blocks.wrapped_output(signal.data(), signal.data() + (n - wrapped), n, i);
  const std::int64_t hop = blocks.hop();
  for (std::int64_t k = 0; k * hop + (width - 1) < n; ++k) {
    const std::int64_t begin = k * hop, first = begin + (width - 1);
    blocks.block(signal.data() + begin, std::min(blocks.fft_length(), n - begin), out.data() + first,
                 std::min(hop, n - first));
  }
  return out;
}

}  // namespace ecgpipe
