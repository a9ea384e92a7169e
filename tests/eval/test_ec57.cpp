// EC57 beat-classification statistics (bxb -S rules) on hand-made confusion cases (issue 10).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "eval/ec57_json.hpp"  // internal: ec57_json
#include "ecgpipe/eval/eval_json.hpp"  // internal: eval_report_json
#include "ecgpipe/eval/ec57.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/evaluate.hpp"

namespace {

using ecgpipe::Ec57Matrix;
using ecgpipe::ec57_compare;
using V = std::vector<std::int64_t>;
using C = std::vector<char>;

constexpr std::int64_t kTol = 54;  // 150 ms at 360 Hz

// Beats 1 s apart at 360 Hz; detections 3 samples late (well inside the window).
V beats_at(std::size_t n, std::int64_t offset = 0) {
  V v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(360 * static_cast<std::int64_t>(i + 1) + offset);
  return v;
}

TEST(Ec57, PerfectClassificationIsDiagonal) {
  const C ref{'N', 'A', 'V', 'F', 'Q', 'L'};
  const C det{'N', 'S', 'V', 'F', 'Q', 'N'};
  const Ec57Matrix m = ec57_compare(beats_at(6), ref, beats_at(6, 3), det, kTol);
  EXPECT_EQ(m.at('N', 'n'), 2);  // N and L are both class N
  EXPECT_EQ(m.at('S', 's'), 1);
  EXPECT_EQ(m.at('V', 'v'), 1);
  EXPECT_EQ(m.at('F', 'f'), 1);
  EXPECT_EQ(m.at('Q', 'q'), 1);
  const auto v = ecgpipe::ec57_veb(m), s = ecgpipe::ec57_sveb(m), q = ecgpipe::ec57_qrs(m);
  EXPECT_EQ(v.tp, 1);
  EXPECT_EQ(v.fn, 0);
  EXPECT_EQ(v.fp, 0);
  EXPECT_EQ(v.se(), 1.0);
  EXPECT_EQ(v.ppv(), 1.0);
  EXPECT_EQ(s.se(), 1.0);
  EXPECT_EQ(s.ppv(), 1.0);
  EXPECT_EQ(q.tp, 6);
  EXPECT_EQ(q.fn, 0);
  EXPECT_EQ(q.fp, 0);
}

// bxb: VFP = Nv + Sv + Ov; a reference F labelled V is not a VEB false positive (nor a TP).
TEST(Ec57, FusionLabelledVIsNotAVebFalsePositive) {
  const C ref{'V', 'F', 'F', 'N'};
  const C det{'V', 'V', 'V', 'N'};
  const Ec57Matrix m = ec57_compare(beats_at(4), ref, beats_at(4), det, kTol);
  EXPECT_EQ(m.at('F', 'v'), 2);
  const auto v = ecgpipe::ec57_veb(m);
  EXPECT_EQ(v.tp, 1);
  EXPECT_EQ(v.fp, 0);
  EXPECT_EQ(v.ppv(), 1.0);
  // An N labelled V is one.
  const Ec57Matrix m2 = ec57_compare(beats_at(2), {'V', 'N'}, beats_at(2), {'V', 'V'}, kTol);
  EXPECT_EQ(ecgpipe::ec57_veb(m2).fp, 1);
  EXPECT_EQ(ecgpipe::ec57_veb(m2).ppv(), 0.5);
}

TEST(Ec57, SupraventricularLabelledNormalIsASvebFalseNegative) {
  const C ref{'A', 'A', 'a', 'J', 'N'};
  const C det{'N', 'S', 'N', 'S', 'S'};
  const Ec57Matrix m = ec57_compare(beats_at(5), ref, beats_at(5), det, kTol);
  EXPECT_EQ(m.at('S', 'n'), 2);
  EXPECT_EQ(m.at('S', 's'), 2);
  EXPECT_EQ(m.at('N', 's'), 1);
  const auto s = ecgpipe::ec57_sveb(m);
  EXPECT_EQ(s.tp, 2);
  EXPECT_EQ(s.fn, 2);
  EXPECT_EQ(s.fp, 1);
  EXPECT_EQ(s.se(), 0.5);
  EXPECT_DOUBLE_EQ(s.ppv(), 2.0 / 3.0);
  // S labelled N touches neither VEB figure.
  const auto v = ecgpipe::ec57_veb(m);
  EXPECT_EQ(v.tp + v.fn + v.fp, 0);
  EXPECT_TRUE(std::isnan(v.se()));
  EXPECT_TRUE(std::isnan(v.ppv()));
}

// A missed V counts in Vo (VEB FN, QRS FN); an extra detection labelled V in Ov (VEB FP, QRS FP).
TEST(Ec57, UnmatchedBeatsGoToTheNoneRowAndColumn) {
  const V ref{360, 720, 1080};
  const C ref_sym{'N', 'V', 'A'};
  const V det{362, 1500, 1800};  // 720 and 1080 missed; 1500 and 1800 extra
  const C det_cls{'N', 'V', 'S'};
  const Ec57Matrix m = ec57_compare(ref, ref_sym, det, det_cls, kTol);
  EXPECT_EQ(m.at('N', 'n'), 1);
  EXPECT_EQ(m.at('V', 'o'), 1);
  EXPECT_EQ(m.at('S', 'o'), 1);
  EXPECT_EQ(m.at('O', 'v'), 1);
  EXPECT_EQ(m.at('O', 's'), 1);
  const auto v = ecgpipe::ec57_veb(m), s = ecgpipe::ec57_sveb(m), q = ecgpipe::ec57_qrs(m);
  EXPECT_EQ(v.tp, 0);
  EXPECT_EQ(v.fn, 1);
  EXPECT_EQ(v.fp, 1);
  EXPECT_EQ(s.fn, 1);
  EXPECT_EQ(s.fp, 1);
  EXPECT_EQ(q.tp, 1);
  EXPECT_EQ(q.fn, 2);
  EXPECT_EQ(q.fp, 2);
}

// Q (unclassifiable; paced / and f are Q too): Qv and Qs are not false positives; a V or S
// labelled Q is a false negative.
TEST(Ec57, QHandling) {
  const C ref{'Q', '/', 'f', 'V', 'A'};
  const C det{'V', 'S', 'Q', 'Q', 'Q'};
  const Ec57Matrix m = ec57_compare(beats_at(5), ref, beats_at(5), det, kTol);
  EXPECT_EQ(m.at('Q', 'v'), 1);
  EXPECT_EQ(m.at('Q', 's'), 1);
  EXPECT_EQ(m.at('Q', 'q'), 1);
  EXPECT_EQ(m.at('V', 'q'), 1);
  EXPECT_EQ(m.at('S', 'q'), 1);
  const auto v = ecgpipe::ec57_veb(m), s = ecgpipe::ec57_sveb(m);
  EXPECT_EQ(v.fp, 0);
  EXPECT_EQ(v.fn, 1);
  EXPECT_EQ(s.fp, 0);
  EXPECT_EQ(s.fn, 1);
  EXPECT_EQ(ecgpipe::ec57_qrs(m).tp, 5);
}

TEST(Ec57, EmptyInputsGiveZerosAndUndefinedRatios) {
  const Ec57Matrix m = ec57_compare({}, {}, {}, {}, kTol);
  EXPECT_EQ(m, Ec57Matrix{});
  EXPECT_TRUE(std::isnan(ecgpipe::ec57_veb(m).se()));
  EXPECT_TRUE(std::isnan(ecgpipe::ec57_sveb(m).ppv()));
  const auto j = ecgpipe::ec57_json(m);
  EXPECT_TRUE(j["veb"]["se"].is_null());
  EXPECT_EQ(j["matrix"]["Nn"], 0);
  EXPECT_FALSE(j["matrix"].contains("Oo"));
  EXPECT_EQ(j["matrix"].size(), 35u);
  EXPECT_NE(ecgpipe::ec57_text(m).find("VEB sensitivity:      - (0/0)"), std::string::npos);
  // Only detections: all in the O row.
  const Ec57Matrix d = ec57_compare({}, {}, {100, 900}, {'N', 'V'}, kTol);
  EXPECT_EQ(d.at('O', 'n'), 1);
  EXPECT_EQ(d.at('O', 'v'), 1);
  EXPECT_EQ(ecgpipe::ec57_veb(d).fp, 1);
}

TEST(Ec57, GrossIsTheSumOfTheRecordsCounts) {
  const Ec57Matrix a = ec57_compare(beats_at(2), {'V', 'N'}, beats_at(2), {'V', 'V'}, kTol);  // VEB 1/1, FP 1
  const Ec57Matrix b = ec57_compare(beats_at(3), {'V', 'V', 'N'}, beats_at(3), {'N', 'V', 'N'}, kTol);
  Ec57Matrix g;
  g += a;
  g += b;
  const auto v = ecgpipe::ec57_veb(g);
  EXPECT_EQ(v.tp, 2);
  EXPECT_EQ(v.fn, 1);
  EXPECT_EQ(v.fp, 1);
  EXPECT_DOUBLE_EQ(v.se(), 2.0 / 3.0);  // gross, not the mean of 1.0 and 0.5
  EXPECT_EQ(g.at('N', 'v'), 1);
  EXPECT_EQ(g.at('V', 'n'), 1);
}

TEST(Ec57, TextAndJsonCarryTheTableAndTheStatistics) {
  const Ec57Matrix m = ec57_compare(beats_at(4), {'N', 'V', 'F', 'A'}, beats_at(4), {'N', 'V', 'V', 'N'}, kTol);
  const std::string t = ecgpipe::ec57_text(m);
  EXPECT_NE(t.find(" F |      0      0      1      0      0      0\n"), std::string::npos) << t;
  EXPECT_NE(t.find("VEB positive predictivity: 100.00% (1/1)"), std::string::npos) << t;
  EXPECT_NE(t.find("SVEB sensitivity:   0.00% (0/1)"), std::string::npos) << t;
  const auto j = ecgpipe::ec57_json(m);
  EXPECT_EQ(j["matrix"]["Fv"], 1);
  EXPECT_EQ(j["matrix"]["Sn"], 1);
  EXPECT_EQ(j["veb"]["tp"], 1);
  EXPECT_EQ(j["veb"]["ppv"], 1.0);
  EXPECT_EQ(j["sveb"]["se"], 0.0);
  EXPECT_TRUE(j["sveb"]["ppv"].is_null());
}

TEST(Ec57, RejectsNonBeatLabelsAndSizeMismatch) {
  EXPECT_THROW(ec57_compare(beats_at(1), {'N'}, beats_at(1), {'+'}, kTol), ecgpipe::InternalError);
  EXPECT_THROW(ec57_compare(beats_at(1), {'N'}, beats_at(2), {'N'}, kTol), ecgpipe::InternalError);
  EXPECT_THROW(ecgpipe::ec57_index('x'), ecgpipe::InternalError);
}

// --- eval: the class column of the detections.

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = (testutil::fresh_dir() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(Ec57Eval, ClassColumnGivesTheMatrixInTextAndJson) {
  const auto dir = testutil::fresh_dir();
  const auto ref = (dir / "ref.csv").string(), det = (dir / "det.csv").string();
  std::ofstream(ref) << "sample,symbol\n100,N\n300,V\n500,F\n700,A\n900,N\n";
  std::ofstream(det) << "index,r_peak,score,class\n0,102,0.1,N\n1,301,0.9,V\n2,499,0.5,V\n3,702,0.2,N\n4,1500,0.3,V\n";
  ecgpipe::EvalOptions o;
  o.fs = 360;
  const ecgpipe::EvalReport r = ecgpipe::evaluate_files(ref, det, o);
  ASSERT_TRUE(r.has_classes);
  EXPECT_EQ(r.ec57.at('N', 'n'), 1);
  EXPECT_EQ(r.ec57.at('V', 'v'), 1);
  EXPECT_EQ(r.ec57.at('F', 'v'), 1);
  EXPECT_EQ(r.ec57.at('S', 'n'), 1);
  EXPECT_EQ(r.ec57.at('N', 'o'), 1);  // 900 missed
  EXPECT_EQ(r.ec57.at('O', 'v'), 1);  // 1500 extra
  const auto j = ecgpipe::eval_report_json(r);
  EXPECT_EQ(j["ec57"]["veb"]["tp"], 1);
  EXPECT_EQ(j["ec57"]["veb"]["fp"], 1);  // Ov; Fv is not one
  EXPECT_EQ(j["ec57"]["sveb"]["fn"], 1);
  EXPECT_EQ(j["score_column"], "score");  // the score is still read beside the class
  EXPECT_NE(ecgpipe::eval_report_text(r).find("VEB positive predictivity:  50.00% (1/2)"), std::string::npos)
      << ecgpipe::eval_report_text(r);
}

TEST(Ec57Eval, NoClassColumnNoMatrix) {
  const auto ref = write_file("ref.csv", "sample,symbol\n100,N\n");
  const auto det = write_file("det.csv", "r_peak\n100\n");
  const ecgpipe::EvalReport r = ecgpipe::evaluate_files(ref, det, ecgpipe::EvalOptions{});
  EXPECT_FALSE(r.has_classes);
  EXPECT_TRUE(ecgpipe::eval_report_json(r)["ec57"].is_null());
  EXPECT_NE(ecgpipe::eval_report_text(r).find("beat classes: n/a"), std::string::npos);
}

TEST(Ec57Eval, BadClassIsAnInputErrorWithTheLine) {
  const auto det = write_file("det.csv", "r_peak,class\n100,N\n200,VV\n");
  try {
    ecgpipe::read_detections_with_scores(det);
    FAIL() << "no error";
  } catch (const ecgpipe::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("det.csv:3: class 'VV'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ecgpipe::read_detections_with_scores(write_file("d2.csv", "r_peak,class\n100,+\n")), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_detections_with_scores(write_file("d3.csv", "r_peak,class\n100\n")), ecgpipe::InputError);
  EXPECT_EQ(ecgpipe::read_detections_with_scores(write_file("d4.csv", "r_peak,class\n100, A \n")).classes, C{'A'});
}

// Detections inside a reference VF episode are not counted, and the classes stay aligned with the
// kept detections.
TEST(Ec57Eval, VfEpisodeDetectionsAreDroppedWithTheirClasses) {
  ecgpipe::ReferenceBeats ref;
  ref.samples = {100, 2000};
  ref.symbols = {'N', 'V'};
  ref.has_rhythm = true;
  ref.vf_episodes = {{500, 1500}};
  ecgpipe::EvalOptions o;
  o.fs = 360;
  const auto r = ecgpipe::evaluate_detections(ref, {100, 800, 1200, 2001}, {}, o, {'N', 'V', 'V', 'V'});
  EXPECT_EQ(r.excluded_detections, 2);
  EXPECT_EQ(r.ec57.at('N', 'n'), 1);
  EXPECT_EQ(r.ec57.at('V', 'v'), 1);
  EXPECT_EQ(r.ec57.at('O', 'v'), 0);
  EXPECT_THROW(ecgpipe::evaluate_detections(ref, {100}, {}, o, {'N', 'V'}), ecgpipe::InternalError);
}

}  // namespace
