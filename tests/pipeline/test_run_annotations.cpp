// A run as WFDB annotations (src/pipeline/run_annotations.cpp), and the <record>.ecgpipe file a
// real run writes (src/pipeline/run_outputs.cpp) read back against beats.csv and rhythm.csv.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "pipeline/run_steps.hpp"

namespace {

using ecgpipe::BeatClass;
using ecgpipe::Rhythm;

// What one annotation says, in a form that prints: sample, symbol, subtype, aux.
std::string show(const ecgpipe::Annotation& a) {
  return std::to_string(a.sample) + " " + std::string(1, a.symbol) + " " + std::to_string(a.subtype) + (a.aux.empty() ? "" : " " + a.aux);
}
std::vector<std::string> show(const std::vector<ecgpipe::Annotation>& v) {
  std::vector<std::string> out;
  for (const auto& a : v) out.push_back(show(a));
  return out;
}

// A result whose beats have the given rhythms and classes, R peaks every 300 samples from 1000.
ecgpipe::RunResult result(const std::vector<BeatClass>& classes, const std::vector<Rhythm>& rhythms) {
  ecgpipe::RunResult r;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    r.beats.start.push_back(1000 + 300 * static_cast<std::int64_t>(i));
    r.beats.length.push_back(300);
  }
  r.beat_class = classes;
  r.rhythm = rhythms;
  return r;
}

TEST(RunAnnotations, BeatsRhythmChangesAndArtefactInSampleOrder) {
  const ecgpipe::RunOptions o;
  ecgpipe::RunResult r = result({BeatClass::N, BeatClass::S, BeatClass::V, BeatClass::F, BeatClass::Q, BeatClass::N, BeatClass::N},
                                {Rhythm::N, Rhythm::N, Rhythm::AFIB, Rhythm::AFIB, Rhythm::VT, Rhythm::SVTA, Rhythm::B});
  const auto peaks = ecgpipe::kept_r_peaks(o, r.beats);
  const auto at = [&](std::size_t i, std::int64_t d = 0) { return std::to_string(peaks[i] + d) + " "; };
  // One span from a beat's own sample (noise before the rhythm change before the beat there), two
  // that touch and one inside them (joined), given out of order.
  r.artefact_spans = {{peaks[5] + 10, peaks[5] + 50}, {peaks[4], peaks[4] + 7}, {peaks[5] + 50, peaks[6] + 1},
                      {peaks[5] + 20, peaks[5] + 30}};
  const std::vector<std::string> want = {
      at(0) + "+ 0 (N",  at(0) + "N 0",       at(1) + "A 0",        at(2) + "+ 0 (AFIB", at(2) + "V 0", at(3) + "F 0",
      at(4) + "~ -1",    at(4) + "+ 0 (VT",   at(4) + "Q 0",        at(4, 7) + "~ 0",    at(5) + "+ 0 (SVTA",
      at(5) + "N 0",     at(5, 10) + "~ -1",  at(6) + "+ 0 (B",     at(6) + "N 0",       at(6, 1) + "~ 0"};
  const auto got = ecgpipe::run_annotations(o, r);
  EXPECT_EQ(show(got), want);
  for (const auto& a : got) {
    EXPECT_EQ(a.channel, 0);
    EXPECT_EQ(a.num, 0);
  }
  // The codes behind the symbols: N 1, A 8, V 5, F 6, Q 13, + 28, ~ 14.
  EXPECT_EQ(got[1].code, 1);
  EXPECT_EQ(got[2].code, 8);
  EXPECT_EQ(got[4].code, 5);
  EXPECT_EQ(got[5].code, 6);
  EXPECT_EQ(got[8].code, 13);
  EXPECT_EQ(got[0].code, 28);
  EXPECT_EQ(got[6].code, 14);
}

TEST(RunAnnotations, OneBeatAndNoBeats) {
  const ecgpipe::RunOptions o;
  const auto one = ecgpipe::run_annotations(o, result({BeatClass::V}, {Rhythm::N}));
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].aux, "(N");
  EXPECT_EQ(one[1].symbol, 'V');
  EXPECT_EQ(one[0].sample, one[1].sample);
  EXPECT_TRUE(ecgpipe::run_annotations(o, result({}, {})).empty());
}

TEST(RunAnnotations, RefusesAResultThatDoesNotAddUp) {
  const ecgpipe::RunOptions o;
  EXPECT_THROW(ecgpipe::run_annotations(o, result({BeatClass::N, BeatClass::N}, {Rhythm::N})), ecgpipe::InternalError);
  ecgpipe::RunResult r = result({BeatClass::N}, {Rhythm::N});
  for (const auto& span : {std::pair<std::int64_t, std::int64_t>{50, 50}, {60, 40}, {-1, 10}}) {
    r.artefact_spans = {span};
    EXPECT_THROW(ecgpipe::run_annotations(o, r), ecgpipe::InternalError) << span.first << ".." << span.second;
  }
}

TEST(RunAnnotations, RecordNameIsTheFileNameInWfdbCharacters) {
  EXPECT_EQ(ecgpipe::wfdb_record_name("data/sample.csv"), "sample");
  EXPECT_EQ(ecgpipe::wfdb_record_name("/x/mitdb/100.hea"), "100");
  EXPECT_EQ(ecgpipe::wfdb_record_name("data/100"), "100");  // a record name without extension
  EXPECT_EQ(ecgpipe::wfdb_record_name("night 2-b.v1.edf"), "night_2_b_v1");
  EXPECT_EQ(ecgpipe::wfdb_record_name("Holter_A9.bdf"), "Holter_A9");
  EXPECT_EQ(ecgpipe::wfdb_record_name("\xC3\x84nne.csv"), "__nne");  // UTF-8: a '_' per byte
  EXPECT_EQ(ecgpipe::wfdb_record_name(""), "record");
  EXPECT_EQ(ecgpipe::wfdb_record_name("-"), "record");
  EXPECT_EQ(ecgpipe::wfdb_record_name("dir/"), "record");
}

// The name and text of each file wfdb_annotation_files gives for input `input` into `out`.
std::vector<std::pair<std::string, std::string>> files_for(const std::string& input, const std::string& out, double fs) {
  ecgpipe::RunOptions o;
  o.input = input;
  o.out_dir = out;
  o.fs = fs;
  ecgpipe::RunResult r = result({BeatClass::N}, {Rhythm::N});
  r.samples = 650000;
  return ecgpipe::wfdb_annotation_files(o, r);
}

TEST(RunAnnotations, AHeaderWithoutSignalsGivesTheRate) {
  const auto dir = testutil::fresh_dir();
  const auto files = files_for("in/night 1.csv", dir.string(), 360.0);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].first, "night_1.ecgpipe");
  EXPECT_EQ(files[1].first, "night_1.hea");
  EXPECT_EQ(files[1].second, "night_1 0 360 650000\n# ecgpipe: the rate and length for night_1.ecgpipe; no signals\n");
  const auto h = ecgpipe::parse_wfdb_header(files[1].second, "night_1.hea");
  EXPECT_EQ(h.record, "night_1");
  EXPECT_EQ(h.fs, 360.0);
  EXPECT_EQ(h.samples, 650000);
  EXPECT_TRUE(h.signals.empty());
  // Rates that are not whole: the shortest fixed-point text that reads back exactly.
  for (const double fs : {128.5, 1000.0 / 3.0, 50.0, 100000.0}) {
    const auto f = files_for("a.csv", dir.string(), fs);
    ASSERT_EQ(f.size(), 2u);
    const std::string record_line = f[1].second.substr(0, f[1].second.find('\n'));
    EXPECT_EQ(record_line.find_first_of("eE"), std::string::npos) << record_line;  // no exponent
    EXPECT_EQ(ecgpipe::parse_wfdb_header(f[1].second, "a.hea").fs, fs);
  }
}

// --out being the record's own folder: its header (with signals) must survive; a header of ours
// from an earlier run is replaced; one that is not a header at all is left alone too.
TEST(RunAnnotations, ARecordsOwnHeaderIsNeverReplaced) {
  const auto dir = testutil::fresh_dir();
  testutil::write_text(dir / "100.hea", "100 1 360 650000\n100.dat 212 200 11 1024 995 -22131 0 MLII\n");
  auto files = files_for("/db/100.hea", dir.string(), 360.0);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].first, "100.ecgpipe");
  testutil::write_text(dir / "100.hea", "100 0 250 10\n");
  EXPECT_EQ(files_for("/db/100.hea", dir.string(), 360.0).size(), 2u);
  testutil::write_text(dir / "100.hea", "not a header\n");
  EXPECT_EQ(files_for("/db/100.hea", dir.string(), 360.0).size(), 1u);
}

using testutil::csv_rows;
std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// The bundled sample through the real executable: sample.ecgpipe has one beat annotation per
// beats.csv row (same sample, the class's symbol) and a '+' per rhythm.csv episode.
TEST(RunAnnotationsCli, SampleRunsAnnotationsMatchBeatsAndRhythmCsv) {
  const auto dir = testutil::fresh_dir();
  const auto out = dir / "o";
  const auto run = testutil::run_ecgpipe(
      "-q run '" ECGPIPE_SOURCE_DIR "/data/sample.csv' --device cpu --epochs 1 --out '" + out.string() + "'", dir);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(testutil::read_text(out / "sample.hea").substr(0, 21), "sample 0 250 150000\n#");  // 10 min at 250 Hz
  const auto annotations = ecgpipe::read_wfdb_annotations((out / "sample.ecgpipe").string());
  std::vector<ecgpipe::Annotation> beats, rhythm, noise;
  for (const auto& a : annotations) (a.code == 28 ? rhythm : a.code == 14 ? noise : beats).push_back(a);
  // Artefact: a '~' -1 at each span's start and a '~' 0 at its end, as report.json's quality lists them.
  const auto report = nlohmann::json::parse(testutil::read_text(out / "report.json"));
  const auto& spans = report["quality"]["artefact"];
  ASSERT_EQ(noise.size(), 2 * spans.size());
  for (std::size_t k = 0; k < spans.size(); ++k) {
    EXPECT_EQ(noise[2 * k].subtype, -1);
    EXPECT_EQ(noise[2 * k + 1].subtype, 0);
    EXPECT_EQ(noise[2 * k].sample, std::llround(spans[k]["start_s"].get<double>() * 250.0));
  }

  const auto rows = csv_rows(testutil::read_text(out / "beats.csv"));
  ASSERT_GT(rows.size(), 500u);  // 10 minutes of ECG
  const std::size_t r_peak = column(rows[0], "r_peak"), cls = column(rows[0], "class");
  ASSERT_EQ(beats.size(), rows.size() - 1);
  const std::string symbol_of = "NAVFQ";  // of N S V F Q
  const std::string classes = "NSVFQ";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& b = beats[i - 1];
    EXPECT_EQ(std::to_string(b.sample), rows[i][r_peak]) << "beat " << i - 1;
    ASSERT_EQ(rows[i][cls].size(), 1u);
    EXPECT_EQ(b.symbol, symbol_of[classes.find(rows[i][cls][0])]) << "beat " << i - 1 << " class " << rows[i][cls];
  }

  const auto episodes = csv_rows(testutil::read_text(out / "rhythm.csv"));
  ASSERT_GE(episodes.size(), 2u);  // the header and at least one episode
  const std::size_t start = column(episodes[0], "start_sample"), name = column(episodes[0], "rhythm");
  ASSERT_EQ(rhythm.size(), episodes.size() - 1);
  for (std::size_t i = 1; i < episodes.size(); ++i) {
    EXPECT_EQ(std::to_string(rhythm[i - 1].sample), episodes[i][start]) << "episode " << i;
    EXPECT_EQ(rhythm[i - 1].aux, "(" + episodes[i][name]) << "episode " << i;
  }
}

}  // namespace
