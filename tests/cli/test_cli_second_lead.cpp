// The second lead through the executable (issue 24): a two-signal WFDB record's other lead is
// said, read alike on every path (CPU whole and chunked, the GPU), and `--lead2 none` classifies
// as a one-signal record does.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using testutil::read_text;
using testutil::run_ecgpipe;
using testutil::write_text;

using testutil::q;

void put16(std::string& dat, double mv) {
  const auto v = static_cast<std::int16_t>(std::lround(mv * 1000.0));
  dat.push_back(static_cast<char>(v & 0xff));
  dat.push_back(static_cast<char>((v >> 8) & 0xff));
}

// A synthetic recording (dir/s.csv, and its truth dir/s_beats.csv) in mV: `options` for synth; by
// default one with ectopic beats, 180 s at 360 Hz.
void synth_samples(const fs::path& dir, std::vector<double>& x, const std::string& options = "--fs 360 --duration 180 --seed 7") {
  const auto r = run_ecgpipe("-q synth " + q(dir / "s.csv") + " " + options, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(read_text(dir / "s.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) x.push_back(std::stod(line));
}

// Sample i of a V1-like second lead of `x`: inverted, scaled and delayed 8 ms, so its QRS shapes
// differ from the primary's.
double v1_like(const std::vector<double>& x, std::size_t i) {
  return -0.6 * x[i >= 3 ? i - 3 : 0] + 0.1 * std::sin(0.01 * static_cast<double>(i));
}

// synth_samples as `two` (MLII and v1_like) and as `one` (MLII alone), WFDB format 16 at 1000 adu/mV.
void write_records(const fs::path& dir) {
  std::vector<double> x;
  synth_samples(dir, x);
  if (::testing::Test::HasFatalFailure()) return;
  std::string two, one, flat;
  for (std::size_t i = 0; i < x.size(); ++i) {
    put16(two, x[i]);
    put16(two, v1_like(x, i));
    put16(one, x[i]);
    put16(flat, x[i]);
    put16(flat, 0.0);  // a second electrode that came off
  }
  const std::string n = std::to_string(x.size());
  write_text(dir / "flat.dat", flat);
  write_text(dir / "flat.hea", "flat 2 360 " + n + "\nflat.dat 16 1000 16 0 0 0 0 MLII\nflat.dat 16 1000 16 0 0 0 0 V1\n");
  write_text(dir / "two.dat", two);
  write_text(dir / "two.hea", "two 2 360 " + n + "\ntwo.dat 16 1000 16 0 0 0 0 MLII\ntwo.dat 16 1000 16 0 0 0 0 V1\n");
  write_text(dir / "one.dat", one);
  write_text(dir / "one.hea", "one 1 360 " + n + "\none.dat 16 1000 16 0 0 0 0 MLII\n");
}

TEST(SecondLeadCli, ARecordsOtherLeadIsSaidAndReadAlikeOnEveryPath) {
  const auto dir = testutil::fresh_dir();
  write_records(dir);
  if (HasFatalFailure()) return;
  auto r = run_ecgpipe("analyze " + q(dir / "two.hea") + " --device cpu --chunk-seconds 0 --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("signal 'MLII' (0), second lead signal 'V1' (1)"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(read_text(dir / "a" / "report.json"));
  EXPECT_EQ(j["input"]["lead2"], "signal 'V1' (1)");
  const std::string beats = read_text(dir / "a" / "beats.csv");
  EXPECT_GT(testutil::count_lines(beats), 150u);

  // In pieces of 20 s (the second lead gathered in its reader's pieces): the same beats and classes.
  r = run_ecgpipe("analyze " + q(dir / "two.hea") + " --device cpu --chunk-seconds 20 --out " + q(dir / "b"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "b" / "beats.csv"), beats);

  // --lead2 none: the primary lead alone, as a one-signal record.
  r = run_ecgpipe("analyze " + q(dir / "two.hea") + " --device cpu --lead2 none --out " + q(dir / "c"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("second lead"), std::string::npos) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(read_text(dir / "c" / "report.json"))["input"]["lead2"].is_null());
  r = run_ecgpipe("analyze " + q(dir / "one.hea") + " --device cpu --out " + q(dir / "d"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "c" / "beats.csv"), read_text(dir / "d" / "beats.csv"));

  // A flat second lead is not read (every beat would look unlike its median beat): the primary
  // lead's classes, and a warning that says so.
  r = run_ecgpipe("analyze " + q(dir / "flat.hea") + " --device cpu --out " + q(dir / "h"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("the second lead, signal 'V1' (1), shows no consistent QRS (median correlation 0.00"), std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(dir / "h" / "beats.csv"), read_text(dir / "d" / "beats.csv"));
  const auto warnings = nlohmann::json::parse(read_text(dir / "h" / "report.json"))["warnings"];
  ASSERT_EQ(warnings.size(), 1u) << warnings;
  EXPECT_NE(warnings[0].get<std::string>().find("primary lead alone"), std::string::npos);

  // Asked for by name: the same as auto; the primary or a signal the record lacks: one line, exit 2.
  r = run_ecgpipe("analyze " + q(dir / "two.hea") + " --device cpu --lead2 V1 --out " + q(dir / "e"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "e" / "beats.csv"), beats);
  for (const char* bad : {"MLII", "V9", "2"}) {
    r = run_ecgpipe("analyze " + q(dir / "two.hea") + " --lead2 " + bad + " --out " + q(dir / "f"), dir);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--lead2 '" + std::string(bad) + "'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "f")) << bad;
  }

#ifdef ECGPIPE_WITH_CUDA
  if (!ecgpipe::cuda_device_available()) GTEST_SKIP() << "no CUDA device: the GPU path's classes not compared";
  for (const char* memory : {"1G", "1K"}) {  // whole on the GPU, and streamed through it
    r = run_ecgpipe("analyze " + q(dir / "two.hea") + " --device cuda --gpu-memory " + memory + " --out " + q(dir / (std::string("g") + memory)), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(dir / (std::string("g") + memory) / "beats.csv"), beats) << memory;
  }
#else
  GTEST_SKIP() << "built without CUDA: the GPU path's classes not compared";
#endif
}

// The beats of a beats.csv in AF: its rhythm column ("...,class,rhythm,quality") AFIB.
std::size_t af_beats(const std::string& beats_csv) {
  std::size_t n = 0;
  for (std::size_t p = beats_csv.find(",AFIB,"); p != std::string::npos; p = beats_csv.find(",AFIB,", p + 1)) ++n;
  return n;
}

// Atrial fibrillation's RR in both leads, but P waves only in the second (a primary whose noise or
// axis hides them, as the SVDB's ECG1 beside its ECG2): AF from the primary alone, not AF with the
// second lead, and the same on every path. The primary is `synth --scenario af` (fibrillatory
// waves); the second lead puts a QRS, a P wave 0.16 s before it and a T wave at each of its beats.
TEST(SecondLeadCli, ASecondLeadsPWavesVetoAfOnEveryPath) {
  const auto dir = testutil::fresh_dir();
  std::vector<double> x;
  synth_samples(dir, x, "--scenario af --fs 360 --duration 120 --seed 3");
  if (HasFatalFailure()) return;
  std::vector<double> lead2(x.size(), 0.0);
  {
    std::istringstream in(read_text(dir / "s_beats.csv"));
    std::string line;
    std::getline(in, line);
    const auto wave = [&](double at, double mv, double sigma) {
      for (std::int64_t k = static_cast<std::int64_t>(at - 4 * sigma); k <= static_cast<std::int64_t>(at + 4 * sigma); ++k)
        if (k >= 0 && k < static_cast<std::int64_t>(lead2.size()))
          lead2[static_cast<std::size_t>(k)] += mv * std::exp(-0.5 * std::pow((static_cast<double>(k) - at) / sigma, 2));
    };
    while (std::getline(in, line)) {
      const double b = std::stod(line.substr(0, line.find(',')));
      wave(b - 0.16 * 360, 0.15, 0.02 * 360);
      wave(b, 1.0, 0.01 * 360);
      wave(b + 0.3 * 360, 0.3, 0.04 * 360);
    }
  }
  std::string dat;
  for (std::size_t i = 0; i < x.size(); ++i) {
    put16(dat, x[i]);
    put16(dat, lead2[i]);
  }
  write_text(dir / "af2.dat", dat);
  write_text(dir / "af2.hea", "af2 2 360 " + std::to_string(x.size()) +
                                  "\naf2.dat 16 1000 16 0 0 0 0 MLII\naf2.dat 16 1000 16 0 0 0 0 V1\n");
  auto r = run_ecgpipe("-q analyze " + q(dir / "af2.hea") + " --device cpu --lead2 none --out " + q(dir / "one"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string alone = read_text(dir / "one" / "beats.csv");
  const std::size_t beats = testutil::count_lines(alone) - 1;
  EXPECT_GT(af_beats(alone), beats * 9 / 10) << "the primary alone: AF";
  r = run_ecgpipe("-q analyze " + q(dir / "af2.hea") + " --device cpu --chunk-seconds 0 --out " + q(dir / "two"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string both = read_text(dir / "two" / "beats.csv");
  EXPECT_EQ(af_beats(both), 0u) << "the second lead's P waves: not AF";
  r = run_ecgpipe("-q analyze " + q(dir / "af2.hea") + " --device cpu --chunk-seconds 20 --out " + q(dir / "chunked"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "chunked" / "beats.csv"), both);
#ifdef ECGPIPE_WITH_CUDA
  if (!ecgpipe::cuda_device_available()) GTEST_SKIP() << "no CUDA device: the GPU path's rhythm not compared";
  for (const char* memory : {"1G", "1K"}) {  // whole on the GPU, and streamed through it
    r = run_ecgpipe("-q analyze " + q(dir / "af2.hea") + " --device cuda --gpu-memory " + memory + " --out " +
                        q(dir / (std::string("g") + memory)),
                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(dir / (std::string("g") + memory) / "beats.csv"), both) << memory;
  }
#else
  GTEST_SKIP() << "built without CUDA: the GPU path's rhythm not compared";
#endif
}

// A two-lead CSV (issue 24): both columns parsed in one pass on every path, the second lead's
// windows cut on the device on the GPU, kept whole or gathered in the second pass on the CPU;
// every path gives the same beats and classes.
TEST(SecondLeadCli, ACsvsSecondLeadIsReadAlikeOnEveryPath) {
  const auto dir = testutil::fresh_dir();
  std::vector<double> x;
  synth_samples(dir, x);
  if (HasFatalFailure()) return;
  std::string csv = "MLII,V1\n";
  char row[64];
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::snprintf(row, sizeof row, "%.4f,%.4f\n", x[i], v1_like(x, i));
    csv += row;
  }
  write_text(dir / "two.csv", csv);
  auto r = run_ecgpipe("analyze " + q(dir / "two.csv") + " --fs 360 --device cpu --chunk-seconds 0 --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(dir / "a" / "report.json"))["input"]["lead2"], "column 'V1' (1)");
  const std::string beats = read_text(dir / "a" / "beats.csv");
  EXPECT_GT(testutil::count_lines(beats), 150u);
  r = run_ecgpipe("analyze " + q(dir / "two.csv") + " --fs 360 --device cpu --chunk-seconds 20 --out " + q(dir / "b"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "b" / "beats.csv"), beats);
#ifdef ECGPIPE_WITH_CUDA
  if (!ecgpipe::cuda_device_available()) GTEST_SKIP() << "no CUDA device: the GPU paths' classes not compared";
  for (const char* memory : {"1G", "1K"}) {  // whole on the GPU, and streamed through it
    const fs::path out = dir / (std::string("g") + memory);
    r = run_ecgpipe("analyze " + q(dir / "two.csv") + " --fs 360 --device cuda --gpu-memory " + memory + " --out " + q(out), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(out / "beats.csv"), beats) << memory;
    EXPECT_EQ(nlohmann::json::parse(read_text(out / "report.json"))["input"]["lead2"], "column 'V1' (1)") << memory;
  }
#else
  GTEST_SKIP() << "built without CUDA: the GPU paths' classes not compared";
#endif
}

// A CSV's second lead by its header name; a cell there that is no number: one line that says it
// is the second lead's and how to do without it (exit 3), and --lead2 none reads the primary alone.
TEST(SecondLeadCli, ACsvsSecondLeadWithABadCellIsNamed) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "time,MLII,V1\n";
  char row[96];
  for (int i = 0; i < 360 * 30; ++i) {
    const double t = i / 360.0, ph = std::fmod(t, 0.8) / 0.8 - 0.5, x = std::exp(-ph * ph / (0.02 * 0.02));
    std::snprintf(row, sizeof row, "%.6f,%.4f,%.4f\n", t, x, -0.5 * x);
    csv += i == 5000 ? std::string(row).substr(0, std::string(row).rfind(',') + 1) + "abc\n" : std::string(row);
  }
  write_text(dir / "bad.csv", csv);
  auto r = run_ecgpipe("analyze " + q(dir / "bad.csv") + " --device cpu --out " + q(dir / "a"), dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("bad.csv:5002: cannot parse \"abc\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(the second lead, column 'V1' (2); --lead2 none reads the primary lead alone)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "a"));
#ifdef ECGPIPE_WITH_CUDA
  if (ecgpipe::cuda_device_available()) {
    for (const char* memory : {"1G", "1K"}) {  // whole and streamed: the column parsed in the primary's pass, the same line
      r = run_ecgpipe("analyze " + q(dir / "bad.csv") + " --device cuda --gpu-memory " + memory + " --out " + q(dir / "a"), dir);
      EXPECT_EQ(r.code, 3) << memory << ": " << r.err;
      EXPECT_NE(r.err.find("bad.csv:5002: cannot parse \"abc\""), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("(the second lead, column 'V1' (2); --lead2 none reads the primary lead alone)"), std::string::npos)
          << r.err;
      EXPECT_FALSE(fs::exists(dir / "a"));
    }
  }
#endif
  r = run_ecgpipe("analyze " + q(dir / "bad.csv") + " --device cpu --lead2 none --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("second lead"), std::string::npos) << r.err;
}

}  // namespace
