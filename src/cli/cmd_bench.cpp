// `ecgpipe bench FILE`: stages 1-4 (file -> beat matrix, with the beat classes) repeated on one device; prints each
// stage's median and minimum time after a warm-up run, the CSV throughput and the peak memory of
// the stream-ordered pool. Training time is measured by timing a whole `ecgpipe run`
// (scripts/bench.sh does both).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "common/json_text.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/pipeline/segment_cuda.hpp"
#endif

namespace ecgpipe::cli {
namespace {

struct BenchArgs {
  RunOptions options;
  int repeat = 5;
  bool json = false;
  CLI::Option* fs_option = nullptr;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void bench(const BenchArgs& a) {
  const RunOptions& o = a.options;
  validate(o);
  const Device device = resolve_device(o.device);
  struct stat st {};
  if (::stat(o.input.c_str(), &st) != 0) throw InputError("cannot open " + o.input);
  const double bytes = static_cast<double>(st.st_size);

  std::map<std::string, std::vector<double>> t;
  std::size_t samples = 0, beats = 0, gates = 0;
  std::size_t pool_peak = 0;
  // Run 0 is the warm-up (context creation, cuFFT plan cache, page cache); not counted.
  for (int run = 0; run <= a.repeat; ++run) {
    Segmentation seg;
#ifdef ECGPIPE_WITH_CUDA
    std::shared_ptr<CudaContext> ctx;
    if (device == Device::cuda) {
      ctx = make_cuda_context();
      seg = segment_cuda(o, *ctx);
      finish_classification(seg);  // timed on its own here (a run overlaps it with training)
      seg.matrix = BeatMatrix();  // freed now, while its stream (ctx) lives
      pool_peak = std::max(pool_peak, device_pool_peak_bytes());
    }
#endif
    if (device == Device::cpu) seg = segment_cpu(o);
    samples = seg.samples;
    gates = seg.candidates;
    beats = seg.beats.size();
    if (run == 0) continue;
    const auto& s = seg.seconds;
    t["csv"].push_back(s.csv);
    t["bandpass"].push_back(s.bandpass);
    t["peaks"].push_back(s.peaks);
    t["beats"].push_back(s.beats);
    t["bandpass+peaks+beats"].push_back(s.bandpass + s.peaks + s.beats);
    t["classify"].push_back(s.classify);
  }
  constexpr double kMs = 1e3, kGB = 1e9, kMiB = 1024.0 * 1024.0;
  nlohmann::json j;
  j["device"] = device_name(device);
  j["preset"] = preset_name(o.preset);
  j["model"] = model_name(o.model);
  j["fs"] = o.fs;
  j["file"] = o.input;
  j["bytes"] = bytes;
  j["samples"] = samples;
  j["gates"] = gates;
  j["beats"] = beats;
  j["repeat"] = a.repeat;
  for (auto& [stage, v] : t) j["ms"][stage] = {{"median", median(v) * kMs}, {"min", *std::min_element(v.begin(), v.end()) * kMs}};
  j["csv_GB_per_s"] = bytes / median(t["csv"]) / kGB;
  j["pool_peak_MiB"] = static_cast<double>(pool_peak) / kMiB;
  if (a.json) {
    std::cout << json_text(j, 2) << std::endl;
    return;
  }
  std::printf("ecgpipe bench: %s, %.0f MB, %zu samples, preset %s, model %s, %zu candidates, %zu beats, device %s, %d runs after warm-up\n",
              o.input.c_str(), bytes / 1e6, samples, preset_name(o.preset), model_name(o.model), gates, beats, j["device"].get<std::string>().c_str(),
              a.repeat);
  std::printf("%-22s %12s %12s\n", "stage", "median ms", "min ms");
  for (auto& [stage, v] : t) std::printf("%-22s %12.3f %12.3f\n", stage.c_str(), median(v) * kMs, *std::min_element(v.begin(), v.end()) * kMs);
  std::printf("CSV throughput: %.2f GB/s (median)\n", j["csv_GB_per_s"].get<double>());
  if (device == Device::cuda) std::printf("peak stream-ordered pool: %.1f MiB\n", j["pool_peak_MiB"].get<double>());
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  auto& o = args->options;
  auto* cmd = app.add_subcommand("bench", "Time stages 1-4 (CSV to beat matrix), median of repeated runs");
  add_input_options(*cmd, o.input, o.csv);
  cmd->add_option("--repeat", args->repeat, "Timed runs after one warm-up")->capture_default_str()->check(CLI::Range(1, 1000));
  add_preset_option(*cmd, o.preset, "robust or seed, as for run");
  add_model_option(*cmd, o.model);  // the rows stage 4 lays out (rr: R-centred windows)
  args->fs_option = cmd->add_option("--fs", o.fs, "Sampling rate, Hz (the windows scale with it, as for run) [default: a WFDB or "
                                                 "EDF header's, else 250]");
  check_finite(args->fs_option, kMinFs, kMaxFs);
  add_device_option(*cmd, o.device);
  cmd->add_flag("--json", args->json, "Print the numbers as JSON");
  cmd->callback([args] {
    // As run and detect: a WFDB or EDF header's rate unless --fs is given (issue 25: a record
    // without --fs was refused as "--fs 250 does not match the 360 Hz", no --fs having been given).
    args->options.source = resolve_input(args->options.input, args->options.csv, args->options.fs,
                                         args->fs_option->count() > 0);
    const SampleWindows w = seed_windows(args->options.fs);
    args->options.ricker_width = w.ricker_width;
    args->options.nms_window = w.nms_window;
    args->options.limits = BeatLimits{w.min_length, w.max_length};
    bench(*args);
  });
}

}  // namespace ecgpipe::cli
