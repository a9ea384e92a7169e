// Text for XML and HTML content and attribute values: & < > " ' as entities. One escape for every
// page and file ecgpipe writes in XML (report.html and its SVG, the batch's index.html, JUnit).
#pragma once

#include <string>
#include <string_view>

namespace ecgpipe {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace ecgpipe
