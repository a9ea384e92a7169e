// JSON as ecgpipe writes it (report.json, summary.json, error.json, a model's meta record, every
// --json and the viewer's answers). Its strings come from file names, CSV headers, EDF labels and
// WFDB descriptions, which are bytes: "M\xfcller.csv", a Latin-1 name, is no UTF-8, and nlohmann's
// dump() threw on it after a whole run (exit 1, nothing written). Such bytes are written as
// U+FFFD; the rest as dump() writes it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ecgpipe {

// `indent` as nlohmann's dump(): -1 one line, N spaces per level.
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ecgpipe
