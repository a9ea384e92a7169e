// Stage 2 on the CPU: the seed's Ricker band-pass (circular convolution in double), by overlap-save
// blocks on a fixed grid (see include/ecgpipe/signal/bandpass.hpp for why a grid).
// The FFT is LibTorch's, behind src/signal/circular_convolution.hpp (src/model/torch_fft.cpp).
#include "ecgpipe/signal/bandpass.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "ecgpipe/common/error.hpp"
#include "signal/circular_convolution.hpp"

namespace ecgpipe {

std::vector<double> ricker_wavelet(int width, RickerTaps taps) {
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
  if (taps == RickerTaps::zero_sum) {
    double sum = 0.0;
    for (const double v : w) sum += v;
    const double mean = sum / width;
    for (double& v : w) v -= mean;
  }
  return w;
}

BandpassBlocks::BandpassBlocks(int width, RickerTaps taps) : width_(width), wavelet_(ricker_wavelet(width, taps)) {
  constexpr std::int64_t kBaseLength = std::int64_t{1} << 16;
  length_ = kBaseLength;
  while (length_ < 4 * static_cast<std::int64_t>(width - 1)) length_ *= 2;
  convolution_ = make_circular_convolution(wavelet_, length_);
}

BandpassBlocks::~BandpassBlocks() = default;

void BandpassBlocks::block(const float* input, std::int64_t available, double* out, std::int64_t count) const {
  if (available < 0 || available > length_ || count < 0 || count > hop()) throw InternalError("BandpassBlocks::block: bad sizes");
  if (count == 0) return;
  // Circular convolution of length L: its outputs width-1 .. L-1 are the linear convolution's.
  convolution_->apply(input, available, out, width_ - 1, count);
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

std::vector<double> bandpass_cpu(const std::vector<float>& signal, int width, RickerTaps taps) {
  const BandpassBlocks blocks(width, taps);
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
