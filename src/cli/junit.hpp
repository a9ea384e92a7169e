// JUnit XML for `ecgpipe selftest --junit FILE`: the report format CI systems (GitLab, Jenkins,
// GitHub's test reporters) display. Internal to the executable.
#pragma once

#include <string>
#include <vector>

namespace ecgpipe {

struct TestCaseResult {
  std::string classname;  // the group, e.g. "cuda" or "cpu"
  std::string name;       // the check, e.g. "bandpass matches cpu"
  double seconds = 0.0;
  enum class Status { passed, failed, skipped } status = Status::passed;
  std::string message;  // why it failed or was skipped; details for a pass
};

// One <testsuite> named `suite` holding every case, with the counts CI systems read from its
// attributes. Text is escaped for XML (&, <, >, ", ' and control characters, which XML 1.0
// cannot carry, as U+FFFD).
std::string junit_xml(const std::string& suite, const std::vector<TestCaseResult>& cases);

}  // namespace ecgpipe
