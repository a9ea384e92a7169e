// `ecgpipe selftest`: runs on any machine; without a GPU it tests the CPU, says so and passes.
#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using testutil::fresh_dir;
using testutil::read_text;
using testutil::run_ecgpipe;

TEST(Selftest, CpuChecksPassAndGpuChecksSayWhyTheySkip) {
  const auto dir = fresh_dir();
  const auto junit = dir / "selftest.xml";
  const auto r = run_ecgpipe("selftest --device cpu --epochs 2 --junit '" + junit.string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("LibTorch"), std::string::npos) << r.out;  // the environment comes first
  EXPECT_NE(r.out.find("PASS  cpu   detection and ranking"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SKIP  cuda"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("selftest: 2 passed, 0 failed, 4 skipped"), std::string::npos) << r.out;
  const std::string xml = read_text(junit);
  EXPECT_NE(xml.find("<testsuites tests=\"6\" failures=\"0\" skipped=\"4\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message=\"--device cpu\"/>"), std::string::npos) << xml;
}

TEST(Selftest, CliBadOptionsAreUsageErrors) {
  const auto dir = fresh_dir();
  EXPECT_EQ(run_ecgpipe("selftest --epochs 0", dir).code, 2);
  EXPECT_EQ(run_ecgpipe("selftest --device tpu", dir).code, 2);
}

}  // namespace
