// Stages 1-4 on the GPU: every buffer stays on the device; the host sees counts and the kept
// beats' starts/lengths (final outputs) and, for the robust preset, the compact candidate list
// and the R peaks (its step 6 runs on the host, see detect.hpp). Stage times come from CUDA
// events read at the end, so timing adds no synchronization.
#include <cuda_runtime_api.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <future>
#include <string>
#include <utility>

#include "ecgpipe/signal/bandpass_cuda.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/signal/beats_cuda.hpp"
#include "ecgpipe/io/csv_cuda.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/signal/detect_cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/peaks_cuda.hpp"
#include "ecgpipe/model/vae.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "common/clock.hpp"
#include "ecgpipe/pipeline/segment_cuda.hpp"
#include "pipeline/device_row_gather.hpp"

namespace ecgpipe {

namespace {

// The deleter of a device buffer handed to the beat matrix's owner: freed stream-ordered on the
// pipeline's stream.
BeatMatrix::Deleter stream_free(cudaStream_t stream) {
  return [stream](float* p) { (void)cudaFreeAsync(p, stream); };
}

}  // namespace

// The matrix leaves its DeviceBuffer for its owner on the way to LibTorch, freed stream-ordered
// on the pipeline's stream by whoever holds it last.
BeatMatrix device_beat_matrix(DeviceBuffer<float> buffer, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  float* matrix = buffer.release();
  try {
    return BeatMatrix(matrix, rows, cols, stream_free(stream), /*on_cuda=*/true, stream);
  } catch (...) {
    (void)cudaFreeAsync(matrix, stream);
    throw;
  }
}

struct CudaContext {
  // Pending frees (tensor deleters) are stream-ordered: Stream waits for them before it goes.
  Stream stream;
};

std::shared_ptr<CudaContext> make_cuda_context() { return std::make_shared<CudaContext>(); }
cudaStream_t cuda_stream(CudaContext& context) { return context.stream; }

std::future<Segmentation::Classes> classes_beside_training(DeviceBuffer<float> device,
                                                           std::optional<DeviceBuffer<float>> lead2_windows,
                                                           ClassesFromHost classify) {
  auto own_stream = std::make_unique<Stream>();
  device.set_stream(*own_stream);
  if (lead2_windows) lead2_windows->set_stream(*own_stream);
  return std::async(std::launch::async, [own_stream = std::move(own_stream), device = std::move(device),
                                         lead2_windows = std::move(lead2_windows), classify = std::move(classify)]() mutable {
    const auto t0 = detail::Clock::now();
    const std::unique_ptr<Stream> own = std::move(own_stream);  // declared first: it outlives the frees
    const auto down = [&own](DeviceBuffer<float>& buffer) {
      std::vector<float> host(buffer.size());
      if (!host.empty()) copy_to_host(host.data(), buffer.cspan(), host.size(), *own);
      return host;
    };
    DeviceBuffer<float> buffer = std::move(device);
    std::vector<float> host = down(buffer);
    std::optional<std::vector<float>> lead2_host;
    if (lead2_windows) lead2_host = down(*lead2_windows);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(*own));
    buffer.reset();
    lead2_windows.reset();
    Segmentation::Classes c = classify(std::move(host), lead2_host ? &*lead2_host : nullptr);
    c.seconds = detail::seconds_since(t0);
    return c;
  });
}

std::future<Segmentation::Classes> classes_from_device_windows(DeviceBuffer<float> windows, std::vector<std::int64_t> peaks,
                                                              int length, double fs, std::optional<SecondLead> lead2,
                                                              std::optional<DeviceBuffer<float>> lead2_windows) {
  return classes_beside_training(std::move(windows), std::move(lead2_windows),
                                 [peaks = std::move(peaks), length, fs, lead2 = std::move(lead2),
                                  threads = std::max(1, cpu_threads() - 1)](std::vector<float> host,
                                                                             const std::vector<float>* lead2_host) {
    Segmentation::Classes c;
    SecondLeadFeature lead2_feature = second_lead_feature(lead2, peaks, threads, lead2_host);
    c.lead2_warning = lead2_feature.warning;
    c.classes = classify_beats_from_windows(host.data(), static_cast<std::size_t>(length), peaks, fs, threads, &c.atrial,
                                            lead2_feature.for_classes());
    lead2_feature.add_to(c.atrial);
    return c;
  });
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

// One event per stage boundary: start, after csv, bandpass, peaks.
enum Mark { kStart, kCsv, kBandpass, kPeaks, kMarks };

static_assert(kMarks == 4, "one Event(cudaEventDefault) per mark below");
struct Events {
  std::array<Event, kMarks> e{Event(cudaEventDefault), Event(cudaEventDefault), Event(cudaEventDefault),
                              Event(cudaEventDefault)};
  double seconds(Mark a, Mark b) const {
    float ms = 0.0f;
    ECGPIPE_CUDA_CHECK(cudaEventElapsedTime(&ms, e[a], e[b]));
    return ms / detail::kMsPerSecond;
  }
};

}  // namespace

GpuBudget gpu_memory_budget(const std::optional<std::uint64_t>& cap) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  if (cap) return {*cap, "--gpu-memory"};
  if (const auto mb = whole_number_env("ECGPIPE_GPU_MEMORY_BUDGET_MB", "MiB", 0, ~std::uint64_t{0} / kMiB))
    return {*mb * kMiB, "ECGPIPE_GPU_MEMORY_BUDGET_MB"};
  std::size_t free = 0, total = 0;
  ECGPIPE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return {gpu_budget_from_free(free), std::to_string(free >> 20) + " MiB free of " + std::to_string(total >> 20) + " MiB, less a margin"};
}

namespace {

// The recording's sample count against the budget (logged by the caller); nullopt when the
// question does not arise: the seed preset, --chunk-seconds 0, a WFDB record or a file the reader
// reports on (all read whole).
struct BudgetCheck {
  GpuMemoryPlan plan;
  GpuBudget budget;
};
std::optional<BudgetCheck> check_gpu_budget(const std::string& input, const std::string& channel, Preset preset,
                                            double chunk_seconds, const std::optional<std::uint64_t>& cap) {
  if (preset != Preset::robust || chunk_seconds <= 0) return std::nullopt;
  const std::optional<std::uint64_t> samples = recording_samples_bound(input, channel);
  if (!samples) return std::nullopt;
  BudgetCheck c;
  c.budget = gpu_memory_budget(cap);
  c.plan = plan_gpu_memory(*samples, kGpuBytesPerSample, c.budget.bytes);
  return c;
}

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(1 << 20); }

}  // namespace

std::int64_t gpu_chunk_samples_for(const std::string& input, const std::string& channel, Preset preset, double chunk_seconds,
                                   const std::optional<std::uint64_t>& cap) {
  const std::optional<BudgetCheck> c = check_gpu_budget(input, channel, preset, chunk_seconds, cap);
  if (!c) return 0;
  if (c->plan.whole) {
    spdlog::info("{}: up to {} samples x {} B = {:.1f} MiB of GPU memory, within the budget of {:.1f} MiB ({}): read and "
                 "detected whole on the GPU",
                 input, c->plan.samples, kGpuBytesPerSample, mib(c->plan.need_bytes), mib(c->budget.bytes), c->budget.source);
    return 0;
  }
  const GpuChunkSize chunk = gpu_chunk_samples(c->budget.bytes);
  spdlog::info("{}: up to {} samples x {} B = {:.1f} MiB of GPU memory, over the budget of {:.1f} MiB ({}): streamed "
               "through the GPU in chunks of {} samples ({})",
               input, c->plan.samples, kGpuBytesPerSample, mib(c->plan.need_bytes), mib(c->budget.bytes), c->budget.source,
               chunk.samples, chunk.source);
  return chunk.samples;
}

std::int64_t gpu_chunk_samples_for_run(const RunOptions& o) {
  if (o.samples) return 0;  // a signal given in memory is run whole (it is on the host already)
  return gpu_chunk_samples_for(o.input, o.csv.column, o.preset, o.chunk_seconds, o.gpu_memory);
}

Segmentation segment_cuda(const RunOptions& o, CudaContext& ctx) {
  cudaStream_t stream = ctx.stream;
  if (const std::int64_t chunk = gpu_chunk_samples_for_run(o); chunk > 0) return segment_cuda_chunked(o, ctx, chunk);
  Events ev;
  Segmentation seg;
  const auto t0 = detail::Clock::now();
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kStart], stream));
  // CSV: parsed on the device. A WFDB record (binary samples) is read on the host (wfdb.hpp)
  // and uploaded, as are samples given in memory: the data still crosses PCIe once.
  DeviceBuffer<float> signal;
  // A CSV's second lead is parsed in the same pass (read_csv_columns_cuda) and kept on the device
  // until its windows are cut at the R peaks below; any other input's is read on the classes'
  // thread (second_lead.hpp).
  std::optional<SecondLead> lead2 = second_lead_of(o);
  const std::optional<CsvSecondColumn> lead2_column = csv_second_column(lead2);
  const bool lead2_on_device = lead2_column.has_value();
  DeviceBuffer<float> lead2_signal;
  if (o.samples || is_wfdb_record_path(o.input)) {
    std::vector<float> read;
    const std::vector<float>& host = signal_or_read(o.samples, o.input, o.csv, o.fs, read);
    signal = DeviceBuffer<float>(host.size(), stream);
    if (!host.empty()) copy_to_device(signal.span(), host.data(), host.size(), stream);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // `host` is freed at the end of this block
  } else if (lead2_on_device) {
    DeviceColumns both = read_csv_columns_cuda(o.input, o.csv, *lead2_column, stream);
    signal = std::move(both.first);
    lead2_signal = std::move(both.second);
  } else {
    signal = read_csv_column_cuda(o.input, o.csv, stream);
  }
  // The reader has waited for its last chunk: the host's clock times it, file reading included.
  const double csv_seconds = detail::seconds_since(t0);
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kCsv], stream));
  seg.samples = signal.size();

  DeviceBuffer<double> curvature(signal.size(), stream);
  if (!signal.empty()) {
    BandpassPlan plan(signal.size(), o.ricker_width, ricker_taps(o.preset), stream);
    plan.run(signal.cspan(), curvature.span(), stream);
  }
  ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kBandpass], stream));

  DeviceBeats beats;
  if (o.preset == Preset::robust) {
    // R peaks (kernels/signal/detect.cu; the adaptive thresholds on the host over the candidate list),
    // then the model's rows around them (beat_rows), padded on the device from the signal.
    const Detection det = detect_beats_cuda(signal.cspan(), curvature.cspan(), DetectOptions{o.fs, o.ricker_width}, stream);
    seg.candidates = det.candidates;
    ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kPeaks], stream));
    seg.beats = beat_rows(o.rows(), det.r_peaks, static_cast<std::int64_t>(signal.size()));
    beats = pad_table_cuda(signal.cspan(), seg.beats, row_length(o.rows()), stream);
  } else if (o.model == Model::rr) {
    // The seed's gates and beat selection give the R peaks (a compact list, selected on the host
    // as in detect_peaks_cuda); the rr model's centred rows are padded on the device.
    std::size_t count = 0;
    DeviceBuffer<std::int64_t> gates = detect_gates_cuda(curvature.cspan(), o.nms_window, count, stream);
    seg.candidates = count;
    ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kPeaks], stream));
    std::vector<std::int64_t> host_gates(count);
    if (count > 0) copy_to_host(host_gates.data(), gates.cspan(), count, stream);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host selects beats from the gates
    seg.beats = beat_rows(o.rows(), seed_r_peaks(o.rows(), select_beats(host_gates, o.limits)), static_cast<std::int64_t>(signal.size()));
    beats = pad_table_cuda(signal.cspan(), seg.beats, row_length(o.rows()), stream);
  } else {
    std::size_t count = 0;
    DeviceBuffer<std::int64_t> gates = detect_gates_cuda(curvature.cspan(), o.nms_window, count, stream);
    seg.candidates = count;
    ECGPIPE_CUDA_CHECK(cudaEventRecord(ev.e[kPeaks], stream));
    beats = pad_beats_cuda(signal.cspan(), DeviceSpan<const std::int64_t>{gates.data(), count}, o.limits, stream);
    seg.beats.start.resize(beats.rows);
    seg.beats.length.resize(beats.rows);
    if (beats.rows > 0) {
      copy_to_host(seg.beats.start.data(), beats.start.cspan(), beats.rows, stream);
      copy_to_host(seg.beats.length.data(), beats.length.cspan(), beats.rows, stream);
    }
  }

  // Final outputs only: the kept beats' positions for beats.csv, and report.html's excerpt.
  const std::size_t excerpt = report_excerpt_samples(o.fs, signal.size());
  seg.signal_excerpt.resize(excerpt);
  seg.curvature_excerpt.resize(excerpt);
  if (excerpt > 0) {
    copy_to_host(seg.signal_excerpt.data(), signal.cspan(), excerpt, stream);
    copy_to_host(seg.curvature_excerpt.data(), curvature.cspan(), excerpt, stream);
  }
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // host needs the positions and the times
  const double wall = detail::seconds_since(t0);
  seg.seconds.csv = csv_seconds;
  seg.seconds.bandpass = ev.seconds(kCsv, kBandpass);
  seg.seconds.peaks = ev.seconds(kBandpass, kPeaks);
  // The rows, and the copies back above.
  seg.seconds.beats = wall - csv_seconds - seg.seconds.bandpass - seg.seconds.peaks;
  // The classes on CPU threads while the GPU trains and scores (run_pipeline waits for them after
  // scoring): the host's largest share of a GPU run, hidden behind the device's. One thread fewer
  // than --threads: this thread keeps a core for launching the GPU's work. The beat classes need
  // the samples around each R peak on the host (classify.hpp): that thread copies them down on a
  // stream of its own (classes_beside_training; 80 MB of signal for 20 M samples, ~60 ms into
  // pageable memory on an H100 host: it was the last step before training, measured 2026-11-24).
  std::vector<std::int64_t> peaks = kept_r_peaks(o, seg.beats);
  std::optional<DeviceBuffer<float>> lead2_windows;
  if (lead2_on_device) {
    lead2_windows = device_feature_windows(lead2_signal.cspan(), peaks, o.fs, stream);
    lead2_signal.reset();
  }
  if (signal.size() > kMaxHostSignal) {
    // Too long to keep on the host for signal quality and strips (run_pipeline assesses neither):
    // the classifier's windows are cut on the device, as the chunked path cuts them, and only
    // they go down. The whole signal on the host beside its windows had made this path's peak RSS
    // 2.8 GB for 14 days at 200 Hz, against 1.9 GB chunked.
    DeviceBuffer<float> windows = device_feature_windows(signal.cspan(), peaks, o.fs, stream);
    seg.pending_classes = classes_from_device_windows(std::move(windows), std::move(peaks), feature_window(o.fs).length, o.fs,
                                                      std::move(lead2), std::move(lead2_windows));
  } else {
    seg.pending_classes = classes_beside_training(
        std::move(signal), std::move(lead2_windows),
        [peaks = std::move(peaks), fs = o.fs, lead2 = std::move(lead2),
         threads = std::max(1, cpu_threads() - 1)](std::vector<float> host, const std::vector<float>* lead2_host) {
          Segmentation::Classes c;
          // Kept for signal quality and the report's strips (run_pipeline would read the file
          // again); the quality is assessed beside the classes.
          std::future<SignalQuality> quality = std::async(
              std::launch::async, [&host, &peaks, fs] { return assess_signal_quality(host.data(), host.size(), peaks, fs); });
          SecondLeadFeature lead2_feature = second_lead_feature(lead2, peaks, threads, lead2_host);
          c.lead2_warning = lead2_feature.warning;
          c.classes = classify_beats(host, peaks, fs, threads, &c.atrial, lead2_feature.for_classes());
          lead2_feature.add_to(c.atrial);
          c.quality = quality.get();
          c.signal = std::move(host);
          return c;
        });
  }

  seg.matrix = device_beat_matrix(std::move(beats.matrix), static_cast<std::int64_t>(seg.beats.size()), row_length(o.rows()), stream);
  return seg;
}

namespace {

// detect_peaks_cuda's work on a signal already on the device, on `stream`.
PeakDetection detect_on_device(DeviceSpan<const float> signal, Preset preset, double fs, const SampleWindows& w,
                               cudaStream_t stream) {
  PeakDetection out;
  out.samples = signal.size;
  out.input_address = signal.data;
  DeviceBuffer<double> curvature(signal.size, stream);
  if (signal.size > 0) {
    BandpassPlan plan(signal.size, w.ricker_width, ricker_taps(preset), stream);
    plan.run(signal, curvature.span(), stream);
  }
  if (preset == Preset::robust) {
    Detection det = detect_beats_cuda(signal, curvature.cspan(), DetectOptions{fs, w.ricker_width}, stream);
    out.candidates = det.candidates;
    out.r_peaks = std::move(det.r_peaks);
    return out;
  }
  // The seed's gates on the device; the beat selection over them on the host, as the CPU path.
  std::size_t count = 0;
  DeviceBuffer<std::int64_t> gates = detect_gates_cuda(curvature.cspan(), w.nms_window, count, stream);
  std::vector<std::int64_t> host_gates(count);
  if (count > 0) copy_to_host(host_gates.data(), gates.cspan(), count, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  out.candidates = count;
  const BeatTable beats = select_beats(host_gates, BeatLimits{w.min_length, w.max_length});
  const std::int64_t offset = seed_r_offset(w.nms_window, w.ricker_width);
  for (auto s : beats.start) out.r_peaks.push_back(s + offset);
  return out;
}

}  // namespace

PeakDetection detect_peaks_cuda(const std::vector<float>& host_signal, Preset preset, double fs, const SampleWindows& w) {
  CudaContext ctx;  // declared first: it outlives (and its destructor waits for) the buffers below
  DeviceBuffer<float> signal(host_signal.size(), ctx.stream);
  if (!signal.empty()) copy_to_device(signal.span(), host_signal.data(), host_signal.size(), ctx.stream);
  return detect_on_device(signal.cspan(), preset, fs, w, ctx.stream);
}

PeakDetection detect_csv_peaks_cuda(const std::string& path, const CsvOptions& csv, Preset preset, double fs,
                                    const SampleWindows& w) {
  CudaContext ctx;  // declared first: it outlives (and its destructor waits for) the buffers below
  const DeviceBuffer<float> signal = read_csv_column_cuda(path, csv, ctx.stream);
  return detect_on_device(signal.cspan(), preset, fs, w, ctx.stream);
}

PeakDetection detect_peaks_cuda(DeviceSpan<const float> signal, int device, Preset preset, double fs, const SampleWindows& w) {
  ECGPIPE_CUDA_CHECK(cudaSetDevice(device));
  // The caller's memory, read in place: whoever wrote it (PyTorch, CuPy) may have queued that on
  // a stream of its own that ours does not wait for; the device is idle once this returns.
  ECGPIPE_CUDA_CHECK(cudaDeviceSynchronize());
  CudaContext ctx;
  return detect_on_device(signal, preset, fs, w, ctx.stream);
}

std::vector<float> copy_to_host_cuda(DeviceSpan<const float> signal, int device) {
  ECGPIPE_CUDA_CHECK(cudaSetDevice(device));
  ECGPIPE_CUDA_CHECK(cudaDeviceSynchronize());  // as detect_peaks_cuda: the writer's stream is not ours
  std::vector<float> host(signal.size);
  if (!host.empty()) ECGPIPE_CUDA_CHECK(cudaMemcpy(host.data(), signal.data, signal.size * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace ecgpipe
