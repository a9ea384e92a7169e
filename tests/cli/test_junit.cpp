// selftest's JUnit XML: counts in the attributes CI systems read, and text escaped.
#include <gtest/gtest.h>

#include "cli/junit.hpp"

namespace ecgpipe {
namespace {

using Status = TestCaseResult::Status;

TEST(Junit, EmptySuiteHasZeroCounts) {
  const std::string xml = junit_xml("ecgpipe selftest", {});
  EXPECT_NE(xml.find("<testsuites tests=\"0\" failures=\"0\" skipped=\"0\" time=\"0.000\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"ecgpipe selftest\" tests=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("</testsuites>\n"), std::string::npos);
}

TEST(Junit, CountsPassedFailedSkipped) {
  const std::vector<TestCaseResult> cases = {
      {"cpu", "csv", 0.25, Status::passed, ""},
      {"cuda", "detection matches cpu", 0.5, Status::failed, "3 R peaks differ"},
      {"cuda", "training", 0.0, Status::skipped, "no GPU"},
  };
  const std::string xml = junit_xml("s", cases);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\" skipped=\"1\" time=\"0.750\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"cpu\" name=\"csv\" time=\"0.250\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"3 R peaks differ\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"no GPU\"/>"), std::string::npos) << xml;
}

TEST(Junit, EscapesMarkupAndControlCharacters) {
  const std::vector<TestCaseResult> cases = {{"a<b", "x & \"y\" 'z'", 0.0, Status::failed, "1 > 0\x01\ttab"}};
  const std::string xml = junit_xml("s", cases);
  EXPECT_NE(xml.find("classname=\"a&lt;b\" name=\"x &amp; &quot;y&quot; &#39;z&#39;\""), std::string::npos) << xml;
  // \x01 cannot appear in XML 1.0: replaced by U+FFFD; the tab stays.
  EXPECT_NE(xml.find("message=\"1 &gt; 0\xEF\xBF\xBD\ttab\""), std::string::npos) << xml;
}

TEST(Junit, PassWithDetailsGoesToSystemOut) {
  const std::string xml = junit_xml("s", {{"cpu", "bandpass", 0.0, Status::passed, "max |diff| 1e-12"}});
  EXPECT_NE(xml.find("<system-out>max |diff| 1e-12</system-out>"), std::string::npos) << xml;
}

}  // namespace
}  // namespace ecgpipe
