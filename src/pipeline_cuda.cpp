// Stages 1-4 on the GPU: every buffer stays on the device; the host sees counts and the kept
// beats' starts/lengths (final outputs). Stage times come from CUDA events read at the end, so
// timing adds no synchronization.
#include <cuda_runtime_api.h>

#include <array>
#include <chrono>

#include "ecgpipe/bandpass.hpp"
#include "ecgpipe/beats.hpp"
#include "ecgpipe/csv.hpp"
#include "ecgpipe/cuda.hpp"
#include "ecgpipe/peaks.hpp"
#include "segment.hpp"

namespace ecgpipe {

namespace {

// Hands a device buffer to LibTorch's deleter: freed stream-ordered on the pipeline's stream.
std::function<void(void*)> stream_free(cudaStream_t stream) {
  return [stream](void* p) { (void)cudaFreeAsync(p, stream); };
}

}  // namespace

struct CudaContext {
  cudaStream_t stream = nullptr;
  CudaContext() { ECGPIPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
  ~CudaContext() {
    // Pending frees (tensor deleters) are stream-ordered; let them finish before the stream goes.
    (void)cudaStreamSynchronize(stream);
    (void)cudaStreamDestroy(stream);
  }
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;
};

std::shared_ptr<CudaContext> make_cuda_context() { return std::make_shared<CudaContext>(); }

void upload_matrix(Segmentation& seg, CudaContext& ctx) {
  DeviceBuffer<float> matrix(seg.host_matrix.size(), ctx.stream);
  if (!matrix.empty()) copy_to_device(matrix.span(), seg.host_matrix.data(), seg.host_matrix.size(), ctx.stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));  // the host buffer is freed next
  seg.host_matrix = {};
  seg.stream = ctx.stream;
  seg.device_matrix = matrix.release();
  seg.release = stream_free(ctx.stream);
}

std::size_t device_pool_peak_bytes() {
  int device = 0;
  ECGPIPE_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  ECGPIPE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t peak = 0, zero = 0;
  ECGPIPE_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &peak));
  ECGPIPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
  return static_cast<std::size_t>(peak);
}

namespace {

// One event per stage boundary: start, after csv, bandpass, peaks, beats.
enum Mark { kStart, kCsv, kBandpass, kPeaks, kBeats, kMarks };

struct Events {
  std::array<cudaEvent_t, kMarks> e{};
  Events() {
    for (auto& ev : e) ECGPIPE_CUDA_CHECK(cudaEventCreate(&ev));
  }
  ~Events() {
    for (auto& ev : e) (void)cudaEventDestroy(ev);
  }
  double seconds(Mark a, Mark b) const {
    float ms = 0.0f;
    ECGPIPE_CUDA_CHECK(cudaEventElapsedTime(&ms, e[a], e[b]));
    constexpr double kMsPerSecond = 1000.0;
    return ms / kMsPerSecond;
  }
};

}  // namespace

Segmentation segment_cuda(const RunOptions& o, CudaContext& ctx) {
  cudaStream_t stream = ctx.stream;
  Events ev;
  Segmentation seg;
  seg.stream = stream;
  const auto t0 = std::chrono::steady_clock::now();
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kStart], stream));
  DeviceBuffer<float> signal = read_csv_column_cuda(o.input, o.csv, stream);
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kCsv], stream));
  seg.samples = signal.size();

  DeviceBuffer<double> curvature(signal.size(), stream);
  if (!signal.empty()) {
    BandpassPlan plan(signal.size(), o.ricker_width, stream);
    plan.run(signal.cspan(), curvature.span(), stream);
  }
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kBandpass], stream));

  std::size_t count = 0;
  DeviceBuffer<std::int64_t> gates = detect_gates_cuda(curvature.cspan(), o.nms_window, count, stream);
  seg.candidates = count;
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kPeaks], stream));

  DeviceBeats beats = pad_beats_cuda(signal.cspan(), DeviceSpan<const std::int64_t>{gates.data(), count}, o.limits, stream);
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kBeats], stream));

  // Final outputs only: the kept beats' positions for beats.csv, and report.html's excerpt.
  const std::size_t excerpt = report_excerpt_samples(o.fs, signal.size());
  seg.signal_excerpt.resize(excerpt);
  seg.curvature_excerpt.resize(excerpt);
  if (excerpt > 0) {
    copy_to_host(seg.signal_excerpt.data(), signal.cspan(), excerpt, stream);
    copy_to_host(seg.curvature_excerpt.data(), curvature.cspan(), excerpt, stream);
  }
  seg.beats.start.resize(beats.rows);
  seg.beats.length.resize(beats.rows);
  if (beats.rows > 0) {
    copy_to_host(seg.beats.start.data(), beats.start.cspan(), beats.rows, stream);
    copy_to_host(seg.beats.length.data(), beats.length.cspan(), beats.rows, stream);
  }
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // host needs the positions and the times
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  seg.seconds.bandpass = ev.seconds(kCsv, kBandpass);
  seg.seconds.peaks = ev.seconds(kBandpass, kPeaks);
  seg.seconds.beats = ev.seconds(kPeaks, kBeats);
  // The CSV stage includes file reading on the host, so it is the wall time up to its event.
  seg.seconds.csv = wall - seg.seconds.bandpass - seg.seconds.peaks - seg.seconds.beats;

  seg.device_matrix = beats.matrix.release();
  seg.release = stream_free(stream);
  return seg;
}

}  // namespace ecgpipe
