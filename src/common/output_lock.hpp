// One writer per output directory (issue 25: two processes on one --out left folders holding
// beats.csv from one run and report.json from the other, and summary rows naming the other run's
// inputs). An flock(2) on the directory itself, held for the object's life: nothing is added to
// the outputs, and the kernel drops the lock when the process ends, however it ends, so a crash or
// SIGKILL leaves no stale lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ecgpipe {

class OutputLock {
 public:
  // exclusive: a run, a detect, a score, a whole batch (and each recording's folder in a batch);
  // shared: the parts of a job array, which write different folders of one --out at once.
  enum class Mode { exclusive, shared };

  // Creates `dir` if needed and takes its lock without waiting. OutputError (exit 4) when another
  // process holds it, naming that process (its pid, from /proc/locks) where it can. Directories
  // this lock created are removed again if still empty when it is released, or when a signal or
  // a crash ends the process (src/common/output_set.hpp): a run that fails before writing leaves
  // no empty output directory behind.
  OutputLock(const std::string& dir, Mode mode);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  void release();

  int fd_ = -1;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> locked_;  // the directory's device and inode
  std::vector<std::string> created_;  // outermost first
  std::vector<int> slots_;            // their entries in the signal handlers' table
};

}  // namespace ecgpipe
