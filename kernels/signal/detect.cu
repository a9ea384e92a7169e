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
//  Before step 6, the largest |sample| (max_abs_cuda: two CUB reductions, one more wait) for the
//  host's round-off floor (above_round_off, detect.hpp).
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
#include <cmath>
#include <cstdint>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <vector>

#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/signal/bandpass_cuda.hpp"
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

// The kernels below work on a window of the recording (issue 29: the streamed detector), with the
// whole record's indices: an array holding positions [begin, ...) is read at index i - begin, and
// every sum and neighbourhood is clipped to [0, n) as over the whole record (n may be
// kUnknownLength while a stream has not ended). The whole-record path is the window [0, n).

// Steps 1-2 for positions [lo, hi). Mapping: one thread per position (grid-stride).
// y[i] = bandpass[i + delay] where that output lies in [wrapped, bp_end), else 0; e[i] = y[i]^2.
// The band-pass array holds outputs [bp_begin, ...).
__global__ void shift_and_square(const double* bandpass, std::int64_t bp_begin, std::int64_t bp_end, std::int64_t lo,
                                 std::int64_t hi, std::int64_t delay, std::int64_t wrapped, double* y, double* e) {
  const std::int64_t count = hi - lo;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += stride) {
    const std::int64_t k = lo + t + delay;
    const double v = (k < bp_end && k >= wrapped) ? bandpass[k - bp_begin] : 0.0;
    y[t] = v;
    e[t] = __dmul_rn(v, v);
  }
}

// Step 3 for positions [m_begin, m_end). Mapping: one thread per position i (grid-stride); thread
// i sums its own window e[max(0, i - half) .. min(n - 1, i + half)] in index order (e holds
// positions [e_begin, ...)). Neighbouring threads read overlapping, coalesced windows, so the
// ~2 half + 1 loads per thread mostly hit L1.
__global__ void moving_average(const double* e, std::int64_t e_begin, std::int64_t m_begin, std::int64_t m_end,
                               std::int64_t n, std::int64_t half, double divisor, double* m) {
  const std::int64_t count = m_end - m_begin;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < count; t += stride) {
    const std::int64_t i = m_begin + t;
    const std::int64_t lo = max64(0, i - half), hi = min64(n, i + half + 1);
    double sum = 0.0;
    for (std::int64_t j = lo; j < hi; ++j) sum = __dadd_rn(sum, e[j - e_begin]);
    m[t] = __ddiv_rn(sum, divisor);
  }
}

// Step 4, evaluated by cub::DeviceSelect::If for each position i (a thread per position): m[i]
// above the floor (when max_m is given: the whole record's maximum) and above 0, strictly above
// every m in [i - h, i - 1] and at least every m in [i + 1, i + h] (clipped to [0, n)): the first
// of equal maxima. m holds positions [m_begin, ...). The scans stop at the first neighbour that
// beats m[i], which on a smooth envelope is within a sample or two for all but the few candidates.
struct IsCandidate {
  const double* m;
  std::int64_t m_begin;
  std::int64_t n;
  std::int64_t h;
  const double* max_m;  // device scalar from DeviceReduce::Max, or null: the floor is applied later

  __device__ bool operator()(std::int64_t i) const {
    const double v = m[i - m_begin];
    if (max_m != nullptr && !(v > __dmul_rn(kFloorRatio, *max_m))) return false;
    if (!(v > 0.0)) return false;
    for (std::int64_t j = i - 1; j >= max64(0, i - h); --j)
      if (!(v > m[j - m_begin])) return false;
    for (std::int64_t j = i + 1; j <= min64(n - 1, i + h); ++j)
      if (!(v >= m[j - m_begin])) return false;
    return true;
  }
};

// Step 5. Mapping: one thread per candidate k (grid-stride); it gathers y over the candidate's
// QRS window [max(0, i - half), min(n - 1, i + half)) (y holds positions [y_begin, ...), m
// [m_begin, ...)). envelope (may be null) gets m at the candidate, for the floor applied later.
__global__ void candidate_features(const std::int64_t* positions, std::int64_t count, const double* y, std::int64_t y_begin,
                                   const double* m, std::int64_t m_begin, std::int64_t n, std::int64_t half,
                                   Candidate* out, double* envelope) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const std::int64_t i = positions[k];
    double slope = 0.0;
    const std::int64_t hi = min64(n - 1, i + half);
    for (std::int64_t j = max64(0, i - half); j < hi; ++j)
      slope = max_of(slope, fabs(__dsub_rn(y[j + 1 - y_begin], y[j - y_begin])));
    const double v = m[i - m_begin];
    out[k].position = i;
    out[k].energy = __dsqrt_rn(v);  // RMS amplitude, as the CPU's std::sqrt (correctly rounded)
    out[k].slope = slope;
    if (envelope != nullptr) envelope[k] = v;
  }
}

// Step 7. Mapping: one thread per peak k (grid-stride): the baseline mean over
// [p - baseline_half, p + baseline_half] (floats widened to double, summed in index order), then
// the first largest |x - baseline| within [p - refine_half, p + refine_half], clipped to [0, n).
// x holds samples [x_begin, ...).
__global__ void refine_kernel(const float* x, std::int64_t x_begin, std::int64_t n, const std::int64_t* positions,
                              std::int64_t count, std::int64_t refine_half, std::int64_t baseline_half, std::int64_t* out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const std::int64_t p = positions[k];
    const std::int64_t blo = max64(0, p - baseline_half), bhi = min64(n - 1, p + baseline_half);
    double base = 0.0;
    for (std::int64_t i = blo; i <= bhi; ++i) base = __dadd_rn(base, static_cast<double>(x[i - x_begin]));
    base = __ddiv_rn(base, static_cast<double>(bhi - blo + 1));
    std::int64_t best = p;
    double best_v = -1.0;
    const std::int64_t hi = min64(n - 1, p + refine_half);
    for (std::int64_t i = max64(0, p - refine_half); i <= hi; ++i) {
      const double v = fabs(__dsub_rn(static_cast<double>(x[i - x_begin]), base));
      if (v > best_v) {
        best_v = v;
        best = i;
      }
    }
    out[k] = best;
  }
}

// Steps 1-5 over the core positions [core_begin, core_end) of an n-sample record (n may be
// kUnknownLength), from band-pass outputs [bp_begin, bp_end) on the device: the candidates
// (without the floor when max_m_out is given, which then receives the core's largest m on the
// device; with the whole record's floor otherwise, which needs the core to be [0, n)), their
// features and (envelope non-null) their m, on the device. Returns the count (one host wait).
struct CoreScan {
  std::int64_t count = 0;
  DeviceBuffer<std::int64_t> positions;
  DeviceBuffer<Candidate> candidates;
  DeviceBuffer<double> envelope;
  DeviceBuffer<double> max_m;
};

CoreScan scan_core(const double* bandpass, std::int64_t bp_begin, std::int64_t bp_end, std::int64_t n,
                   std::int64_t core_begin, std::int64_t core_end, const DetectWindows& w, bool floor_later,
                   cudaStream_t stream) {
  CoreScan r;
  const std::int64_t half = w.half, h = w.candidate_half;
  const std::int64_t m_begin = std::max<std::int64_t>(0, core_begin - h), m_end = std::min<std::int64_t>(n, core_end + h);
  const std::int64_t lo = std::max<std::int64_t>(0, m_begin - half), hi = std::min<std::int64_t>(n, m_end + half);
  const auto span_of = [](std::int64_t a, std::int64_t b) { return static_cast<std::size_t>(b - a); };
  DeviceBuffer<double> y(span_of(lo, hi), stream);
  DeviceBuffer<double> m(span_of(m_begin, m_end), stream);
  {
    DeviceBuffer<double> e(span_of(lo, hi), stream);  // freed (stream-ordered) once m is made
    shift_and_square<<<grid_for(hi - lo), kBlockSize, 0, stream>>>(bandpass, bp_begin, bp_end, lo, hi, w.delay, w.wrapped,
                                                                   y.data(), e.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("shift_and_square");
    const double divisor = static_cast<double>(2 * half + 1);
    moving_average<<<grid_for(m_end - m_begin), kBlockSize, 0, stream>>>(e.data(), lo, m_begin, m_end, n, half, divisor,
                                                                         m.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("moving_average");
  }

  const std::int64_t core = core_end - core_begin;
  const double* core_m = m.data() + (core_begin - m_begin);
  r.max_m = DeviceBuffer<double>(1, stream);
  std::size_t reduce_bytes = 0;
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, reduce_bytes, core_m, r.max_m.data(), core, stream));
  const thrust::counting_iterator<std::int64_t> first(core_begin);
  const IsCandidate is_candidate{m.data(), m_begin, n, h, floor_later ? nullptr : r.max_m.data()};
  r.positions = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(core), stream);
  DeviceBuffer<std::int64_t> count(1, stream);
  std::size_t select_bytes = 0;
  ECGPIPE_CUDA_CHECK(
      cub::DeviceSelect::If(nullptr, select_bytes, first, r.positions.data(), count.data(), core, is_candidate, stream));
  // One temporary for both passes (they run in stream order); at least one byte, since CUB reads
  // a null temp pointer as a size query and would do nothing.
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>({reduce_bytes, select_bytes, 1}), stream);
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), reduce_bytes, core_m, r.max_m.data(), core, stream));
  ECGPIPE_CUDA_CHECK(
      cub::DeviceSelect::If(temp.data(), select_bytes, first, r.positions.data(), count.data(), core, is_candidate, stream));

  copy_to_host(&r.count, count.cspan(), 1, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host sizes the candidate list
  if (r.count == 0) return r;
  r.candidates = DeviceBuffer<Candidate>(static_cast<std::size_t>(r.count), stream);
  if (floor_later) r.envelope = DeviceBuffer<double>(static_cast<std::size_t>(r.count), stream);
  candidate_features<<<grid_for(r.count), kBlockSize, 0, stream>>>(r.positions.data(), r.count, y.data(), lo, m.data(),
                                                                   m_begin, n, half, r.candidates.data(),
                                                                   floor_later ? r.envelope.data() : nullptr);
  ECGPIPE_CUDA_CHECK_LAUNCH("candidate_features");
  return r;
}

}  // namespace

std::vector<Candidate> find_candidates_cuda(DeviceSpan<const double> bandpass, const DetectWindows& w,
                                            cudaStream_t stream) {
  const auto n = static_cast<std::int64_t>(bandpass.size);
  std::vector<Candidate> host;
  if (n == 0) return host;
  const CoreScan scan = scan_core(bandpass.data, 0, n, n, 0, n, w, /*floor_later=*/false, stream);
  if (scan.count == 0) return host;
  host.resize(static_cast<std::size_t>(scan.count));
  copy_to_host(host.data(), scan.candidates.cspan(), host.size(), stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // classify_candidates reads them next
  return host;
}

double max_abs_cuda(DeviceSpan<const float> x, cudaStream_t stream) {
  if (x.size == 0) return 0.0;
  // max |x| = max(max x, -min x): two exact CUB reductions, no transform iterator.
  const auto n = static_cast<std::int64_t>(x.size);
  DeviceBuffer<float> extremes(2, stream);
  std::size_t max_bytes = 0, min_bytes = 0;
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, max_bytes, x.data, extremes.data(), n, stream));
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Min(nullptr, min_bytes, x.data, extremes.data() + 1, n, stream));
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>({max_bytes, min_bytes, 1}), stream);
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), max_bytes, x.data, extremes.data(), n, stream));
  ECGPIPE_CUDA_CHECK(cub::DeviceReduce::Min(temp.data(), min_bytes, x.data, extremes.data() + 1, n, stream));
  float host[2] = {0.0f, 0.0f};
  copy_to_host(host, extremes.cspan(), 2, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host's floor needs it
  return static_cast<double>(std::max(std::fabs(host[0]), std::fabs(host[1])));
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
  refine_kernel<<<grid_for(count), kBlockSize, 0, stream>>>(signal.data, 0, n, d_positions.data(), count, w.refine_half,
                                                            w.baseline_half, refined.data());
  ECGPIPE_CUDA_CHECK_LAUNCH("refine_kernel");
  copy_to_host(out.data(), refined.cspan(), out.size(), stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host sorts them next
  // As refine_peaks: two refined peaks can meet only in pathological input; strictly ascending.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// --- The streamed detector (detect_cuda.hpp): StreamingDetector's frontiers (src/signal/
// detect_stream.cpp) over device windows. Each window is a DeviceBuffer holding [begin, end) of
// its array; appending or trimming makes a new buffer (stream-ordered pool: no device-wide sync)
// and copies the kept part, so what is held is the margins plus one chunk.

namespace {

// `keep` = [from, old_end) of `buffer` (holding [old_begin, old_end)) followed by `extra` new
// elements (left for the caller to write at index old_end - from).
template <class T>
DeviceBuffer<T> regrow(const DeviceBuffer<T>& buffer, std::int64_t old_begin, std::int64_t from, std::int64_t extra,
                       cudaStream_t stream) {
  const std::int64_t old_end = old_begin + static_cast<std::int64_t>(buffer.size());
  const std::int64_t kept = old_end - from;
  DeviceBuffer<T> out(static_cast<std::size_t>(kept + extra), stream);
  if (kept > 0) {
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(out.data(), buffer.data() + (from - old_begin), static_cast<std::size_t>(kept) * sizeof(T),
                                       cudaMemcpyDeviceToDevice, stream));
  }
  return out;
}

}  // namespace

StreamingDetectorCuda::StreamingDetectorCuda(const DetectOptions& options, std::size_t excerpt, cudaStream_t stream)
    : w_(detect_windows(options)), blocks_(options.ricker_width, ricker_taps(Preset::robust), stream), stream_(stream),
      head_(static_cast<std::size_t>(options.ricker_width - 1), stream), bp_begin_(options.ricker_width - 1),
      excerpt_wanted_(excerpt) {}

void StreamingDetectorCuda::note_held() {
  const std::size_t held = (x_.size() * sizeof(float)) + (bp_.size() * sizeof(double)) + head_.size() * sizeof(float);
  held_peak_ = std::max(held_peak_, held);
}

void StreamingDetectorCuda::push(DeviceSpan<const float> x) {
  if (finished_) throw InternalError("StreamingDetectorCuda::push after finish");
  if (x.size == 0) return;
  const auto count = static_cast<std::int64_t>(x.size);
  const std::int64_t w1 = blocks_.width() - 1;
  if (head_size_ < w1) {
    const std::int64_t take = std::min(w1 - head_size_, count);
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(head_.data() + head_size_, x.data, static_cast<std::size_t>(take) * sizeof(float),
                                       cudaMemcpyDeviceToDevice, stream_));
    head_size_ += take;
  }
  DeviceBuffer<float> grown = regrow(x_, x_begin_, x_begin_, count, stream_);
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(grown.data() + (n_ - x_begin_), x.data, x.size * sizeof(float), cudaMemcpyDeviceToDevice,
                                     stream_));
  x_ = std::move(grown);
  n_ += count;
  max_abs_ = std::max(max_abs_, max_abs_cuda(x, stream_));
  note_held();
  advance(false);
}

void StreamingDetectorCuda::advance(bool end) {
  run_blocks(end);
  scan(end);
  trim();
}

void StreamingDetectorCuda::run_blocks(bool end) {
  const std::int64_t L = blocks_.fft_length(), hop = blocks_.hop(), w1 = blocks_.width() - 1;
  std::int64_t last = next_block_;
  for (;; ++last) {
    const std::int64_t begin = last * hop;
    if (begin + w1 >= n_) break;           // no output of this block lies in the recording (yet)
    if (begin + L > n_ && !end) break;     // its input is not complete: wait for more samples
  }
  if (last == next_block_) return;
  const std::int64_t bp_end = bp_begin_ + static_cast<std::int64_t>(bp_.size());
  const std::int64_t first_out = next_block_ * hop + w1;
  if (first_out != bp_end) throw InternalError("StreamingDetectorCuda: band-pass blocks out of step");
  const std::int64_t new_end = std::min((last - 1) * hop + L, n_);
  DeviceBuffer<double> grown = regrow(bp_, bp_begin_, bp_begin_, new_end - bp_end, stream_);
  blocks_.run(x_.cspan(), x_begin_, n_, next_block_, last, grown.span(), bp_begin_, stream_);
  bp_ = std::move(grown);
  next_block_ = last;
  note_held();
  const auto wanted = static_cast<std::int64_t>(excerpt_wanted_);
  if (first_out < wanted) {  // the report's excerpt: the first chunks only
    const std::int64_t stop = std::min(wanted, new_end);
    excerpt_.resize(static_cast<std::size_t>(stop), 0.0);
    copy_to_host(excerpt_.data() + first_out, DeviceSpan<const double>{bp_.data() + (first_out - bp_begin_), static_cast<std::size_t>(stop - first_out)},
                 static_cast<std::size_t>(stop - first_out), stream_);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // excerpt_ may be resized next time
  }
}

void StreamingDetectorCuda::scan(bool end) {
  const std::int64_t half = w_.half, h = w_.candidate_half, reach = refine_reach(w_);
  const std::int64_t bp_end = bp_begin_ + static_cast<std::int64_t>(bp_.size());
  // The positions whose sums need only computed band-pass and whose refinement needs only samples
  // already pushed (StreamingDetector::scan).
  const std::int64_t frontier = end ? n_ : std::min(bp_end - w_.delay - h - half, n_ - reach - 1);
  if (frontier <= scanned_) return;
  const std::int64_t n = end ? n_ : kUnknownLength;
  // At the end every block is computed, so bp_end is n_ (or width - 1 when n_ is below it: then
  // every y is 0, as over the whole record).
  const CoreScan found = scan_core(bp_.data(), bp_begin_, bp_end, n, scanned_, frontier, w_,
                                   /*floor_later=*/true, stream_);
  double core_max = 0.0;
  copy_to_host(&core_max, found.max_m.cspan(), 1, stream_);
  const auto count = static_cast<std::size_t>(found.count);
  std::vector<Candidate> candidates(count);
  std::vector<double> envelope(count);
  std::vector<std::int64_t> refined(count);
  if (count > 0) {
    DeviceBuffer<std::int64_t> d_refined(count, stream_);
    refine_kernel<<<grid_for(found.count), kBlockSize, 0, stream_>>>(x_.data(), x_begin_, n, found.positions.data(), found.count,
                                                                     w_.refine_half, w_.baseline_half, d_refined.data());
    ECGPIPE_CUDA_CHECK_LAUNCH("refine_kernel");
    copy_to_host(candidates.data(), found.candidates.cspan(), count, stream_);
    copy_to_host(envelope.data(), found.envelope.cspan(), count, stream_);
    copy_to_host(refined.data(), d_refined.cspan(), count, stream_);
  }
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host keeps the compact list
  max_envelope_ = std::max(max_envelope_, core_max);
  for (std::size_t k = 0; k < count; ++k) {
    ScannedCandidate c;
    c.candidate = candidates[k];
    c.envelope = envelope[k];
    found_.push_back(c);
    refined_.push_back(refined[k]);
  }
  scanned_ = frontier;
}

void StreamingDetectorCuda::trim() {
  const std::int64_t half = w_.half, h = w_.candidate_half, reach = refine_reach(w_);
  // Samples: the next block's input, the next refinements' windows, the last width-1 (the
  // wrap-around reads them at the end).
  const std::int64_t keep_x = std::max<std::int64_t>(
      0, std::min({next_block_ * blocks_.hop(), scanned_ - reach, n_ - (blocks_.width() - 1)}));
  if (keep_x > x_begin_) {
    x_ = regrow(x_, x_begin_, keep_x, 0, stream_);
    x_begin_ = keep_x;
  }
  // Band-pass: what the next scan's y reads.
  const std::int64_t bp_end = bp_begin_ + static_cast<std::int64_t>(bp_.size());
  const std::int64_t keep_bp = std::min(scanned_ - h - half + w_.delay, bp_end);
  if (keep_bp > bp_begin_) {
    bp_ = regrow(bp_, bp_begin_, keep_bp, 0, stream_);
    bp_begin_ = keep_bp;
  }
}

void StreamingDetectorCuda::finish() {
  if (finished_) throw InternalError("StreamingDetectorCuda::finish called twice");
  advance(true);
  finished_ = true;
  // The wrap-around, now that the end is known (the report's excerpt only: the detector zeroes
  // these outputs).
  const std::int64_t m = std::min<std::int64_t>(n_, blocks_.width() - 1);
  const std::int64_t wanted = std::min<std::int64_t>(m, static_cast<std::int64_t>(excerpt_wanted_));
  if (wanted > 0) {
    const auto mu = static_cast<std::size_t>(m);
    DeviceBuffer<double> wrapped(mu, stream_);
    blocks_.wrapped({head_.data(), mu}, {x_.data() + (n_ - m - x_begin_), mu}, n_, wrapped.span(), stream_);
    const auto total = static_cast<std::size_t>(std::min<std::int64_t>(n_, static_cast<std::int64_t>(excerpt_wanted_)));
    if (excerpt_.size() < total) excerpt_.resize(total, 0.0);
    copy_to_host(excerpt_.data(), wrapped.cspan(), static_cast<std::size_t>(wanted), stream_);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  x_.reset();
  bp_.reset();
  head_.reset();
}

}  // namespace ecgpipe
