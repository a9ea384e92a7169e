// Stage 2 on the GPU: the seed's Ricker band-pass as a circular FFT convolution in double (cuFFT).
//
// BandpassPlan does all the set-up once: the two cuFFT plans (D2Z and Z2D of length n, sharing one
// stream-ordered work area), the wavelet kernel (generated on the device with the CPU's formula)
// and its spectrum. run() is then: widen float -> double, D2Z, pointwise product with the wavelet
// spectrum scaled by 1/n, Z2D straight into `out`. Nothing in here synchronizes the host.
//
// Tiny sizes: n == 0 makes no plans and run() does nothing; n == 1 skips cuFFT (a length-1
// transform is the identity, and cuFFT versions differ on whether they accept nx = 1) and runs
// the exact equivalent y[0] = x[0] * sum_j w[j] with one thread.
#include <cufft.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

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


// Wavelet taps folded onto an n-long kernel: kernel[i] = sum of w[j] over j < width, j = i mod n,
// added in increasing j, i.e. exactly the CPU's `k[j % n] += w[j]` loop (so a wavelet longer than
// the signal wraps around, deterministically and without atomics). Each tap uses ricker_wavelet's
// arithmetic; the _rn intrinsics keep nvcc from contracting it into FMAs, which the host code
// does not use, so the taps differ from the CPU's at most by the last bit of exp().
// Mapping: one thread per kernel index i (grid-stride over [0, n)); thread i visits taps
// j = i, i + n, i + 2n, ... (only j = i when width <= n).
__global__ void ricker_kernel_taps(int width, double step, double scale, std::int64_t n, double* kernel) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    double acc = 0.0;
    for (std::int64_t j = i; j < width; j += n) {
      // numpy.linspace: start + j * step, and the last point exactly `stop` (as ricker_wavelet).
      const double t = j == width - 1 ? kRickerHalfRange : __dadd_rn(-kRickerHalfRange, __dmul_rn(step, static_cast<double>(j)));
      const double e = exp(__dmul_rn(__dmul_rn(-0.5, t), t));
      acc = __dadd_rn(acc, __dmul_rn(__dmul_rn(scale, e), __dsub_rn(1.0, __dmul_rn(t, t))));
    }
    kernel[i] = acc;
  }
}

// Mapping: one thread per sample i (grid-stride over [0, n)).
__global__ void widen_to_double(DeviceSpan<const float> x, double* xd) {
  const std::int64_t n = static_cast<std::int64_t>(x.size);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    xd[i] = static_cast<double>(x.data[i]);
  }
}

// X[k] <- X[k] * W[k] / n, the un-normalized inverse transform then gives the convolution.
// Mapping: one thread per frequency bin k (grid-stride over [0, bins)).
__global__ void multiply_spectra(cufftDoubleComplex* x, const cufftDoubleComplex* w, std::int64_t bins, double inv_n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < bins; k += stride) {
    const cufftDoubleComplex a = x[k];
    const cufftDoubleComplex b = w[k];
    cufftDoubleComplex r;
    r.x = (a.x * b.x - a.y * b.y) * inv_n;
    r.y = (a.x * b.y + a.y * b.x) * inv_n;
    x[k] = r;
  }
}

// n == 1: the circular convolution of one sample is x[0] * (sum of all taps) = x[0] * kernel[0].
// Mapping: a single thread.
__global__ void convolve_single_sample(DeviceSpan<const float> x, const double* kernel, double* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = static_cast<double>(x.data[0]) * kernel[0];
}

}  // namespace

struct BandpassPlan::Impl {
  std::int64_t n = 0;
  cudaStream_t stream = nullptr;  // construction stream: owns the buffers' stream-ordered lifetime
  cudaEvent_t joined = nullptr;   // orders work between the construction stream and run()'s stream
  bool have_plans = false;
  cufftHandle forward = 0;
  cufftHandle inverse = 0;
  DeviceBuffer<double> kernel;                 // n taps (the folded wavelet); kept for n == 1
  DeviceBuffer<cufftDoubleComplex> spectrum;   // rfft(kernel): n/2 + 1 bins
  DeviceBuffer<double> widened;                // the float signal widened to double
  DeviceBuffer<cufftDoubleComplex> product;    // rfft(x), then rfft(x) * rfft(kernel) / n
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

BandpassPlan::BandpassPlan(std::size_t n, int width, cudaStream_t stream) {
  if (width < 2) throw UsageError("--ricker-width must be at least 2 samples, got " + std::to_string(width));
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max() / 2)) {
    throw InternalError("band-pass: signal of " + std::to_string(n) + " samples is too long");
  }
  auto impl = new Impl;
  impl_ = impl;
  try {
    impl->n = static_cast<std::int64_t>(n);
    impl->stream = stream;
    ECGPIPE_CUDA_CHECK(cudaEventCreateWithFlags(&impl->joined, cudaEventDisableTiming));
    if (n == 0) return;

    // The same host arithmetic as ricker_wavelet for the two per-width constants.
    const double step = 2.0 * kRickerHalfRange / (width - 1);
    const double scale = 2.0 / std::sqrt(static_cast<double>(width));
    impl->kernel = DeviceBuffer<double>(n, stream);
    ricker_kernel_taps<<<grid_for(impl->n), kBlockSize, 0, stream>>>(width, step, scale, impl->n, impl->kernel.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("ricker_kernel_taps");
    if (n == 1) return;  // see the file comment: no cuFFT for a single sample

    const std::int64_t bins = impl->n / 2 + 1;
    impl->spectrum = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(bins), stream);
    impl->widened = DeviceBuffer<double>(n, stream);
    impl->product = DeviceBuffer<cufftDoubleComplex>(static_cast<std::size_t>(bins), stream);

    // Plans with a caller-provided (stream-ordered) work area instead of cuFFT's own cudaMalloc.
    ECGPIPE_CHECK(cufftCreate(&impl->forward));
    if (cufftCreate(&impl->inverse) != CUFFT_SUCCESS) {
      (void)cufftDestroy(impl->forward);
      ECGPIPE_CHECK(cufftCreate(&impl->inverse));  // reports the failure
    }
    impl->have_plans = true;
    ECGPIPE_CHECK(cufftSetAutoAllocation(impl->forward, 0));
    ECGPIPE_CHECK(cufftSetAutoAllocation(impl->inverse, 0));
    long long dims[1] = {static_cast<long long>(n)};
    std::size_t work_forward = 0;
    std::size_t work_inverse = 0;
    ECGPIPE_CHECK(cufftMakePlanMany64(impl->forward, 1, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_D2Z, 1, &work_forward));
    ECGPIPE_CHECK(cufftMakePlanMany64(impl->inverse, 1, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_Z2D, 1, &work_inverse));
    // At least one byte, so the plans never get a null work area.
    const std::size_t work_bytes = work_forward > work_inverse ? work_forward : work_inverse;
    impl->work = DeviceBuffer<unsigned char>(work_bytes > 0 ? work_bytes : 1, stream);
    ECGPIPE_CHECK(cufftSetWorkArea(impl->forward, impl->work.data()));
    ECGPIPE_CHECK(cufftSetWorkArea(impl->inverse, impl->work.data()));
    ECGPIPE_CHECK(cufftSetStream(impl->forward, stream));
    ECGPIPE_CHECK(cufftSetStream(impl->inverse, stream));

    // The wavelet spectrum, once.
    ECGPIPE_CHECK(cufftExecD2Z(impl->forward, impl->kernel.data(), impl->spectrum.data()));
  } catch (...) {
    delete impl;
    impl_ = nullptr;
    throw;
  }
}

BandpassPlan::~BandpassPlan() { delete impl_; }

void BandpassPlan::run(DeviceSpan<const float> signal, DeviceSpan<double> out, cudaStream_t stream) {
  Impl& p = *impl_;
  if (static_cast<std::int64_t>(signal.size) != p.n) {
    throw InternalError("band-pass plan made for " + std::to_string(p.n) + " samples, run on " + std::to_string(signal.size));
  }
  if (out.size < signal.size) {
    throw InternalError("band-pass output holds " + std::to_string(out.size) + " values, needs " + std::to_string(signal.size));
  }
  if (p.n == 0) return;

  // A run on another stream than the plan's: start after the plan's set-up (and any earlier run),
  // and make the plan's stream, where its buffers are freed, wait for this run in turn.
  const bool other_stream = stream != p.stream;
  if (other_stream) {
    ECGPIPE_CUDA_CHECK(cudaEventRecord(p.joined, p.stream));
    ECGPIPE_CUDA_CHECK(cudaStreamWaitEvent(stream, p.joined, 0));
  }

  if (p.n == 1) {
    convolve_single_sample<<<1, 1, 0, stream>>>(signal, p.kernel.data(), out.data);
    ECGPIPE_CUDA_CHECK_LAUNCH("convolve_single_sample");
  } else {
    const std::int64_t bins = p.n / 2 + 1;
    widen_to_double<<<grid_for(p.n), kBlockSize, 0, stream>>>(signal, p.widened.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("widen_to_double");
    ECGPIPE_CHECK(cufftSetStream(p.forward, stream));
    ECGPIPE_CHECK(cufftSetStream(p.inverse, stream));
    ECGPIPE_CHECK(cufftExecD2Z(p.forward, p.widened.data(), p.product.data()));
    multiply_spectra<<<grid_for(bins), kBlockSize, 0, stream>>>(p.product.data(), p.spectrum.data(), bins,
                                                                1.0 / static_cast<double>(p.n));
    ECGPIPE_CUDA_CHECK_LAUNCH("multiply_spectra");
    ECGPIPE_CHECK(cufftExecZ2D(p.inverse, p.product.data(), out.data));
  }

  if (other_stream) {
    ECGPIPE_CUDA_CHECK(cudaEventRecord(p.joined, stream));
    ECGPIPE_CUDA_CHECK(cudaStreamWaitEvent(p.stream, p.joined, 0));
  }
}

}  // namespace ecgpipe
