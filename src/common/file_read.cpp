// Bounded whole-file reads: see src/common/file_read.hpp.
#include "common/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// Closes the descriptor on every path out, exceptions included.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw InputError("cannot open " + what + " " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw InputError(what + " " + path + ": not a regular file");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    throw InputError(what + " " + path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                     std::to_string(max_bytes) + " a " + what + " can have");
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError("cannot read " + what + " " + path + ": " + std::strerror(errno));
    if (n == 0) break;
    // The size fstat gave is only a hint: the file may grow while it is read.
    if (static_cast<std::size_t>(n) > max_bytes - bytes.size())
      throw InputError(what + " " + path + ": grew past " + std::to_string(max_bytes) + " bytes while being read");
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  return bytes;
}

}  // namespace ecgpipe
