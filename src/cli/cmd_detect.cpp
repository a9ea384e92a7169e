// `ecgpipe detect FILE.csv --out beats.csv`: R peaks only (no VAE), for scoring detection (issue 4).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "ecgpipe/batch/batch.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/pipeline/detect_run.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "common/output_set.hpp"

namespace ecgpipe::cli {

namespace {
struct DetectArgs {
  InputArgs in;
  std::string out = "beats.csv";
  Preset preset = Preset::robust;
  Device device = Device::automatic;
  CsvOptions csv;
  double fs = kSeedFs;
  SampleWindows windows;
  double chunk_seconds = kDefaultChunkSeconds;
  std::optional<std::uint64_t> gpu_memory;
  CLI::Option *fs_option = nullptr, *ricker = nullptr, *nms = nullptr, *min_length = nullptr, *max_length = nullptr,
              *out_option = nullptr;

  // One recording's options: its rate from its header unless --fs, the windows scaled to it unless given.
  DetectFileOptions options_for(const std::string& input, const std::string& column, const std::string& reference) const {
    DetectFileOptions o;
    o.input = input;
    o.csv = csv;
    if (!column.empty()) o.csv.column = column;
    o.reference = reference;
    o.fs = fs;
    o.source = resolve_input(input, o.csv, o.fs, fs_option->count() > 0);
    const SampleWindows def = seed_windows(o.fs);
    o.windows = windows;
    if (ricker->count() == 0) o.windows.ricker_width = def.ricker_width;
    if (nms->count() == 0) o.windows.nms_window = def.nms_window;
    if (min_length->count() == 0) o.windows.min_length = def.min_length;
    if (max_length->count() == 0) o.windows.max_length = def.max_length;
    check_windows(o.windows, o.fs);
    o.preset = preset;
    o.device = device;
    o.chunk_seconds = chunk_seconds;
    o.gpu_memory = gpu_memory;
    return o;
  }
};

}  // namespace

void add_detect_command(CLI::App& app) {
  auto a = std::make_shared<DetectArgs>();
  auto* cmd = app.add_subcommand("detect", "Detect R peaks only (no training); write index,r_peak");
  add_inputs_options(*cmd, a->in, a->csv);
  a->fs_option = cmd->add_option("--fs", a->fs, "Sampling rate, Hz (scales every window) [default: a WFDB header's, else 250]");
  check_finite(a->fs_option, kMinFs, kMaxFs);
  add_preset_option(*cmd, a->preset, "robust (adaptive thresholds) or seed (the notebook's gates)");
  a->ricker = cmd->add_option("--ricker-width", a->windows.ricker_width, "Ricker width, samples [default: 0.12 s]");
  a->nms = cmd->add_option("--nms-window", a->windows.nms_window, "seed NMS window, samples [default: 0.72 s]");
  a->min_length = cmd->add_option("--min-length", a->windows.min_length, "seed: shortest beat, samples [default: 0.4 s]");
  a->max_length = cmd->add_option("--max-length", a->windows.max_length, "seed: longest beat, samples [default: 1.024 s]");
  a->out_option = cmd->add_option("--out", a->out,
                                  "Output CSV (index,r_peak; '-' or /dev/stdout: standard output); with several recordings a directory [default there: "
                                  "ecgpipe-detect] with NAME/beats.csv and NAME/report.json per recording")
                      ->capture_default_str();
  add_device_option(*cmd, a->device);
  add_chunk_option(*cmd, a->chunk_seconds);
  add_gpu_memory_option(*cmd, a->gpu_memory);
  add_threads_note(*cmd);
  cmd->callback([a, cmd] {
    require_inputs(a->in);
    if (is_batch(a->in.inputs, a->in.manifest)) {
      const std::string out = a->out_option->count() > 0 ? a->out : "ecgpipe-detect";
      run_many(*cmd, a->in, out, false, [a](const BatchItem& item, const std::string& folder) {
        const DetectFileOptions o = a->options_for(item.path, item.column, item.reference);
        const DetectFileResult found = detect_file(o);
        write_detect_folder(folder, o, found);
        for (const std::string& w : found.warnings) spdlog::warn("{}: {}", item.name, w);
      });
      return;
    }
    const DetectFileOptions o = a->options_for(a->in.single(), "", "");
    const DetectFileResult found = detect_file(o);
    const bool to_stdout = a->out == "-" || a->out == "/dev/stdout";
    if (to_stdout) {
      // A pipe has no earlier output to keep whole: written as it goes (`detect X --out - | head`).
      write_r_peaks_csv(std::cout, found.r_peaks);
      std::cout.flush();
      if (!std::cout) throw OutputError("cannot write the R peaks to stdout");
    } else {
      OutputSet files;  // temp + rename: a failed write leaves the earlier file whole
      write_r_peaks_csv(files.text(a->out), found.r_peaks);
      files.commit();
    }
    spdlog::info("{}: {} samples at {} Hz ({}), preset {} on {}: {} candidates -> {} R peaks -> {}", o.input, found.samples,
                 o.fs, o.source.fs_source, preset_name(o.preset), found.device, found.candidates, found.r_peaks.size(),
                 to_stdout ? "stdout" : a->out);
    for (const std::string& w : found.warnings) spdlog::warn("{}", w);  // last: beside the summary
  });
}

}  // namespace ecgpipe::cli
