// The output directory's lock: see src/common/output_lock.hpp.
#include "common/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <spdlog/spdlog.h>

#include "common/dir_locks.hpp"
#include "common/output_set.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
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
      throw OutputError(written_by_another(d, fd_) +
                        ": one output directory takes one writer at a time; wait for it or choose another --out");
    }
    // Its commits are this lock's (output_set.hpp): they take no lock of their own on it.
    struct stat st {};
    if (::fstat(fd_, &st) == 0) {
      locked_ = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
      note_output_dir_locked(locked_->first, locked_->second);
    }
  } catch (...) {
    release();
    throw;
  }
}

OutputLock::~OutputLock() { release(); }

void OutputLock::release() {
  if (locked_) note_output_dir_unlocked(locked_->first, locked_->second);
  locked_.reset();
  if (fd_ >= 0) ::close(fd_);  // releases the flock
  fd_ = -1;
  // Directories this lock made and nothing filled: rmdir removes only empty ones, innermost first.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());
  for (const int slot : slots_) forget_output_dir(slot);
  created_.clear();
  slots_.clear();
}

}  // namespace ecgpipe
