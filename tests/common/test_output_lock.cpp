// One writer per output directory (src/common/output_lock.hpp). flock(2) locks of two open files
// conflict even inside one process, so these run in-process; tests/batch/ runs two processes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "common/output_lock.hpp"
#include "ecgpipe/common/error.hpp"
#include "test_util.hpp"

namespace ecgpipe {
namespace {

using testutil::fresh_dir;
using testutil::list_dir;
namespace fs = std::filesystem;

std::string error_of(const fs::path& dir, OutputLock::Mode mode) {
  try {
    OutputLock again(dir.string(), mode);
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputLock, ASecondWriterIsRefusedAndToldWhoHoldsIt) {
  const auto dir = fresh_dir();
  {
    const OutputLock lock(dir.string(), OutputLock::Mode::exclusive);
    const std::string e = error_of(dir, OutputLock::Mode::exclusive);
    EXPECT_NE(e.find(dir.string() + " is being written by another ecgpipe (pid " + std::to_string(::getpid()) + ")"),
              std::string::npos) << e;
    EXPECT_NE(error_of(dir, OutputLock::Mode::shared), "") << "a job array's part waits for no whole batch";
  }
  EXPECT_EQ(error_of(dir, OutputLock::Mode::exclusive), "") << "released with the object";
}

TEST(OutputLock, PartsOfAJobArrayShareIt) {
  const auto dir = fresh_dir();
  const OutputLock a(dir.string(), OutputLock::Mode::shared);
  EXPECT_EQ(error_of(dir, OutputLock::Mode::shared), "");
  EXPECT_NE(error_of(dir, OutputLock::Mode::exclusive), "");
}

TEST(OutputLock, ADirectoryItCreatedIsRemovedWhenNothingWasWritten) {
  const auto dir = fresh_dir();
  { const OutputLock lock((dir / "new" / "deeper").string(), OutputLock::Mode::exclusive); }
  EXPECT_FALSE(fs::exists(dir / "new" / "deeper")) << "the failed run leaves no empty folder";
  {
    const OutputLock lock((dir / "kept").string(), OutputLock::Mode::exclusive);
    testutil::write_text(dir / "kept" / "beats.csv", "index,r_peak\n");
  }
  EXPECT_TRUE(fs::exists(dir / "kept" / "beats.csv"));
  { const OutputLock lock(dir.string(), OutputLock::Mode::exclusive); }
  EXPECT_TRUE(fs::is_directory(dir)) << "a directory that was there stays";
}

}  // namespace
}  // namespace ecgpipe
