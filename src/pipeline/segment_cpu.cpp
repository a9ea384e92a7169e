// Stages 1-4 on the CPU with the whole signal in memory (include/ecgpipe/pipeline/segment.hpp,
// segment_cpu_whole): signal, band-pass, R peaks or gates, the beat rows and their matrix, each
// stage timed. The chunked path is segment_stream.cpp.
#include "common/clock.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/pipeline/second_lead.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/io/csv.hpp"

namespace ecgpipe {

std::vector<float> read_run_signal(const RunOptions& o) {
  return o.samples ? *o.samples : read_signal(o.input, o.csv, o.fs);
}

Segmentation segment_cpu(const RunOptions& o) {
  if (o.preset == Preset::robust && o.chunk_seconds > 0 && !o.samples) return segment_cpu_chunked(o, chunks_for(o.chunk_seconds, o.fs));
  return segment_cpu_whole(o);
}

Segmentation segment_cpu_whole(const RunOptions& o) {
  Segmentation seg;
  auto t0 = detail::Clock::now();
  // A CSV's second lead is read in the same pass (csv.hpp: read_csv_columns; second_lead.hpp).
  const std::optional<SecondLead> lead2 = second_lead_of(o);
  const std::optional<CsvSecondColumn> lead2_column = csv_second_column(lead2);
  const bool lead2_with_signal = lead2_column.has_value();
  std::vector<float> signal, lead2_signal;
  if (lead2_with_signal) {
    CsvColumns both = read_csv_columns(o.input, o.csv, *lead2_column);
    signal = std::move(both.first);
    lead2_signal = std::move(both.second);
  } else {
    signal = read_run_signal(o);  // any input format, or the caller's samples
  }
  seg.samples = signal.size();
  seg.seconds.csv = detail::seconds_since(t0);
  seg.signal_excerpt.assign(signal.begin(), signal.begin() + static_cast<std::ptrdiff_t>(report_excerpt_samples(o.fs, signal.size())));

  t0 = detail::Clock::now();
  const std::vector<double> curvature = bandpass_cpu(signal, o.ricker_width, ricker_taps(o.preset));
  seg.seconds.bandpass = detail::seconds_since(t0);
  seg.curvature_excerpt.assign(curvature.begin(), curvature.begin() + static_cast<std::ptrdiff_t>(report_excerpt_samples(o.fs, curvature.size())));

  t0 = detail::Clock::now();
  const auto samples = static_cast<std::int64_t>(signal.size());
  if (o.preset == Preset::robust) {  // R peaks, then the model's rows around them
    const Detection det = detect_beats_cpu(signal, curvature, DetectOptions{o.fs, o.ricker_width});
    seg.candidates = det.candidates;
    seg.seconds.peaks = detail::seconds_since(t0);
    t0 = detail::Clock::now();
    seg.beats = beat_rows(o.rows(), det.r_peaks, samples);
  } else {
    const std::vector<std::int64_t> gates = detect_gates_cpu(curvature, o.nms_window);
    seg.candidates = gates.size();
    seg.seconds.peaks = detail::seconds_since(t0);
    t0 = detail::Clock::now();
    seg.beats = select_beats(gates, o.limits);
    if (o.model == Model::rr) seg.beats = beat_rows(o.rows(), seed_r_peaks(o.rows(), seg.beats), samples);
  }
  seg.matrix = BeatMatrix(pad_beats_cpu(signal, seg.beats, row_length(o.rows())), static_cast<std::int64_t>(seg.beats.size()), row_length(o.rows()));
  seg.seconds.beats = detail::seconds_since(t0);
  t0 = detail::Clock::now();
  const std::vector<std::int64_t> peaks = kept_r_peaks(o, seg.beats);
  std::vector<float> lead2_windows;
  if (lead2_with_signal) lead2_windows = feature_windows(lead2_signal, peaks, o.fs, cpu_threads());
  SecondLeadFeature lead2_feature =
      second_lead_feature(lead2, peaks, cpu_threads(), lead2_with_signal ? &lead2_windows : nullptr);
  seg.lead2_warning = lead2_feature.warning;
  seg.beat_class = classify_beats(signal, peaks, o.fs, cpu_threads(), &seg.atrial, lead2_feature.for_classes());
  lead2_feature.add_to(seg.atrial);
  seg.seconds.classify = detail::seconds_since(t0);
  seg.host_signal = std::move(signal);  // for signal quality and the report's strips
  return seg;
}

}  // namespace ecgpipe
