// OutputSet (src/common/output_set.hpp): a set of files appears whole or not at all, an earlier set is put
// back when a commit fails half-way, and nothing is created before the commit.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <thread>
#include <vector>
#include <filesystem>
#include <string>

#include "common/output_set.hpp"
#include "ecgpipe/common/error.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using testutil::fresh_dir;
using testutil::list_dir;
using testutil::read_text;
using testutil::write_text;

TEST(OutputSet, CommitsEveryFileAndCreatesMissingDirectories) {
  const auto dir = fresh_dir();
  const auto out = dir / "a" / "b";
  ecgpipe::OutputSet set(/*create_dirs=*/true);
  set.text((out / "x.csv").string()) << "x\n";
  set.bytes((out / "m.bin").string(), std::string("\0\1\2", 3));
  EXPECT_FALSE(fs::exists(dir / "a")) << "nothing before the commit";
  set.commit();
  EXPECT_EQ(read_text(out / "x.csv"), "x\n");
  EXPECT_EQ(read_text(out / "m.bin"), std::string("\0\1\2", 3));
  EXPECT_EQ(list_dir(out).size(), 2u) << "no temporaries left";
}

TEST(OutputSet, PiecesAreWrittenInOrderAsOneFile) {
  const auto dir = fresh_dir();
  ecgpipe::OutputSet set;
  set.pieces((dir / "p.csv").string(), {"head\n", "", "row 1\n", std::string(3u << 20, 'x'), "end"});
  set.pieces((dir / "none.csv").string(), {});
  set.commit();
  EXPECT_EQ(read_text(dir / "p.csv"), "head\nrow 1\n" + std::string(3u << 20, 'x') + "end");
  EXPECT_EQ(read_text(dir / "none.csv"), "");
}

TEST(OutputSet, DirectoryTargetFailsTheSetBeforeAnyWrite) {
  const auto dir = fresh_dir();
  write_text(dir / "1.txt", "old 1");
  write_text(dir / "2.txt", "old 2");
  fs::create_directories(dir / "3.txt" / "inside");  // cannot be replaced by a file
  ecgpipe::OutputSet set(/*create_dirs=*/true);
  set.text((dir / "1.txt").string()) << "new 1";
  set.text((dir / "new" / "2.txt").string()) << "new 2";
  set.text((dir / "2.txt").string()) << "new 2";
  set.text((dir / "3.txt").string()) << "new 3";
  EXPECT_THROW(set.commit(), ecgpipe::OutputError);
  EXPECT_EQ(read_text(dir / "1.txt"), "old 1");
  EXPECT_EQ(read_text(dir / "2.txt"), "old 2");
  EXPECT_FALSE(fs::exists(dir / "new")) << "the directory made for the set is removed";
  for (const auto& name : list_dir(dir)) EXPECT_NE(name[0], '.') << "left behind: " << name;
}

// A rename that fails half-way (an immutable target: rename(2) gives EPERM even to root) after
// an earlier file of the set was renamed: that file is put back.
TEST(OutputSet, RenameFailingHalfWayRollsBackTheRenamedFiles) {
  const auto dir = fresh_dir();
  write_text(dir / "1.txt", "old 1");
  write_text(dir / "2.txt", "old 2");
  const std::string lock = "chattr +i '" + (dir / "2.txt").string() + "' 2>/dev/null";
  if (std::system(lock.c_str()) != 0) GTEST_SKIP() << "chattr +i not possible here (needs root and ext4/xfs/btrfs)";
  ecgpipe::OutputSet set;
  set.text((dir / "1.txt").string()) << "new 1";
  set.text((dir / "2.txt").string()) << "new 2";
  EXPECT_THROW(set.commit(), ecgpipe::OutputError);
  EXPECT_EQ(std::system(("chattr -i '" + (dir / "2.txt").string() + "'").c_str()), 0) << "the file stays immutable";
  EXPECT_EQ(read_text(dir / "1.txt"), "old 1") << "the file renamed before the failure is put back";
  EXPECT_EQ(read_text(dir / "2.txt"), "old 2");
  for (const auto& name : list_dir(dir)) EXPECT_NE(name[0], '.') << "left behind: " << name;
}

// A file of an earlier set that the new one does not have (synth's rhythm truth of an AF scenario
// beside a sinus recording written after it) is taken away with the commit; a FIFO is not ours to
// take; nothing there is nothing to do. A removal that fails puts the set's files back.
TEST(OutputSet, FilesRemovedWithTheSetAndPutBackWithIt) {
  const auto dir = fresh_dir();
  write_text(dir / "1.txt", "old 1");
  write_text(dir / "stale.txt", "old truth");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  {
    ecgpipe::OutputSet set;
    set.text((dir / "1.txt").string()) << "new 1";
    for (const char* name : {"stale.txt", "fifo", "absent.txt"}) set.remove((dir / name).string());
    set.commit();
  }
  EXPECT_EQ(read_text(dir / "1.txt"), "new 1");
  std::vector<std::string> names = list_dir(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"1.txt", "fifo"}));
  write_text(dir / "stale.txt", "old truth");
  const std::string lock = "chattr +i '" + (dir / "stale.txt").string() + "' 2>/dev/null";
  if (std::system(lock.c_str()) != 0) GTEST_SKIP() << "chattr +i not possible here (needs root and ext4/xfs/btrfs)";
  ecgpipe::OutputSet set;
  set.text((dir / "1.txt").string()) << "newer 1";
  set.remove((dir / "stale.txt").string());
  EXPECT_THROW(set.commit(), ecgpipe::OutputError);
  EXPECT_EQ(std::system(("chattr -i '" + (dir / "stale.txt").string() + "'").c_str()), 0);
  EXPECT_EQ(read_text(dir / "1.txt"), "new 1") << "the set's file is put back";
  EXPECT_EQ(read_text(dir / "stale.txt"), "old truth");
  for (const auto& name : list_dir(dir)) EXPECT_NE(name[0], '.') << "left behind: " << name;
}

TEST(OutputSet, MissingDirectoryIsAnErrorUnlessAskedToCreate) {
  const auto dir = fresh_dir();
  ecgpipe::OutputSet set;
  set.text((dir / "missing" / "f.csv").string()) << "x";
  try {
    set.commit();
    ADD_FAILURE() << "no error";
  } catch (const ecgpipe::OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(list_dir(dir).empty());
}

TEST(OutputSet, CheckOutputDirCreatesNothing) {
  const auto dir = fresh_dir();
  EXPECT_NO_THROW(ecgpipe::check_output_dir((dir / "a" / "b").string()));
  EXPECT_FALSE(fs::exists(dir / "a"));
  write_text(dir / "file", "x");
  EXPECT_THROW(ecgpipe::check_output_dir((dir / "file" / "out").string()), ecgpipe::OutputError);
  EXPECT_THROW(ecgpipe::check_output_dir((dir / "file").string()), ecgpipe::OutputError);
}

}  // namespace

// `--jobs N` commits sets from several threads at once. The renames' guard against signals was
// one process-wide flag: a second thread entering it waited for a signal (pause) forever.
TEST(OutputSet, ConcurrentCommitsFromSeveralThreadsAllFinish) {
  const auto dir = fresh_dir();
  constexpr int kThreads = 4, kCommits = 200;
  auto work = [&](int t) {
    for (int k = 0; k < kCommits; ++k) {
      ecgpipe::OutputSet set(/*create_dirs=*/true);
      const std::string sub = (dir / ("t" + std::to_string(t))).string();
      set.text(sub + "/a.csv") << t << ',' << k << '\n';
      set.text(sub + "/b.json") << k << '\n';
      set.commit();
    }
  };
  // A deadlock would hang the test binary: a watchdog ends it with a message instead.
  std::packaged_task<void()> all([&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
    for (auto& th : threads) th.join();
  });
  auto done = all.get_future();
  std::thread runner(std::move(all));
  constexpr auto kDeadlockAfter = std::chrono::seconds(60);  // 800 small commits take < 1 s
  if (done.wait_for(kDeadlockAfter) != std::future_status::ready) {
    std::fprintf(stderr, "OutputSet.ConcurrentCommits: deadlock (threads still waiting after 60 s)\n");
    std::_Exit(1);
  }
  runner.join();
  done.get();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(read_text(dir / ("t" + std::to_string(t)) / "a.csv"), std::to_string(t) + "," + std::to_string(kCommits - 1) + "\n");
    EXPECT_EQ(list_dir(dir / ("t" + std::to_string(t))).size(), 2u) << "no temporaries or backups left";
  }
}

namespace {

// Two threads registering at once took the same slot of the signal handlers' table: each saw it
// free, both wrote their path into it and both got its number, so one temporary was no longer in
// the table (a SIGTERM then left it behind: BatchCli.ManyJobsAtOnceAndSigtermLeaveNoTemporaries
// failed under load on CI and the H200 host, 2026-11-26), and the first to finish freed the
// other's slot. Every entry held at one time must be distinct.
TEST(OutputSet, ConcurrentRegistrationsGetDistinctSlots) {
  const fs::path root = fresh_dir();
  constexpr int kThreads = 16, kEach = 100;  // 1600 held at once: within the table's 4096
  std::vector<std::vector<int>> slots(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i)
        slots[t].push_back(ecgpipe::make_output_dir((root / ("d" + std::to_string(t) + "_" + std::to_string(i))).string()));
    });
  for (auto& th : threads) th.join();
  std::vector<int> all;
  for (const auto& s : slots) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a slot handed to two registrations";
  for (int s : all) ecgpipe::forget_output_dir(s);
}

}  // namespace
