// The command line's side of libecgpipe_torch.so (torch_module.hpp): finds and loads it when first
// needed, or in the background once a run knows it will need it, and forwards the model's
// functions to it. Only in the executable; the tests and the Python module link the model code.
//
// Why a shared library loaded with dlopen: LibTorch's libraries (with CUDA: cuBLAS, cuDNN, ...)
// take 0.3-0.5 s to map, relocate and run their static initialisers, which linked in would come
// before main in every command, `detect` and `--help` included; loaded on a thread of their own,
// that time overlaps a run's reading and detection (docs/performance.md "Start-up").
#include <dlfcn.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <mutex>
#include <string>

#include <spdlog/spdlog.h>

#include "common/clock.hpp"
#include "common/text.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/model/vae.hpp"
#include "model/flat_training.hpp"
#include "model/torch_module.hpp"

namespace ecgpipe {
namespace {

constexpr const char* kModuleFile = "libecgpipe_torch.so";

// ECGPIPE_TORCH_MODULE when set (a test's or a packager's), else the module beside the executable
// (build/: cmake puts both there). Not a search path: a copied executable without its module says
// so instead of finding some other build's.
std::string module_path() {
  if (const char* env = std::getenv("ECGPIPE_TORCH_MODULE"); env != nullptr && *env != '\0') return env;
  char exe[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return kModuleFile;
  std::string dir(exe, static_cast<std::size_t>(n));
  const auto slash = dir.rfind('/');
  dir.resize(slash == std::string::npos ? 0 : slash + 1);
  return dir + kModuleFile;
}

const detail::TorchModule* load_module() {
  const std::string path = module_path();
  const std::string advice = " (ecgpipe's model code and LibTorch, built beside the executable: keep "
                             "libecgpipe_torch.so with ecgpipe, or set ECGPIPE_TORCH_MODULE to its path)";
  // A regular file or nothing: dlopen of a FIFO (ECGPIPE_TORCH_MODULE is the user's to set) would
  // wait for a writer forever, of a directory fail with a less clear word.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InternalError("cannot load ecgpipe's LibTorch module: " + text::shorten(path, 400) + " is not a regular file" + advice);
  // RTLD_LOCAL: LibTorch's symbols stay out of the global namespace; RTLD_NOW: a missing symbol
  // is said here, not as a crash mid-run (RTLD_LAZY loaded no faster: 0.33-0.46 s against
  // 0.34-0.50 s on the H100 host).
  const auto t0 = detail::Clock::now();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw InternalError("cannot load ecgpipe's LibTorch module: " + text::shorten(why != nullptr ? why : path, 600) + advice);
  }
  using Entry = const detail::TorchModule* (*)();
  const auto entry = reinterpret_cast<Entry>(::dlsym(handle, detail::kTorchModuleSymbol));
  if (entry == nullptr) throw InternalError(text::shorten(path, 400) + " is not ecgpipe's LibTorch module (no " +
                                            detail::kTorchModuleSymbol + ")" + advice);
  const detail::TorchModule* module = entry();
  const std::string want = detail::torch_module_build_stamp();
  if (module == nullptr || module->build == nullptr || want != module->build)
    throw InternalError(text::shorten(path, 400) + " is from another build (" +
                        text::shorten(module && module->build ? module->build : "none", 200) +
                        "; this ecgpipe is " + want + ")" + advice);
  spdlog::debug("LibTorch: {} loaded in {:.3f} s", path, detail::seconds_since(t0));
  return module;
}

struct Loader {
  std::mutex mutex;
  std::shared_future<const detail::TorchModule*> module;  // valid once a load has started
  std::atomic<const detail::TorchModule*> loaded{nullptr};

  // The load under way (started now, `how`, if none was).
  std::shared_future<const detail::TorchModule*> start(std::launch how) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (module.valid()) return module;
    module = std::async(how, [this] {
               const detail::TorchModule* m = load_module();
               loaded.store(m);
               // A count given before the load (--threads) is LibTorch's too; one given during it is
               // passed on by set_torch_threads below, which then sees `loaded`.
               if (const int threads = detail::requested_cpu_threads(); threads > 0) m->set_torch_threads(threads);
               return m;
             }).share();
    return module;
  }

  const detail::TorchModule& get() {
    if (const detail::TorchModule* m = loaded.load()) return *m;
    const auto f = start(std::launch::deferred);  // if nobody started it: load on this thread
    const auto t0 = detail::Clock::now();
    const detail::TorchModule* m = f.get();  // rethrows a failed load's error, to every caller
    spdlog::debug("LibTorch: waited {:.3f} s for its load", detail::seconds_since(t0));
    return *m;
  }
};

Loader& loader() {
  static Loader l;
  return l;
}

const detail::TorchModule& torch_module() { return loader().get(); }

}  // namespace

void load_torch_in_background() { loader().start(std::launch::async); }

TrainResult train_and_score(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                            const std::string& meta_json, const ScoreFunction& score) {
  // On the GPU, rows the fused kernels take: trained (and below, scored) without LibTorch, which
  // is then never loaded.
  if (detail::model_runs_without_torch(beats))
    return detail::train_and_score_flat_cuda(std::move(beats), options, model_path, meta_json, score);
  return torch_module().train_and_score(std::move(beats), options, model_path, meta_json, score);
}

TrainResult score_with_model(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score) {
  if (detail::model_runs_without_torch(beats)) return detail::score_with_model_flat_cuda(std::move(beats), model_path, score);
  return torch_module().score_with_model(std::move(beats), model_path, score);
}

void normalise_rows_cpu(float* rows, std::int64_t n, std::int64_t cols) { torch_module().normalise_rows_cpu(rows, n, cols); }

std::unique_ptr<CircularConvolution> make_circular_convolution(const std::vector<double>& kernel, std::int64_t length) {
  return torch_module().make_circular_convolution(kernel, length);
}

int torch_threads() { return torch_module().torch_threads(); }
bool torch_loaded() { return loader().loaded.load() != nullptr; }
// The build's: the module is refused unless it is this build's (load_module), so no load is needed.
std::string torch_version() { return ECGPIPE_TORCH_VERSION; }
bool torch_cuda_available() { return torch_module().torch_cuda_available(); }

namespace detail {
void set_torch_threads(int threads) {
  // Not loaded yet: the load passes the count on (Loader::start).
  if (const TorchModule* m = loader().loaded.load()) m->set_torch_threads(threads);
}
}  // namespace detail

}  // namespace ecgpipe
