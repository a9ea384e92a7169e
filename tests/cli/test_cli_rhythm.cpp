// `ecgpipe rhythm` through the real binary: beat times from a CSV and from a WFDB annotation file
// give the same episodes, rhythm.csv is whole, EC57's AF statistics against a reference, errors
// with their exit codes; on DS1 (skips without ../shared/data) the AF records' episodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ecgpipe/config.hpp"
#include "test_util.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "gpu_test_util.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using testutil::read_text;
using testutil::run_ecgpipe;
using testutil::write_text;

using testutil::q;

// 400 sinus beats (0.8 s +- 4 %), 400 in AF (0.4..1.0 s), 400 sinus, at 250 Hz from sample 100.
std::vector<std::int64_t> paroxysmal_af() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> af(0.4, 1.0);
  std::vector<std::int64_t> b{100};
  for (int i = 0; i < 1200; ++i) {
    const double rr = i >= 400 && i < 800 ? af(rng) : 0.8 * (1 + 0.04 * std::sin(i * 1.2566));
    b.push_back(b.back() + std::lround(rr * 250));
  }
  return b;
}

// A row of rhythm.csv.
struct Ep {
  long long start, end;
  std::string rhythm;
  long long beats;
};

std::vector<Ep> read_episodes(const fs::path& rhythm_csv) {
  std::vector<Ep> out;
  std::istringstream in(read_text(rhythm_csv));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f.size() >= 6) out.push_back({std::stoll(f[0]), std::stoll(f[1]), f[4], std::stoll(f[5])});
  }
  return out;
}

TEST(RhythmCli, CsvAndAnnotationFileGiveTheSameEpisodes) {
  const auto dir = testutil::fresh_dir();
  const auto beats = paroxysmal_af();
  std::string csv = "sample\n";
  testutil::Bytes atr;
  std::int64_t last = 0;
  for (const auto s : beats) {
    csv += std::to_string(s) + "\n";
    testutil::put_word(atr, 1, static_cast<unsigned>(s - last));  // N: a .qrs labels every beat N
    last = s;
  }
  testutil::put_word(atr, 0, 0);
  write_text(dir / "beats.csv", csv);
  write_text(dir / "rec.qrs", std::string(atr.begin(), atr.end()));
  write_text(dir / "ref.csv", "sample,rhythm\n0,(N\n" + std::to_string(beats[400]) + ",(AFIB\n" + std::to_string(beats[800]) + ",(N\n");
  const auto a = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "a") + " --reference " +
                                 q(dir / "ref.csv") + " --json",
                             dir);
  ASSERT_EQ(a.code, 0) << a.err;
  const auto b = run_ecgpipe("-q rhythm " + q(dir / "rec.qrs") + " --fs 250 --out " + q(dir / "b"), dir);
  ASSERT_EQ(b.code, 0) << b.err;
  const std::string rhythm = read_text(dir / "a" / "rhythm.csv");
  EXPECT_EQ(rhythm, read_text(dir / "b" / "rhythm.csv"));
  EXPECT_EQ(testutil::count_lines(rhythm), 4u) << rhythm;  // header, N, AFIB, N
  EXPECT_NE(rhythm.find(",AFIB,"), std::string::npos);
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["afib_episodes"], 1);
  EXPECT_EQ(j["af"]["reference_episodes"], 1);
  EXPECT_EQ(j["af"]["detected_reference_episodes"], 1);
  EXPECT_EQ(j["af"]["true_test_episodes"], 1);
  EXPECT_GT(j["af"]["duration_se"].get<double>(), 0.9);
  EXPECT_GT(j["af"]["duration_ppv"].get<double>(), 0.9);
  EXPECT_EQ(testutil::list_dir(dir / "a"), std::vector<std::string>{"rhythm.csv"}) << "no temporaries left";
}

// From beat times, as in `run`: beats in artefact (a beats.csv `quality` column) are no AF (a
// detector's beats in noise are as irregular as AF), and HRV leaves out the beats in artefact and
// in AF (the Task Force's HRV is of sinus rhythm; AF's intervals are the AV node's). Before,
// `rhythm` called a stretch of artefact AF and took AF's intervals into HRV (MIT-BIH 203's beats,
// AF 99.9 % of the record: 2 197 NN intervals, RMSSD 221.5 ms).
TEST(RhythmCli, ArtefactIsNoAfAndHrvLeavesAfAndArtefactOutAsRunDoes) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample\n";
  for (const auto s : paroxysmal_af()) csv += std::to_string(s) + "\n";
  write_text(dir / "af.csv", csv);
  auto r = run_ecgpipe("-q rhythm " + q(dir / "af.csv") + " --fs 250 --out " + q(dir / "a") + " --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["afib_episodes"], 1) << read_text(dir / "a" / "rhythm.csv");
  EXPECT_EQ(j["hrv"]["rr_intervals"], 1200);
  // Every interval but the k + 1 that touch the episode's k beats (all within HRV's 0.3-2 s).
  const auto episodes = read_episodes(dir / "a" / "rhythm.csv");
  const auto af = std::find_if(episodes.begin(), episodes.end(), [](const Ep& e) { return e.rhythm == "AFIB"; });
  ASSERT_NE(af, episodes.end());
  EXPECT_NEAR(af->beats, 400, 16) << "the episode's edges within 8 beats of the truth's";
  EXPECT_EQ(j["hrv"]["nn_intervals"], 1200 - (af->beats + 1));
  // Sinus rhythm (0.8 s +- 4 %) with 60 irregular "beats" in noise, marked as artefact.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> noise(0.3, 1.0);
  std::string marked = "sample,quality\n";
  std::int64_t t = 100;
  for (int i = 0; i < 1200; ++i) {
    const bool in_noise = i >= 500 && i < 560;
    t += std::lround((in_noise ? noise(rng) : 0.8 * (1 + 0.04 * std::sin(i * 1.2566))) * 250);
    marked += std::to_string(t) + (in_noise ? ",artefact\n" : ",ok\n");
  }
  write_text(dir / "noise.csv", marked);
  r = run_ecgpipe("rhythm " + q(dir / "noise.csv") + " --fs 250 --out " + q(dir / "b") + " --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find(", its 60 beats in artefact left out:"), std::string::npos) << "said, not silent:\n" << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["afib_episodes"], 0) << read_text(dir / "b" / "rhythm.csv");
  EXPECT_EQ(j["hrv"]["nn_intervals"], 1199 - 61) << "the 60 beats in noise and the intervals touching them";
}

// The text summary of a short recording without AF, against a reference without AF: what is not
// defined there (SDANN and the spectrum need 5-min segments, Se/+P of no episodes) reads "n/a",
// not "nan" (before: "SDANN nan ms", "episode Se nan % (0/0)").
TEST(RhythmCli, TextSummarySaysNotDefinedInWords) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample\n";
  for (int k = 0; k < 200; ++k) csv += std::to_string(100 + 200 * k + (k % 3) * 7) + "\n";  // 160 s at 250 Hz
  write_text(dir / "beats.csv", csv);
  write_text(dir / "ref.csv", "sample,rhythm\n0,(N\n");
  const auto r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "o") + " --reference " + q(dir / "ref.csv"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("nan"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SDANN n/a,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("episode Se n/a (0/0) +P n/a (0/0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("HRV spectrum (0 5-min segments): VLF n/a LF n/a HF n/a total n/a ms^2, LF/HF n/a"), std::string::npos)
      << r.out;
  // 199 NN intervals of 39 807 samples at 250 Hz: 159.2 s, under the Task Force's 5 minutes, said
  // where the figures are (before, only the counts: "199 NN of 199 RR intervals").
  EXPECT_NE(r.out.find("HRV: 199 NN of 199 RR intervals (159 s: under the Task Force's 5 minutes, not comparable with "
                       "published values); mean NN "),
            std::string::npos)
      << r.out;
  const auto j = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "o2") + " --json", dir);
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["hrv"]["nn_seconds"], 159.2);
}

// Which column the beat samples came from is said (no silent defaults): r_peak before sample, and
// a CSV with neither gives its first column's numbers with a warning that names it (before, a
// CSV "x,y" was read without a word).
TEST(RhythmCli, ItSaysWhichColumnTheBeatsCameFrom) {
  const auto dir = testutil::fresh_dir();
  std::string sample = "sample\n", peaks = "sample,r_peak\n", other = "x,y\n";
  for (int i = 0; i < 50; ++i) {
    const std::string at = std::to_string(100 + 200 * i);
    sample += at + "\n";
    peaks += "7," + at + "\n";
    other += at + ",1\n";
  }
  write_text(dir / "sample.csv", sample);
  write_text(dir / "peaks.csv", peaks);
  write_text(dir / "other.csv", other);
  for (const auto& [name, column, warned] : {std::tuple<std::string, std::string, bool>{"sample", "sample", false},
                                             {"peaks", "r_peak", false},
                                             {"other", "x", true}}) {
    const auto r = run_ecgpipe("rhythm " + q(dir / (name + ".csv")) + " --fs 250 --out " + q(dir / name), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("50 beats (column '" + column + "') at 250 Hz"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no 'r_peak' or 'sample' column: beat samples from the first column, 'x'") != std::string::npos, warned)
        << r.err;
    // The same beats whichever column held them: one sinus episode from 100 to 9901.
    EXPECT_NE(read_text(dir / name / "rhythm.csv").find("\n100,9901,"), std::string::npos) << read_text(dir / name / "rhythm.csv");
  }
  // `eval` reads detections the same way and says it the same way.
  std::string reference = "sample,symbol\n";
  for (int i = 0; i < 50; ++i) reference += std::to_string(100 + 200 * i) + ",N\n";
  write_text(dir / "reference.csv", reference);
  for (const auto& [name, warned] : {std::pair<std::string, bool>{"sample", false}, {"other", true}}) {
    const auto r = run_ecgpipe("eval --reference " + q(dir / "reference.csv") + " " + q(dir / (name + ".csv")) + " --fs 250", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("no 'r_peak' or 'sample' column: beat samples from the first column, 'x'") != std::string::npos, warned)
        << r.err;
  }
}

// Beats out of time order are sorted and a beat at a sample already taken is dropped, as before,
// but said (no silent change of the input): before, "5,5,5" was one beat without a word.
TEST(RhythmCli, UnorderedAndRepeatedBeatsAreSaid) {
  const auto dir = testutil::fresh_dir();
  std::vector<std::int64_t> beats;
  for (int i = 0; i < 50; ++i) beats.push_back(100 + 200 * i);
  std::string clean = "sample\n", messy = "sample\n";
  for (const auto b : beats) clean += std::to_string(b) + "\n";
  auto shuffled = beats;
  std::swap(shuffled[10], shuffled[11]);
  std::swap(shuffled[30], shuffled[40]);
  shuffled.push_back(beats[20]);
  shuffled.push_back(beats[20]);
  shuffled.push_back(beats[49]);
  for (const auto b : shuffled) messy += std::to_string(b) + "\n";
  write_text(dir / "clean.csv", clean);
  write_text(dir / "messy.csv", messy);
  const auto c = run_ecgpipe("rhythm " + q(dir / "clean.csv") + " --fs 250 --out " + q(dir / "c"), dir);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.err.find("warning"), std::string::npos) << c.err;
  const auto m = run_ecgpipe("rhythm " + q(dir / "messy.csv") + " --fs 250 --out " + q(dir / "m"), dir);
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(read_text(dir / "m" / "rhythm.csv"), read_text(dir / "c" / "rhythm.csv"));
  // Earlier than the beat listed before: beats 10 and 11 swapped (1), 30 and 40 (2: beat 31 after
  // 40, beat 30 after 39), the appended beat 20 after beat 49 (1).
  EXPECT_NE(m.err.find("messy.csv: 4 beats are earlier than the beat listed before them: sorted by time"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("messy.csv: 3 beats at a sample another beat has: left out"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("50 beats (column 'sample')"), std::string::npos) << m.err;
}

// A rhythm reference without a rhythm change, or with names ecgpipe does not know, is said: the
// statistics would otherwise read "Se nan" or count a misspelt AF as no AF, without a word.
TEST(RhythmCli, EmptyOrUnknownReferenceRhythmsAreSaid) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample\n";
  for (const auto s : paroxysmal_af()) csv += std::to_string(s) + "\n";
  write_text(dir / "beats.csv", csv);
  write_text(dir / "none.csv", "sample,rhythm\n");
  write_text(dir / "odd.csv", "sample,rhythm\n0,(N\n100,(AF\n200,(N\n300,(AF\n");
  write_text(dir / "good.csv", "sample,rhythm\n0,(N\n100,(AFIB\n200,(N\n");
  const auto none = run_ecgpipe("rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "a") + " --reference " + q(dir / "none.csv"), dir);
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(none.err.find("none.csv: no rhythm changes: no reference episode to compare with"), std::string::npos) << none.err;
  const auto odd = run_ecgpipe("rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "b") + " --reference " + q(dir / "odd.csv"), dir);
  ASSERT_EQ(odd.code, 0) << odd.err;
  EXPECT_NE(odd.err.find("odd.csv: rhythm names ecgpipe does not know, counted as neither AF nor flutter: AF"), std::string::npos)
      << odd.err;
  const auto good = run_ecgpipe("rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "c") + " --reference " + q(dir / "good.csv"), dir);
  ASSERT_EQ(good.code, 0) << good.err;
  EXPECT_EQ(good.err.find("warning"), std::string::npos) << good.err;
}

TEST(RhythmCli, ErrorsHaveTheirExitCodes) {
  const auto dir = testutil::fresh_dir();
  write_text(dir / "beats.csv", "sample\n100\n300\n");
  auto r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --out " + q(dir / "o"), dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("give --fs"), std::string::npos) << r.err;
  write_text(dir / "empty.csv", "sample\n");
  r = run_ecgpipe("-q rhythm " + q(dir / "empty.csv") + " --fs 250 --out " + q(dir / "o"), dir);
  EXPECT_EQ(r.code, 3) << r.err;
  write_text(dir / "bad.csv", "sample\n100\nx\n");
  r = run_ecgpipe("-q rhythm " + q(dir / "bad.csv") + " --fs 250 --out " + q(dir / "o"), dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("bad.csv:3"), std::string::npos) << r.err;
  r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "o") + " --reference " +
                      q(dir / "beats.csv"),
                  dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("needs columns"), std::string::npos) << r.err;
  // A header beside an annotation file whose rate is out of bounds: exit 3 naming the header.
  testutil::Bytes atr;
  testutil::put_word(atr, 1, 100);
  testutil::put_word(atr, 1, 200);
  testutil::put_word(atr, 0, 0);
  write_text(dir / "rec.qrs", std::string(atr.begin(), atr.end()));
  write_text(dir / "rec.hea", "rec 1 1e9 1000\nrec.dat 16 200 12 0 0 0 0 x\n");
  r = run_ecgpipe("-q rhythm " + q(dir / "rec.qrs") + " --out " + q(dir / "o"), dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("rec.hea:1: sampling frequency 1e+09 Hz is outside"), std::string::npos) << r.err;
  // A reference rhythm with no name is an error naming its line (it was taken as "N").
  write_text(dir / "noname.csv", "sample,rhythm\n0,(N\n200,\n");
  r = run_ecgpipe(
      "-q rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "o") + " --reference " + q(dir / "noname.csv"), dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("noname.csv:3: an empty rhythm"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "o")) << "nothing written on an error";
  // A reference whose last change lies far after the last beat sets the record's end, and says so.
  write_text(dir / "late.csv", "sample,rhythm\n0,(N\n99999999999,(AFIB\n");
  r = run_ecgpipe("rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "late") + " --reference " + q(dir / "late.csv"),
                  dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("late.csv: its last rhythm change is 399999999 s after the last beat: the record is taken to end there"),
            std::string::npos)
      << r.err;
}

// Beat times are the file's: a classed beats CSV whose last beat lies a million years on is
// named as any other (the VT run), without the per-minute and per-hour tables of a Holter summary
// over that span (before: std::bad_alloc, exit 1, once `rhythm` named rhythms from classes).
TEST(RhythmCli, ClassedBeatsOverAnySpanAreNamedWithoutTablesOfThatSpan) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample,class\n";
  std::int64_t t = 100;
  for (int i = 0; i < 40; ++i) {
    const bool run = i >= 20 && i < 24;  // 4 V beats at 150 bpm
    t += run ? 100 : 200;
    csv += std::to_string(t) + (run ? ",V\n" : ",N\n");
  }
  csv += "9000000000000000,N\n";
  write_text(dir / "far.csv", csv);
  const auto r = run_ecgpipe("-q rhythm " + q(dir / "far.csv") + " --fs 250 --json --out " + q(dir / "o"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["other_rhythms"]["VT"]["episodes"], 1) << r.out;
  EXPECT_NE(read_text(dir / "o" / "rhythm.csv").find(",VT,4,"), std::string::npos) << read_text(dir / "o" / "rhythm.csv");
}

// With a reference, the rhythms named from the beats' classes are scored as `eval` and `run
// --reference` score them (EC57's any-overlap episode and duration Se / +P): a VT run found, one
// the reference does not have.
TEST(RhythmCli, ReferenceRhythmsBesideAfAreScoredWhereTheBeatsHaveClasses) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample,class\n";
  std::vector<std::int64_t> t{100};
  for (int i = 1; i < 120; ++i) {
    const bool fast = (i >= 30 && i < 34) || (i >= 80 && i < 84);  // two V runs at 150 bpm
    t.push_back(t.back() + (fast ? 100 : 200));
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    const bool v = (i >= 30 && i < 34) || (i >= 80 && i < 84);
    csv += std::to_string(t[i]) + (v ? ",V\n" : ",N\n");
  }
  write_text(dir / "beats.csv", csv);
  // The reference has the first run as VT, not the second.
  write_text(dir / "ref.csv", "sample,rhythm\n0,(N\n" + std::to_string(t[30]) + ",(VT\n" + std::to_string(t[34]) + ",(N\n");
  auto r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --json --reference " + q(dir / "ref.csv") + " --out " +
                           q(dir / "o"),
                       dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("rhythms")) << r.out;
  EXPECT_EQ(j["rhythms"]["VT"]["reference_episodes"], 1);
  EXPECT_EQ(j["rhythms"]["VT"]["detected_reference_episodes"], 1);
  EXPECT_EQ(j["rhythms"]["VT"]["test_episodes"], 2);
  EXPECT_EQ(j["rhythms"]["VT"]["true_test_episodes"], 1);
  r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --reference " + q(dir / "ref.csv") + " --out " + q(dir / "p"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("VT: episode Se 100.0 % (1/1) +P 50.0 % (1/2); duration Se "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SVTA: episode"), std::string::npos) << "a rhythm neither side has is not listed:\n" << r.out;
}

// A run of V beats under 100 bpm is idioventricular rhythm, MIT-BIH's (IVR (DS1's 124 and 207
// hold four episodes; they were N): named in rhythm.csv, counted in the JSON and the text, and
// scored against a reference's (IVR as VT is against its (VT.
TEST(RhythmCli, SlowVentricularRunsAreIdioventricularRhythm) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample,class\n";
  std::vector<std::int64_t> t{100};
  const auto slow = [](int i) { return (i >= 30 && i < 36) || (i >= 80 && i < 83); };  // V at 50 bpm
  const auto fast = [](int i) { return i >= 60 && i < 64; };                              // V at 150 bpm
  for (int i = 1; i < 120; ++i) t.push_back(t.back() + (slow(i) ? 300 : fast(i) ? 100 : 200));
  for (int i = 0; i < 120; ++i) csv += std::to_string(t[static_cast<std::size_t>(i)]) + (slow(i) || fast(i) ? ",V\n" : ",N\n");
  write_text(dir / "beats.csv", csv);
  // The reference has the first slow run as IVR, not the second.
  write_text(dir / "ref.csv", "sample,rhythm\n0,(N\n" + std::to_string(t[30]) + ",(IVR\n" + std::to_string(t[36]) + ",(N\n");
  auto r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --json --reference " + q(dir / "ref.csv") + " --out " +
                           q(dir / "o"),
                       dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string rhythm = read_text(dir / "o" / "rhythm.csv");
  EXPECT_NE(rhythm.find(std::to_string(t[30]) + "," + std::to_string(t[36]) + ","), std::string::npos) << rhythm;
  EXPECT_NE(rhythm.find(",IVR,6,"), std::string::npos) << rhythm;
  EXPECT_NE(rhythm.find(",IVR,3,"), std::string::npos) << rhythm;
  EXPECT_NE(rhythm.find(",VT,4,"), std::string::npos) << rhythm;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["other_rhythms"]["IVR"]["episodes"], 2) << r.out;
  EXPECT_EQ(j["rhythms"]["IVR"]["reference_episodes"], 1) << r.out;
  EXPECT_EQ(j["rhythms"]["IVR"]["detected_reference_episodes"], 1);
  EXPECT_EQ(j["rhythms"]["IVR"]["test_episodes"], 2);
  EXPECT_EQ(j["rhythms"]["IVR"]["true_test_episodes"], 1);
  EXPECT_EQ(j["rhythms"]["VT"]["test_episodes"], 1);
  r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --reference " + q(dir / "ref.csv") + " --out " + q(dir / "p"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(" IVR 2 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("IVR: episode Se 100.0 % (1/1) +P 50.0 % (1/2); duration Se "), std::string::npos) << r.out;
}

// V beats leave AF's intervals whether their labels come from a WFDB file's symbols or from a
// CSV's class column (ecgpipe's own beats.csv, another classifier's): sinus rhythm with frequent
// interpolated V beats (no compensatory pause, so the premature-beat test keeps their intervals)
// is AF from its beat times alone and not AF once the V beats are known, and a CSV with a class
// column gives the episodes of the .atr with the same labels. (The CSV's classes were read for the
// HRV only, so `rhythm beats.csv` could call AF where `run` on the same recording did not.)
TEST(RhythmCli, VBeatsOfACsvClassColumnLeaveAfAsAnAnnotationFilesDo) {
  const auto dir = testutil::fresh_dir();
  std::mt19937 rng(5);
  std::bernoulli_distribution pvc(0.3);
  std::string plain = "sample\n", labelled = "sample,class\n";
  testutil::Bytes atr;
  std::int64_t t = 100, last = 0;
  const auto add = [&](std::int64_t s, bool v) {
    plain += std::to_string(s) + "\n";
    labelled += std::to_string(s) + (v ? ",V\n" : ",N\n");
    testutil::put_word(atr, v ? 5 : 1, static_cast<unsigned>(s - last));  // 5: PVC, 1: normal
    last = s;
  };
  add(t, false);
  for (int i = 0; i < 600; ++i) {
    if (pvc(rng)) add(t + 80 + static_cast<std::int64_t>(rng() % 40), true);  // inside the cycle
    add(t += 200, false);  // 0.8 s at 250 Hz
  }
  testutil::put_word(atr, 0, 0);
  write_text(dir / "plain.csv", plain);
  write_text(dir / "labelled.csv", labelled);
  write_text(dir / "rec.atr", std::string(atr.begin(), atr.end()));
  const auto episodes = [&](const std::string& file, const std::string& out) {
    const auto r = run_ecgpipe("-q rhythm " + q(dir / file) + " --fs 250 --out " + q(dir / out) + " --json", dir);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["afib_episodes"].get<int>();
  };
  EXPECT_GE(episodes("plain.csv", "p"), 1) << "unlabelled, the interpolated beats read as AF";
  EXPECT_EQ(episodes("labelled.csv", "l"), 0) << read_text(dir / "l" / "rhythm.csv");
  EXPECT_EQ(episodes("rec.atr", "a"), 0);
  EXPECT_EQ(read_text(dir / "l" / "rhythm.csv"), read_text(dir / "a" / "rhythm.csv"));
}

// The AF detector's numbers as options of `rhythm` (scripts/tune-af.py cross-validates them): a
// threshold no irregularity reaches leaves 3 minutes of AF-like beats without AF, the defaults call
// all of it AF; a changed number is said on stderr, the defaults are not; bad values are usage
// errors (exit 2) before anything is read or written.
TEST(RhythmCli, AfDetectorOptionsChangeTheResultAndAreSaid) {
  const auto dir = testutil::fresh_dir();
  std::string csv = "sample\n";
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> rr(100, 250);  // 0.4-1.0 s at 250 Hz, independent: AF-like
  long long t = 100;
  for (int i = 0; i < 250; ++i) csv += std::to_string(t += rr(rng)) + "\n";
  write_text(dir / "beats.csv", csv);
  auto r = run_ecgpipe("rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "d") + " --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["afib_episodes"], 1) << r.out;
  EXPECT_EQ(r.err.find("not at its defaults"), std::string::npos) << r.err;
  r = run_ecgpipe("rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "t") + " --json --af-threshold 5", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["afib_episodes"], 0) << r.out;
  EXPECT_NE(r.err.find("AF detector not at its defaults: windows 64 and 16 intervals, threshold 5, runs of 32 beats"),
            std::string::npos)
      << r.err;
  for (const std::string bad : {"--af-threshold nan", "--af-threshold -1", "--af-window 0", "--af-short-window x",
                                "--af-min-run 0"}) {
    r = run_ecgpipe("-q rhythm " + q(dir / "beats.csv") + " --fs 250 --out " + q(dir / "bad") + " " + bad, dir);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(bad.substr(0, bad.find(' '))), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "bad"));
}

// scripts/tune-af.py (the defaults' cross-validation) runs: without the AF database it says so and
// exits 77, as the data-dependent tests skip; the run with the data takes minutes (docs/accuracy.md).
TEST(RhythmCli, TuneAfScriptSkipsWithoutTheData) {
  const auto dir = testutil::fresh_dir();
  const auto r = testutil::run_bounded("python3", q(fs::path(ECGPIPE_SOURCE_DIR) / "scripts" / "tune-af.py") + " --ecgpipe " +
                                                      q(ECGPIPE_EXE) + " --data " + q(dir / "none"),
                                       dir);
  EXPECT_EQ(r.code, 77) << r.out << r.err;
  EXPECT_NE(r.out.find("tune-af: SKIP: no "), std::string::npos) << r.out;
}

// `ecgpipe eval` with a .atr reference and detections carrying a rhythm column (beats.csv): EC57's
// AF statistics, exact on a hand-made case (samples; --fs 250 for the seconds).
TEST(RhythmCli, EvalReportsAfStatisticsFromTheRhythmColumn) {
  const auto dir = testutil::fresh_dir();
  // Reference: beats every 200 samples from 100; rhythm (N at 0, (AFIB at 5000, (N at 12000.
  testutil::Bytes atr;
  std::int64_t last = 0;
  auto at = [&](std::int64_t sample, int code, const std::string& aux) {
    testutil::put_word(atr, code, static_cast<unsigned>(sample - last));
    if (!aux.empty()) testutil::put_aux(atr, aux);
    last = sample;
  };
  at(0, 28, "(N");
  std::string det = "r_peak,rhythm\n";
  for (int k = 0; k < 100; ++k) {
    const std::int64_t s = 100 + 200 * k;
    if (s > 5000 && last < 5000) at(5000, 28, "(AFIB");
    if (s > 12000 && last < 12000) at(12000, 28, "(N");
    at(s, 1, "");
    det += std::to_string(s) + "," + (s >= 6000 && s < 14000 ? "AFIB" : "N") + "\n";
  }
  testutil::put_word(atr, 0, 0);
  write_text(dir / "r.atr", std::string(atr.begin(), atr.end()));
  write_text(dir / "det.csv", det);
  const auto r = run_ecgpipe("eval --reference " + q(dir / "r.atr") + " " + q(dir / "det.csv") + " --fs 250 --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto af = nlohmann::json::parse(r.out)["af"];
  EXPECT_EQ(af["reference_episodes"], 1);
  EXPECT_EQ(af["detected_reference_episodes"], 1);
  EXPECT_EQ(af["test_episodes"], 1);
  EXPECT_EQ(af["true_test_episodes"], 1);
  // Detected AF: 6100 .. 14100 (the beat after the last AF beat); overlap with 5000 .. 12000: 5900.
  EXPECT_DOUBLE_EQ(af["duration_se"].get<double>(), 5900.0 / 7000.0);
  EXPECT_DOUBLE_EQ(af["duration_ppv"].get<double>(), 5900.0 / 8000.0);
  EXPECT_DOUBLE_EQ(af["reference_af_s"].get<double>(), 7000.0 / 250.0);
  const auto text = run_ecgpipe("eval --reference " + q(dir / "r.atr") + " " + q(dir / "det.csv") + " --fs 250", dir);
  EXPECT_NE(text.out.find("AF (EC57, epicmp -a): episode Se 100.00% (1/1) +P 100.00% (1/1); duration Se 84.29% +P 73.75%"),
            std::string::npos)
      << text.out;
}

// The rhythms the classes name, through `run` on synth's scenarios: VT runs and ventricular
// bigeminy appear in rhythm.csv and the rhythm column, and no AF is called in either.
TEST(RhythmCli, VtRunsAndBigeminyAreNamedInRhythmCsv) {
  const auto dir = testutil::fresh_dir();
  for (const auto& [scenario, name] : {std::pair<std::string, std::string>{"vt-runs", ",VT,"}, {"bigeminy", ",B,"}}) {
    auto r = run_ecgpipe("-q synth " + q(dir / (scenario + ".csv")) + " --scenario " + scenario + " --duration 300", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_ecgpipe("-q run " + q(dir / (scenario + ".csv")) + " --epochs 1 --out " + q(dir / scenario), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string rhythm = read_text(dir / scenario / "rhythm.csv");
    EXPECT_GE(testutil::count_lines(rhythm), 5u) << scenario << ":\n" << rhythm;
    EXPECT_NE(rhythm.find(name), std::string::npos) << scenario << ":\n" << rhythm;
    EXPECT_EQ(rhythm.find(",AFIB,"), std::string::npos) << scenario << ":\n" << rhythm;
    EXPECT_NE(read_text(dir / scenario / "beats.csv").find(name), std::string::npos);  // the rhythm column, then quality
    // From the beats alone, with their classes: the same episodes (the last ends at the last
    // beat instead of the record's end). Before, `rhythm` named AF alone: one N episode.
    r = run_ecgpipe("-q rhythm " + q(dir / scenario / "beats.csv") + " --fs 250 --out " + q(dir / (scenario + "-beats")), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto from_signal = read_episodes(dir / scenario / "rhythm.csv");
    const auto from_beats = read_episodes(dir / (scenario + "-beats") / "rhythm.csv");
    ASSERT_EQ(from_beats.size(), from_signal.size()) << read_text(dir / (scenario + "-beats") / "rhythm.csv");
    for (std::size_t i = 0; i < from_beats.size(); ++i) {
      EXPECT_EQ(from_beats[i].start, from_signal[i].start) << i;
      EXPECT_EQ(from_beats[i].rhythm, from_signal[i].rhythm) << i;
      EXPECT_EQ(from_beats[i].beats, from_signal[i].beats) << i;
      if (i + 1 < from_beats.size()) {
        EXPECT_EQ(from_beats[i].end, from_signal[i].end) << i;
      }
    }
    // ... and counted in the JSON and the text.
    r = run_ecgpipe("-q rhythm " + q(dir / scenario / "beats.csv") + " --fs 250 --json --out " + q(dir / (scenario + "-j")), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string code = name.substr(1, name.size() - 2);  // ",VT," -> "VT"
    const auto named = std::count_if(from_beats.begin(), from_beats.end(), [&](const Ep& e) { return e.rhythm == code; });
    EXPECT_EQ(nlohmann::json::parse(r.out)["other_rhythms"][code]["episodes"], named) << r.out;
    r = run_ecgpipe("-q rhythm " + q(dir / scenario / "beats.csv") + " --fs 250 --out " + q(dir / (scenario + "-t")), dir);
    EXPECT_NE(r.out.find("Other rhythms (from the beats' classes): "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" " + code + " " + std::to_string(named) + " ("), std::string::npos) << r.out;
  }
}

// Short single-lead recordings, as handheld devices take them (30 s at 300 Hz, the PhysioNet/CinC
// 2017 set's form): AF throughout is one AF episode covering the record, sinus is none.
TEST(RhythmCli, ThirtySecondsOfAfOrSinus) {
  const auto dir = testutil::fresh_dir();
  for (const auto& [scenario, af] : {std::pair<std::string, bool>{"af", true}, {"none", false}}) {
    auto r = run_ecgpipe("-q synth " + q(dir / (scenario + ".csv")) + " --scenario " + scenario +
                             " --duration 30 --fs 300 --abnormal-rate 0 --seed 8",
                         dir);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_ecgpipe("-q run " + q(dir / (scenario + ".csv")) + " --fs 300 --out " + q(dir / scenario), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto report = nlohmann::json::parse(read_text(dir / scenario / "report.json"));
    const double percent = report["holter"]["af"]["afib_percent"].get<double>();
    if (af) {
      EXPECT_EQ(report["holter"]["af"]["afib_episodes"], 1) << read_text(dir / scenario / "rhythm.csv");
      EXPECT_GT(percent, 99.0);
      EXPECT_EQ(read_text(dir / (scenario + "_rhythm.csv")), "sample,rhythm\n0,(AFIB\n");
    } else {
      EXPECT_EQ(percent, 0.0) << read_text(dir / scenario / "rhythm.csv");
    }
  }
}

// [start, end) samples of an episode.
using Span = std::pair<std::int64_t, std::int64_t>;
bool overlaps(const Span& a, const Span& b) { return a.first < b.second && b.first < a.second; }

// synth with `args` into dir/NAME.csv, then `analyze` at `fs` (synth's default 250 Hz unless args
// say otherwise) into dir/NAME.
void synth_then_analyze(const fs::path& dir, const std::string& name, const std::string& args, int fs = 250) {
  auto r = run_ecgpipe("-q synth " + q(dir / (name + ".csv")) + " " + args, dir);
  EXPECT_EQ(r.code, 0) << r.err;
  r = run_ecgpipe("-q analyze " + q(dir / (name + ".csv")) + " --fs " + std::to_string(fs) + " --out " + q(dir / name), dir);
  EXPECT_EQ(r.code, 0) << r.err;
}

// synth_then_analyze, then the truth's episodes of `rhythm` (from NAME_rhythm.csv) and
// rhythm.csv's.
struct ScenarioEpisodes {
  std::vector<Span> truth, found;
};
ScenarioEpisodes synth_and_analyze(const fs::path& dir, const std::string& name, const std::string& args,
                                   const std::string& rhythm) {
  synth_then_analyze(dir, name, args);
  ScenarioEpisodes e;
  const auto changes = testutil::csv_rows(read_text(dir / (name + "_rhythm.csv")));
  for (std::size_t k = 1; k < changes.size(); ++k)
    if (changes[k][1] == "(" + rhythm)
      e.truth.push_back({std::stoll(changes[k][0]), k + 1 < changes.size() ? std::stoll(changes[k + 1][0]) : INT64_MAX});
  for (const auto& row : testutil::csv_rows(read_text(dir / name / "rhythm.csv")))
    if (row.size() > 4 && row[4] == rhythm) e.found.push_back({std::stoll(row[0]), std::stoll(row[1])});
  return e;
}

// How `analyze` into dir/NAME labelled synth's truth beats (dir/NAME_beats.csv): each truth beat
// against the detection within 150 ms (37 samples at 250 Hz), APCs (A) apart from the rest.
struct SCalls {
  std::size_t a_beats = 0, a_as_s = 0, other_beats = 0, other_as_s = 0;
};
void add_s_calls(const fs::path& dir, const std::string& name, SCalls& calls) {
  std::map<std::int64_t, std::string> cls;
  const auto beats = testutil::csv_rows(read_text(dir / name / "beats.csv"));
  for (std::size_t k = 1; k < beats.size(); ++k) cls[std::stoll(beats[k][2])] = beats[k][16];
  const auto truth_beats = testutil::csv_rows(read_text(dir / (name + "_beats.csv")));
  for (std::size_t k = 1; k < truth_beats.size(); ++k) {
    const std::int64_t at = std::stoll(truth_beats[k][0]);
    const auto it = cls.lower_bound(at - 37);
    const bool s = it != cls.end() && it->first <= at + 37 && it->second == "S";
    if (truth_beats[k][1] == "A") {
      ++calls.a_beats;
      calls.a_as_s += s;
    } else {
      ++calls.other_beats;
      calls.other_as_s += s;
    }
  }
}

// Runs of supraventricular tachycardia (synth svta-runs, 600 s, seeds 1-3: 27 runs of 3-15 APCs at
// 150-200 bpm each): each run is an SVTA episode of rhythm.csv and each SVTA episode lies on a run
// (any overlap, as EC57 counts episodes), at least 98 % of the runs' beats are S (measured:
// 754 of 756) and at most 0.5 % of the sinus beats are (measured: 4 of 1,774 with the DS1 + SVDB
// model of 2026-11-27, none with the DS1 model before it).
TEST(RhythmCli, SvtaRunsAreEpisodesAndTheirBeatsAreS) {
  const auto dir = testutil::fresh_dir();
  SCalls calls;
  for (const int seed : {1, 2, 3}) {
    const std::string name = "svta" + std::to_string(seed);
    const auto [truth, found] =
        synth_and_analyze(dir, name, "--scenario svta-runs --duration 600 --seed " + std::to_string(seed), "SVTA");
    ASSERT_GE(truth.size(), 20u);
    for (const auto& t : truth)
      EXPECT_TRUE(std::any_of(found.begin(), found.end(), [&](const auto& f) { return overlaps(t, f); }))
          << name << ": run at " << t.first;
    for (const auto& f : found)
      EXPECT_TRUE(std::any_of(truth.begin(), truth.end(), [&](const auto& t) { return overlaps(t, f); }))
          << name << ": episode at " << f.first;
    add_s_calls(dir, name, calls);
  }
  EXPECT_GE(static_cast<double>(calls.a_as_s), 0.98 * static_cast<double>(calls.a_beats)) << calls.a_as_s << " of " << calls.a_beats;
  EXPECT_GT(calls.other_beats, 1500u);
  EXPECT_LE(calls.other_as_s * 200, calls.other_beats) << calls.other_as_s << " of " << calls.other_beats;
}

// Long runs of supraventricular tachycardia (synth svta-long, 600 s, seeds 1-3: 31 runs of 20-80
// APCs at 150-200 bpm, as MIT-BIH 209's runs of 14-74 beats): past a run's first ten beats the
// classifier measures prematurity against the run itself and calls its beats N (before
// svt_runs.hpp: 411 of the runs' 1,635 beats S, 18 of the 31 runs touched by an SVTA episode).
// Now at least 90 % of the runs' beats are S (measured: 1,557; the 78 missed are seed 1's first
// run, whose first three beats the classifier calls N, so nothing says it began ectopic), at least
// 90 % of the runs are SVTA episodes (measured: 30 of 31) and every SVTA episode lies on a run; no
// more than 0.5 % of the sinus beats are S (measured: 0 of 1,414, before and after).
TEST(RhythmCli, LongSvtaRunsAreSThroughout) {
  const auto dir = testutil::fresh_dir();
  SCalls calls;
  std::size_t runs = 0, runs_found = 0;
  for (const int seed : {1, 2, 3}) {
    const std::string name = "svtalong" + std::to_string(seed);
    const auto [truth, found] =
        synth_and_analyze(dir, name, "--scenario svta-long --duration 600 --seed " + std::to_string(seed), "SVTA");
    runs += truth.size();
    for (const auto& t : truth)
      runs_found += std::any_of(found.begin(), found.end(), [&](const auto& f) { return overlaps(t, f); });
    for (const auto& f : found)
      EXPECT_TRUE(std::any_of(truth.begin(), truth.end(), [&](const auto& t) { return overlaps(t, f); }))
          << name << ": episode at " << f.first;
    add_s_calls(dir, name, calls);
  }
  EXPECT_GE(runs, 20u);
  EXPECT_GE(runs_found * 10, runs * 9) << runs_found << " of " << runs;
  EXPECT_GE(calls.a_beats, 1200u);
  EXPECT_GE(calls.a_as_s * 10, calls.a_beats * 9) << calls.a_as_s << " of " << calls.a_beats;
  EXPECT_LE(calls.other_as_s * 200, calls.other_beats) << calls.other_as_s << " of " << calls.other_beats;
}

// APCs in most cycles of a sinus bradycardia with long pauses (synth apc-bradycardia, 600 s, seeds
// 1-3): the intervals are as irregular as AF's, and P-wave consistency beat to beat is ~0 (sinus
// and ectopic P waves alternate, half the APCs' P hidden), but the beats that end the longest
// cycles carry the same sinus P wave: no AF anywhere, so the APCs keep their class as `analyze`
// writes it (issue 24's second failure pattern; before, the whole recording was AF and its APCs
// N). The bound on the APCs is the classifier's own (test_classify.cpp: >= 75 %).
TEST(RhythmCli, ApcDominatedBradycardiaIsNotAf) {
  const auto dir = testutil::fresh_dir();
  SCalls calls;
  for (const int seed : {1, 2, 3}) {
    const std::string name = "apc" + std::to_string(seed);
    synth_then_analyze(dir, name, "--scenario apc-bradycardia --duration 600 --seed " + std::to_string(seed));
    const std::string rhythm = read_text(dir / name / "rhythm.csv");
    EXPECT_EQ(rhythm.find(",AFIB,"), std::string::npos) << name << ":\n" << rhythm;
    add_s_calls(dir, name, calls);
  }
  EXPECT_GT(calls.a_beats, 600u);
  EXPECT_GE(calls.a_as_s * 100, calls.a_beats * 75) << calls.a_as_s << " of " << calls.a_beats;
  EXPECT_LE(calls.other_as_s * 100, calls.other_beats) << calls.other_as_s << " of " << calls.other_beats;
}

// AF with aberrantly conducted beats (synth af-aberrant, 1200 s, seeds 1-3: 19 AF episodes, 180
// Ashman beats with right bundle branch block): each AF episode of the truth is one AF episode of
// rhythm.csv and there is no other (the wide beats called V leave AF's intervals, the others stay
// in AF). What the classes do with the aberrant beats is in docs/accuracy.md (a third V, most N).
TEST(RhythmCli, AfWithAberrantBeatsKeepsItsEpisodes) {
  const auto dir = testutil::fresh_dir();
  for (const int seed : {1, 2, 3}) {
    const std::string name = "aberrant" + std::to_string(seed);
    const auto [truth, found] =
        synth_and_analyze(dir, name, "--scenario af-aberrant --duration 1200 --seed " + std::to_string(seed), "AFIB");
    ASSERT_GE(truth.size(), 5u);
    EXPECT_EQ(found.size(), truth.size()) << name << ":\n" << read_text(dir / name / "rhythm.csv");
    for (const auto& t : truth)
      EXPECT_EQ(std::count_if(found.begin(), found.end(), [&](const auto& f) { return overlaps(t, f); }), 1)
          << name << ": AF at " << t.first;
  }
}

// synth_then_analyze: report.json's AF burden.
double synth_af_percent(const fs::path& dir, const std::string& name, const std::string& args, int fs) {
  synth_then_analyze(dir, name, args, fs);
  return nlohmann::json::parse(read_text(dir / name / "report.json"))["holter"]["af"]["afib_percent"].get<double>();
}

// A noisy short recording is not AF (issue 24: "noisy recordings are not called AF"): 30 s of
// sinus rhythm at 300 Hz under white noise of 5 and 0 dB SNR, where the detector's false beats are
// irregular and signal quality puts every beat in artefact. Before AF left artefact out, seed 1 at
// 5 dB and seeds 1 and 2 at 0 dB were AF throughout.
TEST(RhythmCli, NoisyShortRecordingsAreNotAf) {
  const auto dir = testutil::fresh_dir();
  for (const int snr : {5, 0}) {
    for (const int seed : {1, 2, 3}) {
      const std::string name = "noisy" + std::to_string(snr) + "-" + std::to_string(seed);
      const double af = synth_af_percent(
          dir, name, "--fs 300 --duration 30 --snr " + std::to_string(snr) + " --seed " + std::to_string(seed), 300);
      EXPECT_EQ(af, 0.0) << name << ":\n" << read_text(dir / name / "rhythm.csv");
    }
  }
}

// Short recordings (10 and 30 s of AF, as handheld devices record): AF over at least half of each,
// whatever the seed. With windows that repeated the record's end values, a record shorter than the
// 64-interval window split in two around its middle (30 s, seed 2: 14.0 s of AF, then "N").
TEST(RhythmCli, ShortAfRecordingsAreAfWhateverTheSeed) {
  const auto dir = testutil::fresh_dir();
  for (const int seconds : {10, 30}) {
    for (const int seed : {1, 2, 3, 4, 5}) {
      const std::string name = "af" + std::to_string(seconds) + "-" + std::to_string(seed);
      const double af = synth_af_percent(
          dir, name, "--scenario af --fs 300 --duration " + std::to_string(seconds) + " --seed " + std::to_string(seed), 300);
      EXPECT_GE(af, 50.0) << name << ":\n" << read_text(dir / name / "rhythm.csv");
    }
  }
}

// DS1's two AF records from their reference beats (the .atr's rate from 2xx.hea): AF found where
// the experts marked it. Bounds, not exact figures: docs/accuracy.md has the measured table.
TEST(RhythmCli, Ds1AfRecords) {
  const std::string ds1 = testutil::ds1_folder({"wfdb/201.atr", "wfdb/201.hea", "wfdb/203.atr", "wfdb/203.hea"});
  SKIP_WITHOUT_DS1(ds1);
  const auto dir = testutil::fresh_dir();
  for (const char* rec : {"201", "203"}) {
    const std::string atr = ds1 + "/wfdb/" + rec + ".atr";
    const auto r = run_ecgpipe("-q rhythm " + q(atr) + " --reference " + q(atr) + " --json --out " + q(dir / rec), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["fs"], 360.0);
    EXPECT_EQ(j["af"]["detected_reference_episodes"], j["af"]["reference_episodes"]) << rec;
    EXPECT_GT(j["af"]["duration_se"].get<double>(), 0.95) << rec;
  }
}

// AF on either side of 20 minutes of flat line (lead off): two AF episodes, none across the flat
// line, whose time is in neither the AF nor the analysed time (it was one 30-minute AF episode at
// 31 bpm, "AF burden 99.8 %" of a recording with 10 minutes analysed); the same from its beats.
TEST(RhythmCli, AfIsNotCarriedAcrossAStretchWithoutBeats) {
  const auto dir = testutil::fresh_dir();
  auto r = run_ecgpipe("-q synth " + q(dir / "af.csv") + " --scenario af --duration 600 --seed 4", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(read_text(dir / "af.csv"));
  std::string line, csv;
  std::getline(in, line);
  csv = line + "\n";
  std::size_t n = 0;
  while (std::getline(in, line)) {
    if (n++ == 75000)  // 300 s in: 20 minutes of flat line
      for (int i = 0; i < 250 * 1200; ++i) csv += "0.0000\n";
    csv += line + "\n";
  }
  write_text(dir / "flat.csv", csv);
  r = run_ecgpipe("-q analyze " + q(dir / "flat.csv") + " --fs 250 --device cpu --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto episodes = read_episodes(dir / "a" / "rhythm.csv");
  int af = 0;
  for (const Ep& e : episodes) {
    EXPECT_FALSE(e.start < 400 * 250 && e.end > 1400 * 250) << e.rhythm << " " << e.start << " " << e.end;
    af += e.rhythm == "AFIB";
  }
  EXPECT_EQ(af, 2) << read_text(dir / "a" / "rhythm.csv");
  const auto j = nlohmann::json::parse(read_text(dir / "a" / "report.json"));
  const double analysed = j["quality"]["analysed_s"];
  EXPECT_NEAR(analysed, 600.0, 5.0);
  EXPECT_NEAR(j["holter"]["af"]["analysed_s"].get<double>(), analysed, 5.0);  // from the first beat
  EXPECT_GT(j["holter"]["af"]["afib_percent"].get<double>(), 95.0);
  EXPECT_LT(j["holter"]["af"]["longest_afib_s"].get<double>(), 305.0);
  EXPECT_GT(j["holter"]["af"]["afib_mean_hr"].get<double>(), 70.0);
  // From its beats alone: the same two AF episodes.
  r = run_ecgpipe("-q rhythm " + q(dir / "a" / "beats.csv") + " --fs 250 --out " + q(dir / "b"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  int from_beats = 0;
  for (const Ep& e : read_episodes(dir / "b" / "rhythm.csv")) {
    EXPECT_FALSE(e.start < 400 * 250 && e.end > 1400 * 250) << e.rhythm << " " << e.start << " " << e.end;
    from_beats += e.rhythm == "AFIB";
  }
  EXPECT_EQ(from_beats, 2) << read_text(dir / "b" / "rhythm.csv");
}

// Issue 24's ground truth: synthetic paroxysmal AF (P waves replaced by fibrillatory waves,
// random RR) through `run`, through `score` with the saved model, and its beats through
// `rhythm`: every AF episode found, its onset and offset within 8 beats (~5 s) of the truth.
TEST(RhythmCli, SyntheticParoxysmalAfThroughRunScoreAndRhythm) {
  const auto dir = testutil::fresh_dir();
  auto r = run_ecgpipe("-q synth " + q(dir / "s.csv") + " --scenario paroxysmal-af --duration 1200 --seed 3", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // The truth: "(N" / "(AFIB" changes at beats.
  std::vector<std::pair<long long, long long>> truth;  // AF episodes [onset, offset)
  {
    std::istringstream in(read_text(dir / "s_rhythm.csv"));
    std::string line;
    std::getline(in, line);
    ASSERT_EQ(line, "sample,rhythm");
    while (std::getline(in, line)) {
      const long long s = std::stoll(line.substr(0, line.find(',')));
      if (line.find("(AFIB") != std::string::npos) truth.push_back({s, 300000});
      else if (!truth.empty() && truth.back().second == 300000) truth.back().second = s;
    }
  }
  ASSERT_GE(truth.size(), 2u) << "the scenario makes several episodes in 20 minutes";
  r = run_ecgpipe("-q run " + q(dir / "s.csv") + " --fs 250 --epochs 1 --out " + q(dir / "run") + " --reference " +
                      q(dir / "s_beats.csv"),
                  dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto found = read_episodes(dir / "run" / "rhythm.csv");
  std::vector<Ep> af;
  for (const auto& e : found)
    if (e.rhythm == "AFIB") af.push_back(e);
  // Each whole episode of the truth (one cut by the record's end may be too short to tell) is one
  // detected episode, its edges within 8 beats; nothing else is called AF.
  const double beat = 0.7 * 250;  // samples: a beat at ~86 bpm, between sinus and AF
  std::size_t whole = 0;
  for (const auto& [onset, offset] : truth) {
    if (offset == 300000) continue;
    ++whole;
    std::size_t overlapping = 0;
    for (const auto& e : af)
      if (e.start < offset && e.end > onset) {
        ++overlapping;
        EXPECT_NEAR(static_cast<double>(e.start), static_cast<double>(onset), 8 * beat) << "onset at " << onset;
        EXPECT_NEAR(static_cast<double>(e.end), static_cast<double>(offset), 8 * beat) << "offset at " << offset;
      }
    EXPECT_EQ(overlapping, 1u) << "the episode at " << onset << ":\n" << read_text(dir / "run" / "rhythm.csv");
  }
  for (const auto& e : af) {
    bool true_af = false;
    for (const auto& [onset, offset] : truth) true_af = true_af || (e.start < offset && e.end > onset);
    EXPECT_TRUE(true_af) << "false AF at " << e.start;
  }
  ASSERT_GE(whole, 3u);
  // No beat inside AF is called S (AF's conducted beats are N; prematurity means nothing there).
  {
    std::istringstream in(read_text(dir / "run" / "beats.csv"));
    std::string line;
    std::getline(in, line);
    ASSERT_NE(line.find(",class,rhythm"), std::string::npos) << line;
    std::size_t af_beats = 0;
    while (std::getline(in, line)) {
      // The last columns are class,rhythm,quality.
      const std::size_t quality = line.rfind(',');
      ASSERT_NE(quality, std::string::npos) << line;
      const std::string head = line.substr(0, quality);
      if (head.size() < 7 || head.compare(head.size() - 5, 5, ",AFIB") != 0) continue;
      ++af_beats;
      EXPECT_NE(head.compare(head.size() - 7, 7, ",S,AFIB"), 0) << line;
    }
    EXPECT_GT(af_beats, 300u);
  }
  // The beats' rhythm column agrees with rhythm.csv, and report.json has the burden.
  const auto report = nlohmann::json::parse(read_text(dir / "run" / "report.json"));
  EXPECT_EQ(report["holter"]["af"]["afib_episodes"], static_cast<int>(af.size()));
  EXPECT_GT(report["evaluation"]["se"].get<double>(), 0.99) << "the beats themselves are found";
  // score with the saved model: the same rhythm (it needs no model).
  r = run_ecgpipe("-q score " + q(dir / "s.csv") + " --model " + q(dir / "run" / "model.safetensors") + " --out " +
                      q(dir / "score"),
                  dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_text(dir / "score" / "rhythm.csv"), read_text(dir / "run" / "rhythm.csv"));
  // Beat times alone (the truth beats): every episode, but this sinus (5 % RR variability, half of
  // it beat to beat) is irregular enough that the sinus beats next to AF episodes read as AF too
  // (+P 0.77): what the signal path's P waves are for.
  r = run_ecgpipe("-q rhythm " + q(dir / "s_beats.csv") + " --fs 250 --reference " + q(dir / "s_rhythm.csv") +
                      " --json --out " + q(dir / "rhythm"),
                  dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["af"]["detected_reference_episodes"], static_cast<int>(truth.size()));
  EXPECT_EQ(j["af"]["true_test_episodes"], j["af"]["test_episodes"]);
  EXPECT_GT(j["af"]["duration_se"].get<double>(), 0.95);
  EXPECT_GT(j["af"]["duration_ppv"].get<double>(), 0.7);
}

// In AF every conducted beat comes at an irregular interval, so the outlier score's rhythm term
// (prematurity, short-long, against the longer cycles) would rank AF's N beats above the premature
// S beats of the rest of the recording. It is 0 inside detected AF, as an S is no S there; the
// shape terms stay. A recording of 10 minutes of paroxysmal AF, then 10 of sinus rhythm with
// random PACs and PVCs (seed 4): S AUROC 0.935 with the rhythm term in AF, 0.998 without (CPU,
// one epoch; the rhythm term dominates S, so the epochs change little: 0.923-0.933 -> 0.983-0.993
// for 30 epochs at seeds 1-2, 30 minutes each).
TEST(RhythmCli, PrematurityIsNoOutlierEvidenceInAf) {
  const auto dir = testutil::fresh_dir();
  for (const char* part : {"af --scenario paroxysmal-af", "sinus --scenario none --abnormal-rate 0.05"}) {
    const std::string name(part, std::string(part).find(' '));
    auto r = run_ecgpipe("-q synth " + q(dir / (name + ".csv")) + std::string(part).substr(name.size()) +
                             " --duration 600 --seed 4",
                         dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // One recording: AF's samples then the sinus part's; the sinus truth shifted by AF's length.
  const std::string af = read_text(dir / "af.csv"), sinus = read_text(dir / "sinus.csv");
  const long long af_samples = static_cast<long long>(testutil::count_lines(af)) - 1;
  write_text(dir / "s.csv", af + sinus.substr(sinus.find('\n') + 1));
  std::string truth = read_text(dir / "af_beats.csv");
  const auto sinus_truth = testutil::csv_rows(read_text(dir / "sinus_beats.csv"));
  for (std::size_t i = 1; i < sinus_truth.size(); ++i) {
    ASSERT_EQ(sinus_truth[i].size(), 3u) << "sample,symbol,class";
    truth += std::to_string(std::stoll(sinus_truth[i][0]) + af_samples) + "," + sinus_truth[i][1] + "," + sinus_truth[i][2] + "\n";
  }
  write_text(dir / "s_beats.csv", truth);
  const auto r = run_ecgpipe("-q run " + q(dir / "s.csv") + " --fs 250 --epochs 1 --device cpu --reference " +
                                 q(dir / "s_beats.csv") + " --out " + q(dir / "o"),
                             dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(read_text(dir / "o" / "report.json"));
  const auto& s = report["evaluation"]["auroc"]["S"];
  EXPECT_EQ(s["positives"], 11);
  EXPECT_GE(s["auroc"].get<double>(), 0.98) << "AF's N beats outrank the PACs";
  EXPECT_GE(report["holter"]["af"]["afib_episodes"].get<int>(), 2);
  // beats.csv: the rhythm term (column `prematurity`) is 0 in AF and not everywhere else.
  const auto beats = testutil::csv_rows(read_text(dir / "o" / "beats.csv"));
  ASSERT_FALSE(beats.empty());
  const std::vector<std::string>& head = beats[0];
  const auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  const std::size_t prem = col("prematurity"), rhythm = col("rhythm");
  ASSERT_LT(prem, head.size());
  ASSERT_LT(rhythm, head.size());
  std::size_t in_af = 0, premature_outside = 0;
  for (std::size_t i = 1; i < beats.size(); ++i) {
    const std::vector<std::string>& f = beats[i];
    ASSERT_EQ(f.size(), head.size()) << "beats.csv row " << i;
    if (f[rhythm] == "AFIB") {
      ++in_af;
      EXPECT_EQ(std::stod(f[prem]), 0.0) << "beats.csv row " << i;
    } else if (std::stod(f[prem]) > 0.1) {
      ++premature_outside;
    }
  }
  EXPECT_GT(in_af, 300u);
  EXPECT_GT(premature_outside, 10u);
}

}  // namespace

#ifdef ECGPIPE_WITH_CUDA
namespace {

// The GPU path gives the CPU's rhythm: the same R peaks, classes and P-wave measures (computed on
// the host from the same windows), so the same rhythm column and rhythm.csv, byte for byte.
TEST(RhythmCliGpu, CpuAndGpuGiveTheSameRhythm) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  auto r = run_ecgpipe("-q synth " + q(dir / "s.csv") + " --scenario paroxysmal-af --duration 600 --seed 5", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* device : {"cpu", "cuda"}) {
    r = run_ecgpipe("-q run " + q(dir / "s.csv") + " --epochs 1 --device " + device + " --out " + q(dir / device), dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const std::string rhythm = read_text(dir / "cpu" / "rhythm.csv");
  EXPECT_NE(rhythm.find(",AFIB,"), std::string::npos);
  EXPECT_EQ(read_text(dir / "cuda" / "rhythm.csv"), rhythm);
}

}  // namespace
#endif  // ECGPIPE_WITH_CUDA
