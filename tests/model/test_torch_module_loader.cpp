// The command line loads LibTorch (libecgpipe_torch.so) only where a model runs
// (src/model/torch_module_loader.cpp): the commands without one work without it, a run without it
// says so in one line (exit 1) and writes nothing, a library that is not ecgpipe's module is
// refused by name, and --threads given before the load reaches LibTorch. The executable itself
// needs no LibTorch library (the test beside this one in CMakeLists.txt reads its ELF header).
#include "ecgpipe/config.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "ecgpipe/model/torch_runtime.hpp"
#include "test_util.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "gpu_test_util.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using testutil::count_lines;
using testutil::fresh_dir;
using testutil::run_ecgpipe;
using testutil::ScopedEnv;

using testutil::q;

// A minute of synthetic ECG (synth needs no LibTorch).
fs::path minute_of_ecg(const fs::path& dir) {
  const fs::path csv = dir / "ecg.csv";
  const auto r = run_ecgpipe("-q synth " + q(csv) + " --duration 60 --truth " + q(dir / "truth.csv"), dir);
  EXPECT_EQ(r.code, 0) << r.err;
  return csv;
}

// The executable reports the build's LibTorch version (ECGPIPE_TORCH_VERSION, from CMake) without
// loading the module: it must be the version LibTorch itself says (here linked in), "x.y.z".
TEST(TorchModule, BuildsLibTorchVersionIsLibTorchsOwn) {
  const std::string version = ecgpipe::torch_version();
  EXPECT_EQ(std::string(ECGPIPE_TORCH_VERSION), version);
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;
}

TEST(TorchModuleCli, CommandsWithoutAModelRunWithoutLibTorch) {
  const auto dir = fresh_dir();
  const ScopedEnv no_module("ECGPIPE_TORCH_MODULE", "/nonexistent/libecgpipe_torch.so");
  const fs::path csv = minute_of_ecg(dir);
  EXPECT_EQ(run_ecgpipe("--version", dir).code, 0);
  EXPECT_EQ(run_ecgpipe("summarize --help", dir).code, 0);

  // On the CPU: a GPU run trains without LibTorch (FlatTrainingGpuCli.RunNeverLoadsLibTorch).
  const auto r = run_ecgpipe("run " + q(csv) + " --fs 250 --epochs 1 --device cpu --out " + q(dir / "out"), dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(count_lines(r.err.substr(r.err.find("ecgpipe: error:"))), 1u) << r.err;
  EXPECT_NE(r.err.find("cannot load ecgpipe's LibTorch module: /nonexistent/libecgpipe_torch.so"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ECGPIPE_TORCH_MODULE"), std::string::npos) << "says how to point at it: " << r.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "report.json")) << "no outputs from a run that could not train";
}

// Where the GPU runs detection, LibTorch is not needed at all (on the CPU the band-pass's FFT is
// LibTorch's).
#ifdef ECGPIPE_WITH_CUDA
TEST(TorchModuleCliGpu, DetectOnTheGpuRunsWithoutLibTorch) {
  SKIP_WITHOUT_GPU();
  const auto dir = fresh_dir();
  const fs::path csv = minute_of_ecg(dir);
  const ScopedEnv no_module("ECGPIPE_TORCH_MODULE", "/nonexistent/libecgpipe_torch.so");
  const auto r = run_ecgpipe("-q detect " + q(csv) + " --fs 250 --device cuda --out " + q(dir / "d"), dir);
  EXPECT_EQ(r.code, 0) << r.err;
}
#endif

// The path of the zlib this test process has loaded (any shared library that is not ecgpipe's).
std::string loaded_zlib() {
  void* h = ::dlopen("libz.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return "";
  link_map* map = nullptr;
  const bool ok = ::dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr;
  std::string path = ok ? map->l_name : "";
  ::dlclose(h);
  return path;
}

TEST(TorchModuleCli, ALibraryThatIsNotEcgpipesModuleIsRefusedByName) {
  const std::string zlib = loaded_zlib();
  if (zlib.empty()) GTEST_SKIP() << "no libz.so.1 loaded in this process to point at";
  const auto dir = fresh_dir();
  const fs::path csv = minute_of_ecg(dir);
  const ScopedEnv other("ECGPIPE_TORCH_MODULE", zlib.c_str());
  const auto r = run_ecgpipe("run " + q(csv) + " --fs 250 --epochs 1 --device cpu --out " + q(dir / "out"), dir);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find(zlib + " is not ecgpipe's LibTorch module (no ecgpipe_torch_module)"), std::string::npos) << r.err;
}

// A FIFO or a directory named as the module is refused before dlopen, which would wait for a
// FIFO's writer forever.
TEST(TorchModuleCli, AModulePathThatIsNotAFileIsRefusedWithoutWaiting) {
  const auto dir = fresh_dir();
  const fs::path csv = minute_of_ecg(dir);
  const fs::path fifo = dir / "libecgpipe_torch.so";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const fs::path& p : {fifo, dir}) {
    const ScopedEnv other("ECGPIPE_TORCH_MODULE", p.c_str());
    const auto r = run_ecgpipe("run " + q(csv) + " --fs 250 --epochs 1 --device cpu --out " + q(dir / "out"), dir);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find(p.string() + " is not a regular file"), std::string::npos) << r.err;
  }
}

// --threads is stored before LibTorch is loaded and passed on when it is (report.json's
// training.cpu_threads is LibTorch's count; the tests run with OMP_NUM_THREADS=1).
// Leak-checked under scripts/sanitize.sh again: the tracer crashes at its exit in CI (stop 39)
// came from the runtime's guess at LibTorch's dynamic TLS blocks, not from its threads, and
// sanitize.sh turns that guess off (intercept_tls_get_addr=0, where it says why).
TEST(TorchModuleCli, ThreadsGivenBeforeTheLoadReachLibTorch) {
  const auto dir = fresh_dir();
  const fs::path csv = minute_of_ecg(dir);
  const auto r = run_ecgpipe("-q --threads 2 run " + q(csv) + " --fs 250 --device cpu --epochs 1 --out " + q(dir / "out"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testutil::read_text(dir / "out" / "report.json"));
  EXPECT_EQ(report["training"]["cpu_threads"], 2);
}

// ecgpipe's own count: OMP_NUM_THREADS when it is a positive number, else this process's CPUs.
TEST(CpuThreads, DefaultIsOmpNumThreadsElseTheCpusThisProcessMayUse) {
  const char* before = std::getenv("OMP_NUM_THREADS");
  const std::string saved = before ? before : "";
  cpu_set_t mask;
  ASSERT_EQ(::sched_getaffinity(0, sizeof mask, &mask), 0);
  const int cpus = CPU_COUNT(&mask);
  ::setenv("OMP_NUM_THREADS", "3", 1);
  EXPECT_EQ(ecgpipe::default_cpu_threads(), 3);
  for (const char* bad : {"", "0", "-2", "4x", "x", "99999999999"}) {
    ::setenv("OMP_NUM_THREADS", bad, 1);
    EXPECT_EQ(ecgpipe::default_cpu_threads(), cpus) << "OMP_NUM_THREADS='" << bad << "'";
  }
  ::unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(ecgpipe::default_cpu_threads(), cpus);
  if (before) ::setenv("OMP_NUM_THREADS", saved.c_str(), 1);
}

}  // namespace
