// Bounded JSON reading: see src/common/json_file.hpp.
#include "common/json_file.hpp"

#include <cstdint>
#include <limits>

#include "common/file_read.hpp"
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

bool is_json_int(const nlohmann::json& v) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= std::numeric_limits<int>::max();
  return v.get<std::int64_t>() >= std::numeric_limits<int>::min() && v.get<std::int64_t>() <= std::numeric_limits<int>::max();
}

nlohmann::json read_json_file(const std::string& path) {
  return parse_json_bounded(read_regular_file(path, kMaxJsonFileBytes, "JSON file"), path);
}

}  // namespace ecgpipe
