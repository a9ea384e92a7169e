// ecgpipe's CPU thread count (include/ecgpipe/model/torch_runtime.hpp), kept here without LibTorch
// so that asking it does not load LibTorch (the command line loads it only for a model:
// torch_module_loader.cpp); a count given is passed on to LibTorch.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "ecgpipe/model/torch_runtime.hpp"
#include "model/torch_module.hpp"

namespace ecgpipe {
namespace {

std::atomic<int> g_requested{0};

}  // namespace

void set_cpu_threads(int threads) {
  if (threads <= 0) return;
  g_requested.store(threads);
  detail::set_torch_threads(threads);
}

int default_cpu_threads() {
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0 && n <= 1 << 20) return static_cast<int>(n);
  }
  cpu_set_t mask;
  if (::sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 0) return CPU_COUNT(&mask);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int cpu_threads() {
  const int requested = g_requested.load();
  return requested > 0 ? requested : default_cpu_threads();
}

namespace detail {
int requested_cpu_threads() { return g_requested.load(); }
}  // namespace detail

}  // namespace ecgpipe
