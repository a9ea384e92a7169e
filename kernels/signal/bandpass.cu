// Stage 2 on the GPU: the seed's Ricker band-pass in double, by the CPU's overlap-save blocks on
// their fixed grid (include/ecgpipe/signal/bandpass_cuda.hpp says why a grid).
//
// BandpassBlocksCuda does the set-up once: two batched cuFFT plans (D2Z and Z2D of length L,
// kBatch blocks each, sharing one stream-ordered work area), the wavelet's taps (generated on the
// device with the CPU's formula) and their spectrum. run() then takes kBatch blocks at a time:
// gather each block's input widened to double (zero past the known end and in unused slots),
// D2Z, pointwise product with the wavelet spectrum scaled by 1/L, Z2D, and scatter each block's
// outputs width-1 .. L-1 to their places. wrapped() gives the first width-1 outputs as direct
// sums. Nothing in here synchronizes the host.
#include <cufft.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ecgpipe/signal/bandpass_cuda.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe {
namespace {

using launch::grid_for;
using launch::kBlockSize;

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cufftResult";
  }
}

}  // namespace

// cuFFT's overload of the one status check (include/ecgpipe/common/cuda.hpp, ECGPIPE_CHECK); in ecgpipe
// itself, beside the CUDA runtime's, so that ECGPIPE_CHECK's qualified call finds both.
void check_status(cufftResult status, const char* call, const char* file, int line) {
  if (status != CUFFT_SUCCESS) {
    const std::string message = std::string(cufft_result_name(status)) + " (cufftResult " +
                                std::to_string(static_cast<int>(status)) + ")";
    throw_cuda_error(call, message.c_str(), file, line);
  }
}

namespace {


// Block inputs: slot b of the batch holds block first + b (zero for slots past `last`), its
// sample j = x[(first + b) * hop + j] widened to double, zero at or past `end`.
// Mapping: one thread per batch element (slot, j) (grid-stride over kBatch x L).
__global__ void gather_blocks(DeviceSpan<const float> x, std::int64_t x_begin, std::int64_t end, std::int64_t first,
                              std::int64_t last, std::int64_t hop, std::int64_t length, std::int64_t batch, double* blocks) {
  const std::int64_t total = batch * length;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t k = first + t / length;
    const std::int64_t s = k * hop + t % length;
    blocks[t] = (k < last && s < end) ? static_cast<double>(x.data[s - x_begin]) : 0.0;
  }
}

// X[b][f] <- X[b][f] * W[f] / L: the un-normalized inverse transform then gives the convolution.
// Mapping: one thread per (slot, bin) (grid-stride over kBatch x bins).
__global__ void multiply_spectra(cufftDoubleComplex* x, const cufftDoubleComplex* w, std::int64_t bins, std::int64_t batch,
                                 double inv_length) {
  const std::int64_t total = batch * bins;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const cufftDoubleComplex a = x[t];
    const cufftDoubleComplex b = w[t % bins];
    cufftDoubleComplex r;
    r.x = (a.x * b.x - a.y * b.y) * inv_length;
    r.y = (a.x * b.y + a.y * b.x) * inv_length;
    x[t] = r;
  }
}

// Block k's circular outputs width-1 .. L-1 are the linear convolution's outputs k*hop + width-1
// onwards; those below `end` go to out[o - out_begin].
// Mapping: one thread per (slot, new output j < hop) (grid-stride over kBatch x hop).
__global__ void scatter_blocks(const double* blocks, std::int64_t end, std::int64_t first, std::int64_t last,
                               std::int64_t hop, std::int64_t length, std::int64_t w1, std::int64_t batch, double* out,
                               std::int64_t out_begin) {
  const std::int64_t total = batch * hop;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t slot = t / hop, j = t % hop;
    const std::int64_t k = first + slot;
    const std::int64_t o = k * hop + w1 + j;
    if (k < last && o < end) out[o - out_begin] = blocks[slot * length + w1 + j];
  }
}

// The wrap-around outputs i < m = min(n, width-1): sum over taps j in order of w[j] * x[(i - j)
// mod n], each product and sum rounded on its own (the CPU's arithmetic, no FMA). x[s] is head[s]
// for s < m, else tail[s - (n - m)] (a wrapped s = n + i - j lies in the last m samples).
// Mapping: one thread per output i (grid-stride over [0, m)).
__global__ void wrapped_outputs(DeviceSpan<const float> head, DeviceSpan<const float> tail, std::int64_t n,
                                const double* taps, int width, double* out) {
  const auto m = static_cast<std::int64_t>(head.size);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += stride) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < width; ++j) {
      std::int64_t s = (i - j) % n;
      if (s < 0) s += n;
      const float v = s < m ? head.data[s] : tail.data[s - (n - m)];
      sum = __dadd_rn(sum, __dmul_rn(taps[j], static_cast<double>(v)));
    }
    out[i] = sum;
  }
}

}  // namespace

struct BandpassBlocksCuda::Impl {
  cudaStream_t stream = nullptr;  // construction stream: owns the buffers' stream-ordered lifetime
  cudaEvent_t joined = nullptr;   // orders work between the construction stream and run()'s stream
  bool have_plans = false;
  cufftHandle forward = 0;
  cufftHandle inverse = 0;
  std::size_t work_bytes = 0;
  DeviceBuffer<double> taps;                   // the width taps (wrapped outputs)
  DeviceBuffer<cufftDoubleComplex> spectrum;   // rfft of the taps zero-padded to L: L/2 + 1 bins
  DeviceBuffer<double> blocks;                 // kBatch x L: block inputs, then outputs
  DeviceBuffer<cufftDoubleComplex> product;    // kBatch x (L/2 + 1)
  DeviceBuffer<unsigned char> work;            // cuFFT work area shared by both plans (same stream)

  ~Impl() {
    // Destructors must not throw; a failure here means the context is already broken.
    if (have_plans) {
      (void)cufftDestroy(forward);
      (void)cufftDestroy(inverse);
    }
    if (joined != nullptr) (void)cudaEventDestroy(joined);
  }
};

BandpassBlocksCuda::BandpassBlocksCuda(int width, RickerTaps taps, cudaStream_t stream) : width_(width) {
  // The CPU's own taps (UsageError if width < 2), copied: the GPU's band-pass then differs from
  // the CPU's by the FFTs' round-off alone.
  const std::vector<double> wavelet = ricker_wavelet(width, taps);
  // BandpassBlocks' length (bandpass.hpp): 2^16, doubled while under 4 x (width - 1).
  length_ = std::int64_t{1} << 16;
  while (length_ < 4 * static_cast<std::int64_t>(width - 1)) length_ *= 2;
  auto impl = new Impl;
  impl_ = impl;
  try {
    impl->stream = stream;
    ECGPIPE_CUDA_CHECK(cudaEventCreateWithFlags(&impl->joined, cudaEventDisableTiming));
    const std::int64_t bins = length_ / 2 + 1;
    impl->taps = DeviceBuffer<double>(wavelet.size(), stream);
    // From pageable memory: cudaMemcpyAsync returns once `wavelet` is staged, so it may go out of
    // scope before the copy completes on the stream.
    copy_to_device(impl->taps.span(), wavelet.data(), wavelet.size(), stream);
    impl->spectrum = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(bins), stream);
    impl->blocks = DeviceBuffer<double>(static_cast<std::size_t>(kBatch * length_), stream);
    impl->product = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(kBatch * bins), stream);

    // Plans with a caller-provided (stream-ordered) work area instead of cuFFT's own cudaMalloc.
    ECGPIPE_CHECK(cufftCreate(&impl->forward));
    if (cufftCreate(&impl->inverse) != CUFFT_SUCCESS) {
      (void)cufftDestroy(impl->forward);
      ECGPIPE_CHECK(cufftCreate(&impl->inverse));  // reports the failure
    }
    impl->have_plans = true;
    ECGPIPE_CHECK(cufftSetAutoAllocation(impl->forward, 0));
    ECGPIPE_CHECK(cufftSetAutoAllocation(impl->inverse, 0));
    long long dims[1] = {static_cast<long long>(length_)};
    std::size_t work_forward = 0;
    std::size_t work_inverse = 0;
    ECGPIPE_CHECK(cufftMakePlanMany64(impl->forward, 1, dims, nullptr, 1, length_, nullptr, 1, bins, CUFFT_D2Z, kBatch,
                                      &work_forward));
    ECGPIPE_CHECK(cufftMakePlanMany64(impl->inverse, 1, dims, nullptr, 1, bins, nullptr, 1, length_, CUFFT_Z2D, kBatch,
                                      &work_inverse));
    // At least one byte, so the plans never get a null work area.
    impl->work_bytes = std::max<std::size_t>({work_forward, work_inverse, 1});
    impl->work = DeviceBuffer<unsigned char>(impl->work_bytes, stream);
    ECGPIPE_CHECK(cufftSetWorkArea(impl->forward, impl->work.data()));
    ECGPIPE_CHECK(cufftSetWorkArea(impl->inverse, impl->work.data()));
    ECGPIPE_CHECK(cufftSetStream(impl->forward, stream));
    ECGPIPE_CHECK(cufftSetStream(impl->inverse, stream));

    // The wavelet spectrum, once: the taps in slot 0 of a zeroed batch through the same plan.
    ECGPIPE_CUDA_CHECK(cudaMemsetAsync(impl->blocks.data(), 0, impl->blocks.size() * sizeof(double), stream));
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(impl->blocks.data(), impl->taps.data(), static_cast<std::size_t>(width) * sizeof(double),
                                       cudaMemcpyDeviceToDevice, stream));
    ECGPIPE_CHECK(cufftExecD2Z(impl->forward, impl->blocks.data(), impl->product.data()));
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(impl->spectrum.data(), impl->product.data(),
                                       static_cast<std::size_t>(bins) * sizeof(cufftDoubleComplex), cudaMemcpyDeviceToDevice,
                                       stream));
  } catch (...) {
    delete impl;
    impl_ = nullptr;
    throw;
  }
}

BandpassBlocksCuda::~BandpassBlocksCuda() { delete impl_; }

std::size_t BandpassBlocksCuda::device_bytes() const {
  const Impl& p = *impl_;
  return p.taps.size() * sizeof(double) + p.spectrum.size() * sizeof(cufftDoubleComplex) + p.blocks.size() * sizeof(double) +
         p.product.size() * sizeof(cufftDoubleComplex) + p.work.size();
}

// A run on another stream than the construction's: start after the set-up (and any earlier run),
// and (rejoin) make the construction stream, where the buffers are freed, wait for it in turn.
void BandpassBlocksCuda::join(cudaStream_t stream) {
  Impl& p = *impl_;
  if (stream == p.stream) return;
  ECGPIPE_CUDA_CHECK(cudaEventRecord(p.joined, p.stream));
  ECGPIPE_CUDA_CHECK(cudaStreamWaitEvent(stream, p.joined, 0));
}

void BandpassBlocksCuda::rejoin(cudaStream_t stream) {
  Impl& p = *impl_;
  if (stream == p.stream) return;
  ECGPIPE_CUDA_CHECK(cudaEventRecord(p.joined, stream));
  ECGPIPE_CUDA_CHECK(cudaStreamWaitEvent(p.stream, p.joined, 0));
}

void BandpassBlocksCuda::run(DeviceSpan<const float> x, std::int64_t x_begin, std::int64_t end, std::int64_t first,
                             std::int64_t last, DeviceSpan<double> out, std::int64_t out_begin, cudaStream_t stream) {
  if (first >= last) return;
  const std::int64_t L = length_, hop = this->hop(), w1 = width_ - 1;
  const auto x_end = x_begin + static_cast<std::int64_t>(x.size);
  const std::int64_t in_lo = first * hop, in_hi = std::min((last - 1) * hop + L, end);
  const std::int64_t out_lo = first * hop + w1, out_hi = std::min((last - 1) * hop + L, end);
  if (first < 0 || in_lo < x_begin || in_hi > x_end || out_lo < out_begin ||
      out_hi > out_begin + static_cast<std::int64_t>(out.size)) {
    throw InternalError("band-pass blocks " + std::to_string(first) + ".." + std::to_string(last) + " of " +
                        std::to_string(end) + " samples: input [" + std::to_string(x_begin) + ", " + std::to_string(x_end) +
                        ") or output [" + std::to_string(out_begin) + ", +" + std::to_string(out.size) + ") too short");
  }
  Impl& p = *impl_;
  join(stream);
  ECGPIPE_CHECK(cufftSetStream(p.forward, stream));
  ECGPIPE_CHECK(cufftSetStream(p.inverse, stream));
  const std::int64_t bins = L / 2 + 1;
  for (std::int64_t k = first; k < last; k += kBatch) {
    const std::int64_t stop = std::min(last, k + kBatch);
    gather_blocks<<<grid_for(kBatch * L), kBlockSize, 0, stream>>>(x, x_begin, end, k, stop, hop, L, kBatch, p.blocks.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("gather_blocks");
    ECGPIPE_CHECK(cufftExecD2Z(p.forward, p.blocks.data(), p.product.data()));
    multiply_spectra<<<grid_for(kBatch * bins), kBlockSize, 0, stream>>>(p.product.data(), p.spectrum.data(), bins, kBatch,
                                                                         1.0 / static_cast<double>(L));
    ECGPIPE_CUDA_CHECK_LAUNCH("multiply_spectra");
    ECGPIPE_CHECK(cufftExecZ2D(p.inverse, p.product.data(), p.blocks.data()));
    scatter_blocks<<<grid_for(kBatch * hop), kBlockSize, 0, stream>>>(p.blocks.data(), end, k, stop, hop, L, w1, kBatch,
                                                                      out.data, out_begin);
    ECGPIPE_CUDA_CHECK_LAUNCH("scatter_blocks");
  }
  rejoin(stream);
}

void BandpassBlocksCuda::wrapped(DeviceSpan<const float> head, DeviceSpan<const float> tail, std::int64_t n,
                                 DeviceSpan<double> out, cudaStream_t stream) {
  const std::int64_t m = std::min<std::int64_t>(n, width_ - 1);
  if (static_cast<std::int64_t>(head.size) != m || static_cast<std::int64_t>(tail.size) != m ||
      static_cast<std::int64_t>(out.size) < m) {
    throw InternalError("band-pass wrap-around of " + std::to_string(n) + " samples: head, tail or output is not " +
                        std::to_string(m) + " long");
  }
  if (m <= 0) return;
  join(stream);
  wrapped_outputs<<<grid_for(m), kBlockSize, 0, stream>>>(head, tail, n, impl_->taps.data(), width_, out.data);
  ECGPIPE_CUDA_CHECK_LAUNCH("wrapped_outputs");
  rejoin(stream);
}

BandpassPlan::BandpassPlan(std::size_t n, int width, RickerTaps taps, cudaStream_t stream)
    : n_(static_cast<std::int64_t>(n)), blocks_(width, taps, stream) {
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max() / 2)) {
    throw InternalError("band-pass: signal of " + std::to_string(n) + " samples is too long");
  }
}

BandpassPlan::~BandpassPlan() = default;

void BandpassPlan::run(DeviceSpan<const float> signal, DeviceSpan<double> out, cudaStream_t stream) {
  if (static_cast<std::int64_t>(signal.size) != n_) {
    throw InternalError("band-pass plan made for " + std::to_string(n_) + " samples, run on " + std::to_string(signal.size));
  }
  if (out.size < signal.size) {
    throw InternalError("band-pass output holds " + std::to_string(out.size) + " values, needs " + std::to_string(signal.size));
  }
  if (n_ == 0) return;
  blocks_.run(signal, 0, n_, 0, blocks_.blocks_for(n_), out, 0, stream);
  const std::int64_t m = std::min<std::int64_t>(n_, blocks_.width() - 1);
  const auto mu = static_cast<std::size_t>(m);
  blocks_.wrapped({signal.data, mu}, {signal.data + (n_ - m), mu}, n_, {out.data, mu}, stream);
}

}  // namespace ecgpipe
