// `ecgpipe selftest` (src/cli/selftest.hpp): every stage on the embedded sample, CPU and GPU compared.
#include "cli/selftest.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/model/vae.hpp"
#include "cli/sample_data.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace ecgpipe {
namespace {

using Status = TestCaseResult::Status;
using Clock = std::chrono::steady_clock;

// Runs `check` as one test case: its message on success, the exception's text on failure (a
// check fails by throwing, so every ecgpipe::Error with its context lands in the report).
TestCaseResult timed(const std::string& group, const std::string& name, const std::function<std::string()>& check) {
  TestCaseResult t{group, name, 0.0, Status::passed, ""};
  const auto t0 = Clock::now();
  try {
    t.message = check();
  } catch (const std::exception& e) {
    t.status = Status::failed;
    t.message = e.what();
  }
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

void write_file(const std::filesystem::path& path, const char* text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw OutputError("selftest: cannot write " + path.string());
}

RunOptions sample_options(const std::filesystem::path& dir, Device device, int epochs, const std::string& tag) {
  RunOptions o;
  o.input = (dir / "sample.csv").string();
  o.reference = (dir / "sample_beats.csv").string();
  o.device = device;
  o.train.epochs = epochs;
  o.out_dir = (dir / tag).string();
  return o;
}

std::string stage_times(const StageSeconds& s) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "csv %.3f s, band-pass %.3f s, R peaks %.3f s, rows %.3f s, training %.3f s, scoring %.3f s",
                s.csv, s.bandpass, s.peaks, s.beats, s.train, s.score);
  return buf;
}

// Detection must equal the sample's truth; the ectopic beats must rank on top.
std::string check_findings(const RunResult& r) {
  if (!r.evaluated) throw InternalError("the run was not evaluated against the sample's reference");
  const MatchResult& m = r.evaluation.match;
  if (m.fn != 0 || m.fp != 0)
    throw InternalError("detection differs from the sample's truth: " + std::to_string(m.fn) + " missed, " +
                        std::to_string(m.fp) + " false (expected 0 and 0)");
  if (r.evaluation.aurocs.empty()) throw InternalError("no AUROC computed");
  const AurocResult& abnormal = r.evaluation.aurocs.front();
  if (!(abnormal.auroc >= kMinAuroc))
    throw InternalError("ectopic beats do not rank on top: AUROC " + std::to_string(abnormal.auroc) + " < " +
                        std::to_string(kMinAuroc));
  return std::to_string(m.tp) + " beats, Se = +P = 100 %, AUROC abnormal vs N " + std::to_string(abnormal.auroc) +
         "; " + stage_times(r.seconds);
}

}  // namespace

std::vector<std::string> selftest_environment() {
  std::vector<std::string> lines;
  lines.push_back("ecgpipe " ECGPIPE_VERSION ", LibTorch " + torch_version() +
                  (torch_cuda_available() ? " (CUDA available)" : " (no CUDA)"));
#ifdef ECGPIPE_WITH_CUDA
  lines.push_back(std::string("CUDA kernels compiled for ") + ECGPIPE_CUDA_ARCHITECTURES);
  if (cuda_device_available())
    lines.push_back("GPU: " + cuda_device_summary());
  else
    lines.push_back("GPU: none usable (no device, or the driver is missing)");
#else
  lines.push_back("CUDA kernels: not built (CPU-only ecgpipe)");
#endif
  return lines;
}

std::vector<TestCaseResult> run_selftest(const SelftestOptions& opt) {
  namespace fs = std::filesystem;
  const fs::path dir = opt.work_dir;
  fs::create_directories(dir);
  write_file(dir / "sample.csv", embedded::kSampleCsv);
  write_file(dir / "sample_beats.csv", embedded::kSampleBeatsCsv);

  std::vector<TestCaseResult> out;
  RunResult cpu;
  bool cpu_ok = false;
  const RunOptions cpu_opts = sample_options(dir, Device::cpu, opt.epochs, "cpu");
  out.push_back(timed("cpu", "pipeline on the bundled sample", [&] {
    cpu = run_pipeline(cpu_opts);
    cpu_ok = true;
    return std::to_string(cpu.samples) + " samples, " + std::to_string(cpu.beats.size()) + " beats, " +
           std::to_string(opt.epochs) + " epochs";
  }));
  if (cpu_ok) out.push_back(timed("cpu", "detection and ranking", [&] { return check_findings(cpu); }));

  const bool cuda = opt.want_cuda && resolve_device(Device::automatic) == Device::cuda;
  if (!cuda) {
    const std::string why = !opt.want_cuda ? "--device cpu" : "no usable GPU (or a CPU-only LibTorch/ecgpipe build)";
    for (const char* name : {"pipeline on the bundled sample", "detection and ranking", "R peaks, rows and classes equal the CPU's",
                             "the CPU's model scores as on the CPU"})
      out.push_back({"cuda", name, 0.0, Status::skipped, why});
    return out;
  }
  RunResult gpu;
  bool gpu_ok = false;
  out.push_back(timed("cuda", "pipeline on the bundled sample", [&] {
    gpu = run_pipeline(sample_options(dir, Device::cuda, opt.epochs, "cuda"));
    gpu_ok = true;
    return std::to_string(gpu.beats.size()) + " beats";
  }));
  if (!gpu_ok) return out;
  out.push_back(timed("cuda", "detection and ranking", [&] { return check_findings(gpu); }));
  out.push_back(timed("cuda", "R peaks, rows and classes equal the CPU's", [&] {
    if (!cpu_ok) throw InternalError("no CPU run to compare with");
    // Exact: the detector and the row layout are bit-exact across devices (detect.hpp).
    if (cpu.beats.start != gpu.beats.start || cpu.beats.length != gpu.beats.length) {
      std::size_t i = 0;
      while (i < cpu.beats.size() && i < gpu.beats.size() && cpu.beats.start[i] == gpu.beats.start[i]) ++i;
      throw InternalError("beats differ: cpu " + std::to_string(cpu.beats.size()) + ", cuda " +
                          std::to_string(gpu.beats.size()) + ", first difference at beat " + std::to_string(i));
    }
    if (cpu.candidates != gpu.candidates) throw InternalError("candidate counts differ");
    // Exact too: the classes come from the parsed samples (bit-identical on both devices) and
    // the R peaks, on the host (classify.hpp).
    if (cpu.beat_class != gpu.beat_class) throw InternalError("beat classes differ");
    return std::to_string(cpu.beats.size()) + " beats and their classes identical";
  }));
  out.push_back(timed("cuda", "the CPU's model scores as on the CPU", [&] {
    if (!cpu_ok) throw InternalError("no CPU run to compare with");
    RunOptions o = sample_options(dir, Device::cuda, opt.epochs, "cuda-score");
    const std::string model = (fs::path(cpu_opts.out_dir) / "model.safetensors").string();
    apply_model_meta(read_model_meta(model), model, o);
    const RunResult scored = run_pipeline(o);
    const auto& a = cpu.model.score;
    const auto& b = scored.model.score;
    if (a.size() != b.size()) throw InternalError("score counts differ");
    double worst = 0.0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double d = std::abs(double(a[i]) - double(b[i])) / (1.0 + std::abs(double(a[i])));
      if (!(d <= worst)) worst = d, at = i;  // NaN lands here too
    }
    if (!(worst <= kScoreTolerance))
      throw InternalError("beat " + std::to_string(at) + ": cpu score " + std::to_string(a[at]) + ", cuda " +
                          std::to_string(b[at]) + " (tolerance " + std::to_string(kScoreTolerance) + ")");
    std::ostringstream msg;
    msg << a.size() << " scores, largest difference " << worst << " (relative); " << stage_times(gpu.seconds);
    return msg.str();
  }));
  return out;
}

}  // namespace ecgpipe
