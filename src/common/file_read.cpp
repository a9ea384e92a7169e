// Bounded whole-file reads: see src/common/file_read.hpp.
#include "common/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// Closes the descriptor on every path out, exceptions included; move-only (one owner).
struct Fd {
  int fd;
  explicit Fd(int d) : fd(d) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads `fd` to its end or to `limit` bytes. Past `limit`: an InputError from `too_long` when
// it is set, else the first `limit` bytes. `size_hint`: the size fstat gave (0 when none).
template <typename TooLong>
std::string read_up_to(int fd, std::size_t limit, std::size_t size_hint, const std::string& name, const TooLong* too_long) {
  std::string bytes;
  bytes.reserve(std::min(size_hint, limit));
  char buf[1 << 16];
  for (;;) {
    const std::size_t want = too_long ? sizeof buf : std::min(sizeof buf, limit - bytes.size());
    if (want == 0) break;
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError("cannot read " + name + ": " + std::strerror(errno));
    if (n == 0) break;
    // The size fstat gave is only a hint: the file may grow while it is read.
    if (static_cast<std::size_t>(n) > limit - bytes.size()) (*too_long)();
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  return bytes;
}

// "what path", or "path" alone.
std::string named(const std::string& what, const std::string& path) { return what.empty() ? path : what + " " + path; }

// Opened blocking (a FIFO named by the user is a pipe to read), refused when a directory, which
// open() takes and read() fails on with EISDIR.
Fd open_input(const std::string& path, const std::string& what, struct stat& st) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw InputError("cannot open " + named(what, path) + ": " + std::strerror(errno));
  if (::fstat(f.fd, &st) != 0) throw InputError("cannot read " + named(what, path) + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError("cannot read " + named(what, path) + ": a directory");
  return f;
}

std::size_t regular_size(const struct stat& st) { return S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) : 0; }

}  // namespace

std::string read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what) {
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw InputError("cannot open " + what + " " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw InputError(what + " " + path + ": not a regular file");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    throw InputError(what + " " + path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                     std::to_string(max_bytes) + " a " + what + " can have");
  const auto grew = [&] {
    throw InputError(what + " " + path + ": grew past " + std::to_string(max_bytes) + " bytes while being read");
  };
  return read_up_to(f.fd, max_bytes, static_cast<std::size_t>(st.st_size), what + " " + path, &grew);
}

std::string read_file_bounded(const std::string& path, std::size_t max_bytes, const std::string& what) {
  struct stat st {};
  const Fd f = open_input(path, what, st);
  const auto too_long = [&] {
    throw InputError("cannot read " + named(what, path) + ": more than " + std::to_string(max_bytes) +
                     " bytes (a device or a file that does not end?)");
  };
  if (regular_size(st) > max_bytes) too_long();
  return read_up_to(f.fd, max_bytes, regular_size(st), named(what, path), &too_long);
}

std::string read_file_prefix(const std::string& path, std::size_t limit, const std::string& what) {
  struct stat st {};
  const Fd f = open_input(path, what, st);
  return read_up_to<void (*)()>(f.fd, limit, regular_size(st), named(what, path), nullptr);
}

}  // namespace ecgpipe
