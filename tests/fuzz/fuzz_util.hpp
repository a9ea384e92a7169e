// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp, run by scripts/fuzz.sh).
//
// The contract every reader is fuzzed against: for any bytes it either returns a value that
// passes the harness's cheap invariants, or throws an ecgpipe::Error (the exit-code-carrying
// exception main() turns into one line). Anything else -- another exception (std::bad_alloc,
// std::out_of_range, ...), a crash, a sanitizer report, a hang or a huge allocation -- is a
// finding: the harness aborts, libFuzzer saves the input.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

#include "ecgpipe/common/error.hpp"

namespace fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::abort();
}

#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) ::fuzz::finding(std::string(__FILE__ ":") + std::to_string(__LINE__) + ": " #cond); \
  } while (0)

// Runs `f`; an ecgpipe::Error is the expected rejection of bad input (true returned: rejected),
// any other exception is a finding.
template <class F>
bool rejects(F&& f) {
  try {
    f();
    return false;
  } catch (const ecgpipe::Error&) {
    return true;
  } catch (const std::exception& e) {
    finding(std::string("exception other than ecgpipe::Error: ") + e.what());
  } catch (...) {
    finding("non-standard exception");
  }
}

// A private scratch directory for the readers that take a path: made once per process (the
// harnesses run single-threaded), files rewritten per input. Under $TMPDIR, else /dev/shm, else
// /tmp: a tmpfs keeps the per-input write cheap (on this project's disk-backed /tmp the writes took
// more time than the readers).
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    const std::string base = tmp != nullptr && *tmp != '\0' ? tmp : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    path = base + "/ecgpipe-fuzz-XXXXXX";
    if (mkdtemp(path.data()) == nullptr) finding("cannot make a scratch directory under " + base);
  }
  ~ScratchDir() {  // at a normal exit; a crashed run leaves its few small files
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

// Writes `size` bytes to scratch_dir()/name (replacing it) and returns the path.
inline std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) finding("cannot write " + path);
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) finding("cannot write " + path);
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return path;
}

}  // namespace fuzz
