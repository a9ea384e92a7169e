// The file-system helpers (src/common/paths.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "common/paths.hpp"
#include "test_util.hpp"

namespace ecgpipe::detail {
namespace {

TEST(Paths, JoinKeepsRelativePathsShort) {
  EXPECT_EQ(path_join("", "a.csv"), "a.csv");
  EXPECT_EQ(path_join(".", "a.csv"), "a.csv");
  EXPECT_EQ(path_join("out", "a.csv"), "out/a.csv");
  EXPECT_EQ(path_join("out/", "a.csv"), "out/a.csv");
  EXPECT_EQ(path_join("/", "a.csv"), "/a.csv");
}

TEST(Paths, ListsEntriesWithoutDotsAndRemovesTrees) {
  const auto dir = testutil::fresh_dir().string();
  std::vector<std::string> names;
  ASSERT_TRUE(list_directory(dir, names));
  EXPECT_TRUE(names.empty());
  ASSERT_EQ(::mkdir(path_join(dir, "sub").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(path_join(dir, "sub/deeper").c_str(), 0755), 0);
  testutil::write_text(path_join(dir, "a.txt"), "a");
  testutil::write_text(path_join(dir, "sub/deeper/b.txt"), "b");
  // A link out of the tree: removed, its target kept.
  const auto outside = testutil::fresh_dir().string();
  testutil::write_text(path_join(outside, "keep.txt"), "k");
  ASSERT_EQ(::symlink(outside.c_str(), path_join(dir, "sub/link").c_str()), 0);
  ASSERT_TRUE(list_directory(dir, names));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.txt", "sub"}));
  EXPECT_TRUE(is_directory(path_join(dir, "sub")));
  EXPECT_FALSE(is_directory(path_join(dir, "a.txt")));
  EXPECT_TRUE(path_exists(path_join(dir, "a.txt")));

  remove_tree(dir);
  EXPECT_FALSE(path_exists(dir));
  EXPECT_TRUE(path_exists(path_join(outside, "keep.txt")));
  names.clear();
  EXPECT_FALSE(list_directory(dir, names));
  remove_tree(dir);  // gone already: nothing to do, no error
}

}  // namespace
// The tests' DS1 check (tests/test_util.hpp) skips on an empty folder, a partial one, and one whose
// "file" is a directory; it finds a complete one.
TEST(Paths, TestsFindDs1OnlyWhenEveryFileTheyNeedIsThere) {
  const std::filesystem::path dir = testutil::fresh_dir();
  EXPECT_EQ(testutil::ds1_folder({"101.csv"}, dir.string()), "");
  EXPECT_EQ(testutil::ds1_folder({"101.csv"}, (dir / "missing").string()), "");
  testutil::write_text(dir / "101.csv", "x\n");
  EXPECT_EQ(testutil::ds1_folder({"101.csv"}, dir.string()), dir.string());
  EXPECT_EQ(testutil::ds1_folder({"101.csv", "wfdb/101.hea"}, dir.string()), "") << "a partial copy";
  ASSERT_EQ(::mkdir((dir / "wfdb").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((dir / "wfdb" / "101.hea").c_str(), 0700), 0);
  EXPECT_EQ(testutil::ds1_folder({"101.csv", "wfdb/101.hea"}, dir.string()), "") << "a directory is no file";
}

}  // namespace ecgpipe::detail
