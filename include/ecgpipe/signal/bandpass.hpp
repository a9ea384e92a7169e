// Stage 2: Ricker band-pass by FFT convolution (the seed's "curvature" signal).
//
// Seed semantics: the wavelet has `width` taps sampled on t = linspace(-3, 3, width),
//   w[j] = 2/sqrt(width) * exp(-t_j^2 / 2) * (1 - t_j^2)      (-d^2/dt^2 of a Gaussian)
// placed at the start of an n-long zero kernel, and the output is the *circular* convolution
//   y[i] = sum_j w[j] * x[(i - j) mod n],  i = 0..n-1,
// in double precision. (Circular, not linear, to keep the seed's gates: only the first width-1
// samples see the wrap-around.)
//
// How the CPU computes it, so that a recording read in chunks gets the same bits as one read
// whole (issue 12): outputs i >= width-1 are a linear convolution, computed by overlap-save on a
// fixed grid of FFT blocks (block k takes x[k*hop, k*hop + L), zero past the end, and gives the
// outputs k*hop + width-1 .. k*hop + L-1; L and hop depend on width alone). A block's bits depend
// only on its own input, so any chunking that hands each block its whole input computes the same
// values. The first width-1 outputs (the wrap-around) are direct sums over the taps in tap order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ecgpipe/config.hpp"

namespace ecgpipe {

class CircularConvolution;  // src/signal/circular_convolution.hpp

// The seed's wavelet window on t in [-kRickerHalfRange, +kRickerHalfRange].
inline constexpr double kRickerHalfRange = 3.0;

// Which taps. `seed`: the wavelet as the seed samples it. Its taps do not sum to zero (0.088 at
// 30 taps, 0.117 at 43): it passes a constant at about a quarter of its largest tap, so an offset
// in the input (raw ADC counts about 1 024, a lead-off stretch held at a level) moved the robust
// detector's beats (docs/accuracy.md, "A constant offset"). `zero_sum`: the same taps less their
// mean, so a constant gives zero to round-off and the beats do not depend on the offset. The seed
// preset keeps `seed` (its gates are the seed notebook's); the robust preset uses `zero_sum`.
enum class RickerTaps { seed, zero_sum };

// The `width` wavelet taps (double). Throws UsageError if width < 2. zero_sum: the mean (the
// taps summed in index order, divided by width) subtracted from each.
std::vector<double> ricker_wavelet(int width, RickerTaps taps);

// The overlap-save blocks of the CPU band-pass (see the top of this file).
class BandpassBlocks {
 public:
  BandpassBlocks(int width, RickerTaps taps);  // UsageError if width < 2
  ~BandpassBlocks();
  BandpassBlocks(const BandpassBlocks&) = delete;
  BandpassBlocks& operator=(const BandpassBlocks&) = delete;

  int width() const { return width_; }
  // FFT length: 2^16 (a block's FFTs stay in L2 cache), doubled while it is under 4 x (width-1)
  // so that at least three quarters of every block is new output.
  std::int64_t fft_length() const { return length_; }
  // New outputs per block: fft_length() - (width - 1).
  std::int64_t hop() const { return length_ - (width_ - 1); }
  // Block k: `input` holds x[k*hop .. k*hop + available) (available <= fft_length(); the rest
  // is zero, as past the end of the signal); writes outputs k*hop + width-1 .. k*hop + L-1 of
  // them the first `count` (<= hop()) to out.
  void block(const float* input, std::int64_t available, double* out, std::int64_t count) const;
  // Output i < width-1 (the wrap-around) of an n-sample signal x, n > i: the sum over taps j in
  // order of w[j] * x[(i - j) mod n]. It reads only the signal's ends: `head` = x[0 .. m) and
  // `tail` = x[n-m .. n) with m = min(n, width-1).
  double wrapped_output(const float* head, const float* tail, std::int64_t n, std::int64_t i) const;

 private:
  int width_;
  std::int64_t length_;
  std::vector<double> wavelet_;
  std::unique_ptr<CircularConvolution> convolution_;  // by the wavelet zero-padded to fft_length()
};

// CPU reference: the whole signal through BandpassBlocks (LibTorch's FFT, double).
// Returns n values (empty for n == 0).
std::vector<double> bandpass_cpu(const std::vector<float>& signal, int width, RickerTaps taps);

}  // namespace ecgpipe
