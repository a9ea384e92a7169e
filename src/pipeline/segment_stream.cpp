// Stages 1-4 of the robust preset on the CPU in chunks (include/ecgpipe/pipeline/segment.hpp, issue 12): host
// memory bounded whatever the recording's length, results equal to segment_cpu_whole's.
//
// Pass 1 reads the recording a chunk at a time into StreamingDetector (the R peaks). Pass 2 reads
// it again (unless it was short enough to keep) and copies out only what the later stages need:
// each beat's row of the VAE matrix and (for the seed model) each beat's classifier window. What
// still grows with the recording is per beat: the rows (row_length floats), the seed model's
// windows (0.7 s of floats), the candidate list.
#include <algorithm>
#include <memory>
#include <optional>

#include "common/clock.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/pipeline/second_lead.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/signal/detect_stream.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "pipeline/window_gather.hpp"

namespace ecgpipe {
namespace {

// Reads the recording chunk_samples at a time, handing each chunk, the second lead's samples of it
// and its first sample's index to `use`; the time spent reading (opening included) is added to
// read_seconds. `second` (a CSV's second lead, second_lead.hpp: csv_second_column): that column read in
// the same pass, while `second_wanted` holds (its cells are not parsed after); without it, or not
// wanted, the second lead's samples are empty. Returns the samples read.
template <typename Use>
std::int64_t for_each_chunk(const std::string& input, const CsvOptions& csv, double fs, std::int64_t chunk_samples,
                            double& read_seconds, const CsvSecondColumn* second, const bool& second_wanted, Use&& use) {
  auto t0 = detail::Clock::now();
  const std::unique_ptr<CsvColumnReader> reader =
      second != nullptr ? std::make_unique<CsvColumnReader>(input, csv, CsvColumnReader::kDefaultBlockBytes, second) : nullptr;
  const std::unique_ptr<SignalStream> stream = second != nullptr ? nullptr : open_signal_stream(input, csv, fs);
  std::vector<float> chunk, chunk2;
  std::int64_t at = 0;
  for (;;) {
    chunk.clear();
    chunk2.clear();
    const auto want = static_cast<std::size_t>(chunk_samples);
    const std::size_t got = reader ? reader->read(chunk, want, second_wanted ? &chunk2 : nullptr) : stream->read(chunk, want);
    read_seconds += detail::seconds_since(t0);
    if (got == 0) return at;
    use(chunk, chunk2, at);
    at += static_cast<std::int64_t>(got);
    t0 = detail::Clock::now();
  }
}

}  // namespace

ChunkOptions chunks_for(double chunk_seconds, double fs) {
  ChunkOptions c;
  c.chunk_samples = std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk_seconds * fs));
  return c;
}

StreamedDetection detect_streamed(const std::string& input, const CsvOptions& csv, double fs, int ricker_width,
                                  const ChunkOptions& chunks, std::size_t excerpt, const CsvSecondColumn* second) {
  if (chunks.chunk_samples < 1) throw InternalError("detect_streamed: chunk_samples must be positive");
  StreamedDetection r;
  StreamingDetector detector(DetectOptions{fs, ricker_width}, excerpt);
  bool keeping = true;
  for_each_chunk(input, csv, fs, chunks.chunk_samples, r.read_seconds, second, keeping,
                 [&](const std::vector<float>& chunk, const std::vector<float>& chunk2, std::int64_t) {
    const std::size_t got = chunk.size();
    if (r.signal_excerpt.size() < excerpt)
      r.signal_excerpt.insert(r.signal_excerpt.end(), chunk.begin(),
                              chunk.begin() + static_cast<std::ptrdiff_t>(std::min(got, excerpt - r.signal_excerpt.size())));
    if (keeping && static_cast<std::int64_t>(r.signal.size() + got) <= chunks.keep_samples) {
      r.signal.insert(r.signal.end(), chunk.begin(), chunk.end());
      r.lead2.insert(r.lead2.end(), chunk2.begin(), chunk2.end());
    } else if (keeping) {
      keeping = false;  // and the second lead's cells are no longer parsed
      r.signal = std::vector<float>();  // too long to keep: pass 2 reads the recording again
      r.lead2 = std::vector<float>();
    }
    const auto t0 = detail::Clock::now();
    detector.push(chunk.data(), got);
    r.detect_seconds += detail::seconds_since(t0);
  });
  const auto t0 = detail::Clock::now();
  r.detection = detector.finish();
  r.detect_seconds += detail::seconds_since(t0);
  r.samples = detector.samples();
  r.whole = keeping;
  r.curvature_excerpt = detector.curvature_excerpt();
  r.bandpass_seconds = detector.bandpass_seconds();
  r.detect_seconds -= r.bandpass_seconds;
  return r;
}

Segmentation segment_cpu_chunked(const RunOptions& o, const ChunkOptions& chunks) {
  if (o.preset != Preset::robust) throw InternalError("segment_cpu_chunked: the seed preset reads the whole signal");
  // A CSV's second lead is read in the passes over the primary (second_lead.hpp): kept with it in
  // pass 1 if the recording is kept whole, else gathered at the R peaks in pass 2.
  const std::optional<SecondLead> lead2 = second_lead_of(o);
  const std::optional<CsvSecondColumn> column2 = csv_second_column(lead2);
  StreamedDetection pass1 = detect_streamed(o.input, o.csv, o.fs, o.ricker_width, chunks, report_excerpt_samples(o.fs, SIZE_MAX),
                                            column2 ? &*column2 : nullptr);
  Segmentation seg;
  seg.samples = static_cast<std::size_t>(pass1.samples);
  seg.candidates = pass1.detection.candidates;
  seg.signal_excerpt = std::move(pass1.signal_excerpt);
  seg.curvature_excerpt = std::move(pass1.curvature_excerpt);
  seg.seconds.csv = pass1.read_seconds;
  seg.seconds.bandpass = pass1.bandpass_seconds;
  seg.seconds.peaks = pass1.detect_seconds;

  // Pass 2: the rows (zero-padded as pad_beats_cpu pads them) and the classifier windows.
  auto t0 = detail::Clock::now();
  seg.beats = beat_rows(o.rows(), pass1.detection.r_peaks, pass1.samples);
  const std::vector<std::int64_t> peaks = kept_r_peaks(o, seg.beats);
  const int width = row_length(o.rows());
  const FeatureWindow fw = feature_window(o.fs);
  std::vector<float> rows(seg.beats.size() * static_cast<std::size_t>(width), 0.0f);
  // The rr model's rows (R - 0.25 s .. R + 0.45 s, zero past the end) begin with exactly the
  // classifier's windows: read from the rows, no second copy (0.7 KB a beat at 250 Hz). The seed
  // model's rows (R peak at the nms offset, cut at the next beat) need their own.
  const bool rows_hold_windows = o.model == Model::rr && r_peak_offset(o.rows()) == fw.before && width >= fw.length;
  std::vector<float> windows(rows_hold_windows ? 0 : peaks.size() * static_cast<std::size_t>(fw.length), 0.0f);
  const std::vector<std::int64_t> window_starts = rows_hold_windows ? std::vector<std::int64_t>() : feature_window_starts(peaks, fw);
  WindowGather row_gather(seg.beats.start, seg.beats.length, static_cast<std::size_t>(width), rows.data());
  WindowGather window_gather(window_starts, std::vector<std::int32_t>(window_starts.size(), fw.length),
                             static_cast<std::size_t>(fw.length), windows.data());
  std::vector<float> lead2_windows(column2 ? peaks.size() * static_cast<std::size_t>(fw.length) : 0, 0.0f);
  const std::vector<std::int64_t> lead2_starts = column2 ? feature_window_starts(peaks, fw) : std::vector<std::int64_t>();
  WindowGather lead2_gather(lead2_starts, std::vector<std::int32_t>(lead2_starts.size(), fw.length),
                            static_cast<std::size_t>(fw.length), lead2_windows.data());
  double read_seconds = 0.0;
  if (pass1.whole) {
    row_gather.push(pass1.signal.data(), 0, pass1.samples);
    window_gather.push(pass1.signal.data(), 0, pass1.samples);
    if (column2) lead2_gather.push(pass1.lead2.data(), 0, pass1.samples);
    seg.host_signal = std::move(pass1.signal);  // for signal quality and the report's strips
  } else {
    const bool wanted = true;
    const std::int64_t at = for_each_chunk(o.input, o.csv, o.fs, chunks.chunk_samples, read_seconds,
                                           column2 ? &*column2 : nullptr, wanted,
                                           [&](const std::vector<float>& chunk, const std::vector<float>& chunk2, std::int64_t first) {
                                             const auto count = static_cast<std::int64_t>(chunk.size());
                                             row_gather.push(chunk.data(), first, count);
                                             window_gather.push(chunk.data(), first, count);
                                             if (column2) lead2_gather.push(chunk2.data(), first, count);
                                           });
    // The file changed between the passes (rewritten by another process): its rows would not be the detected beats'.
    if (at != pass1.samples) throw InputError(o.input + ": the recording changed while it was read (" + std::to_string(pass1.samples) +
                                              " samples, then " + std::to_string(at) + ")");
  }
  seg.seconds.csv += read_seconds;
  seg.seconds.beats = detail::seconds_since(t0) - read_seconds;
  t0 = detail::Clock::now();
  SecondLeadFeature lead2_feature = second_lead_feature(lead2, peaks, cpu_threads(), column2 ? &lead2_windows : nullptr);
  seg.lead2_warning = lead2_feature.warning;
  seg.beat_class = rows_hold_windows
                       ? classify_beats_from_windows(rows.data(), static_cast<std::size_t>(width), peaks, o.fs, cpu_threads(),
                                                     &seg.atrial, lead2_feature.for_classes())
                       : classify_beats_from_windows(windows.data(), static_cast<std::size_t>(fw.length), peaks, o.fs,
                                                     cpu_threads(), &seg.atrial, lead2_feature.for_classes());
  lead2_feature.add_to(seg.atrial);
  seg.seconds.classify = detail::seconds_since(t0);
  seg.matrix = BeatMatrix(std::move(rows), static_cast<std::int64_t>(seg.beats.size()), width);
  return seg;
}

}  // namespace ecgpipe
