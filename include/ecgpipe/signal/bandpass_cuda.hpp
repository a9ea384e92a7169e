// Stage 2, the band-pass on the GPU (cuFFT) (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/signal/bandpass.hpp.
//
// The GPU computes the CPU's own decomposition (bandpass.hpp): overlap-save blocks on the fixed
// grid of BandpassBlocks (block k takes x[k*hop, k*hop + L), zero past the end, and gives the
// outputs k*hop + width-1 .. k*hop + L-1), and the first width-1 outputs (the circular wrap-around)
// as direct sums over the taps in tap order. A block's bits depend only on its own input, and the
// blocks always go through cuFFT kBatch at a time with the same plans (unused slots zero), so a
// recording streamed through the GPU in chunks (issue 29) gets the same bits as one run whole.
// cuFFT vs pocketfft: GPU and CPU differ by round-off only.
#pragma once

#include <cstdint>

#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

class BandpassBlocksCuda {
 public:
  // Blocks per cuFFT execution (16 MiB of doubles a batch at L = 2^16). Fixed: cuFFT may choose
  // another algorithm for another batch count, which would change a block's bits.
  static constexpr std::int64_t kBatch = 32;

  BandpassBlocksCuda(int width, RickerTaps taps, cudaStream_t stream);  // UsageError if width < 2
  ~BandpassBlocksCuda();
  BandpassBlocksCuda(const BandpassBlocksCuda&) = delete;
  BandpassBlocksCuda& operator=(const BandpassBlocksCuda&) = delete;

  int width() const { return width_; }
  std::int64_t fft_length() const { return length_; }     // as BandpassBlocks::fft_length()
  std::int64_t hop() const { return length_ - (width_ - 1); }
  // Device memory held (the batch buffers, the spectrum, the taps, cuFFT's work area).
  std::size_t device_bytes() const;

  // Blocks [first, last) of a signal of which `end` samples are known (the whole length n once
  // the end is reached): block k reads x[k*hop, min(k*hop + L, end)), zero beyond, and writes its
  // outputs k*hop + width-1 .. min(k*hop + L, end) - 1. `x` holds samples [x_begin, x_begin +
  // x.size), which must cover every such input; `out` holds outputs [out_begin, out_begin +
  // out.size), which must cover every such output. InternalError otherwise.
  void run(DeviceSpan<const float> x, std::int64_t x_begin, std::int64_t end, std::int64_t first, std::int64_t last,
           DeviceSpan<double> out, std::int64_t out_begin, cudaStream_t stream);
  // The wrap-around outputs 0 .. m-1 of an n-sample signal, m = min(n, width-1), as
  // BandpassBlocks::wrapped_output (a thread per output, taps in order, no FMA): head = x[0, m),
  // tail = x[n-m, n); out holds m values.
  void wrapped(DeviceSpan<const float> head, DeviceSpan<const float> tail, std::int64_t n, DeviceSpan<double> out,
               cudaStream_t stream);
  // The blocks an n-sample signal needs: those with an output at or past width-1 below n.
  std::int64_t blocks_for(std::int64_t n) const {
    const std::int64_t w1 = width_ - 1;
    return n <= w1 ? 0 : (n - w1 + hop() - 1) / hop();
  }

 private:
  struct Impl;
  void join(cudaStream_t stream);
  void rejoin(cudaStream_t stream);
  int width_;
  std::int64_t length_;
  Impl* impl_ = nullptr;
};

// The whole signal at once: every block of BandpassBlocksCuda, then the wrap-around. `out` must
// hold signal.size elements; run() must get the n of construction.
class BandpassPlan {
 public:
  BandpassPlan(std::size_t n, int width, RickerTaps taps, cudaStream_t stream);
  ~BandpassPlan();
  BandpassPlan(const BandpassPlan&) = delete;
  BandpassPlan& operator=(const BandpassPlan&) = delete;
  void run(DeviceSpan<const float> signal, DeviceSpan<double> out, cudaStream_t stream);

 private:
  std::int64_t n_;
  BandpassBlocksCuda blocks_;
};

}  // namespace ecgpipe
