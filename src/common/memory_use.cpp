// The process's resident memory from /proc/self/status: see memory_use.hpp.
#include "common/memory_use.hpp"

#include <cstdio>
#include <cstring>

namespace ecgpipe::detail {

MemoryUse memory_use() {
  MemoryUse m;
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return m;
  char line[256];
  long long kib = 0;
  // Lines such as "VmRSS:\t  123456 kB"; each field read once, whatever the order.
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %lld kB", &kib) == 1) m.resident_mib = kib / 1024;
    else if (std::sscanf(line, "VmHWM: %lld kB", &kib) == 1) m.peak_mib = kib / 1024;
  }
  std::fclose(f);
  return m;
}

}  // namespace ecgpipe::detail
