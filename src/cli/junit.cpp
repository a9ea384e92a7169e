#include "cli/junit.hpp"

#include <cstdio>

#include "common/xml_escape.hpp"

namespace ecgpipe {

namespace {

// XML text: xml_escape (& < > " '), after replacing the control
// characters XML 1.0 cannot carry (all but tab, newline and carriage return) with U+FFFD.
std::string escape(const std::string& text) {
  std::string clean;
  clean.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
      clean += "\xEF\xBF\xBD";  // U+FFFD in UTF-8
    else
      clean += ch;
  }
  return xml_escape(clean);
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
