// One clear line and the documented exit code for what issue 25 found unclear or wrongly coded:
// an unknown subcommand, damaged output folders given to `summarize`, manifests that are not text,
// a viewer folder whose files are not files, a batch's log naming each failed file once.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using testutil::count_lines;
using testutil::fresh_dir;
using testutil::read_text;
using testutil::run_ecgpipe;
using testutil::write_text;

using testutil::q;

void expect_one_line(const testutil::Result& r, int code, const std::string& needle) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
}

TEST(CliMessages, UnknownSubcommandIsNamedWithTheOthers) {
  const auto dir = fresh_dir();
  const auto r = run_ecgpipe("frobnicate data.csv", dir);
  expect_one_line(r, 2, "unknown subcommand 'frobnicate'; the subcommands are run, analyze, score,");
  const auto long_name = run_ecgpipe(std::string(5000, 'x'), dir);
  EXPECT_EQ(long_name.code, 2);
  EXPECT_LT(long_name.err.size(), 600u) << "the unknown word is cut in the message";
}

// `summarize` on damaged folders: exit 3 naming the file (issue 25: exit 1 for wrong JSON types
// and report.json as a directory; exit_code 1e300 was cast to int: UBSan, -2147483648 shown).
TEST(CliMessages, SummarizeRefusesDamagedFoldersNamingTheFile) {
  const auto dir = fresh_dir();
  const auto folder = dir / "out" / "rec";
  fs::create_directories(folder);
  const auto check = [&](const std::string& error_json, const std::string& needle) {
    write_text(folder / "error.json", error_json);
    expect_one_line(run_ecgpipe("-q summarize " + q(dir / "out"), dir), 3, needle);
  };
  check(R"({"input": 5, "status": "failed", "exit_code": 3, "error": "x"})", "error.json: \"input\" is not a string");
  check(R"({"input": "a.csv", "status": "failed", "exit_code": 1e300, "error": "x"})", "\"exit_code\" is not a whole number");
  check(R"({"input": "a.csv", "status": "failed", "exit_code": 2.5, "error": "x"})", "\"exit_code\" is not a whole number");
  check(R"([1, 2, 3])", "error.json: not a JSON object");
  check(std::string(100000, '[') + std::string(100000, ']'), "error.json: JSON nested deeper than 64 levels");
  fs::remove(folder / "error.json");
  fs::create_directory(folder / "report.json");
  expect_one_line(run_ecgpipe("-q summarize " + q(dir / "out"), dir), 3, "report.json: not a regular file");
}

// Manifests (issue 25: a NUL byte ended as exit 4 "cannot create OUT/s1.csv"; a UTF-8 BOM stayed in
// the first path; a 20 MB line was echoed twice, 40 MB of stderr).
TEST(CliMessages, ManifestsThatAreNotTextNameTheLine) {
  const auto dir = fresh_dir();
  const std::string sample = ECGPIPE_SOURCE_DIR "/data/sample.csv";
  write_text(dir / "nul.txt", sample + "\n" + std::string("s1\0.csv", 7) + "\n");
  expect_one_line(run_ecgpipe("-q detect --manifest " + q(dir / "nul.txt") + " --out " + q(dir / "o1"), dir), 3,
                  "nul.txt:2: a NUL byte at column 3");
  EXPECT_FALSE(fs::exists(dir / "o1"));
  write_text(dir / "long.txt", std::string(20 << 20, 'a') + ".csv\n");
  const auto r = run_ecgpipe("-q detect --manifest " + q(dir / "long.txt") + " --out " + q(dir / "o2"), dir);
  expect_one_line(r, 3, "long.txt:1: a line of 20971524 bytes");
  EXPECT_LT(r.err.size(), 1000u);
  write_text(dir / "bom.txt", "\xEF\xBB\xBF" + sample + "\n");
  const auto b = run_ecgpipe("-q detect --manifest " + q(dir / "bom.txt") + " --device cpu --out " + q(dir / "o3"), dir);
  EXPECT_EQ(b.code, 0) << b.err;
  EXPECT_TRUE(fs::exists(dir / "o3" / "sample" / "beats.csv")) << "the BOM is not part of the path";
}

// The viewer refuses at start a folder whose beats.csv is a directory (issue 25: 200, empty body).
TEST(CliMessages, ViewRefusesOutputFilesThatAreNotFiles) {
  const auto dir = fresh_dir();
  const std::string sample = ECGPIPE_SOURCE_DIR "/data/sample.csv";
  ASSERT_EQ(run_ecgpipe("-q run " + q(sample) + " --epochs 1 --device cpu --out " + q(dir / "out"), dir).code, 0);
  fs::remove(dir / "out" / "beats.csv");
  fs::create_directory(dir / "out" / "beats.csv");
  expect_one_line(run_ecgpipe("-q view " + q(dir / "out") + " --port 0", dir), 3, "beats.csv: not a regular file");
}

// A failed recording of a directory argument is logged naming its file once (issue 25: "error: S:
// S/b.csv: ...").
TEST(CliMessages, BatchLogNamesEachFailedFileOnce) {
  const auto dir = fresh_dir();
  fs::create_directories(dir / "S");
  fs::copy_file(ECGPIPE_SOURCE_DIR "/data/sample.csv", dir / "S" / "a.csv");
  write_text(dir / "S" / "b.csv", "heartbeats\nnot a number\n");
  const auto r = run_ecgpipe("detect " + q(dir / "S") + " --device cpu --out " + q(dir / "out"), dir);
  EXPECT_EQ(r.code, 6) << r.err;
  const std::string file = (dir / "S" / "b.csv").string();
  EXPECT_NE(r.err.find("error: " + file + ":2:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find((dir / "S").string() + ": " + file), std::string::npos) << r.err;
}

}  // namespace
