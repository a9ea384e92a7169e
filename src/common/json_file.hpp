// JSON that ecgpipe reads back from files a user may have changed or made (an output folder's
// report.json and error.json, the beat classifier, a model's meta record): parsed with bounds.
// nlohmann's parser recurses once per nesting level, so a file of a million '[' would overflow the
// stack: the nesting is counted first, outside strings, and refused past kMaxJsonDepth. Files are
// read only when they are regular files (a FIFO would block) of at most kMaxJsonFileBytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ecgpipe {

inline constexpr int kMaxJsonDepth = 64;                               // ecgpipe's own files nest 4 deep
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{64} << 20;  // a report.json is ~100 kB

// The parsed text; InputError naming `where` (and the byte) for bad JSON or nesting past the bound.
nlohmann::json parse_json_bounded(std::string_view text, const std::string& where);

// Whether `v` is a JSON integer within int's range. get<int>() would convert a float such as 1e300
// with static_cast (undefined behaviour) and wrap 2^32 + 1; found by tests/fuzz/fuzz_model_meta.
bool is_json_int(const nlohmann::json& v);

// The parsed file; InputError naming it if it is missing, not a regular file, too large or bad JSON.
nlohmann::json read_json_file(const std::string& path);

}  // namespace ecgpipe
