// The output directory's lock: see src/common/output_lock.hpp.
#include "common/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <spdlog/spdlog.h>

#include "common/output_set.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// The pid holding an flock on the file `st` describes, from /proc/locks ("1: FLOCK  ADVISORY  WRITE
// 1234 08:01:56789 0 EOF"), or "" where it cannot be told (no /proc, another namespace).
std::string lock_holder(const struct stat& st) {
  std::ifstream locks("/proc/locks");
  char want[64];
  std::snprintf(want, sizeof want, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  for (std::string line; std::getline(locks, line);) {
    std::istringstream f(line);
    std::string n, kind, advisory, access, pid, id;
    if (f >> n >> kind >> advisory >> access >> pid >> id && kind == "FLOCK" && id == want) return pid;
  }
  return "";
}

}  // namespace

OutputLock::OutputLock(const std::string& dir, Mode mode) {
  const std::string d = dir.empty() ? "." : dir;
  // The missing directories, outermost first: made with the signal handlers told (make_output_dir).
  std::vector<std::string> missing;
  for (std::string p = d; !p.empty() && p != "/" && p != ".";) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) break;
    missing.insert(missing.begin(), p);
    const std::size_t slash = p.find_last_of('/');
    p = slash == std::string::npos ? "" : p.substr(0, slash);
  }
  try {
    for (const auto& m : missing) {
      slots_.push_back(make_output_dir(m));
      created_.push_back(m);
    }
    fd_ = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw OutputError("cannot open output directory " + d + ": " + std::strerror(errno));
    int rc = 0;
    while ((rc = ::flock(fd_, (mode == Mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      const int err = errno;
      if (err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS) {
        // A file system without locks (some network and FUSE mounts): refusing to write there at
        // all would be worse than the race the lock prevents; say so and go on without it.
        spdlog::warn("{}: this file system takes no locks ({}); do not run two ecgpipe into it at once", d,
                     std::strerror(err));
        return;
      }
      if (err != EWOULDBLOCK) throw OutputError("cannot lock output directory " + d + ": " + std::strerror(err));
      struct stat st {};
      const std::string pid = ::fstat(fd_, &st) == 0 ? lock_holder(st) : "";
      throw OutputError(d + " is being written by another ecgpipe" + (pid.empty() ? "" : " (pid " + pid + ")") +
                        ": one output directory takes one writer at a time; wait for it or choose another --out");
    }
  } catch (...) {
    release();
    throw;
  }
}

OutputLock::~OutputLock() { release(); }

void OutputLock::release() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
  fd_ = -1;
  // Directories this lock made and nothing filled: rmdir removes only empty ones, innermost first.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());
  for (const int slot : slots_) forget_output_dir(slot);
  created_.clear();
  slots_.clear();
}

}  // namespace ecgpipe
