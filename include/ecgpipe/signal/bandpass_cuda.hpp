// Stage 2, the band-pass on the GPU (cuFFT) (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/signal/bandpass.hpp.
#pragma once

#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

// GPU path: cuFFT double R2C, pointwise product with the wavelet's spectrum, C2R, scaled by 1/n.
// The wavelet is generated on the device. `out` must hold signal.size elements.
class BandpassPlan {
 public:
  BandpassPlan(std::size_t n, int width, cudaStream_t stream);
  ~BandpassPlan();
  BandpassPlan(const BandpassPlan&) = delete;
  BandpassPlan& operator=(const BandpassPlan&) = delete;
  void run(DeviceSpan<const float> signal, DeviceSpan<double> out, cudaStream_t stream);

 private:
  struct Impl;
  Impl* impl_ = nullptr;
};

}  // namespace ecgpipe
