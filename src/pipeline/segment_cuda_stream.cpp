// Stages 1-4 of the robust preset on the GPU in chunks (issue 29): a recording larger than the GPU
// budget streamed through the GPU's kernels, device memory bounded by the chunk (plus the beat
// matrix, which training needs whole), results equal to segment_cuda's whole path, bit for bit.
//
// Pass 1 hands the recording chunk by chunk (a CSV parsed on the GPU, stream_csv_column_cuda;
// other inputs read on the host and uploaded) to StreamingDetectorCuda; the floor and the
// adaptive thresholds then run on the host over the compact candidate list, as detect_beats_cuda
// does. Pass 2 reads the recording again and gathers, from each chunk while it is on the device,
// the model's rows into one preallocated device matrix (zero-filled: pad_table_cuda's values) and
// the classifier's windows; the classes are computed on CPU threads while the GPU trains, as in
// the whole path. The whole signal is never on the host nor whole on the device.
#include <cuda_runtime_api.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.hpp"
#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/csv_cuda.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/pipeline/segment_cuda.hpp"
#include "ecgpipe/signal/beats_cuda.hpp"
#include "ecgpipe/signal/detect_cuda.hpp"
#include "pipeline/device_row_gather.hpp"

namespace ecgpipe {
namespace {

// Hands the recording to `use(piece, piece2, first)` as device pieces of at most chunk_samples
// samples, in order: a CSV file parsed on the GPU (its chunks cut to size), anything else (WFDB,
// EDF/BDF, samples in memory) read on the host a chunk at a time and uploaded. `second` (a CSV's
// second lead, only with a CSV): that column parsed in the same pass, `piece2` its samples of the
// same rows; otherwise `piece2` is empty. Returns the sample count.
template <typename Use>
std::int64_t for_each_device_chunk(const std::string& input, const CsvOptions& csv, double fs, const std::vector<float>* samples,
                                   std::int64_t chunk_samples, cudaStream_t stream, const CsvSecondColumn* second, Use&& use) {
  const auto cut = [&](DeviceSpan<const float> chunk, DeviceSpan<const float> chunk2, std::int64_t first) {
    for (std::size_t at = 0; at < chunk.size; at += static_cast<std::size_t>(chunk_samples)) {
      const std::size_t count = std::min(chunk.size - at, static_cast<std::size_t>(chunk_samples));
      use(DeviceSpan<const float>{chunk.data + at, count},
          DeviceSpan<const float>{chunk2.size == 0 ? nullptr : chunk2.data + at, chunk2.size == 0 ? 0 : count},
          first + static_cast<std::int64_t>(at));
    }
  };
  const bool csv_file = samples == nullptr && !is_wfdb_record_path(input) && !is_edf_path(input);
  if (second != nullptr && !csv_file) throw InternalError("for_each_device_chunk: a second column of a file that is no CSV");
  if (csv_file && second != nullptr) {
    const std::uint64_t rows = stream_csv_columns_cuda(
        input, csv, *second, stream, [&](DeviceSpan<const float> chunk, DeviceSpan<const float> chunk2, std::uint64_t first) {
          cut(chunk, chunk2, static_cast<std::int64_t>(first));
        });
    return static_cast<std::int64_t>(rows);
  }
  if (csv_file) {
    const std::uint64_t rows = stream_csv_column_cuda(input, csv, stream, [&](DeviceSpan<const float> chunk, std::uint64_t first) {
      cut(chunk, {}, static_cast<std::int64_t>(first));
    });
    return static_cast<std::int64_t>(rows);
  }
  DeviceBuffer<float> device(static_cast<std::size_t>(chunk_samples), stream);
  std::int64_t at = 0;
  const auto upload = [&](const float* host, std::size_t count) {
    copy_to_device(device.span(), host, count, stream);
    use(DeviceSpan<const float>{device.data(), count}, DeviceSpan<const float>{}, at);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host buffer and `device` are reused next
    at += static_cast<std::int64_t>(count);
  };
  if (samples != nullptr) {
    const std::vector<float>& x = *samples;
    for (std::size_t i = 0; i < x.size(); i += static_cast<std::size_t>(chunk_samples))
      upload(x.data() + i, std::min(x.size() - i, static_cast<std::size_t>(chunk_samples)));
    return at;
  }
  const std::unique_ptr<SignalStream> source = open_signal_stream(input, csv, fs);
  std::vector<float> chunk;
  for (;;) {
    chunk.clear();
    const std::size_t got = source->read(chunk, static_cast<std::size_t>(chunk_samples));
    if (got == 0) return at;
    upload(chunk.data(), got);
  }
}

}  // namespace

Segmentation segment_cuda_chunked(const RunOptions& o, CudaContext& ctx, std::int64_t chunk_samples,
                                  GpuChunkReport* report) {
  if (o.preset != Preset::robust) throw InternalError("segment_cuda_chunked: the seed preset reads the whole signal");
  if (chunk_samples < 1) throw InternalError("segment_cuda_chunked: chunk_samples must be positive");
  cudaStream_t stream = cuda_stream(ctx);
  Segmentation seg;
  const std::size_t excerpt = report_excerpt_samples(o.fs, SIZE_MAX);

  // Pass 1: the R peaks.
  auto t0 = detail::Clock::now();
  double detect_seconds = 0.0;
  StreamingDetectorCuda detector(DetectOptions{o.fs, o.ricker_width}, excerpt, stream);
  std::size_t largest_piece = 0;
  const std::int64_t samples = for_each_device_chunk(o.input, o.csv, o.fs, o.samples ? &*o.samples : nullptr, chunk_samples, stream,
                                                     nullptr, [&](DeviceSpan<const float> piece, DeviceSpan<const float>, std::int64_t first) {
    largest_piece = std::max(largest_piece, piece.size);
    if (static_cast<std::size_t>(first) < excerpt) {  // the report's excerpt: the first pieces only
      const std::size_t take = std::min(piece.size, excerpt - static_cast<std::size_t>(first));
      seg.signal_excerpt.resize(static_cast<std::size_t>(first) + take);
      copy_to_host(seg.signal_excerpt.data() + first, piece, take, stream);
      ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // signal_excerpt may grow next time
    }
    const auto t = detail::Clock::now();
    detector.push(piece);
    detect_seconds += detail::seconds_since(t);
  });
  auto t = detail::Clock::now();
  detector.finish();
  const Detection det =
      detection_from_scan(detector.found(), detector.refined(), detector.max_envelope(), detector.max_abs_sample(),
                          DetectOptions{o.fs, o.ricker_width});
  detect_seconds += detail::seconds_since(t);
  seg.samples = static_cast<std::size_t>(samples);
  seg.candidates = det.candidates;
  seg.curvature_excerpt = detector.curvature_excerpt();
  seg.seconds.csv = detail::seconds_since(t0) - detect_seconds;
  seg.seconds.peaks = detect_seconds;  // the band-pass is inside: it runs a block batch at a time
  if (report != nullptr) {
    report->chunks_largest = largest_piece;
    report->detector_window_bytes = detector.peak_window_bytes();
    report->bandpass_bytes = detector.bandpass_bytes();
  }

  // Pass 2: the rows and the classifier's windows (and a CSV's second lead's, its column parsed in
  // this pass: second_lead.hpp).
  t0 = detail::Clock::now();
  seg.beats = beat_rows(o.rows(), det.r_peaks, samples);
  std::vector<std::int64_t> peaks = kept_r_peaks(o, seg.beats);
  const int width = row_length(o.rows());
  const FeatureWindow fw = feature_window(o.fs);
  const std::size_t rows = seg.beats.size();
  DeviceBuffer<float> matrix(rows * static_cast<std::size_t>(width), stream);
  if (!matrix.empty()) ECGPIPE_CUDA_CHECK(cudaMemsetAsync(matrix.data(), 0, matrix.size() * sizeof(float), stream));
  // The rr model's rows (R - 0.25 s .. R + 0.45 s) begin with exactly the classifier's windows
  // (segment_stream.cpp): copied out of the matrix. Otherwise a matrix of windows of their own.
  const bool rows_hold_windows = o.model == Model::rr && r_peak_offset(o.rows()) == fw.before && width >= fw.length;
  DeviceBuffer<float> windows(rows_hold_windows ? 0 : peaks.size() * static_cast<std::size_t>(fw.length), stream);
  if (!windows.empty()) ECGPIPE_CUDA_CHECK(cudaMemsetAsync(windows.data(), 0, windows.size() * sizeof(float), stream));
  std::optional<SecondLead> lead2 = second_lead_of(o);
  const std::optional<CsvSecondColumn> lead2_column = csv_second_column(lead2);
  std::optional<DeviceBuffer<float>> lead2_windows;
  if (lead2_column) {
    lead2_windows = DeviceBuffer<float>(peaks.size() * static_cast<std::size_t>(fw.length), stream);
    if (!lead2_windows->empty())
      ECGPIPE_CUDA_CHECK(cudaMemsetAsync(lead2_windows->data(), 0, lead2_windows->size() * sizeof(float), stream));
  }
  {
    DeviceRowGather row_gather(seg.beats.start, seg.beats.length, 0, static_cast<std::size_t>(width), matrix.data(), stream);
    DeviceRowGather window_gather(rows_hold_windows ? std::vector<std::int64_t>() : feature_window_starts(peaks, fw), {},
                                  fw.length, static_cast<std::size_t>(fw.length), windows.data(), stream);
    DeviceRowGather lead2_gather(lead2_windows ? feature_window_starts(peaks, fw) : std::vector<std::int64_t>(), {}, fw.length,
                                 static_cast<std::size_t>(fw.length), lead2_windows ? lead2_windows->data() : nullptr, stream);
    const std::int64_t again =
        rows == 0 ? samples
                  : for_each_device_chunk(o.input, o.csv, o.fs, o.samples ? &*o.samples : nullptr, chunk_samples, stream,
                                          lead2_column ? &*lead2_column : nullptr,
                                          [&](DeviceSpan<const float> piece, DeviceSpan<const float> piece2, std::int64_t first) {
                                            row_gather.push(piece, first, stream);
                                            window_gather.push(piece, first, stream);
                                            if (lead2_windows) lead2_gather.push(piece2, first, stream);
                                          });
    // The file changed between the passes (rewritten by another process): its rows would not be the detected beats'.
    if (again != samples) throw InputError(o.input + ": the recording changed while it was read (" + std::to_string(samples) +
                                           " samples, then " + std::to_string(again) + ")");
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the gathers' tables are freed here
  }
  // The windows of the rr model's rows, copied out of the matrix on the device (training
  // normalises the matrix in place, on this stream, after this copy).
  if (rows_hold_windows && rows > 0) {
    windows = DeviceBuffer<float>(peaks.size() * static_cast<std::size_t>(fw.length), stream);
    ECGPIPE_CUDA_CHECK(cudaMemcpy2DAsync(windows.data(), static_cast<std::size_t>(fw.length) * sizeof(float), matrix.data(),
                                         static_cast<std::size_t>(width) * sizeof(float),
                                         static_cast<std::size_t>(fw.length) * sizeof(float), rows, cudaMemcpyDeviceToDevice,
                                         stream));
  }
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the windows are whole: the thread below reads them on its own stream
  seg.seconds.beats = detail::seconds_since(t0);
  // The classes on CPU threads while the GPU trains (segment_cuda's whole path does the same).
  // That thread also copies the windows down (0.8 GB for 14 days: ~0.4 s into pageable memory,
  // which had kept training waiting), on a stream of its own, and frees them there.
  seg.pending_classes =
      classes_from_device_windows(std::move(windows), std::move(peaks), fw.length, o.fs, std::move(lead2), std::move(lead2_windows));
  seg.matrix = device_beat_matrix(std::move(matrix), static_cast<std::int64_t>(rows), width, stream);
  return seg;
}

PeakDetection detect_peaks_cuda_chunked(const std::string& input, const CsvOptions& csv, const std::vector<float>* samples,
                                        double fs, int ricker_width, std::int64_t chunk_samples) {
  if (chunk_samples < 1) throw InternalError("detect_peaks_cuda_chunked: chunk_samples must be positive");
  // Declared first: the context outlives (and its destructor waits for) the detector's buffers.
  const std::shared_ptr<CudaContext> ctx = make_cuda_context();
  const cudaStream_t stream = cuda_stream(*ctx);
  const DetectOptions options{fs, ricker_width};
  StreamingDetectorCuda detector(options, /*excerpt=*/0, stream);
  PeakDetection out;
  out.samples = static_cast<std::size_t>(for_each_device_chunk(
      input, csv, fs, samples, chunk_samples, stream, nullptr,
      [&](DeviceSpan<const float> piece, DeviceSpan<const float>, std::int64_t) { detector.push(piece); }));
  detector.finish();
  Detection det =
      detection_from_scan(detector.found(), detector.refined(), detector.max_envelope(), detector.max_abs_sample(), options);
  out.candidates = det.candidates;
  out.r_peaks = std::move(det.r_peaks);
  return out;
}

}  // namespace ecgpipe
