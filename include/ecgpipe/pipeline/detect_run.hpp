// `ecgpipe detect` for one recording: read it (any input format), find its R peaks on the CPU or
// the GPU, and (for many recordings in one call) write its output folder. The same function
// serves one file and many, so both give the same R peaks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"

namespace ecgpipe {

struct DetectFileOptions {
  std::string input;  // with `samples`, only the recording's name
  std::shared_ptr<const std::vector<float>> samples;  // as RunOptions::samples
  CsvOptions csv;
  double fs = kSeedFs;
  SignalSource source;  // where fs and the signal came from (resolve_signal_source)
  Preset preset = Preset::robust;
  SampleWindows windows;
  Device device = Device::automatic;
  std::string reference;  // optional: evaluate the R peaks against it (report.json "evaluation")
  double chunk_seconds = kDefaultChunkSeconds;  // as RunOptions::chunk_seconds
  std::optional<std::uint64_t> gpu_memory;       // as RunOptions::gpu_memory
};

struct DetectFileResult {
  std::string device;  // "cpu" or "cuda"
  std::size_t samples = 0, candidates = 0;
  std::vector<std::int64_t> r_peaks;  // ascending
  bool evaluated = false;
  EvalReport evaluation;
  double seconds = 0.0;  // reading and detection (and evaluation)
  std::vector<std::string> warnings;  // plausibility_warnings (plausibility.hpp): logged, in report.json
};

// Reads options.input (read_signal) and detects its R peaks with the robust detector or the
// seed's gates, on options.device (resolve_device).
DetectFileResult detect_file(const DetectFileOptions& options);

// `index,r_peak` rows: what `ecgpipe detect` writes.
void write_r_peaks_csv(std::ostream& out, const std::vector<std::int64_t>& r_peaks);

// A recording's output folder in a batch: beats.csv (index,r_peak) and report.json (input, fs,
// preset, counts, seconds, mode "detect", the evaluation when a reference was given), atomically.
void write_detect_folder(const std::string& dir, const DetectFileOptions& options, const DetectFileResult& result);

}  // namespace ecgpipe
