// Stage 2 on the CPU: the seed's Ricker band-pass as a circular FFT convolution in double.
// The FFT is LibTorch's (pocketfft): already a dependency, fast on any size, and MIT-licensed
// (FFTW would be GPL; Debian's KISS FFT CMake config breaks under CMake 4, see README).
#include "ecgpipe/bandpass.hpp"

#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <string>

#include "ecgpipe/error.hpp"

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

std::vector<double> bandpass_cpu(const std::vector<float>& signal, int width) {
  const std::vector<double> wavelet = ricker_wavelet(width);
  const auto n = static_cast<std::int64_t>(signal.size());
  if (n == 0) return {};
  torch::NoGradGuard no_grad;
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  // from_blob does not copy; .to(kFloat64) makes the double copy the FFT works on.
  auto x = torch::from_blob(const_cast<float*>(signal.data()), {n}, torch::kFloat32).to(torch::kFloat64);
  auto k = torch::zeros({n}, f64);
  // A wavelet longer than the signal wraps around, exactly as a circular convolution would.
  auto k_acc = k.accessor<double, 1>();
  for (std::size_t j = 0; j < wavelet.size(); ++j) k_acc[static_cast<std::int64_t>(j % n)] += wavelet[j];
  auto y = torch::fft::irfft(torch::fft::rfft(x) * torch::fft::rfft(k), n).contiguous();
  std::vector<double> out(static_cast<std::size_t>(n));
  std::memcpy(out.data(), y.data_ptr<double>(), out.size() * sizeof(double));
  return out;
}

}  // namespace ecgpipe
