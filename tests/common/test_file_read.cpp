// Bounded reads of the files a user names (src/common/file_read.hpp).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "common/file_read.hpp"
#include "ecgpipe/common/error.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;

namespace {

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const ecgpipe::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(FileRead, BoundedReadsAFileWholeUpToItsBound) {
  const fs::path dir = testutil::fresh_dir();
  testutil::write_text(dir / "a.txt", "0123456789");
  const std::string a = (dir / "a.txt").string();
  EXPECT_EQ(ecgpipe::read_file_bounded(a, 10, "x"), "0123456789");
  EXPECT_EQ(ecgpipe::read_file_bounded(a, 11, ""), "0123456789");
  EXPECT_EQ(ecgpipe::read_file_prefix(a, 4, "x"), "0123");
  EXPECT_EQ(ecgpipe::read_file_prefix(a, 0, "x"), "");
  EXPECT_EQ(ecgpipe::read_file_prefix(a, 100, "x"), "0123456789");
  EXPECT_TRUE(has(error_of([&] { ecgpipe::read_file_bounded(a, 9, "annotation file"); }),
                  "cannot read annotation file " + a + ": more than 9 bytes"));
  EXPECT_EQ(error_of([&] { ecgpipe::read_file_bounded((dir / "none").string(), 9, ""); }),
            "cannot open " + (dir / "none").string() + ": No such file or directory");
  EXPECT_EQ(error_of([&] { ecgpipe::read_file_bounded(dir.string(), 9, "WFDB header"); }),
            "cannot read WFDB header " + dir.string() + ": a directory");
  EXPECT_EQ(error_of([&] { ecgpipe::read_file_prefix(dir.string(), 9, ""); }), "cannot read " + dir.string() + ": a directory");
}

// A file that does not end, which stat calls empty: /dev/zero named as a reference filled memory
// until std::bad_alloc; now the bound ends it. The prefix of it is as many zeros as asked.
TEST(FileRead, ADeviceThatNeverEndsStopsAtTheBound) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  EXPECT_TRUE(has(error_of([] { ecgpipe::read_file_bounded("/dev/zero", 1 << 20, "reference"); }),
                  "cannot read reference /dev/zero: more than 1048576 bytes"));
  EXPECT_EQ(ecgpipe::read_file_prefix("/dev/zero", 100000, ""), std::string(100000, '\0'));
}

// A FIFO (a process substitution, <(zcat ref.csv.gz)) is read as cat reads it.
TEST(FileRead, AFifoIsReadToItsEnd) {
  const fs::path dir = testutil::fresh_dir();
  const std::string fifo = (dir / "f").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { testutil::write_text(fifo, "sample,symbol\n1,N\n"); });
  EXPECT_EQ(ecgpipe::read_file_bounded(fifo, 1000, ""), "sample,symbol\n1,N\n");
  writer.join();
}
