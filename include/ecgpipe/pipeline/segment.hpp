// Internal: stages 1-4 (file -> beat matrix) on the CPU, and what they hand to the run; the GPU
// path is include/ecgpipe/pipeline/segment_cuda.hpp (CUDA builds only).
#pragma once

#include <algorithm>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/signal/beat_matrix.hpp"
#include "ecgpipe/pipeline/beat_rows.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/signal/signal_quality.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/pipeline/run_types.hpp"

namespace ecgpipe {

struct Segmentation {
  std::size_t samples = 0;
  std::size_t candidates = 0;
  BeatTable beats;
  // The beat matrix (host rows on the CPU, a device buffer on the GPU) and its one owner, until
  // the VAE stage hands it to LibTorch.
  BeatMatrix matrix;
  StageSeconds seconds;  // csv, bandpass, peaks, beats, classify filled
  std::vector<BeatClass> beat_class;  // per kept beat (classify.hpp), from the signal on the host
  AtrialActivity atrial;  // per kept beat: the P-wave measures (beat_features.hpp), for rhythm analysis
  std::string lead2_warning;  // a second lead that was not used, and why (second_lead.hpp); empty otherwise
  // The GPU path classifies on CPU threads while the GPU trains: the classes (and their time)
  // arrive here; finish_classification() moves them into beat_class and seconds.classify.
  struct Classes {
    std::vector<BeatClass> classes;
    AtrialActivity atrial;
    std::string lead2_warning;
    double seconds = 0.0;
    std::vector<float> signal;  // the host copy the classes were read from, kept up to kMaxHostSignal
    // Signal quality from that copy, computed beside the classes when the copy is kept (it needs
    // only the signal and the R peaks): on a 24-h recording it was a fifth of the host's work
    // left after training.
    std::optional<SignalQuality> quality;
  };
  std::future<Classes> pending_classes;
  // The whole signal on the host when a path had it anyway (the CPU's whole read; the chunked
  // read of a recording of at most ChunkOptions::keep_samples): signal quality and the report's
  // strips read it; empty otherwise (run_pipeline reads it again when it is not too long).
  std::vector<float> host_signal;
  std::optional<SignalQuality> quality;  // of host_signal, when a path computed it already
  // For report.html: the first report_excerpt_samples() of the signal and of its band-passed curve.
  std::vector<float> signal_excerpt;
  std::vector<double> curvature_excerpt;
};

// report.html's excerpt: 10 s, a dozen beats, readable at full page width.
inline constexpr double kReportExcerptSeconds = 10.0;
inline std::size_t report_excerpt_samples(double fs, std::size_t signal_samples) {
  return std::min(signal_samples, static_cast<std::size_t>(kReportExcerptSeconds * fs));
}

// The longest signal kept on the host for signal quality and the report's strips (host_signal):
// 128 MiB of floats, 37 h at 250 Hz; beyond it, quality is not assessed (logged).
inline constexpr std::size_t kMaxHostSignal = std::size_t{1} << 25;

// Waits for pending_classes, if any (rethrowing what classification threw).
inline void finish_classification(Segmentation& seg) {
  if (!seg.pending_classes.valid()) return;
  Segmentation::Classes c = seg.pending_classes.get();
  seg.beat_class = std::move(c.classes);
  seg.atrial = std::move(c.atrial);
  seg.lead2_warning = std::move(c.lead2_warning);
  seg.seconds.classify = c.seconds;
  if (!c.signal.empty()) seg.host_signal = std::move(c.signal);
  seg.quality = std::move(c.quality);
}

// The run's whole signal on the host: a copy of options.samples when the signal was given in
// memory (the stages own and move their vector; 4 bytes a sample, ~1 ms for a 30-minute record),
// else the file read whole (read_signal).
std::vector<float> read_run_signal(const RunOptions& options);
// The signal without a copy: the caller's samples when given in memory, else the file read into
// `storage` (which then holds it).
inline const std::vector<float>& signal_or_read(const std::shared_ptr<const std::vector<float>>& samples,
                                                const std::string& input, const CsvOptions& csv, double fs,
                                                std::vector<float>& storage) {
  return samples ? *samples : (storage = read_signal(input, csv, fs));
}

// The CPU's stages 1-4: the robust preset reads the recording in chunks of options.chunk_seconds
// (segment_cpu_chunked: memory that does not grow with it; 0: whole), the seed preset whole (its
// circular band-pass mixes the record's end into its first samples' gates), and a signal given in
// memory whole (the same results as the chunks).
Segmentation segment_cpu(const RunOptions& options);
// The whole signal in memory: bandpass_cpu, then the detector or the seed's gates.
Segmentation segment_cpu_whole(const RunOptions& options);

// How the chunked path reads (segment_stream.cpp).
struct ChunkOptions {
  std::int64_t chunk_samples = 0;  // samples read and detected at a time
  // A recording of at most this many samples is kept from the first pass for the second (its
  // rows and classifier windows) instead of being read again: 128 MiB of floats, 37 hours at
  // 250 Hz (a 20 M-sample CSV parses in ~0.6 s on one core, which the second read would repeat).
  std::int64_t keep_samples = std::int64_t{1} << 25;
};
// chunk_seconds (> 0) of samples at fs.
ChunkOptions chunks_for(double chunk_seconds, double fs);

// Pass 1: the R peaks by StreamingDetector (detect_stream.hpp), equal to detect_beats_cpu's.
struct StreamedDetection {
  Detection detection;
  std::int64_t samples = 0;
  bool whole = false;          // the recording had at most keep_samples samples:
  std::vector<float> signal;   // ... then here, whole
  std::vector<float> lead2;    // ... and the second column's, read with it (detect_streamed's `second`)
  std::vector<float> signal_excerpt;      // the first `excerpt` samples
  std::vector<double> curvature_excerpt;  // bandpass_cpu's first `excerpt` values
  double read_seconds = 0.0, bandpass_seconds = 0.0, detect_seconds = 0.0;
};
// `second`: a CSV's second lead (second_lead.hpp), read in the same pass while the recording is
// kept whole, or null.
StreamedDetection detect_streamed(const std::string& input, const CsvOptions& csv, double fs, int ricker_width,
                                  const ChunkOptions& chunks, std::size_t excerpt, const CsvSecondColumn* second = nullptr);
// Stages 1-4 of the robust preset in two passes over the recording (the second gathers the
// beats' rows and classifier windows): equal to segment_cpu_whole's, field by field.
Segmentation segment_cpu_chunked(const RunOptions& options, const ChunkOptions& chunks);

// The kept beats' R peaks (row start + r_peak_offset).
inline std::vector<std::int64_t> kept_r_peaks(const RunOptions& o, const BeatTable& beats) {
  std::vector<std::int64_t> peaks(beats.start);
  for (auto& p : peaks) p += r_peak_offset(o.rows());
  return peaks;
}

// What `ecgpipe detect` writes: R peaks (ascending) and the counts it logs.
struct PeakDetection {
  std::size_t samples = 0;
  std::size_t candidates = 0;
  std::vector<std::int64_t> r_peaks;
  const void* input_address = nullptr;  // the device memory the GPU detector read (tests: no copy of a caller's array)
};


}  // namespace ecgpipe
