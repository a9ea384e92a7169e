// Stage 2: Ricker band-pass by FFT convolution (the seed's "curvature" signal).
//
// Seed semantics: the wavelet has `width` taps sampled on t = linspace(-3, 3, width),
//   w[j] = 2/sqrt(width) * exp(-t_j^2 / 2) * (1 - t_j^2)      (-d^2/dt^2 of a Gaussian)
// placed at the start of an n-long zero kernel, and the output is the *circular* convolution
//   y[i] = sum_j w[j] * x[(i - j) mod n],  i = 0..n-1,
// computed as irfft(rfft(x) * rfft(w)) in double precision. (Circular, not linear, to keep the
// seed's gates: only the first width-1 samples see the wrap-around.)
#pragma once

#include <vector>

#include "ecgpipe/config.hpp"

namespace ecgpipe {

// The seed's wavelet window on t in [-kRickerHalfRange, +kRickerHalfRange].
inline constexpr double kRickerHalfRange = 3.0;

// The `width` wavelet taps (double). Throws UsageError if width < 2.
std::vector<double> ricker_wavelet(int width);

// CPU reference via LibTorch's FFT (pocketfft) in double. Returns n values (empty for n == 0).
std::vector<double> bandpass_cpu(const std::vector<float>& signal, int width);

}  // namespace ecgpipe
