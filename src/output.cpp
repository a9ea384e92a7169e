#include "output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ecgpipe/error.hpp"

namespace ecgpipe {

namespace fs = std::filesystem;

void prepare_output_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create output directory " + dir + ": " + ec.message());
  if (!fs::is_directory(dir)) throw OutputError("output path " + dir + " is not a directory");
  // Probe now, before minutes of training, rather than fail at the end.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw OutputError("cannot write into output directory " + dir + ": " + std::strerror(errno));
  }
}

AtomicFile::AtomicFile(const std::string& dir, const std::string& name)
    : temp_((fs::path(dir) / ("." + name + ".tmp." + std::to_string(::getpid()))).string()),
      final_((fs::path(dir) / name).string()) {}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    if (out_.is_open()) out_.close();
    std::remove(temp_.c_str());
  }
}

std::ofstream& AtomicFile::stream() {
  if (!out_.is_open()) {
    out_.open(temp_, std::ios::out | std::ios::trunc);
    if (!out_) throw OutputError("cannot create " + temp_ + ": " + std::strerror(errno));
  }
  return out_;
}

void AtomicFile::commit() {
  if (out_.is_open()) {
    out_.flush();
    const bool ok = static_cast<bool>(out_);
    out_.close();
    if (!ok) throw OutputError("cannot write " + final_ + " (disk full?)");
  }
  if (std::rename(temp_.c_str(), final_.c_str()) != 0) {
    throw OutputError("cannot rename " + temp_ + " to " + final_ + ": " + std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace ecgpipe
