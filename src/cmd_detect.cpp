// `ecgpipe detect FILE.csv --out beats.csv`: R peaks only (no VAE), for scoring detection (issue 4).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "commands.hpp"
#include "ecgpipe/bandpass.hpp"
#include "ecgpipe/beats.hpp"
#include "ecgpipe/csv.hpp"
#include "ecgpipe/detect.hpp"
#include "ecgpipe/error.hpp"
#include "ecgpipe/peaks.hpp"
#include "ecgpipe/wfdb.hpp"
#include "detail/segment.hpp"
#include "output.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "detail/segment_cuda.hpp"
#endif

namespace ecgpipe::cli {

namespace {
struct DetectArgs {
  std::string input, out = "beats.csv", preset = "robust", device = "auto";
  CsvOptions csv;
  double fs = kSeedFs;
  SampleWindows windows;
  CLI::Option *fs_option = nullptr, *ricker = nullptr, *nms = nullptr, *min_length = nullptr, *max_length = nullptr;
};

// The CPU path: band-pass, then the robust detector or the seed's gates and beat selection.
PeakDetection detect_cpu(const std::vector<float>& signal, Preset preset, double fs, const SampleWindows& w) {
  PeakDetection d;
  d.samples = signal.size();
  const std::vector<double> y = bandpass_cpu(signal, w.ricker_width);
  if (preset == Preset::robust) {
    Detection det = detect_beats_cpu(signal, y, DetectOptions{fs, w.ricker_width});
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

void add_detect_command(CLI::App& app) {
  auto a = std::make_shared<DetectArgs>();
  auto* cmd = app.add_subcommand("detect", "Detect R peaks only (no training); write index,r_peak");
  add_input_options(*cmd, a->input, a->csv);
  a->fs_option = cmd->add_option("--fs", a->fs, "Sampling rate, Hz (scales every window) [default: a WFDB header's, else 250]");
  check_finite(a->fs_option, kMinFs, kMaxFs);
  cmd->add_option("--preset", a->preset, "robust (adaptive thresholds) or seed (the notebook's gates)")
      ->check(CLI::IsMember({"seed", "robust"}, CLI::ignore_case))
      ->capture_default_str();
  a->ricker = cmd->add_option("--ricker-width", a->windows.ricker_width, "Ricker width, samples [default: 0.12 s]");
  a->nms = cmd->add_option("--nms-window", a->windows.nms_window, "seed NMS window, samples [default: 0.72 s]");
  a->min_length = cmd->add_option("--min-length", a->windows.min_length, "seed: shortest beat, samples [default: 0.4 s]");
  a->max_length = cmd->add_option("--max-length", a->windows.max_length, "seed: longest beat, samples [default: 1.024 s]");
  cmd->add_option("--out", a->out, "Output CSV (index,r_peak)")->capture_default_str();
  add_device_option(*cmd, a->device);
  cmd->callback([a] {
    if (a->fs_option->count() == 0)  // a WFDB header knows its rate; a CSV does not
      if (const auto header_fs = signal_file_fs(a->input)) a->fs = *header_fs;
    const SampleWindows def = seed_windows(a->fs);
    SampleWindows w = a->windows;
    if (a->ricker->count() == 0) w.ricker_width = def.ricker_width;
    if (a->nms->count() == 0) w.nms_window = def.nms_window;
    if (a->min_length->count() == 0) w.min_length = def.min_length;
    if (a->max_length->count() == 0) w.max_length = def.max_length;
    check_windows(w, a->fs);
    const Preset preset = parse_preset(a->preset);

    const std::vector<float> signal = read_signal(a->input, a->csv, a->fs);
    // The same detections on either device (the GPU's kernels reproduce the CPU's arithmetic;
    // only the band-pass FFTs differ, by round-off).
    const Device device = resolve_device(parse_device(a->device));
    PeakDetection found;
#ifdef ECGPIPE_WITH_CUDA
    if (device == Device::cuda) found = detect_peaks_cuda(signal, preset, a->fs, w);
#endif
    if (device == Device::cpu) found = detect_cpu(signal, preset, a->fs, w);
    const std::vector<std::int64_t>& peaks = found.r_peaks;
    const std::size_t candidates = found.candidates;
    OutputSet files;  // temp + rename: a failed write leaves the earlier file whole
    std::ostream& out = files.text(a->out);
    out << "index,r_peak\n";
    for (std::size_t i = 0; i < peaks.size(); ++i) out << i << ',' << peaks[i] << '\n';
    files.commit();
    spdlog::info("{}: {} samples at {} Hz, preset {} on {}: {} candidates -> {} R peaks -> {}", a->input, signal.size(),
                 a->fs, preset_name(preset), device == Device::cuda ? "cuda" : "cpu", candidates, peaks.size(), a->out);
  });
}

}  // namespace ecgpipe::cli
