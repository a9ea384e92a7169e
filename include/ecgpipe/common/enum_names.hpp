// The names of an enum's values, one table per enum (device_names, preset_names, model_names).
// Each table is read by the enum's name function (reports, model files), by the exact reader of
// names ecgpipe wrote itself (model_meta.cpp) and by the command line, which takes any case
// (cli_common.cpp's enum options, through CLI11's CheckedTransformer): a new value is named once.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ecgpipe {

// Name -> value pairs, in the order the help lists them. A pair list, not a map, because CLI11's
// CheckedTransformer takes either and the order is then the table's.
template <typename E>
using EnumNames = std::vector<std::pair<std::string, E>>;

// The name of `value` in `names`; std::logic_error if the table lacks it (a bug).
template <typename E>
const char* name_in(const EnumNames<E>& names, E value) {
  for (const auto& entry : names)
    if (entry.second == value) return entry.first.c_str();
  throw std::logic_error("an enum value is missing from its name table");
}

// The value named exactly `name` (no case folding: for names ecgpipe wrote), if any.
template <typename E>
std::optional<E> value_named(const EnumNames<E>& names, const std::string& name) {
  for (const auto& entry : names)
    if (entry.first == name) return entry.second;
  return std::nullopt;
}

// "{a,b,c}": the names as CLI11 lists a set, for help and error messages.
template <typename E>
std::string braced_names(const EnumNames<E>& names) {
  std::string out = "{";
  for (const auto& entry : names) out += (out.size() > 1 ? "," : "") + entry.first;
  return out + "}";
}

}  // namespace ecgpipe
