// Which files eval compares and at what rate (issue 27): annotator names, the header beside the
// files, directories paired by record name and the pairs file.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/eval_records.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using ecgpipe::EvalFileFormat;
using testutil::write_text;

// An annotation file's bytes: one N beat at sample 10, then the end-of-file word.
const std::string kAtr("\x0A\x04\x00\x00", 4);

std::vector<std::string> records_of(const ecgpipe::RecordPairs& p) {
  std::vector<std::string> names;
  for (const auto& r : p.pairs) names.push_back(r.record);
  return names;
}

TEST(AnnotatorFile, RecordDotNameWithItsFormat) {
  const auto a = ecgpipe::annotator_file("data/100", "atr");
  EXPECT_EQ(a.path, "data/100.atr");
  EXPECT_EQ(a.format, EvalFileFormat::annotations);
  EXPECT_EQ(ecgpipe::annotator_file("data/100", "xqrs").path, "data/100.xqrs");
  EXPECT_EQ(ecgpipe::annotator_file("r", "CSV").format, EvalFileFormat::csv);
  EXPECT_EQ(ecgpipe::annotator_file("r", "txt").format, EvalFileFormat::csv);
  EXPECT_EQ(ecgpipe::annotator_file("my record", "ecgpipe").path, "my record.ecgpipe");
  for (const std::string& bad : std::vector<std::string>{"", ".atr", "a/b", std::string("a\0b", 3)})
    EXPECT_THROW(ecgpipe::annotator_file("r", bad), ecgpipe::UsageError) << bad;
}

TEST(HeaderBeside, LastExtensionReplaced) {
  EXPECT_EQ(ecgpipe::header_beside("data/100.atr"), "data/100.hea");
  EXPECT_EQ(ecgpipe::header_beside("data/100"), "data/100.hea");
  EXPECT_EQ(ecgpipe::header_beside("data/100.v2.xqrs"), "data/100.v2.hea");
  EXPECT_EQ(ecgpipe::header_beside("out/100/beats.csv"), "out/100/beats.hea");
}

TEST(EvalRate, FromTheHeaderBesideEitherFile) {
  const auto dir = testutil::fresh_dir();
  const std::string rec = (dir / "100").string();
  write_text(dir / "100.hea", "100 1 360 650000\n100.dat 212 200 11 1024 0 0 0 MLII\n");
  auto r = ecgpipe::eval_rate(rec + ".atr", true, rec + ".xqrs", true, std::nullopt);
  EXPECT_EQ(r.fs, 360.0);
  EXPECT_EQ(r.source, rec + ".hea");
  EXPECT_FALSE(r.defaulted);
  // Beside the detections only (a CSV reference without a record).
  r = ecgpipe::eval_rate((dir / "ref.csv").string(), false, rec + ".qrs", true, std::nullopt);
  EXPECT_EQ(r.fs, 360.0);
  // --fs agreeing with the header is taken; contradicting it is refused.
  EXPECT_EQ(ecgpipe::eval_rate(rec + ".atr", true, "d.csv", false, 360.0).source, "--fs");
  try {
    ecgpipe::eval_rate(rec + ".atr", true, "d.csv", false, 250.0);
    ADD_FAILURE() << "no UsageError";
  } catch (const ecgpipe::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--fs 250 contradicts the 360 Hz of " + rec + ".hea");
  }
  // Two headers that disagree: the files are not of one record.
  write_text(dir / "other.hea", "other 1 250\nother.dat 16 200 16 0 0 0 0 x\n");
  EXPECT_THROW(ecgpipe::eval_rate(rec + ".atr", true, (dir / "other.qrs").string(), true, std::nullopt),
               ecgpipe::InputError);
  // A header WFDB cannot read is named.
  write_text(dir / "bad.hea", "bad 1 1e300\nbad.dat 16 200 16 0 0 0 0 x\n");
  EXPECT_NE(testutil::input_error_of([&] {
              ecgpipe::eval_rate((dir / "bad.atr").string(), true, "d.csv", false, std::nullopt);
            }).find("bad.hea"),
            std::string::npos);
}

TEST(EvalRate, NoHeaderRefusesAnnotationsAndDefaultsCsvAloud) {
  const auto dir = testutil::fresh_dir();
  const std::string atr = (dir / "x.atr").string();
  try {
    ecgpipe::eval_rate(atr, true, "det.csv", false, std::nullopt);
    ADD_FAILURE() << "no UsageError";
  } catch (const ecgpipe::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "no " + (dir / "x.hea").string() + " beside " + atr + ": pass --fs (the rate of its record)");
  }
  EXPECT_THROW(ecgpipe::eval_rate("ref.csv", false, (dir / "x.qrs").string(), true, std::nullopt), ecgpipe::UsageError);
  EXPECT_EQ(ecgpipe::eval_rate(atr, true, "det.csv", false, 500.0).fs, 500.0);
  const auto r = ecgpipe::eval_rate((dir / "ref.csv").string(), false, (dir / "det.csv").string(), false, std::nullopt);
  EXPECT_EQ(r.fs, ecgpipe::kEvalDefaultFs);
  EXPECT_TRUE(r.defaulted) << "the caller says so on stderr";
}

TEST(PairDirectories, ByRecordNameWithTheMissingListed) {
  const auto dir = testutil::fresh_dir();
  const fs::path ref = dir / "ref", det = dir / "det";
  fs::create_directories(ref);
  fs::create_directories(det);
  // Hostile names: a space, UTF-8, a dot inside; a file of another annotator; a header.
  for (const std::string rec : {"100", "my rec", "\xC3\xA9l\xC3\xA8ve", "1.2", "only-ref"}) write_text(ref / (rec + ".atr"), kAtr);
  write_text(ref / "100.qrs", kAtr);
  write_text(ref / "100.hea", "100 1 360\n");
  write_text(ref / ".atr", kAtr);  // no record name: not a record
  // Detections as a batch's --out: DIR/REC/beats.csv; a folder without one (a failed record) and
  // the batch's own files are not records.
  for (const std::string rec : {"100", "my rec", "\xC3\xA9l\xC3\xA8ve", "1.2", "only-det"}) {
    fs::create_directories(det / rec);
    write_text(det / rec / "beats.csv", "index,r_peak\n0,10\n");
  }
  fs::create_directories(det / "failed");
  write_text(det / "summary.csv", "record\n");
  auto p = ecgpipe::pair_directories(ref.string(), "atr", det.string(), "");
  EXPECT_EQ(records_of(p), (std::vector<std::string>{"1.2", "100", "my rec", "\xC3\xA9l\xC3\xA8ve"}));
  ASSERT_EQ(p.pairs.size(), 4u);
  EXPECT_EQ(p.pairs[1].reference.path, (ref / "100.atr").string());
  EXPECT_EQ(p.pairs[1].reference.format, EvalFileFormat::annotations);
  EXPECT_EQ(p.pairs[1].detections.path, (det / "100" / "beats.csv").string());
  EXPECT_EQ(p.pairs[1].detections.format, EvalFileFormat::csv);
  ASSERT_EQ(p.unpaired.size(), 2u);
  EXPECT_EQ(p.unpaired[0].record, "only-det");
  EXPECT_EQ(p.unpaired[0].missing, "reference");
  EXPECT_EQ(p.unpaired[0].expected, (ref / "only-det.atr").string());
  EXPECT_EQ(p.unpaired[1].record, "only-ref");
  EXPECT_EQ(p.unpaired[1].missing, "detections");
  EXPECT_EQ(p.unpaired[1].expected, (det / "only-ref" / "beats.csv").string());

  // Both sides by annotator (bxb -a atr qrs), in one directory.
  p = ecgpipe::pair_directories(ref.string(), "atr", ref.string(), "qrs");
  EXPECT_EQ(records_of(p), (std::vector<std::string>{"100"}));
  EXPECT_EQ(p.pairs[0].detections.format, EvalFileFormat::annotations);
  EXPECT_EQ(p.unpaired.size(), 4u) << "1.2, my rec, élève and only-ref have no .qrs";
  EXPECT_EQ(p.unpaired[0].expected, (ref / "1.2.qrs").string() + " or " + (ref / "1.2" / "1.2.qrs").string());

  // A batch's folders hold RECORD.ecgpipe beside beats.csv: DIR/REC/REC.ecgpipe is found too.
  write_text(det / "100" / "100.ecgpipe", kAtr);
  write_text(det / "my rec" / "other.ecgpipe", kAtr);  // not named as its folder: not a record
  write_text(det / "1.2.ecgpipe", kAtr);
  p = ecgpipe::pair_directories(ref.string(), "atr", det.string(), "ecgpipe");
  EXPECT_EQ(records_of(p), (std::vector<std::string>{"1.2", "100"}));
  EXPECT_EQ(p.pairs[1].detections.path, (det / "100" / "100.ecgpipe").string());
  EXPECT_EQ(p.pairs[0].detections.path, (det / "1.2.ecgpipe").string());
  write_text(det / "100.ecgpipe", kAtr);
  EXPECT_NE(testutil::input_error_of([&] { ecgpipe::pair_directories(ref.string(), "atr", det.string(), "ecgpipe"); })
                .find("record 100 has two detections files"),
            std::string::npos);
}

TEST(PairDirectories, EmptyMissingAndDirectoryEntries) {
  const auto dir = testutil::fresh_dir();
  fs::create_directories(dir / "empty");
  const auto p = ecgpipe::pair_directories((dir / "empty").string(), "atr", (dir / "empty").string(), "");
  EXPECT_TRUE(p.pairs.empty());
  EXPECT_TRUE(p.unpaired.empty()) << "no records: the caller refuses to compare nothing";
  EXPECT_EQ(testutil::input_error_of([&] {
              ecgpipe::pair_directories((dir / "none").string(), "atr", (dir / "empty").string(), "");
            }),
            "cannot list the directory " + (dir / "none").string());
  write_text(dir / "file", "x");
  EXPECT_THROW(ecgpipe::pair_directories((dir / "empty").string(), "atr", (dir / "file").string(), ""),
               ecgpipe::InputError);
  // A record name that is a directory: refused by name, not read or skipped in silence.
  fs::create_directories(dir / "ref" / "103.atr");
  EXPECT_EQ(testutil::input_error_of([&] {
              ecgpipe::pair_directories((dir / "ref").string(), "atr", (dir / "empty").string(), "");
            }),
            (dir / "ref" / "103.atr").string() + " is a directory, not an annotation file of record 103");
  EXPECT_THROW(ecgpipe::pair_directories((dir / "empty").string(), "a/b", (dir / "empty").string(), ""),
               ecgpipe::UsageError);
}

TEST(RecordPairs, LinesRelativeToTheFile) {
  const std::string text =
      "# reference,detections\n"
      "reference,detections\n"
      "\n"
      "wfdb/100.atr , out/100/beats.csv\n"
      "  /abs/my rec.atr,/abs/my rec.qrs  \r\n";
  const auto p = ecgpipe::parse_record_pairs(text, "lists/pairs.txt");
  ASSERT_EQ(p.pairs.size(), 2u);
  EXPECT_EQ(p.pairs[0].record, "wfdb/100");
  EXPECT_EQ(p.pairs[0].reference.path, "lists/wfdb/100.atr");
  EXPECT_EQ(p.pairs[0].detections.path, "lists/out/100/beats.csv");
  EXPECT_EQ(p.pairs[0].reference.format, EvalFileFormat::guess);
  EXPECT_EQ(p.pairs[1].record, "/abs/my rec");
  EXPECT_EQ(p.pairs[1].detections.path, "/abs/my rec.qrs");
  EXPECT_EQ(ecgpipe::parse_record_pairs("a.atr,b.csv\n", "pairs.txt").pairs[0].reference.path, "a.atr");
  EXPECT_TRUE(ecgpipe::parse_record_pairs("", "p.txt").pairs.empty());
}

TEST(RecordPairs, BadLinesNameTheLine) {
  const auto message = [](const std::string& text) {
    return testutil::input_error_of([&] { ecgpipe::parse_record_pairs(text, "p.txt"); });
  };
  EXPECT_EQ(message("a.atr\n"), "p.txt:1: 'a.atr': expected reference,detections (two paths)");
  EXPECT_EQ(message("a.atr,b.csv,c\n"), "p.txt:1: 'a.atr,b.csv,c': expected reference,detections (two paths)");
  EXPECT_EQ(message("a.atr, \n"), "p.txt:1: 'a.atr,': expected reference,detections (two paths)");
  EXPECT_EQ(message("a.atr,b.csv\n#\na.atr,c.csv\n"), "p.txt:3: record a again (line 1): each record once");
  EXPECT_EQ(message("x/a.atr,b.csv\nx/a.qrs,b.csv\n"), "p.txt:2: record x/a again (line 1): each record once");
  EXPECT_NE(message(std::string("a.atr,b\0.csv\n", 13)).find("p.txt: byte 7 is not text"), std::string::npos);
}

TEST(RecordPairs, MissingFilesAreUnpaired) {
  const auto dir = testutil::fresh_dir();
  write_text(dir / "100.atr", kAtr);
  write_text(dir / "100.csv", "r_peak\n10\n");
  write_text(dir / "103.atr", kAtr);
  write_text(dir / "pairs.txt", "100.atr,100.csv\n101.atr,101.csv\n103.atr,103.csv\n");
  const auto p = ecgpipe::read_record_pairs((dir / "pairs.txt").string());
  EXPECT_EQ(records_of(p), (std::vector<std::string>{"100"}));
  ASSERT_EQ(p.unpaired.size(), 2u);
  EXPECT_EQ(p.unpaired[0].record, "101");
  EXPECT_EQ(p.unpaired[0].missing, "reference");
  EXPECT_EQ(p.unpaired[0].expected, (dir / "101.atr").string());
  EXPECT_EQ(p.unpaired[1].record, "103");
  EXPECT_EQ(p.unpaired[1].missing, "detections");
  EXPECT_EQ(p.unpaired[1].expected, (dir / "103.csv").string());
  EXPECT_THROW(ecgpipe::read_record_pairs((dir / "none.txt").string()), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::read_record_pairs(dir.string()), ecgpipe::InputError) << "a directory";
}

}  // namespace
