// File-system helpers (src/common/paths.hpp).
#include "common/paths.hpp"

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

namespace ecgpipe::detail {
namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  (void)std::remove(path);  // files, links and (depth first, so emptied) directories
  return 0;
}

}  // namespace

std::string path_join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == ".") return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool list_directory(const std::string& dir, std::vector<std::string>& names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return true;
}

void remove_tree(const std::string& path) noexcept {
  constexpr int kOpenFds = 16;  // nftw's descriptor budget: deeper trees are still walked
  (void)::nftw(path.c_str(), remove_entry, kOpenFds, FTW_DEPTH | FTW_PHYS);
}

}  // namespace ecgpipe::detail
