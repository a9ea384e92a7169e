// Locks on output directories, shared by OutputLock and OutputSet: see src/common/dir_locks.hpp.
#include "common/dir_locks.hpp"

#include <sys/sysmacros.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

namespace ecgpipe {
namespace {

std::mutex g_locked_dirs_mutex;
std::multiset<std::pair<std::uint64_t, std::uint64_t>> g_locked_dirs;  // a directory may be locked twice

}  // namespace

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

std::string written_by_another(const std::string& dir, int fd) {
  struct stat st {};
  const std::string pid = ::fstat(fd, &st) == 0 ? lock_holder(st) : "";
  return dir + " is being written by another ecgpipe" + (pid.empty() ? "" : " (pid " + pid + ")");
}

void note_output_dir_locked(std::uint64_t dev, std::uint64_t ino) {
  const std::lock_guard<std::mutex> hold(g_locked_dirs_mutex);
  g_locked_dirs.insert({dev, ino});
}

void note_output_dir_unlocked(std::uint64_t dev, std::uint64_t ino) {
  const std::lock_guard<std::mutex> hold(g_locked_dirs_mutex);
  const auto it = g_locked_dirs.find({dev, ino});
  if (it != g_locked_dirs.end()) g_locked_dirs.erase(it);
}

bool output_dir_locked_here(std::uint64_t dev, std::uint64_t ino) {
  const std::lock_guard<std::mutex> hold(g_locked_dirs_mutex);
  return g_locked_dirs.count({dev, ino}) > 0;
}

}  // namespace ecgpipe
