// Internal: a circular convolution with one fixed kernel by FFT, the CPU band-pass's arithmetic
// (bandpass.cpp). Declared here, defined beside the model (src/model/torch_fft.cpp): its FFT is
// LibTorch's, and LibTorch is model code's alone, loaded only by the commands that need it
// (src/model/torch_module_loader.cpp). The interface keeps the band-pass free of LibTorch's headers.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace ecgpipe {

class CircularConvolution {
 public:
  virtual ~CircularConvolution() = default;
  // y[i] = sum over j of kernel[j] * x[(i - j) mod length], i < length; x and y hold length values
  // (the caller's zero padding included).
  virtual void apply(const double* x, double* y) const = 0;
};

// `kernel` zero-padded to `length` (>= kernel.size()); the same bits for a given input whatever
// the process's thread counts (see torch_fft.cpp).
std::unique_ptr<CircularConvolution> make_circular_convolution(const std::vector<double>& kernel, std::int64_t length);

}  // namespace ecgpipe
