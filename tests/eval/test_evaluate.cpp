// Beat matching, AUROC, AAMI classes and the eval readers (issue 4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "ecgpipe/eval/eval_json.hpp"  // internal: eval_report_json
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/evaluate.hpp"

namespace {

using ecgpipe::match_beats;
using ecgpipe::MatchResult;
using V = std::vector<std::int64_t>;

constexpr std::int64_t kTol250 = 37;    // 150 ms at 250 Hz = 37.5 -> 37 samples
constexpr std::int64_t kTol1000 = 150;  // 150 ms at 1000 Hz

TEST(ToleranceSamples, FloorsMillisecondsTimesRate) {
  EXPECT_EQ(ecgpipe::tolerance_samples(150, 250), kTol250);
  EXPECT_EQ(ecgpipe::tolerance_samples(150, 1000), kTol1000);
  EXPECT_EQ(ecgpipe::tolerance_samples(150, 360), 54);  // exact product survives rounding
  EXPECT_EQ(ecgpipe::tolerance_samples(0, 250), 0);
  EXPECT_THROW(ecgpipe::tolerance_samples(-1, 250), ecgpipe::UsageError);
  EXPECT_THROW(ecgpipe::tolerance_samples(150, 0), ecgpipe::UsageError);
  EXPECT_THROW(ecgpipe::tolerance_samples(NAN, 250), ecgpipe::UsageError);
}

TEST(MatchBeats, ExactMatch) {
  const MatchResult m = match_beats({100, 200, 300}, {100, 200, 300}, kTol250);
  EXPECT_EQ(m.tp, 3);
  EXPECT_EQ(m.fn, 0);
  EXPECT_EQ(m.fp, 0);
  EXPECT_EQ(m.matched_detection, (V{0, 1, 2}));
  EXPECT_EQ(m.matched_reference, (V{0, 1, 2}));
  EXPECT_DOUBLE_EQ(m.sensitivity(), 1.0);
  EXPECT_DOUBLE_EQ(m.positive_predictivity(), 1.0);
  EXPECT_DOUBLE_EQ(m.f1(), 1.0);
}

TEST(MatchBeats, ExactlyToleranceMatchesOnBothSides) {
  const std::int64_t tol = ecgpipe::tolerance_samples(150, 1000);
  EXPECT_EQ(match_beats({1000}, {1150}, tol).tp, 1);
  EXPECT_EQ(match_beats({1000}, {850}, tol).tp, 1);
}

TEST(MatchBeats, ToleranceplusOneSampleDoesNotMatch) {
  const MatchResult late = match_beats({1000}, {1151}, kTol1000);
  EXPECT_EQ(late.tp, 0);
  EXPECT_EQ(late.fn, 1);
  EXPECT_EQ(late.fp, 1);
  EXPECT_EQ(late.matched_detection, (V{-1}));
  EXPECT_EQ(match_beats({1000}, {849}, kTol1000).tp, 0);
  // At 250 Hz: 37 samples match, 38 (152 ms) do not.
  EXPECT_EQ(match_beats({1000}, {1037}, kTol250).tp, 1);
  EXPECT_EQ(match_beats({1000}, {1038}, kTol250).tp, 0);
}

TEST(MatchBeats, TwoDetectionsNearOneReference) {
  const MatchResult m = match_beats({1000}, {1020, 990}, kTol250);
  EXPECT_EQ(m.tp, 1);
  EXPECT_EQ(m.fp, 1);
  EXPECT_EQ(m.fn, 0);
  EXPECT_EQ(m.matched_detection, (V{1}));  // the nearer one (990)
  EXPECT_EQ(m.matched_reference, (V{-1, 0}));
}

TEST(MatchBeats, DuplicateDetectionsAreSeparateEvents) {
  const MatchResult m = match_beats({100}, {100, 100}, kTol250);
  EXPECT_EQ(m.tp, 1);
  EXPECT_EQ(m.fp, 1);
}

TEST(MatchBeats, Misses) {
  const MatchResult m = match_beats({100, 500, 900}, {100, 900}, kTol250);
  EXPECT_EQ(m.tp, 2);
  EXPECT_EQ(m.fn, 1);
  EXPECT_EQ(m.fp, 0);
  EXPECT_EQ(m.matched_detection, (V{0, -1, 1}));
  EXPECT_DOUBLE_EQ(m.sensitivity(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.positive_predictivity(), 1.0);
  EXPECT_DOUBLE_EQ(m.f1(), 4.0 / 5.0);
}

TEST(MatchBeats, EmptyReference) {
  const MatchResult m = match_beats({}, {10, 20}, kTol250);
  EXPECT_EQ(m.tp, 0);
  EXPECT_EQ(m.fn, 0);
  EXPECT_EQ(m.fp, 2);
  EXPECT_TRUE(std::isnan(m.sensitivity()));
  EXPECT_DOUBLE_EQ(m.positive_predictivity(), 0.0);
  EXPECT_DOUBLE_EQ(m.f1(), 0.0);
  EXPECT_EQ(m.matched_reference, (V{-1, -1}));
}

TEST(MatchBeats, EmptyDetections) {
  const MatchResult m = match_beats({10, 20}, {}, kTol250);
  EXPECT_EQ(m.tp, 0);
  EXPECT_EQ(m.fn, 2);
  EXPECT_EQ(m.fp, 0);
  EXPECT_DOUBLE_EQ(m.sensitivity(), 0.0);
  EXPECT_TRUE(std::isnan(m.positive_predictivity()));
  EXPECT_DOUBLE_EQ(m.f1(), 0.0);
}

TEST(MatchBeats, BothEmpty) {
  const MatchResult m = match_beats({}, {}, kTol250);
  EXPECT_EQ(m.tp + m.fn + m.fp, 0);
  EXPECT_TRUE(std::isnan(m.sensitivity()));
  EXPECT_TRUE(std::isnan(m.positive_predictivity()));
  EXPECT_TRUE(std::isnan(m.f1()));
}

TEST(MatchBeats, UnsortedInputsKeepTheirIndices) {
  const MatchResult m = match_beats({300, 100}, {101, 299}, kTol250);
  EXPECT_EQ(m.tp, 2);
  EXPECT_EQ(m.matched_detection, (V{1, 0}));
  EXPECT_EQ(m.matched_reference, (V{1, 0}));
}

TEST(MatchBeats, MaximizesMatchesWhereNearestFirstWouldNot) {
  // Detection 45 is nearer to reference 0 (45) than to 100 (55); nearest-first would pair it
  // with 0 and leave 100 unmatched. The optimum pairs 0 with -50 and 100 with 45.
  const MatchResult m = match_beats({0, 100}, {45, -50}, 60);
  EXPECT_EQ(m.tp, 2);
  EXPECT_EQ(m.matched_detection, (V{1, 0}));
}

TEST(MatchBeats, MetricsOnACountedCase) {
  V ref, det;
  constexpr int kBeats = 10, kDetected = 8;
  constexpr std::int64_t kRr = 200;
  for (int k = 0; k < kBeats; ++k) ref.push_back(kRr * (k + 1));
  for (int k = 0; k < kDetected; ++k) det.push_back(kRr * (k + 1) + 3);
  det.push_back(kRr * (kBeats + 5));  // far from any beat
  const MatchResult m = match_beats(ref, det, kTol250);
  EXPECT_EQ(m.tp, 8);
  EXPECT_EQ(m.fn, 2);
  EXPECT_EQ(m.fp, 1);
  EXPECT_DOUBLE_EQ(m.sensitivity(), 0.8);
  EXPECT_DOUBLE_EQ(m.positive_predictivity(), 8.0 / 9.0);
  EXPECT_DOUBLE_EQ(m.f1(), 16.0 / 19.0);
}

// Greedy "earliest free detection in the window", references in time order, is a maximum
// matching for equal windows; the exact matcher must reach the same TP and be a valid matching.
TEST(MatchBeats, RandomCasesAreMaximumOneToOneMatchings) {
  std::mt19937_64 rng(7);
  constexpr int kCases = 300;
  for (int c = 0; c < kCases; ++c) {
    const std::int64_t tol = static_cast<std::int64_t>(rng() % 30);
    V ref(rng() % 20), det(rng() % 20);
    for (auto& v : ref) v = static_cast<std::int64_t>(rng() % 300);
    for (auto& v : det) v = static_cast<std::int64_t>(rng() % 300);
    const MatchResult m = match_beats(ref, det, tol);
    V r = ref, d = det;
    std::sort(r.begin(), r.end());
    std::sort(d.begin(), d.end());
    std::int64_t greedy = 0;
    std::size_t p = 0;
    for (std::int64_t x : r) {
      while (p < d.size() && d[p] < x - tol) ++p;
      if (p < d.size() && d[p] <= x + tol) ++greedy, ++p;
    }
    ASSERT_EQ(m.tp, greedy) << "case " << c;
    std::vector<int> used(det.size(), 0);
    std::int64_t tp = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const std::int64_t j = m.matched_detection[i];
      if (j < 0) continue;
      ++tp;
      ASSERT_LE(std::llabs(ref[i] - det[static_cast<std::size_t>(j)]), tol);
      ASSERT_EQ(used[static_cast<std::size_t>(j)]++, 0);
      ASSERT_EQ(m.matched_reference[static_cast<std::size_t>(j)], static_cast<std::int64_t>(i));
    }
    ASSERT_EQ(tp, m.tp);
    ASSERT_EQ(m.fn + m.tp, static_cast<std::int64_t>(ref.size()));
    ASSERT_EQ(m.fp + m.tp, static_cast<std::int64_t>(det.size()));
  }
}

TEST(Auroc, PerfectInvertedAndClassic) {
  EXPECT_DOUBLE_EQ(ecgpipe::auroc({0.1f, 0.2f, 0.8f, 0.9f}, {0, 0, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(ecgpipe::auroc({0.9f, 0.8f, 0.2f, 0.1f}, {0, 0, 1, 1}), 0.0);
  // Pairs (pos, neg): (0.35, 0.1) win, (0.35, 0.4) lose, (0.8, *) win: 3 of 4.
  EXPECT_DOUBLE_EQ(ecgpipe::auroc({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1}), 0.75);
}

TEST(Auroc, TiesCountHalf) {
  EXPECT_DOUBLE_EQ(ecgpipe::auroc({0.5f, 0.5f, 0.5f, 0.5f}, {0, 1, 0, 1}), 0.5);
  // pos {2, 3}, neg {1, 2}: 2>1 = 1, 2=2 = 0.5, 3>1 = 1, 3>2 = 1 -> 3.5 / 4.
  EXPECT_DOUBLE_EQ(ecgpipe::auroc({1, 2, 2, 3}, {0, 0, 1, 1}), 0.875);
  // pos {1}, neg {1, 1, 0}: 0.5 + 0.5 + 1 -> 2 / 3.
  EXPECT_DOUBLE_EQ(ecgpipe::auroc({1, 1, 1, 0}, {1, 0, 0, 0}), 2.0 / 3.0);
}

TEST(Auroc, UndefinedAndInvalid) {
  EXPECT_TRUE(std::isnan(ecgpipe::auroc({0.1f, 0.2f}, {1, 1})));
  EXPECT_TRUE(std::isnan(ecgpipe::auroc({0.1f, 0.2f}, {0, 0})));
  EXPECT_TRUE(std::isnan(ecgpipe::auroc({}, {})));
  EXPECT_THROW(ecgpipe::auroc({0.1f}, {0, 1}), ecgpipe::InternalError);
  EXPECT_THROW(ecgpipe::auroc({NAN, 0.1f}, {0, 1}), ecgpipe::InternalError);
}

TEST(AamiClass, Mapping) {
  for (char c : std::string("NLRej")) EXPECT_EQ(ecgpipe::aami_class(c), 'N') << c;
  for (char c : std::string("AaJS")) EXPECT_EQ(ecgpipe::aami_class(c), 'S') << c;
  for (char c : std::string("VE")) EXPECT_EQ(ecgpipe::aami_class(c), 'V') << c;
  EXPECT_EQ(ecgpipe::aami_class('F'), 'F');
  for (char c : std::string("/fQ")) EXPECT_EQ(ecgpipe::aami_class(c), 'Q') << c;
  for (char c : std::string("+~|\"x[]!stTpu`'^@=n")) {
    EXPECT_EQ(ecgpipe::aami_class(c), 0) << c;
    EXPECT_FALSE(ecgpipe::is_beat_symbol(c)) << c;
  }
}

class EvalFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::fresh_dir();
  }
  std::string write(const std::string& name, const std::string& text) {
    const auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(EvalFiles, ReferenceSkipsNonBeatsAndHandlesQuotesAndCrlf) {
  const auto p = write("ref.csv",
                       "sample,symbol\r\n10,N\r\n15,+\r\n\r\n20,\"V\"\r\n25,\"\"\"\"\r\n30,~\r\n40,A\r\n");
  const ecgpipe::ReferenceBeats r = ecgpipe::read_reference_csv(p);
  EXPECT_EQ(r.samples, (V{10, 20, 40}));
  EXPECT_EQ(r.symbols, (std::vector<char>{'N', 'V', 'A'}));
  EXPECT_EQ(r.skipped_non_beats, 3u);
}

// A CSV saved by Excel starts with a UTF-8 byte-order mark: its first column is still 'sample'
// (the reference was refused, "needs columns 'sample' and 'symbol'"; detections and `rhythm`'s
// beats fell back to the first column with a warning).
TEST_F(EvalFiles, AByteOrderMarkIsNotPartOfTheFirstColumnsName) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_EQ(ecgpipe::read_reference_csv(write("ref.csv", bom + "sample,symbol\r\n10,N\r\n20,V\r\n")).samples, (V{10, 20}));
  EXPECT_EQ(ecgpipe::read_detections_csv(write("det.csv", bom + "sample,other\n12,7\n")), (V{12}));
  EXPECT_EQ(ecgpipe::read_detections_csv(write("beats.csv", bom + "r_peak,x\n3,9\n")), (V{3}));
  const ecgpipe::Detections d = ecgpipe::parse_detections_with_scores(bom + "sample,class\n5,V\n", "s.csv");
  EXPECT_EQ(d.sample_column, "sample");
  EXPECT_FALSE(d.sample_column_by_position);
  EXPECT_EQ(d.classes, (std::vector<char>{'V'}));
}

TEST_F(EvalFiles, ReferenceColumnsByName) {
  const auto p = write("ref.csv", "symbol,aux,sample\nN,x,7\n");
  EXPECT_EQ(ecgpipe::read_reference_csv(p).samples, (V{7}));
}

TEST_F(EvalFiles, ReferenceErrors) {
  EXPECT_THROW(ecgpipe::read_reference_csv((dir_ / "missing.csv").string()), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_reference_csv(write("a.csv", "")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_reference_csv(write("b.csv", "time,label\n1,N\n")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_reference_csv(write("c.csv", "sample,symbol\nabc,N\n")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_reference_csv(write("d.csv", "sample,symbol\n-3,N\n")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_reference_csv(write("e.csv", "sample,symbol\n3\n")), ecgpipe::InputError);
}

// The readers read the file, then parse its text (parse_*, which the fuzz harness calls directly):
// the same results and messages, which name the path given and the line.
TEST_F(EvalFiles, ReadersAreParsersOfTheFileText) {
  const auto message = [](auto&& call) { return testutil::input_error_of(call); };
  const std::string text = "sample,symbol,score,class\n10,N,0.5,N\n\n20,V,1e3,V\n";
  const auto p = write("ref.csv", text);
  EXPECT_EQ(ecgpipe::parse_reference_csv(text, "x.csv").samples, ecgpipe::read_reference_csv(p).samples);
  EXPECT_EQ(ecgpipe::parse_detections_csv(text, "x.csv"), ecgpipe::read_detections_csv(p));
  const ecgpipe::Detections d = ecgpipe::parse_detections_with_scores(text, "x.csv");
  EXPECT_EQ(d.r_peaks, ecgpipe::read_detections_with_scores(p).r_peaks);
  EXPECT_EQ(d.scores, (std::vector<float>{0.5f, 1000.0f}));
  EXPECT_EQ(d.classes, (std::vector<char>{'N', 'V'}));
  EXPECT_EQ(ecgpipe::parse_reference_csv("sample,symbol\n1,N\n2, \"V\"", "r.csv").samples, (V{1, 2}));  // no last '\n'
  EXPECT_EQ(message([&] { ecgpipe::parse_reference_csv("sample,symbol\r\n1,N\r\n\r\nx,N\r\n", "r.csv"); }),
            "r.csv:4: 'x' is not a sample index");
  EXPECT_EQ(message([&] { ecgpipe::parse_reference_csv("", "r.csv"); }), "r.csv: empty file (no header)");
  EXPECT_EQ(message([&] { ecgpipe::read_reference_csv(write("bad.csv", "sample,symbol\n1\n")); }),
            (dir_ / "bad.csv").string() + ":2: too few fields");
  EXPECT_EQ(message([&] { ecgpipe::parse_detections_with_scores("sample,score\n1,inf\n", "d.csv"); }),
            "d.csv:2: score 'inf' is not a finite number");
  // Finite as a double, infinite as the float the scores are kept in (found by fuzz_reference_csv).
  EXPECT_EQ(message([&] { ecgpipe::parse_detections_with_scores("sample,score\n1,2E62\n", "d.csv"); }),
            "d.csv:2: score '2E62' is beyond float's range");
  const std::string missing = (dir_ / "missing.csv").string();
  EXPECT_EQ(message([&] { ecgpipe::read_detections_csv(missing); }), "cannot open " + missing + ": No such file or directory");
  EXPECT_EQ(message([&] { ecgpipe::read_reference_csv(dir_.string()); }), "cannot read " + dir_.string() + ": a directory");
}

// ecgpipe's rhythm.csv or artefact.csv given where beats belong (`rhythm OUT/rhythm.csv --out
// OUT`): without r_peak or sample, the first column, start_sample, was read as beat times, and the
// analysis's own rhythm.csv was replaced by the AF of 20 episode starts (found on a hostile tour).
// A list of episodes or stretches is refused by its columns.
TEST_F(EvalFiles, AnEpisodeListIsNoBeatTimes) {
  for (const char* text : {"start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr\n156,16623,0.6,66.5,N,76,68.9\n",
                           "start_sample,end_sample,start_s,end_s,beats\n0,10,0,0.04,0\n"}) {
    const std::string want = "o/x.csv: columns start_sample and end_sample: a list of episodes or stretches (ecgpipe's "
                             "rhythm.csv or artefact.csv), not beat times";
    EXPECT_EQ(testutil::input_error_of([&] { ecgpipe::parse_detections_csv(text, "o/x.csv"); }).rfind(want, 0), 0u) << text;
    EXPECT_EQ(testutil::input_error_of([&] { ecgpipe::parse_detections_with_scores(text, "o/x.csv"); }).rfind(want, 0), 0u) << text;
  }
  // With a beat column beside them, the beats are read.
  EXPECT_EQ(ecgpipe::parse_detections_csv("start_sample,end_sample,sample\n1,2,3\n", "d.csv"), (std::vector<std::int64_t>{3}));
}

TEST_F(EvalFiles, DetectionsPreferRPeakThenSampleThenFirstColumn) {
  EXPECT_EQ(ecgpipe::read_detections_csv(
                write("beats.csv", "index,start,r_peak,length,split,recon_error\n0,50,140,100,train,0.5\n"
                                   "1,300,390,101,val,0.25\n")),
            (V{140, 390}));
  EXPECT_EQ(ecgpipe::read_detections_csv(write("s.csv", "sample,symbol\n12,N\n34,V\n")), (V{12, 34}));
  EXPECT_EQ(ecgpipe::read_detections_csv(write("f.csv", "peaks,other\n5,x\n6.0,y\n")), (V{5, 6}));
  EXPECT_TRUE(ecgpipe::read_detections_csv(write("e.csv", "sample\n")).empty());
}

TEST_F(EvalFiles, DetectionErrors) {
  EXPECT_THROW(ecgpipe::read_detections_csv(write("a.csv", "sample\n12.5\n")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_detections_csv(write("b.csv", "sample\nnan\n")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_detections_csv(write("c.csv", "")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_detections_csv((dir_ / "none.csv").string()), ecgpipe::InputError);
}

// --- Any annotator's file (issue 27): which files are CSV and which MIT annotation files.

// The bytes of an MIT annotation file (WFDB's annot(5)) written by hand: each (sample, code[, aux])
// as a time difference in a word with the code, then the end-of-file word.
struct Ann {
  std::int64_t sample;
  int code;  // 1 N, 5 V, 8 A, 28 rhythm change '+'
  std::string aux;
};
std::string annotation_bytes(const std::vector<Ann>& anns, bool eof_word = true) {
  testutil::Bytes b;
  std::int64_t last = 0;
  for (const Ann& a : anns) {
    testutil::put_word(b, a.code, static_cast<unsigned>(a.sample - last));
    if (!a.aux.empty()) testutil::put_aux(b, a.aux);
    last = a.sample;
  }
  if (eof_word) testutil::put_word(b, 0, 0);
  return std::string(b.begin(), b.end());
}

TEST(EvalFileFormat, FirstBinaryByteAllowsTabsLineEndsAndUtf8) {
  EXPECT_EQ(ecgpipe::first_binary_byte(""), std::string_view::npos);
  EXPECT_EQ(ecgpipe::first_binary_byte("sample,symbol\r\n1,\"N\"\t\f\v\n\xC3\xA9\xE2\x82\xAC"), std::string_view::npos);
  EXPECT_EQ(ecgpipe::first_binary_byte(std::string("ab\0c", 4)), 2u);
  EXPECT_EQ(ecgpipe::first_binary_byte("a\x08"), 1u);   // backspace, below tab
  EXPECT_EQ(ecgpipe::first_binary_byte("\x0E"), 0u);    // just above CR
  EXPECT_EQ(ecgpipe::first_binary_byte("ab\x7F"), 2u);  // DEL
  // Every annotation word's high byte is code << 2 | interval >> 8: a beat (code 1..) at an
  // interval below 1024 gives 0x04..0x07, a control byte; and WFDB ends the file with 0x0000.
  EXPECT_EQ(ecgpipe::first_binary_byte(annotation_bytes({{65, 1, ""}}, false)), 1u);
}

TEST(EvalFileFormat, ByNameThenByContent) {
  using F = ecgpipe::EvalFileFormat;
  const std::string atr = annotation_bytes({{100, 1, ""}});
  EXPECT_EQ(ecgpipe::eval_file_format("sample\n1\n", "a.csv"), F::csv);
  EXPECT_EQ(ecgpipe::eval_file_format("sample\n1\n", "A.TXT"), F::csv);
  EXPECT_EQ(ecgpipe::eval_file_format(atr, "100.xqrs"), F::annotations);
  EXPECT_EQ(ecgpipe::eval_file_format(atr, "100"), F::annotations);
  EXPECT_EQ(ecgpipe::eval_file_format("", "100.qrs"), F::annotations) << "an annotator that found nothing";
  EXPECT_EQ(ecgpipe::eval_file_format("sample,symbol\n1,N\n", "100.atr"), F::csv) << "text under any other name";
  EXPECT_EQ(ecgpipe::eval_file_format("sample\n", "x.atr", F::csv), F::csv);
  // The clear errors: a binary file where a CSV is expected, text where annotations are.
  EXPECT_EQ(testutil::input_error_of([&] { ecgpipe::eval_file_format("r_peak\n12\n" + atr, "det.csv"); }),
            "det.csv:3: byte 11 is 0x04, not text: a binary file where a CSV is expected (a WFDB annotation file? "
            "give it its annotator's name, REC.atr or REC.qrs, not .csv or .txt)");
  EXPECT_EQ(testutil::input_error_of([&] { ecgpipe::eval_file_format(atr, "100.qrs", F::csv); }).substr(0, 30),
            "100.qrs:1: byte 1 is 0x04, not");
  EXPECT_EQ(testutil::input_error_of([&] { ecgpipe::eval_file_format("sample,symbol\r\n1,N\n", "100.qrs", F::annotations); }),
            "100.qrs: byte 0: text ('sample,symbol' on line 1), not a WFDB annotation file (MIT format): a CSV? "
            "give it by its path, named .csv");
}

TEST_F(EvalFiles, AnyAnnotatorsFileIsReadAsAnnotations) {
  // 100.xqrs: N at 100, rhythm (AFIB at 250, V at 300, A at 500, '~' (noise, not a beat), (N at 650, N at 700.
  const std::string bytes = annotation_bytes(
      {{100, 1, ""}, {250, 28, "(AFIB"}, {300, 5, ""}, {500, 8, ""}, {600, 14, ""}, {650, 28, "(N"}, {700, 1, ""}});
  const auto path = write("100.xqrs", bytes);
  const ecgpipe::Detections d = ecgpipe::read_detections(path);
  EXPECT_TRUE(d.from_annotations);
  EXPECT_EQ(d.r_peaks, (V{100, 300, 500, 700}));
  EXPECT_EQ(d.classes, (std::vector<char>{'N', 'V', 'A', 'N'}));
  EXPECT_EQ(d.afib, (std::vector<char>{0, 1, 1, 0}));
  EXPECT_TRUE(d.scores.empty());
  EXPECT_THROW(ecgpipe::read_detections(path, "score"), ecgpipe::UsageError) << "an annotation file has no columns";
  const ecgpipe::ReferenceBeats r = ecgpipe::read_reference(path);
  EXPECT_TRUE(r.has_rhythm);
  EXPECT_EQ(r.samples, d.r_peaks);
  EXPECT_EQ(r.skipped_non_beats, 3u);
  // Without rhythm changes there is no rhythm to compare: afib stays empty.
  EXPECT_TRUE(ecgpipe::read_detections(write("1.qrs", annotation_bytes({{5, 1, ""}}))).afib.empty());
  // A CSV still reads as one, whatever its detections' name, and the parse_ form is the same.
  EXPECT_EQ(ecgpipe::read_detections(write("d.csv", "r_peak,class\n100,V\n")).classes, (std::vector<char>{'V'}));
  EXPECT_EQ(ecgpipe::parse_detections(bytes, "100.xqrs").r_peaks, d.r_peaks);
  EXPECT_EQ(ecgpipe::parse_reference("sample,symbol\n7,N\n", "ref.txt").samples, (V{7}));
  // evaluate_files guesses both: the annotator's file against itself matches every beat.
  const ecgpipe::EvalReport e = ecgpipe::evaluate_files(path, path, ecgpipe::EvalOptions{360, 150});
  EXPECT_EQ(e.match.tp, 4);
  EXPECT_EQ(e.match.fp + e.match.fn, 0);
  EXPECT_TRUE(e.has_classes);
  EXPECT_EQ(ecgpipe::ec57_veb(e.ec57).tp, 1);
  EXPECT_TRUE(e.has_af) << "rhythm changes on both sides";
}

TEST_F(EvalFiles, BinaryCsvAndTextAnnotationsAreClearErrors) {
  const std::string bytes = annotation_bytes({{100, 1, ""}, {300, 5, ""}});
  const auto det = write("det.csv", bytes);
  EXPECT_EQ(testutil::input_error_of([&] { ecgpipe::read_detections(det); }).rfind(det + ":1: byte 1 is 0x04, not text", 0), 0u);
  // The plain CSV readers say the same (`ecgpipe rhythm BEATS.csv` reads with them).
  EXPECT_NE(testutil::input_error_of([&] { ecgpipe::read_detections_csv(det); }).find("not text: a binary file"),
            std::string::npos);
  EXPECT_NE(testutil::input_error_of([&] { ecgpipe::read_reference_csv(det); }).find("a WFDB annotation file?"),
            std::string::npos);
  const auto qrs = write("100.qrs", "sample,symbol\n1,N\n");
  EXPECT_NE(testutil::input_error_of([&] { ecgpipe::read_reference(qrs, ecgpipe::EvalFileFormat::annotations); })
                .find("100.qrs: byte 0: text ('sample,symbol' on line 1), not a WFDB annotation file"),
            std::string::npos);
  // A truncated annotation file under an annotator's name: the reader's own error, with its byte.
  EXPECT_NE(testutil::input_error_of([&] { ecgpipe::read_reference(write("x.atr", bytes.substr(0, 3))); })
                .find("odd size 3"),
            std::string::npos);
}

TEST_F(EvalFiles, EvaluateFilesReportsCountsPerClassAndJson) {
  const auto ref = write("ref.csv", "sample,symbol\n100,N\n300,V\n500,A\n700,N\n710,+\n");
  const auto det = write("det.csv", "sample\n101\n296\n702\n900\n");
  const ecgpipe::EvalReport r = ecgpipe::evaluate_files(ref, det, ecgpipe::EvalOptions{250, 150});
  EXPECT_EQ(r.tolerance_samples, kTol250);
  EXPECT_EQ(r.match.tp, 3);
  EXPECT_EQ(r.match.fn, 1);
  EXPECT_EQ(r.match.fp, 1);
  EXPECT_EQ(r.skipped_non_beats, 1u);
  ASSERT_EQ(r.classes.size(), 5u);
  EXPECT_EQ(r.classes[0].aami, 'N');
  EXPECT_EQ(r.classes[0].reference, 2);
  EXPECT_EQ(r.classes[0].detected, 2);
  EXPECT_EQ(r.classes[1].aami, 'S');
  EXPECT_EQ(r.classes[1].detected, 0);
  const nlohmann::json j = ecgpipe::eval_report_json(r);
  EXPECT_EQ(j["tp"], 3);
  EXPECT_EQ(j["fn"], 1);
  EXPECT_EQ(j["fp"], 1);
  EXPECT_DOUBLE_EQ(j["se"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["ppv"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["f1"].get<double>(), 0.75);
  EXPECT_TRUE(j["classes"]["F"]["se"].is_null());
  const std::string text = ecgpipe::eval_report_text(r);
  EXPECT_NE(text.find("TP 3  FN 1  FP 1"), std::string::npos) << text;
  EXPECT_NE(text.find("Se 75.00%"), std::string::npos) << text;
}

TEST_F(EvalFiles, EmptyReferenceGivesNullSensitivity) {
  const auto ref = write("ref.csv", "sample,symbol\n");
  const auto det = write("det.csv", "sample\n5\n");
  const nlohmann::json j = ecgpipe::eval_report_json(ecgpipe::evaluate_files(ref, det, ecgpipe::EvalOptions{250, 150}));
  EXPECT_TRUE(j["se"].is_null());
  EXPECT_EQ(j["fp"], 1);
}

// --- VF episodes (EC57 exclusion) and AUROC of a score.

ecgpipe::Annotation ann(std::int64_t sample, char symbol, const std::string& aux = "") {
  ecgpipe::Annotation a;
  a.sample = sample;
  a.symbol = symbol;
  a.aux = aux;
  return a;
}

TEST(VfEpisodes, OnsetOffsetAndRhythmChanges) {
  using ecgpipe::kEpisodeToEnd;
  // MIT-BIH style: '[' then "(VFL", ']' then "(N": the episode is '[' .. ']'.
  auto e = ecgpipe::vf_episodes({ann(5, 'N'), ann(100, '['), ann(110, '+', "(VFL"), ann(150, '!'), ann(200, ']'),
                                 ann(210, '+', "(N"), ann(220, ']')});  // a stray ']' outside VF: ignored
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].start, 100);
  EXPECT_EQ(e[0].end, 200);
  // A "(VF" rhythm change alone opens an episode; the next other rhythm change closes it.
  e = ecgpipe::vf_episodes({ann(50, '+', "(VF"), ann(80, '+', "(VT"), ann(90, '+', "(N")});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].start, 50);
  EXPECT_EQ(e[0].end, 80);
  // An onset never closed runs to the end; a rhythm annotation without aux changes nothing.
  e = ecgpipe::vf_episodes({ann(300, '['), ann(310, '+'), ann(400, 'N')});
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].start, 300);
  EXPECT_EQ(e[0].end, kEpisodeToEnd);
  EXPECT_TRUE(ecgpipe::vf_episodes({ann(1, 'N'), ann(2, '+', "(AFIB")}).empty());
}

// ref N50 N100 V150 N200 N350; episodes [100, 200) and [300, end).
ecgpipe::ReferenceBeats vf_reference() {
  return ecgpipe::reference_from_annotations({ann(50, 'N'), ann(100, '['), ann(100, 'N'), ann(150, 'V'), ann(200, ']'),
                                              ann(200, 'N'), ann(300, '['), ann(350, 'N')});
}

TEST(EvaluateDetections, ExcludesVfEpisodesHalfOpenAndToTheEnd) {
  const ecgpipe::ReferenceBeats ref = vf_reference();
  EXPECT_EQ(ref.samples, (V{50, 100, 150, 200, 350}));
  EXPECT_EQ(ref.skipped_non_beats, 3u);
  const V det{52, 101, 160, 205, 330, 352};
  const ecgpipe::EvalReport r = ecgpipe::evaluate_detections(ref, det, {}, ecgpipe::EvalOptions{250, 150});
  // Beats at the onset sample are inside, at the offset sample outside.
  EXPECT_EQ(r.excluded_reference_beats, 3);  // 100, 150, 350
  EXPECT_EQ(r.excluded_detections, 4);       // 101, 160, 330, 352
  EXPECT_EQ(r.match.tp, 2);
  EXPECT_EQ(r.match.fn, 0);
  EXPECT_EQ(r.match.fp, 0);
  ASSERT_EQ(r.excluded_episodes.size(), 2u);
  // 100 samples + (last event 352, +1) - 300 = 53 samples, at 250 Hz.
  EXPECT_DOUBLE_EQ(r.excluded_seconds, 100.0 / 250 + 53.0 / 250);
  EXPECT_EQ(r.classes[2].reference, 0);  // the V beat was inside the episode
  const nlohmann::json j = ecgpipe::eval_report_json(r);
  EXPECT_EQ(j["vf_exclusion"]["episodes"], 2);
  EXPECT_EQ(j["vf_exclusion"]["excluded_reference_beats"], 3);
  EXPECT_EQ(j["vf_exclusion"]["excluded_detections"], 4);
  EXPECT_TRUE(j["vf_exclusion"]["episode_samples"][1]["end"].is_null());
  EXPECT_EQ(j["vf_exclusion"]["episode_samples"][0]["end"], 200);
  const std::string text = ecgpipe::eval_report_text(r);
  EXPECT_NE(text.find("VF episodes: 2 excluded (0.6 s): 3 reference beats and 4 detections not counted"),
            std::string::npos)
      << text;
}

TEST(EvaluateDetections, DetectionJustBeforeOffsetIsExcluded) {
  // Detection 199 is inside [100, 200): the reference beat at 200 is then missed.
  const ecgpipe::EvalReport r = ecgpipe::evaluate_detections(vf_reference(), {50, 199}, {}, ecgpipe::EvalOptions{250, 150});
  EXPECT_EQ(r.excluded_detections, 1);
  EXPECT_EQ(r.match.tp, 1);
  EXPECT_EQ(r.match.fn, 1);
  EXPECT_EQ(r.match.fp, 0);
}

TEST(EvaluateDetections, NoVfExclusionComparesEverything) {
  ecgpipe::EvalOptions o{250, 150};
  o.vf_exclusion = false;
  const ecgpipe::EvalReport r = ecgpipe::evaluate_detections(vf_reference(), {52, 101, 160, 205, 330, 352}, {}, o);
  EXPECT_EQ(r.match.tp, 5);
  EXPECT_EQ(r.match.fp, 1);
  EXPECT_EQ(r.excluded_reference_beats, 0);
  EXPECT_TRUE(r.excluded_episodes.empty());
  EXPECT_NE(ecgpipe::eval_report_text(r).find("not excluded (--no-vf-exclusion)"), std::string::npos);
}

// ref N100 N200 V300 A400 F500, all detected; an unmatched detection at 2000.
ecgpipe::EvalReport scored(const std::vector<float>& scores) {
  ecgpipe::ReferenceBeats ref;
  ref.samples = {100, 200, 300, 400, 500};
  ref.symbols = {'N', 'N', 'V', 'A', 'F'};
  return ecgpipe::evaluate_detections(ref, {100, 200, 300, 400, 500, 2000}, scores, ecgpipe::EvalOptions{250, 150});
}

TEST(EvaluateDetections, AurocPerfectReversedAndTied) {
  const auto value = [](const ecgpipe::EvalReport& r, const std::string& cls) {
    for (const auto& a : r.aurocs)
      if (a.positive == cls) return a.auroc;
    ADD_FAILURE() << "no AUROC for " << cls;
    return 0.0;
  };
  // The unmatched detection's score (last) plays no part.
  const ecgpipe::EvalReport perfect = scored({0.1f, 0.2f, 0.9f, 0.8f, 0.7f, 100.0f});
  ASSERT_EQ(perfect.aurocs.size(), 5u);
  EXPECT_EQ(perfect.aurocs[0].positive, "abnormal");
  EXPECT_EQ(perfect.aurocs[0].positives, 3);
  EXPECT_EQ(perfect.aurocs[0].negatives, 2);
  EXPECT_EQ(value(perfect, "abnormal"), 1.0);
  EXPECT_EQ(value(perfect, "V"), 1.0);
  EXPECT_EQ(value(perfect, "S"), 1.0);
  EXPECT_EQ(value(perfect, "F"), 1.0);
  EXPECT_TRUE(std::isnan(value(perfect, "Q")));  // no Q beats
  const ecgpipe::EvalReport reversed = scored({0.9f, 0.8f, 0.1f, 0.2f, 0.3f, -5.0f});
  EXPECT_EQ(value(reversed, "abnormal"), 0.0);
  const ecgpipe::EvalReport tied = scored({1, 1, 1, 1, 1, 1});
  EXPECT_EQ(value(tied, "abnormal"), 0.5);
  // Mixed: V above both N (2 of 2 pairs), A between them (1 of 2), F below both (0 of 2): 3 / 6.
  const ecgpipe::EvalReport mixed = scored({0.2f, 0.4f, 0.9f, 0.3f, 0.1f, 0});
  EXPECT_EQ(value(mixed, "abnormal"), 0.5);
  EXPECT_EQ(value(mixed, "F"), 0.0);
  EXPECT_EQ(value(mixed, "S"), 0.5);
  const nlohmann::json j = ecgpipe::eval_report_json(mixed);
  EXPECT_EQ(j["auroc"]["abnormal"]["auroc"].get<double>(), 0.5);
  EXPECT_EQ(j["auroc"]["V"]["positives"], 1);
  EXPECT_TRUE(j["auroc"]["Q"]["auroc"].is_null());
  EXPECT_NE(ecgpipe::eval_report_text(mixed).find("S vs N: 0.5000 (1 vs 2 matched beats)"), std::string::npos)
      << ecgpipe::eval_report_text(mixed);
  EXPECT_THROW(scored({1, 2}), ecgpipe::InternalError);  // one score per detection
  EXPECT_TRUE(scored({}).aurocs.empty());
}

TEST(EvaluateDetections, ScoresOfExcludedDetectionsAreDropped) {
  // Detections 101 (inside VF) and 205: only 205 matches; one N, no abnormal -> NaN.
  const auto r = ecgpipe::evaluate_detections(vf_reference(), {101, 205}, {5.0f, 1.0f}, ecgpipe::EvalOptions{250, 150});
  ASSERT_FALSE(r.aurocs.empty());
  EXPECT_EQ(r.aurocs[0].negatives, 1);
  EXPECT_EQ(r.aurocs[0].positives, 0);
  EXPECT_TRUE(std::isnan(r.aurocs[0].auroc));
}

TEST_F(EvalFiles, ScoreColumnChoice) {
  const auto ref = write("ref.csv", "sample,symbol\n100,N\n200,V\n");
  const ecgpipe::EvalOptions o{250, 150};
  // Default: `score`, else `recon_error`, else none.
  auto r = ecgpipe::evaluate_files(ref, write("a.csv", "r_peak,recon_error,score\n100,9,1\n200,0,2\n"), o);
  EXPECT_EQ(r.score_column, "score");
  EXPECT_EQ(r.aurocs.at(0).auroc, 1.0);
  r = ecgpipe::evaluate_files(ref, write("b.csv", "index,r_peak,recon_error,neg_elbo\n0,100,9,1\n1,200,0,2\n"), o);
  EXPECT_EQ(r.score_column, "recon_error");
  EXPECT_EQ(r.aurocs.at(0).auroc, 0.0);
  r = ecgpipe::evaluate_files(ref, write("c.csv", "index,r_peak\n0,100\n1,200\n"), o);
  EXPECT_TRUE(r.score_column.empty());
  EXPECT_TRUE(r.aurocs.empty());
  EXPECT_NE(ecgpipe::eval_report_text(r).find("AUROC: n/a (no score column"), std::string::npos);
  EXPECT_TRUE(ecgpipe::eval_report_json(r)["auroc"].is_null());
  // Asked for by name (case-insensitive header).
  r = ecgpipe::evaluate_files(ref, write("d.csv", "r_peak,Neg_ELBO,recon_error\n100,1,9\n200,2,0\n"), o, "neg_elbo");
  EXPECT_EQ(r.aurocs.at(0).auroc, 1.0);
  EXPECT_THROW(ecgpipe::evaluate_files(ref, write("e.csv", "r_peak\n100\n"), o, "score"), ecgpipe::InputError);
  try {
    ecgpipe::evaluate_files(ref, write("f.csv", "r_peak,score\n100,1\n200,nan\n"), o);
    ADD_FAILURE() << "no error for a NaN score";
  } catch (const ecgpipe::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.csv:3: score 'nan' is not a finite number"), std::string::npos) << e.what();
  }
}

TEST_F(EvalFiles, CsvReferenceHasNoRhythmSoNoExclusion) {
  const auto ref = write("ref.csv", "sample,symbol\n100,N\n");
  const auto r = ecgpipe::evaluate_files(ref, write("d.csv", "sample\n100\n"), ecgpipe::EvalOptions{250, 150});
  EXPECT_FALSE(r.reference_has_rhythm);
  EXPECT_NE(ecgpipe::eval_report_text(r).find("a sample,symbol CSV reference has no rhythm annotations"),
            std::string::npos);
  EXPECT_FALSE(ecgpipe::eval_report_json(r)["vf_exclusion"]["reference_has_rhythm"].get<bool>());
}

// A WFDB .atr reference written by hand: N 100, '[' 150, V 160, ']' 300, N 400 (at 250 Hz).
TEST_F(EvalFiles, AtrReferenceThroughTheCli) {
  std::string atr;
  const auto word = [&](int code, unsigned value) {
    const unsigned w = (static_cast<unsigned>(code) << 10) | value;
    atr += static_cast<char>(w & 0xFF);
    atr += static_cast<char>(w >> 8);
  };
  word(1, 100);
  word(32, 50);
  word(5, 10);
  word(33, 140);
  word(1, 100);
  word(0, 0);
  const auto ref = write("ref.atr", atr);
  const auto det = write("det.csv", "r_peak,score\n100,0.5\n160,3\n400,0.25\n");
  // No ref.hea beside ref.atr: the rate is given (issue 27: without one eval refuses, no silent 250 Hz).
  auto r = testutil::run_ecgpipe("eval --reference '" + ref + "' '" + det + "' --fs 250 --json", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tp"], 2);
  EXPECT_EQ(j["fp"], 0);
  EXPECT_EQ(j["vf_exclusion"]["excluded_reference_beats"], 1);
  EXPECT_EQ(j["vf_exclusion"]["excluded_detections"], 1);
  EXPECT_DOUBLE_EQ(j["vf_exclusion"]["seconds"].get<double>(), 150.0 / 250);
  EXPECT_EQ(j["auroc"]["abnormal"]["positives"], 0);
  r = testutil::run_ecgpipe("eval --reference '" + ref + "' '" + det + "' --fs 250 --json --no-vf-exclusion", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tp"], 3);
  EXPECT_EQ(j["auroc"]["V"]["auroc"].get<double>(), 1.0);
  r = testutil::run_ecgpipe("eval --reference '" + ref + "' '" + det + "' --fs 250 --score-column nope", dir_);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("no score column 'nope'"), std::string::npos) << r.err;
  // Without --fs, the rate comes from the record's header beside the .atr.
  write("ref.hea", "ref 1 360 1000\nref.dat 212 200 11 1024 0 0 0 MLII\n");
  r = testutil::run_ecgpipe("eval --reference '" + ref + "' '" + det + "' --json", dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fs"], 360.0);
  EXPECT_EQ(j["tolerance_samples"], 54);
}

}  // namespace
