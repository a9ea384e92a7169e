// Internal: the wall time of consecutive steps and the process's host memory after each, logged at
// debug level (`-v`): what grows with a long recording, and what waits.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "common/clock.hpp"
#include "common/memory_use.hpp"

namespace ecgpipe::detail {

class StepLog {
 public:
  // Steps are timed from `start`; each line begins with `prefix`.
  StepLog(std::string prefix, Clock::time_point start) : prefix_(std::move(prefix)), last_(start) {}

  // The step `what` ended now: its seconds since the previous one (or the start), and memory.
  void done(const char* what) {
    const MemoryUse m = memory_use();
    spdlog::debug("{}{}: {:.3f} s (host memory {} MiB, peak {} MiB)", prefix_, what, seconds_since(last_), m.resident_mib,
                  m.peak_mib);
    last_ = Clock::now();
  }

 private:
  std::string prefix_;
  Clock::time_point last_;
};

}  // namespace ecgpipe::detail
