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
  // y[i] = sum over j of kernel[j] * x[(i - j) mod length], i < length, where x is
  // input[0 .. available) as doubles and zero after it (available <= length); writes
  // y[first .. first + count) to out (first + count <= length). The block's own buffers, not the
  // caller's: one copy in and out per block, as when the band-pass held the tensors itself.
  virtual void apply(const float* input, std::int64_t available, double* out, std::int64_t first,
                     std::int64_t count) const = 0;
};

// `kernel` zero-padded to `length` (>= kernel.size()); the same bits for a given input whatever
// the process's thread counts (see torch_fft.cpp).
std::unique_ptr<CircularConvolution> make_circular_convolution(const std::vector<double>& kernel, std::int64_t length);

}  // namespace ecgpipe
