// The robust R-peak detector on the GPU: steps 1-5 and 7 of include/ecgpipe/signal/detect.hpp (step 6,
// the adaptive thresholds, is sequential logic over the compact candidate list and stays on the
// host: classify_candidates).
//
//  1-2. shift_and_square: y[i] = band-pass shifted by the wavelet delay, e[i] = y[i]^2.
//  3.   moving_average: m[i] = (e[lo] + ... + e[hi]) / (2 half + 1), summed in index order.
//  4.   cub::DeviceReduce::Max(m) -> the round-off floor (a max of doubles is exact); the candidate
//       test (IsCandidate) runs inside cub::DeviceSelect::If over the positions, which compacts
//       them in ascending order. Its count is the first value the host needs (one synchronization).
//  5.   candidate_features: energy sqrt(m), slope max |y[j+1] - y[j]|; copied to the host (the
//       second synchronization) for classify_candidates.
//  7.   refine_kernel: each accepted position moved to the largest |x - local mean|; copied back
//       (the third), sorted and made unique as on the CPU.
//
// Bit-exactness with src/signal/detect.cpp: every floating-point value is one fixed sequence of
// correctly rounded IEEE operations on both sides. The CPU sums in index order with no fused
// multiply-add (GCC in ISO C++ mode does not contract); here each operation is an explicit
// round-to-nearest intrinsic (__dmul_rn, __dadd_rn, __dsub_rn, __ddiv_rn, __dsqrt_rn), which nvcc
// never fuses into an FMA, and the file is compiled with -fmad=false as a second guard
// (CMakeLists.txt). Comparisons and maxima are exact. So the candidate list (positions, energy,
// slope) and the refined peaks equal the CPU's bit for bit on the same band-pass input.
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <vector>

#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/signal/detect_cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"

namespace ecgpipe {
namespace {

using launch::grid_for;
using launch::kBlockSize;
using launch::max_of;

// The CPU's floor is kFloorFraction * kFloorFraction * max(m), evaluated left to right: the
// constant product first (folded at compile time, the same IEEE product on both sides).
constexpr double kFloorRatio = kFloorFraction * kFloorFraction;

__device__ __forceinline__ std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }
__device__ __forceinline__ std::int64_t max64(std::int64_t a, std::int64_t b) { return a > b ? a : b; }
// std::max's definition ((a < b) ? b : a), so a maximum picks the same value as on the CPU.

// Steps 1-2. Mapping: one thread per sample i (grid-stride). y[i] = bandpass[i + delay], 0 where
// that output is past the end or among the first `wrapped` (circular wrap-around) outputs.
__global__ void shift_and_square(DeviceSpan<const double> bandpass, std::int64_t delay, std::int64_t wrapped, double* y,
                                 double* e) {
  const auto n = static_cast<std::int64_t>(bandpass.size);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t k = i + delay;
    const double v = (k < n && k >= wrapped) ? bandpass.data[k] : 0.0;
    y[i] = v;
    e[i] = __dmul_rn(v, v);
  }
}

// Step 3. Mapping: one thread per sample i (grid-stride); thread i sums its own window
// e[max(0, i - half) .. min(n - 1, i + half)] in index order. Neighbouring threads read
// overlapping, coalesced windows, so the ~2 half + 1 loads per thread mostly hit L1.
__global__ void moving_average(const double* e, std::int64_t n, std::int64_t half, double divisor, double* m) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t lo = max64(0, i - half), hi = min64(n, i + half + 1);
    double sum = 0.0;
    for (std::int64_t j = lo; j < hi; ++j) sum = __dadd_rn(sum, e[j]);
    m[i] = __ddiv_rn(sum, divisor);
  }
}

// Step 4, evaluated by cub::DeviceSelect::If for each position i (a thread per position): m[i]
// above the floor and above 0, strictly above every m in [i - h, i - 1] and at least every m in
// [i + 1, i + h] (clipped to the array): the first of equal maxima. The scans stop at the first
// neighbour that beats m[i], which on a smooth envelope is within a sample or two for all but
// the few candidates.
struct IsCandidate {
  const double* m;
  std::int64_t n;
  std::int64_t h;
  const double* max_m;  // device scalar from DeviceReduce::Max

  __device__ bool operator()(std::int64_t i) const {
    const double v = m[i];
    const double floor = __dmul_rn(kFloorRatio, *max_m);
    if (!(v > floor) || !(v > 0.0)) return false;
    for (std::int64_t j = i - 1; j >= max64(0, i - h); --j)
      if (!(v > m[j])) return false;
    for (std::int64_t j = i + 1; j <= min64(n - 1, i + h); ++j)
      if (!(v >= m[j])) return false;
    return true;
  }
};

// Step 5. Mapping: one thread per candidate k (grid-stride); it gathers y over the candidate's
// QRS window [max(0, i - half), min(n - 1, i + half)).
__global__ void candidate_features(const std::int64_t* positions, std::int64_t count, const double* y, const double* m,
                                   std::int64_t n, std::int64_t half, Candidate* out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const std::int64_t i = positions[k];
    double slope = 0.0;
    const std::int64_t hi = min64(n - 1, i + half);
    for (std::int64_t j = max64(0, i - half); j < hi; ++j) slope = max_of(slope, fabs(__dsub_rn(y[j + 1], y[j])));
    out[k].position = i;
    out[k].energy = __dsqrt_rn(m[i]);  // RMS amplitude, as the CPU's std::sqrt (correctly rounded)
    out[k].slope = slope;
  }
}

// Step 7. Mapping: one thread per peak k (grid-stride): the baseline mean over
// [p - baseline_half, p + baseline_half] (floats widened to double, summed in index order), then
// the first largest |x - baseline| within [p - refine_half, p + refine_half], clipped to the signal.
__global__ void refine_kernel(DeviceSpan<const float> x, const std::int64_t* positions, std::int64_t count,
                              std::int64_t refine_half, std::int64_t baseline_half, std::int64_t* out) {
  const auto n = static_cast<std::int64_t>(x.size);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const std::int64_t p = positions[k];
    const std::int64_t blo = max64(0, p - baseline_half), bhi = min64(n - 1, p + baseline_half);
    double base = 0.0;
    for (std::int64_t i = blo; i <= bhi; ++i) base = __dadd_rn(base, static_cast<double>(x.data[i]));
    base = __ddiv_rn(base, static_cast<double>(bhi - blo + 1));
    std::int64_t best = p;
    double best_v = -1.0;
    const std::int64_t hi = min64(n - 1, p + refine_half);
    for (std::int64_t i = max64(0, p - refine_half); i <= hi; ++i) {
      const double v = fabs(__dsub_rn(static_cast<double>(x.data[i]), base));
      if (v > best_v) {
        best_v = v;
        best = i;
      }
    }
    out[k] = best;
  }
}

}  // namespace

std::vector<Candidate> find_candidates_cuda(DeviceSpan<const double> bandpass, const DetectWindows& w,
                                            cudaStream_t stream) {
  const auto n = static_cast<std::int64_t>(bandpass.size);
  std::vector<Candidate> host;
  if (n == 0) return host;

  DeviceBuffer<double> y(bandpass.size, stream);
  DeviceBuffer<double> m(bandpass.size, stream);
  {
    DeviceBuffer<double> e(bandpass.size, stream);  // freed (stream-ordered) once m is made
    shift_and_square<<<grid_for(n), kBlockSize, 0, stream>>>(bandpass, w.delay, w.wrapped, y.data(), e.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("shift_and_square");
    const double divisor = static_cast<double>(2 * w.half + 1);
    moving_average<<<grid_for(n), kBlockSize, 0, stream>>>(e.data(), n, w.half, divisor, m.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("moving_average");
  }

  DeviceBuffer<double> max_m(1, stream);
  std::size_t reduce_bytes = 0;
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, reduce_bytes, m.data(), max_m.data(), n, stream));
  const thrust::counting_iterator<std::int64_t> first(0);
  const IsCandidate is_candidate{m.data(), n, w.candidate_half, max_m.data()};
  DeviceBuffer<std::int64_t> positions(bandpass.size, stream);
  DeviceBuffer<std::int64_t> count(1, stream);
  std::size_t select_bytes = 0;
  ECGPIPE_CUDA_CHECK(
      cub::DeviceSelect::If(nullptr, select_bytes, first, positions.data(), count.data(), n, is_candidate, stream));
  // One temporary for both passes (they run in stream order); at least one byte, since CUB reads
  // a null temp pointer as a size query and would do nothing.
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>({reduce_bytes, select_bytes, 1}), stream);
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), reduce_bytes, m.data(), max_m.data(), n, stream));
  ECGPIPE_CUDA_CHECK(
      cub::DeviceSelect::If(temp.data(), select_bytes, first, positions.data(), count.data(), n, is_candidate, stream));

  std::int64_t host_count = 0;
  copy_to_host(&host_count, count.cspan(), 1, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host sizes the candidate list
  if (host_count == 0) return host;

  DeviceBuffer<Candidate> candidates(static_cast<std::size_t>(host_count), stream);
  candidate_features<<<grid_for(host_count), kBlockSize, 0, stream>>>(positions.data(), host_count, y.data(), m.data(),
                                                                      n, w.half, candidates.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("candidate_features");
  host.resize(static_cast<std::size_t>(host_count));
  copy_to_host(host.data(), candidates.cspan(), host.size(), stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // classify_candidates reads them next
  return host;
}

std::vector<std::int64_t> refine_peaks_cuda(DeviceSpan<const float> signal, const std::vector<std::int64_t>& positions,
                                            const DetectWindows& w, cudaStream_t stream) {
  const auto n = static_cast<std::int64_t>(signal.size);
  for (std::int64_t p : positions) {
    if (p < 0 || p >= n) throw InternalError("R peak " + std::to_string(p) + " lies outside the signal");
  }
  std::vector<std::int64_t> out(positions.size());
  if (positions.empty()) return out;

  const auto count = static_cast<std::int64_t>(positions.size());
  DeviceBuffer<std::int64_t> d_positions(positions.size(), stream);
  copy_to_device(d_positions.span(), positions.data(), positions.size(), stream);
  DeviceBuffer<std::int64_t> refined(positions.size(), stream);
  refine_kernel<<<grid_for(count), kBlockSize, 0, stream>>>(signal, d_positions.data(), count, w.refine_half,
                                                            w.baseline_half, refined.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("refine_kernel");
  copy_to_host(out.data(), refined.cspan(), out.size(), stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host sorts them next
  // As refine_peaks: two refined peaks can meet only in pathological input; strictly ascending.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace ecgpipe
