#include "junit.hpp"

#include <cstdio>

namespace ecgpipe {

namespace {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows tab, newline and carriage return among the control characters, no other.
        if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
          out += "\xEF\xBF\xBD";  // U+FFFD in UTF-8
        else
          out += ch;
    }
  }
  return out;
}

std::string seconds_attr(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

}  // namespace

std::string junit_xml(const std::string& suite, const std::vector<TestCaseResult>& cases) {
  std::size_t failures = 0, skipped = 0;
  double total = 0.0;
  for (const auto& c : cases) {
    failures += c.status == TestCaseResult::Status::failed;
    skipped += c.status == TestCaseResult::Status::skipped;
    total += c.seconds;
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites tests=\"" + std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures) +
         "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" + seconds_attr(total) + "\">\n";
  xml += "  <testsuite name=\"" + escape(suite) + "\" tests=\"" + std::to_string(cases.size()) + "\" failures=\"" +
         std::to_string(failures) + "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
         seconds_attr(total) + "\">\n";
  for (const auto& c : cases) {
    xml += "    <testcase classname=\"" + escape(c.classname) + "\" name=\"" + escape(c.name) + "\" time=\"" +
           seconds_attr(c.seconds) + "\"";
    switch (c.status) {
      case TestCaseResult::Status::passed:
        xml += c.message.empty() ? "/>\n" : ">\n      <system-out>" + escape(c.message) + "</system-out>\n    </testcase>\n";
        break;
      case TestCaseResult::Status::failed:
        xml += ">\n      <failure message=\"" + escape(c.message) + "\"/>\n    </testcase>\n";
        break;
      case TestCaseResult::Status::skipped:
        xml += ">\n      <skipped message=\"" + escape(c.message) + "\"/>\n    </testcase>\n";
        break;
    }
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace ecgpipe
