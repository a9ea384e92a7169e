// Bounded JSON reading: see src/common/json_file.hpp.
#include "common/json_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

nlohmann::json parse_json_bounded(std::string_view text, const std::string& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw InputError(where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (byte " +
                         std::to_string(i) + ")");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + ": not valid JSON: " + e.what());
  }
}

nlohmann::json read_json_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  std::string text;
  try {
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file");
    if (static_cast<std::size_t>(st.st_size) > kMaxJsonFileBytes)
      throw InputError(path + ": " + std::to_string(st.st_size) + " bytes, more than a JSON file of ecgpipe's can be");
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw InputError("cannot read " + path + ": " + std::strerror(errno));
      if (n == 0) break;
      text.append(buf, static_cast<std::size_t>(n));
      if (text.size() > kMaxJsonFileBytes) throw InputError(path + ": grew past the bound while being read");
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return parse_json_bounded(text, path);
}

}  // namespace ecgpipe
