// Internal: the process's host memory now and at its peak, for the debug log of long runs.
#pragma once

#include <cstdint>

namespace ecgpipe::detail {

struct MemoryUse {
  std::int64_t resident_mib = -1;  // VmRSS; -1 where /proc/self/status cannot be read
  std::int64_t peak_mib = -1;      // VmHWM: the high-water mark so far
};

// From /proc/self/status (Linux); both -1 elsewhere or when unreadable.
MemoryUse memory_use();

}  // namespace ecgpipe::detail
