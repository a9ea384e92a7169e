// `ecgpipe detect` for one recording (see detect_file.hpp).
#include "ecgpipe/pipeline/detect_run.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "common/output_lock.hpp"
#include "common/output_set.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/pipeline/plausibility.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "common/json_text.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/pipeline/segment_cuda.hpp"
#endif

namespace ecgpipe {
namespace {

// The CPU path: the robust detector over the recording in chunks (memory bounded), or over the
// whole signal (--chunk-seconds 0), or the seed's gates and beat selection over the whole
// band-passed signal.
PeakDetection detect_cpu(const DetectFileOptions& o) {
  PeakDetection d;
  const SampleWindows& w = o.windows;
  if (o.preset == Preset::robust && o.chunk_seconds > 0 && !o.samples) {
    ChunkOptions chunks = chunks_for(o.chunk_seconds, o.fs);
    chunks.keep_samples = 0;  // nothing but the R peaks is needed after the pass
    StreamedDetection s = detect_streamed(o.input, o.csv, o.fs, w.ricker_width, chunks, 0);
    d.samples = static_cast<std::size_t>(s.samples);
    d.r_peaks = std::move(s.detection.r_peaks);
    d.candidates = s.detection.candidates;
    return d;
  }
  std::vector<float> read;
  const std::vector<float>& signal = signal_or_read(o.samples, o.input, o.csv, o.fs, read);
  d.samples = signal.size();
  const std::vector<double> y = bandpass_cpu(signal, w.ricker_width, ricker_taps(o.preset));
  if (o.preset == Preset::robust) {
    Detection det = detect_beats_cpu(signal, y, DetectOptions{o.fs, w.ricker_width});
    d.r_peaks = std::move(det.r_peaks);
    d.candidates = det.candidates;
    return d;
  }
  const auto gates = detect_gates_cpu(y, w.nms_window);
  d.candidates = gates.size();
  const BeatTable beats = select_beats(gates, BeatLimits{w.min_length, w.max_length});
  const std::int64_t offset = seed_r_offset(w.nms_window, w.ricker_width);
  for (auto s : beats.start) d.r_peaks.push_back(s + offset);
  return d;
}

}  // namespace

DetectFileResult detect_file(const DetectFileOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  // Read first: a bad reference file fails before any work.
  std::optional<ReferenceBeats> reference;
  if (!o.reference.empty()) reference = read_reference(o.reference);
  // The same detections on either device (the GPU's kernels reproduce the CPU's arithmetic;
  // only the band-pass FFTs differ, by round-off).
  const Device device = resolve_device(o.device);
  PeakDetection found;
#ifdef ECGPIPE_WITH_CUDA
  // A recording that may not fit the GPU's memory budget is streamed through it in chunks (the
  // same R peaks; segment_cuda.hpp). A CSV file is parsed on the GPU, as `run` does; a WFDB
  // record or an EDF/BDF file (binary samples) and a signal given in memory are uploaded.
  const bool on_host = device == Device::cpu;
  const std::int64_t chunk =
      on_host || o.samples ? 0 : gpu_chunk_samples_for(o.input, o.csv.column, o.preset, o.chunk_seconds, o.gpu_memory);
  if (chunk > 0)
    found = detect_peaks_cuda_chunked(o.input, o.csv, nullptr, o.fs, o.windows.ricker_width, chunk);
  else if (!on_host && !o.samples && !is_wfdb_record_path(o.input) && !is_edf_path(o.input))
    found = detect_csv_peaks_cuda(o.input, o.csv, o.preset, o.fs, o.windows);
  else if (!on_host) {
    std::vector<float> read;
    found = detect_peaks_cuda(signal_or_read(o.samples, o.input, o.csv, o.fs, read), o.preset, o.fs, o.windows);
  }
#else
  const bool on_host = true;
#endif
  if (on_host) found = detect_cpu(o);
  DetectFileResult r;
  r.device = device == Device::cuda ? "cuda" : "cpu";
  r.samples = found.samples;
  r.candidates = found.candidates;
  r.r_peaks = std::move(found.r_peaks);
  r.warnings = plausibility_warnings(o.source, r.samples, o.fs, r.r_peaks);
  if (reference) {
    EvalOptions eo;
    eo.fs = o.fs;
    r.evaluation = evaluate_detections(*reference, r.r_peaks, {}, eo);
    r.evaluation.reference_path = o.reference;
    r.evaluated = true;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void write_r_peaks_csv(std::ostream& out, const std::vector<std::int64_t>& peaks) {
  out << "index,r_peak\n";
  for (std::size_t i = 0; i < peaks.size(); ++i) out << i << ',' << peaks[i] << '\n';
}

void write_detect_folder(const std::string& dir, const DetectFileOptions& o, const DetectFileResult& r) {
  const OutputLock lock(dir, OutputLock::Mode::exclusive);  // one writer per --out
  OutputSet files(/*create_dirs=*/true);  // beats.csv and report.json together or not at all
  write_r_peaks_csv(files.text(dir + "/beats.csv"), r.r_peaks);
  nlohmann::json j;
  j["ecgpipe_version"] = ECGPIPE_VERSION;
  j["mode"] = "detect";
  j["input"] = input_json(o.input, o.source, r.samples, o.csv);
  j["warnings"] = r.warnings;
  j["device"] = r.device;
  j["parameters"] = {{"preset", preset_name(o.preset)}, {"fs", o.fs}, {"ricker_width", o.windows.ricker_width},
                     {"nms_window", o.windows.nms_window}, {"min_length", o.windows.min_length},
                     {"max_length", o.windows.max_length}};
  j["counts"] = {{"candidates", r.candidates}, {"beats", r.r_peaks.size()}};
  j["seconds"] = {{"total", r.seconds}};
  if (r.evaluated) j["evaluation"] = eval_report_json(r.evaluation);
  files.text(dir + "/report.json") << json_text(j, 2) << '\n';
  files.commit();
}

}  // namespace ecgpipe
