// `ecgpipe eval` as a user of WFDB's bxb / sumstats runs it (issue 27), through the executable:
// any annotator's file, -r/-a/-t, the rate from the record's header (and the refusal without one),
// clear errors for a binary CSV and a text annotation file, and gross statistics over many
// records with the missing ones refused or skipped. Annotation files are written by hand here
// (16-bit words: code << 10 | interval), not by ecgpipe's writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ecgpipe/io/wfdb_annotation_write.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using testutil::fresh_dir;
using testutil::run_ecgpipe;
using testutil::write_text;
using Tokens = std::vector<std::string>;

constexpr int kUsage = 2, kInput = 3;

using testutil::q;

// An MIT annotation file of beats (sample, WFDB code: 1 N, 5 V, 8 A), with the end-of-file word.
std::string annotations(const std::vector<std::pair<std::int64_t, int>>& beats) {
  testutil::Bytes b;
  std::int64_t last = 0;
  for (const auto& [sample, code] : beats) {
    testutil::put_word(b, code, static_cast<unsigned>(sample - last));
    last = sample;
  }
  testutil::put_word(b, 0, 0);
  return std::string(b.begin(), b.end());
}

// A WFDB record name has no spaces (the header's first field); the file's name may.
void write_header(const fs::path& path, std::string record, double fs) {
  for (char& c : record)
    if (c == ' ') c = '_';
  std::ostringstream s;
  s << record << " 1 " << fs << " 7200\n" << record << ".dat 16 200 16 0 0 0 0 MLII\n";
  write_text(path, s.str());
}

// Record 100 at 360 Hz: 10 beats (V 5th), reference 100.atr; 100.xqrs has them 50 samples late:
// 139 ms at 360 Hz, inside EC57's 150 ms, but beyond the 37 samples of 150 ms at 250 Hz.
fs::path record_100(const fs::path& dir, bool with_header = true) {
  std::vector<std::pair<std::int64_t, int>> ref, det;
  for (int k = 0; k < 10; ++k) {
    ref.push_back({100 + 300 * k, k == 4 ? 5 : 1});
    det.push_back({150 + 300 * k, k == 4 ? 5 : 1});
  }
  write_text(dir / "100.atr", annotations(ref));
  write_text(dir / "100.xqrs", annotations(det));
  if (with_header) write_header(dir / "100.hea", "100", 360);
  return dir / "100";
}

void expect_one_line(const testutil::Result& r, int code, const std::string& needle) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_EQ(testutil::count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
}

Tokens tokens_of_line(const std::string& text, const std::string& first) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(first + " ", 0) != 0) continue;
    std::istringstream words(line.substr(first.size()));
    Tokens t{first};
    for (std::string w; words >> w;) t.push_back(w);
    return t;
  }
  ADD_FAILURE() << "no line starting with " << first << " in\n" << text;
  return {};
}

TEST(EvalCli, AnnotatorNamesFindRecDotNameAtTheHeadersRate) {
  const auto dir = fresh_dir();
  const fs::path rec = record_100(dir);
  for (const std::string& args : {"-r " + q(rec) + " -t xqrs", "--record " + q(rec) + " --annotator atr --test-annotator xqrs",
                                   "-r " + q(rec.string() + ".hea") + " -t xqrs",
                                   "--reference " + q(rec.string() + ".atr") + " " + q(rec.string() + ".xqrs")}) {
    const auto r = run_ecgpipe("eval " + args + " --json", dir);
    ASSERT_EQ(r.code, 0) << args << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["fs"], 360.0) << args;
    EXPECT_EQ(j["tolerance_samples"], 54) << args;
    EXPECT_EQ(j["tp"], 10) << args;
    EXPECT_EQ(j["ec57"]["veb"]["tp"], 1) << "the annotator's symbols are its classes";
    EXPECT_NE(r.err.find("eval: 360 Hz (from " + rec.string() + ".hea)"), std::string::npos) << r.err;
  }
  // The reference annotator by name, the detections a CSV.
  write_text(dir / "det.csv", "r_peak\n100\n400\n");
  const auto c = run_ecgpipe("-q eval -r " + q(rec) + " " + q(dir / "det.csv") + " --json", dir);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["tp"], 2);
  // csv as an annotator's name reads REC.csv as a CSV.
  write_text(dir / "100.csv", "sample,symbol\n100,N\n");
  const auto v = run_ecgpipe("-q eval -r " + q(rec) + " -a csv -t xqrs --json", dir);
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_EQ(nlohmann::json::parse(v.out)["tp"], 1);
}

TEST(EvalCli, NoHeaderNoFsIsRefusedAndTheRateMatters) {
  const auto dir = fresh_dir();
  const fs::path rec = record_100(dir, false);
  const auto r = run_ecgpipe("-q eval -r " + q(rec) + " -t xqrs", dir);
  expect_one_line(r, kUsage, "no " + rec.string() + ".hea beside " + rec.string() + ".atr: pass --fs");
  EXPECT_TRUE(r.out.empty());
  // --fs 250: the 50-sample lag is 200 ms there, beyond the window: nothing matches.
  const auto at250 = run_ecgpipe("-q eval -r " + q(rec) + " -t xqrs --fs 250 --json", dir);
  ASSERT_EQ(at250.code, 0) << at250.err;
  EXPECT_EQ(nlohmann::json::parse(at250.out)["tp"], 0);
  const auto at360 = run_ecgpipe("-q eval -r " + q(rec) + " -t xqrs --fs 360 --json", dir);
  EXPECT_EQ(nlohmann::json::parse(at360.out)["tp"], 10);
  // With the header, an --fs that contradicts it is refused.
  write_header(dir / "100.hea", "100", 360);
  expect_one_line(run_ecgpipe("-q eval -r " + q(rec) + " -t xqrs --fs 250", dir), kUsage,
                  "--fs 250 contradicts the 360 Hz of " + rec.string() + ".hea");
  // Two CSVs without a header: the documented 250 Hz, said on stderr (a warning: -q keeps it).
  write_text(dir / "ref.csv", "sample,symbol\n100,N\n");
  write_text(dir / "det.csv", "r_peak\n100\n");
  const auto csv = run_ecgpipe("-q eval --reference " + q(dir / "ref.csv") + " " + q(dir / "det.csv"), dir);
  expect_one_line(csv, 0, "and no --fs: 250 Hz, ecgpipe's CSV default (pass --fs)");
}

TEST(EvalCli, BinaryWhereACsvIsExpectedAndTextWhereAnnotationsAre) {
  const auto dir = fresh_dir();
  const fs::path rec = record_100(dir);
  fs::copy_file(dir / "100.xqrs", dir / "det.csv");
  expect_one_line(run_ecgpipe("-q eval --reference " + q(dir / "100.atr") + " " + q(dir / "det.csv"), dir), kInput,
                  (dir / "det.csv").string() + ":1: byte 1 is 0x04, not text: a binary file where a CSV is expected");
  write_text(dir / "100.qrs", "sample,symbol\n100,N\n");
  expect_one_line(run_ecgpipe("-q eval -r " + q(rec) + " -t qrs", dir), kInput,
                  (dir / "100.qrs").string() + ": byte 0: text ('sample,symbol' on line 1), not a WFDB annotation file");
  // A record name that is a directory: its REC.atr is not there.
  fs::create_directories(dir / "sub");
  expect_one_line(run_ecgpipe("-q eval -r " + q(dir / "sub") + " -t xqrs", dir), kInput,
                  "cannot open " + (dir / "sub").string() + ".atr");
}

TEST(EvalCli, OptionsThatDoNotGoTogether) {
  const auto dir = fresh_dir();
  const fs::path rec = record_100(dir);
  const std::string d = q(dir);
  for (const std::string& args :
       {"eval " + q(dir / "100.xqrs"), "eval --annotator atr " + q(dir / "100.xqrs"),
        "eval --reference " + q(dir / "100.atr") + " -t xqrs", "eval -r " + q(rec) + " -t xqrs " + q(dir / "100.xqrs"),
        "eval -r " + q(rec), "eval --reference-dir " + d, "eval --pairs p.txt --reference-dir " + d + " --detections-dir " + d,
        "eval --reference-dir " + d + " --detections-dir " + d + " " + q(dir / "100.xqrs"),
        std::string("eval --pairs p.txt -t xqrs"), "eval -r " + q(rec) + " -t ../x"}) {
    const auto r = run_ecgpipe("-q " + args, dir);
    EXPECT_EQ(r.code, kUsage) << args << ": " << r.err;
    EXPECT_EQ(testutil::count_lines(r.err), 1u) << args << ": " << r.err;
  }
}

// Two records whose counts are chosen by hand (as tests/eval/test_eval_gross.cpp), under hostile
// names: "rec a" (10 beats, V 4th and 7th, each detected with its class) and "élève" (N at 100
// called V, V at 300 missed, 3 detections far from any beat). 250 Hz from their headers.
void two_records(const fs::path& ref, const fs::path& det) {
  fs::create_directories(ref);
  std::vector<std::pair<std::int64_t, int>> a;
  std::string a_csv = "index,r_peak,class\n";
  for (int k = 0; k < 10; ++k) {
    const bool v = k == 3 || k == 6;
    a.push_back({100 + 200 * k, v ? 5 : 1});
    a_csv += std::to_string(k) + "," + std::to_string(100 + 200 * k) + "," + (v ? "V" : "N") + "\n";
  }
  write_text(ref / "rec a.atr", annotations(a));
  write_header(ref / "rec a.hea", "rec a", 250);
  const std::string b = "\xC3\xA9l\xC3\xA8ve";
  write_text(ref / (b + ".atr"), annotations({{100, 1}, {300, 5}}));
  write_header(ref / (b + ".hea"), b, 250);
  fs::create_directories(det / "rec a");
  write_text(det / "rec a" / "beats.csv", a_csv);
  fs::create_directories(det / b);
  write_text(det / b / "beats.csv", "index,r_peak,class\n0,100,V\n1,1000,N\n2,1500,N\n3,2000,N\n");
}

TEST(EvalCli, GrossAndAverageOverTwoRecords) {
  const auto dir = fresh_dir();
  two_records(dir / "ref", dir / "out");
  const std::string dirs = "--reference-dir " + q(dir / "ref") + " --detections-dir " + q(dir / "out");
  const auto r = run_ecgpipe("-q eval " + dirs, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  // Gross: 11 / 12 and 11 / 14; average: (100 + 50) / 2 and (100 + 25) / 2.
  EXPECT_EQ(tokens_of_line(r.out, "gross"), (Tokens{"gross", "11", "1", "3", "91.67%", "78.57%", "2", "1", "1", "66.67%",
                                                     "66.67%", "0", "0", "0", "-", "-"}))
      << r.out;
  EXPECT_EQ(tokens_of_line(r.out, "average"), (Tokens{"average", "75.00%", "62.50%", "50.00%", "50.00%", "-", "-"}));
  EXPECT_EQ(tokens_of_line(r.out, "rec a"), (Tokens{"rec a", "250", "10", "0", "0", "100.00%", "100.00%", "2", "0", "0",
                                                     "100.00%", "100.00%", "0", "0", "0", "-", "-"}));
  EXPECT_EQ(tokens_of_line(r.out, "\xC3\xA9l\xC3\xA8ve").at(5), "50.00%");

  const auto js = run_ecgpipe("-q eval " + dirs + " --json", dir);
  ASSERT_EQ(js.code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j["records"].size(), 2u);
  EXPECT_EQ(j["records"][0]["record"], "rec a");
  EXPECT_EQ(j["records"][0]["fs"], 250.0);
  EXPECT_EQ(j["records"][0]["fs_source"], (dir / "ref" / "rec a.hea").string());
  EXPECT_EQ(j["gross"]["qrs"]["tp"], 11);
  EXPECT_DOUBLE_EQ(j["gross"]["qrs"]["se"].get<double>(), 11.0 / 12.0);
  EXPECT_DOUBLE_EQ(j["average"]["qrs"]["se"].get<double>(), 0.75);
  EXPECT_EQ(j["gross"]["veb"]["fp"], 1);

  // The same records through a pairs file (paths relative to it; spaces kept inside a field).
  write_text(dir / "pairs.txt",
             "# reference,detections\nref/rec a.atr, out/rec a/beats.csv\n"
             "ref/\xC3\xA9l\xC3\xA8ve.atr,out/\xC3\xA9l\xC3\xA8ve/beats.csv\n");
  const auto p = run_ecgpipe("-q eval --pairs " + q(dir / "pairs.txt") + " --json", dir);
  ASSERT_EQ(p.code, 0) << p.err;
  const auto pj = nlohmann::json::parse(p.out);
  EXPECT_EQ(pj["gross"], j["gross"]);
  EXPECT_EQ(pj["average"], j["average"]);
  EXPECT_EQ(pj["records"][0]["record"], "ref/rec a");
}

// A record named by its files, with a terminal's control sequence in the name: the text table
// shows it, it does not reach the terminal (before: the ESC went to stdout as it was). --json
// keeps the name as it is (JSON escapes it).
TEST(EvalCli, ARecordNamesControlCharactersAreShownNotObeyed) {
  const auto dir = fresh_dir();
  const std::string name = "r\x1b[2Jx";
  fs::create_directories(dir / "ref");
  write_text(dir / "ref" / (name + ".atr"), annotations({{100, 1}, {300, 1}}));
  write_header(dir / "ref" / (name + ".hea"), name, 250);
  fs::create_directories(dir / "out" / name);
  write_text(dir / "out" / name / "beats.csv", "index,r_peak\n0,100\n1,300\n");
  const std::string dirs = "--reference-dir " + q(dir / "ref") + " --detections-dir " + q(dir / "out");
  const auto r = run_ecgpipe("-q eval " + dirs, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(tokens_of_line(r.out, "r\\x1b[2Jx").at(3), "0") << r.out;  // record, fs, TP 2, FN 0
  const auto js = run_ecgpipe("-q eval " + dirs + " --json", dir);
  ASSERT_EQ(js.code, 0) << js.err;
  EXPECT_EQ(nlohmann::json::parse(js.out)["records"][0]["record"], name);
}

TEST(EvalCli, RecordsOnOneSideAreRefusedOrSkipped) {
  const auto dir = fresh_dir();
  two_records(dir / "ref", dir / "out");
  write_text(dir / "ref" / "c.atr", annotations({{100, 1}}));
  fs::create_directories(dir / "out" / "d");
  write_text(dir / "out" / "d" / "beats.csv", "r_peak\n100\n");
  const std::string dirs = "--reference-dir " + q(dir / "ref") + " --detections-dir " + q(dir / "out");
  const auto r = run_ecgpipe("-q eval " + dirs, dir);
  expect_one_line(r, kInput,
                  "records on one side only: c (no detections: " + (dir / "out" / "c" / "beats.csv").string() +
                      "), d (no reference: " + (dir / "ref" / "d.atr").string() + "); --skip-missing leaves them out");
  EXPECT_TRUE(r.out.empty());
  const auto s = run_ecgpipe("-q eval " + dirs + " --skip-missing", dir);
  expect_one_line(s, 0, "2 record(s) on one side only left out (--skip-missing)");
  EXPECT_NE(s.out.find("2 records compared (2 with beat classes), 2 skipped"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("skipped c: no detections"), std::string::npos) << s.out;
  EXPECT_EQ(tokens_of_line(s.out, "gross").at(1), "11") << "the skipped records are in no sum";
  const auto j = nlohmann::json::parse(run_ecgpipe("-q eval " + dirs + " --skip-missing --json", dir).out);
  ASSERT_EQ(j["skipped"].size(), 2u);
  EXPECT_EQ(j["skipped"][1]["record"], "d");
  EXPECT_EQ(j["skipped"][1]["missing"], "reference");
}

TEST(EvalCli, NothingToCompareAndADirectoryNamedLikeARecord) {
  const auto dir = fresh_dir();
  fs::create_directories(dir / "empty");
  expect_one_line(run_ecgpipe("-q eval --reference-dir " + q(dir / "empty") + " --detections-dir " + q(dir / "empty"), dir),
                  kInput, "no records to compare in " + (dir / "empty").string() + "/*.atr");
  expect_one_line(run_ecgpipe("-q eval --reference-dir " + q(dir / "none") + " --detections-dir " + q(dir / "empty"), dir),
                  kInput, "cannot list the directory " + (dir / "none").string());
  fs::create_directories(dir / "ref" / "103.atr");
  expect_one_line(run_ecgpipe("-q eval --reference-dir " + q(dir / "ref") + " --detections-dir " + q(dir / "empty"), dir),
                  kInput, (dir / "ref" / "103.atr").string() + " is a directory");
  write_text(dir / "pairs.txt", "# nothing\n");
  expect_one_line(run_ecgpipe("-q eval --pairs " + q(dir / "pairs.txt"), dir), kInput, "no records to compare");
  write_text(dir / "pairs.txt", "a.atr\n");
  expect_one_line(run_ecgpipe("-q eval --pairs " + q(dir / "pairs.txt"), dir), kInput,
                  (dir / "pairs.txt").string() + ":1: 'a.atr': expected reference,detections");
}

// MIT-BIH DS1 beside the checkout: the reference against itself by annotator name (every beat, at
// the header's 360 Hz), and gross figures over two records whose CSV copies are the detections.
TEST(EvalCli, MitBihRecordsByNameAndGross) {
  const std::string ds1 = testutil::ds1_folder({"wfdb/101.atr", "wfdb/101.hea", "101_beats.csv", "wfdb/119.atr",
                                                "wfdb/119.hea", "119_beats.csv"});
  SKIP_WITHOUT_DS1(ds1);
  const auto dir = fresh_dir();
  const auto r = run_ecgpipe("-q eval -r " + q(fs::path(ds1) / "wfdb" / "119") + " -t atr --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fs"], 360.0);
  EXPECT_EQ(j["fn"], 0);
  EXPECT_EQ(j["fp"], 0);
  EXPECT_EQ(j["ec57"]["veb"]["tp"], 444) << "119's 444 V beats, each its own match";
  write_text(dir / "pairs.txt", ds1 + "/wfdb/101.atr," + ds1 + "/101_beats.csv\n" + ds1 + "/wfdb/119.atr," + ds1 +
                                    "/119_beats.csv\n");
  const auto g = run_ecgpipe("-q eval --pairs " + q(dir / "pairs.txt") + " --json", dir);
  ASSERT_EQ(g.code, 0) << g.err;
  const auto gj = nlohmann::json::parse(g.out);
  EXPECT_EQ(gj["gross"]["qrs"]["tp"], 1865 + 1987) << "every beat of 101 and 119";
  EXPECT_EQ(gj["gross"]["qrs"]["fp"], 0);
  EXPECT_TRUE(gj["gross"]["veb"].is_null()) << "a sample,symbol CSV's symbol column is not a class column";
}

// A reference whose rhythm names ecgpipe does not know (a misspelt "(AF"): said by `eval` and by
// `run --reference` (and in its report.json), as `rhythm --reference` says it, since such a name
// counts as neither AF nor flutter and the AF statistics would read "no AF" without a word.
TEST(EvalCli, UnknownReferenceRhythmNamesAreSaid) {
  const auto dir = fresh_dir();
  const auto r0 = run_ecgpipe("-q synth " + q(dir / "s.csv") + " --fs 360 --duration 60 --truth " + q(dir / "t.csv"), dir);
  ASSERT_EQ(r0.code, 0) << r0.err;
  // The synthetic truth's beats as N, and rhythm changes (N, (AF, (N, (BOGUS.
  std::vector<ecgpipe::Annotation> ann;
  std::istringstream truth(testutil::read_text(dir / "t.csv"));
  std::string line;
  std::getline(truth, line);
  while (std::getline(truth, line)) ann.push_back({std::stoll(line.substr(0, line.find(','))), 1, 'N', 0, 0, 0, ""});
  ASSERT_GT(ann.size(), 40u);
  const std::int64_t at[] = {0, ann[10].sample, ann[20].sample, ann[30].sample};
  const char* names[] = {"(N", "(AF", "(N", "(BOGUS"};
  for (int k = 3; k >= 0; --k) {
    const auto pos = std::lower_bound(ann.begin(), ann.end(), at[k], [](const ecgpipe::Annotation& a, std::int64_t s) { return a.sample < s; });
    ann.insert(pos, {at[k], 28, '+', 0, 0, 0, names[k]});
  }
  write_text(dir / "s.atr", ecgpipe::wfdb_annotation_bytes(ann));
  write_header(dir / "s.hea", "s", 360);
  const std::string said = ": rhythm names ecgpipe does not know, counted as neither AF nor flutter: AF, BOGUS";
  auto r = run_ecgpipe("detect " + q(dir / "s.csv") + " --fs 360 --out " + q(dir / "det.csv"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_ecgpipe("eval --reference " + q(dir / "s.atr") + " " + q(dir / "det.csv") + " --fs 360", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find((dir / "s.atr").string() + said), std::string::npos) << r.err;
  r = run_ecgpipe("analyze " + q(dir / "s.csv") + " --fs 360 --reference " + q(dir / "s.atr") + " --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find((dir / "s.atr").string() + said), std::string::npos) << r.err;
  const auto warnings = nlohmann::json::parse(testutil::read_text(dir / "a" / "report.json"))["warnings"];
  EXPECT_NE(warnings.dump().find("BOGUS"), std::string::npos) << warnings;
}

// The same of the detections' rhythm column (another tool's beats, a hand-edited beats.csv): a
// name rhythm_named does not know ("afib" in lower case, "foo") is no AF, said, not taken silently.
TEST(EvalCli, UnknownDetectedRhythmNamesAreSaid) {
  const auto dir = fresh_dir();
  std::vector<ecgpipe::Annotation> ann{{0, 28, '+', 0, 0, 0, "(N"}};
  std::string det = "r_peak,rhythm\n";
  for (int i = 0; i < 60; ++i) {
    const std::int64_t at = 100 + 300 * i;
    ann.push_back({at, 1, 'N', 0, 0, 0, ""});
    det += std::to_string(at) + "," + (i == 7 ? "afib" : i == 9 ? "foo" : i == 11 ? "(AFIB" : i == 13 ? "AFL" : "N") + "\n";
  }
  write_text(dir / "s.atr", ecgpipe::wfdb_annotation_bytes(ann));
  write_header(dir / "s.hea", "s", 360);
  write_text(dir / "det.csv", det);
  const auto r = run_ecgpipe("eval --reference " + q(dir / "s.atr") + " " + q(dir / "det.csv"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find((dir / "det.csv").string() + ": rhythm names ecgpipe does not know in its rhythm column, taken as no AF: afib, foo"),
            std::string::npos)
      << r.err;
}

}  // namespace
