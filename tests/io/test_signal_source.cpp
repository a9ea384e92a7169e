// What a recording is read as: rate, column and their sources (io/signal_source.hpp; issue 27).
#include "ecgpipe/io/signal_source.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "test_util.hpp"

namespace ecgpipe {
namespace {

// n rows of "time,ECG": times i/fs printed with `decimals` (or in whole ms), a sine as the ECG.
std::string timed_csv(const std::string& header, int n, double fs, bool ms, int decimals = 6) {
  std::string s = header + "\n";
  char buf[96];
  for (int i = 0; i < n; ++i) {
    const double t = ms ? std::round(1000.0 * i / fs) : i / fs;
    std::snprintf(buf, sizeof buf, "%.*f,%.4f\n", ms ? 0 : decimals, t, std::sin(0.05 * i));
    s += buf;
  }
  return s;
}

TEST(SignalSource, TimeColumnNames) {
  for (const char* n : {"time", "Time", "TIME (s)", "t", "time_ms", "Time [ms]", "timestamp", " \"time\" ", "elapsed"})
    EXPECT_TRUE(is_time_column_name(n)) << n;
  for (const char* n : {"ECG", "heartbeats", "MLII", "times", "idx", "", "timer"}) EXPECT_FALSE(is_time_column_name(n)) << n;
}

TEST(SignalSource, RateFromAnEvenTimeColumn) {
  std::vector<double> t;
  for (int i = 0; i < 1000; ++i) t.push_back(i / 360.0);
  // The exact mean step: 1 / (999 / 360 / 999), equal to 360 within double round-off.
  EXPECT_NEAR(*rate_from_time_column(t, "time"), 360.0, 1e-9);
  // The same clock in whole ms, rounded (steps of 2 and 3 ms): 360 Hz within the rounding of the
  // last time (0.5 ms over 2775 ms: 0.02 %).
  std::vector<double> ms;
  for (int i = 0; i < 1000; ++i) ms.push_back(std::round(1000.0 * i / 360.0));
  EXPECT_NEAR(*rate_from_time_column(ms, "Time (ms)"), 360.0, 360.0 * 2e-4);
  EXPECT_NEAR(*rate_from_time_column(ms, "time_ms"), 360.0, 360.0 * 2e-4);
  // ... which without "ms" in its name is read as seconds: 0.36 Hz (refused by the caller).
  EXPECT_NEAR(*rate_from_time_column(ms, "time"), 0.36, 0.36 * 2e-4);
}

TEST(SignalSource, IrregularTimesGiveNoRate) {
  std::vector<double> gap;
  for (int i = 0; i < 100; ++i) gap.push_back(i < 50 ? i * 0.004 : i * 0.004 + 0.004);  // one sample missing
  EXPECT_FALSE(rate_from_time_column(gap, "time"));
  std::vector<double> beats = {0.0, 0.81, 1.6, 2.45, 3.2, 4.1, 4.8};  // beat times, not samples
  EXPECT_FALSE(rate_from_time_column(beats, "time"));
  EXPECT_FALSE(rate_from_time_column({0.0, 0.0, 0.0, 0.0}, "time"));
  EXPECT_FALSE(rate_from_time_column({3.0, 2.0, 1.0}, "time"));
  EXPECT_FALSE(rate_from_time_column({0.0, 1.0}, "time"));  // too few to tell
  EXPECT_FALSE(rate_from_time_column({}, "time"));
}

TEST(SignalSource, TimeAndEcgColumnsGiveTheRateAndTheSignal) {
  const auto dir = testutil::fresh_dir("signal-source");
  testutil::write_text(dir / "a.csv", timed_csv("time,ECG", 3000, 360.0, false));
  const SignalSource s = resolve_signal_source((dir / "a.csv").string(), {}, std::nullopt, 250.0);
  EXPECT_EQ(s.format, "CSV");
  EXPECT_NEAR(s.fs, 360.0, 360.0 * 1e-6);  // times printed to 1 us: 0.5 us over the probe's span
  EXPECT_EQ(s.fs_source, "time column 'time'");
  EXPECT_FALSE(s.fs_is_default);
  EXPECT_EQ(s.column, "1");
  EXPECT_EQ(s.signal_name, "column 'ECG' (1)");
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(s.description().substr(0, 14), "CSV, 360 Hz (t");

  testutil::write_text(dir / "ms.csv", timed_csv("Time (ms),ECG", 3000, 500.0, true));
  EXPECT_NEAR(resolve_signal_source((dir / "ms.csv").string(), {}, std::nullopt, 250.0).fs, 500.0, 0.1);
}

// The probe splits as the reader does: a UTF-8 BOM before the header, CRLF line ends and quoted
// names ("time") are the reader's conventions, so the same file gives the same column and rate.
TEST(SignalSource, ProbeReadsTheHeaderAsTheReaderDoes) {
  const auto dir = testutil::fresh_dir("signal-source-bom");
  std::string text = timed_csv("\"time\" , \"ECG\"", 3000, 360.0, false);
  std::string crlf = "\xEF\xBB\xBF";
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  testutil::write_text(dir / "bom.csv", crlf);
  const std::string path = (dir / "bom.csv").string();
  const SignalSource s = resolve_signal_source(path, {}, std::nullopt, 250.0);
  EXPECT_NEAR(s.fs, 360.0, 360.0 * 1e-6);
  EXPECT_EQ(s.fs_source, "time column 'time'");
  EXPECT_EQ(s.signal_name, "column 'ECG' (1)");
  EXPECT_EQ(read_csv_column(path, CsvOptions{s.column, true}).size(), 3000u);
  // A --column is resolved as the reader resolves it: by name, and an unknown one with its error.
  CsvOptions by_name;
  by_name.column = "ECG";
  EXPECT_EQ(resolve_signal_source(path, by_name, std::nullopt, 250.0).signal_name, "column 'ECG' (1)");
  by_name.column = "nope";
  EXPECT_NE(testutil::input_error_of([&] { resolve_signal_source(path, by_name, std::nullopt, 250.0); })
                .find("no column named \"nope\""),
            std::string::npos);
}

TEST(SignalSource, FsOptionWinsOverATimeColumnWithAWarning) {
  const auto dir = testutil::fresh_dir("signal-source-fs");
  testutil::write_text(dir / "a.csv", timed_csv("time,ECG", 3000, 360.0, false));
  const SignalSource s = resolve_signal_source((dir / "a.csv").string(), {}, 250.0, 250.0);
  EXPECT_EQ(s.fs, 250.0);
  EXPECT_EQ(s.fs_source, "--fs");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("says 360 Hz"), std::string::npos) << s.warnings[0];
  // Agreeing within 1 %: no warning.
  EXPECT_TRUE(resolve_signal_source((dir / "a.csv").string(), {}, 361.0, 250.0).warnings.empty());
}

TEST(SignalSource, NoRateAnywhereIsTheDefaultSaidAloud) {
  const auto dir = testutil::fresh_dir("signal-source-default");
  testutil::write_signal_csv(dir / "s.csv", testutil::synthetic_ecg(20, 200));
  const SignalSource s = resolve_signal_source((dir / "s.csv").string(), {}, std::nullopt, 250.0);
  EXPECT_EQ(s.fs, 250.0);
  EXPECT_TRUE(s.fs_is_default);
  EXPECT_EQ(s.column, "0");
  EXPECT_EQ(s.signal_name, "column 'heartbeats' (0)");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("read as 250 Hz"), std::string::npos);
}

TEST(SignalSource, IndexColumnsAreSkippedAndRefusedWhenChosen) {
  const auto dir = testutil::fresh_dir("signal-source-index");
  std::string text = "idx,ECG,other\n";
  for (int i = 0; i < 500; ++i) text += std::to_string(i) + "," + std::to_string(std::sin(0.1 * i)) + ",1\n";
  testutil::write_text(dir / "i.csv", text);
  const std::string path = (dir / "i.csv").string();
  const SignalSource s = resolve_signal_source(path, {}, std::nullopt, 250.0);
  EXPECT_EQ(s.column, "1");  // idx only rises: not an ECG
  CsvOptions by_name;
  by_name.column = "idx";
  const std::string e = testutil::input_error_of([&] { resolve_signal_source(path, by_name, std::nullopt, 250.0); });
  EXPECT_NE(e.find("column 'idx' (0) only rises over its first 500 rows"), std::string::npos) << e;
  // 199 rising rows are too few to call it an index (a short test signal may rise).
  std::string short_text = "x\n";
  for (int i = 0; i < 199; ++i) short_text += std::to_string(i) + "\n";
  testutil::write_text(dir / "short.csv", short_text);
  EXPECT_EQ(resolve_signal_source((dir / "short.csv").string(), {}, std::nullopt, 250.0).column, "0");
  // The `heartbeats` column is taken wherever it is.
  testutil::write_text(dir / "h.csv", "a,heartbeats\n1,2\n3,4\n");
  EXPECT_EQ(resolve_signal_source((dir / "h.csv").string(), {}, std::nullopt, 250.0).column, "1");
}

TEST(SignalSource, ATimeColumnOutsideTheRatesIsNotUsedAndSaid) {
  const auto dir = testutil::fresh_dir("signal-source-slow");
  testutil::write_text(dir / "a.csv", timed_csv("time,ECG", 300, 10.0, false));  // 10 Hz
  const SignalSource s = resolve_signal_source((dir / "a.csv").string(), {}, std::nullopt, 250.0);
  EXPECT_TRUE(s.fs_is_default);
  ASSERT_EQ(s.warnings.size(), 2u);
  EXPECT_NE(s.warnings[0].find("gives 10 Hz, outside 50..100000 Hz: not used"), std::string::npos) << s.warnings[0];
  EXPECT_NE(s.warnings[1].find("read as 250 Hz"), std::string::npos) << s.warnings[1];
}

TEST(SignalSource, NoHeaderAndEmptyFiles) {
  const auto dir = testutil::fresh_dir("signal-source-noheader");
  testutil::write_text(dir / "n.csv", "1.0\n2.0\n1.5\n");
  CsvOptions no_header;
  no_header.has_header = false;
  const SignalSource s = resolve_signal_source((dir / "n.csv").string(), no_header, std::nullopt, 250.0);
  EXPECT_EQ(s.signal_name, "column 0");
  testutil::write_text(dir / "e.csv", "");
  EXPECT_EQ(resolve_signal_source((dir / "e.csv").string(), {}, std::nullopt, 250.0).column, "0");  // the reader refuses it
}

TEST(SignalSource, WfdbRecordNameWithoutExtension) {
  const auto dir = testutil::fresh_dir("signal-source-wfdb");
  testutil::write_text(dir / "rec.hea", "rec 1 360 4 10:20:30 01/02/2003\nrec.dat 16 200 12 0 0 0 0 MLII\n");
  testutil::write_text(dir / "rec.dat", std::string(8, '\0'));
  const std::string name = (dir / "rec").string();
  const SignalSource s = resolve_signal_source(name, {}, std::nullopt, 250.0);
  EXPECT_EQ(s.format, "WFDB");
  EXPECT_EQ(s.fs, 360.0);
  EXPECT_EQ(s.fs_source, "WFDB header");
  EXPECT_EQ(s.signal_name, "signal 'MLII' (0)");
  EXPECT_EQ(s.start_time, "2003-02-01 10:20:30");  // the report's layout (WfdbHeader.StartTimeIsTheReportsLayout)
  EXPECT_EQ(s.units, "mV");
  // A header's rate and another --fs: refused (the windows scale with the rate).
  EXPECT_THROW(resolve_signal_source(name, {}, 250.0, 250.0), UsageError);
  // A file by the record's name is read as what it is.
  testutil::write_text(dir / "rec", "heartbeats\n1\n");
  EXPECT_EQ(resolve_signal_source(name, {}, std::nullopt, 250.0).format, "CSV");
}

// The second lead (issue 24): what --lead2 auto may take, and the choice among a record's signals.
TEST(SecondLead, EcgLeadNames) {
  for (const char* n : {"MLII", "V1", "v5", "ECG1", "ECG2", "ecg", "EKG II", "ECG V1", "Lead II", "II", "aVF", "I", "III",
                        "MV1", "CM5", "ML2", "D3", "CC5", " V2 "})
    EXPECT_TRUE(is_ecg_lead_name(n)) << n;
  for (const char* n : {"", "Resp", "time", "EEG Fpz-Cz", "V7", "V0", "V12", "index", "heartbeats2", "SpO2", "IV", "ABP",
                        "pleth", "D4", "lead"})
    EXPECT_FALSE(is_ecg_lead_name(n)) << n;
}

TEST(SecondLead, PickedByAutoNameIndexOrNone) {
  const std::vector<std::string> names{"Resp", "MLII", "V1", "V5"};
  const std::vector<char> usable{1, 1, 1, 0};
  const auto pick = [&](const std::string& o) { return pick_second_lead(o, names, 1, usable, "another rate", "r.hea"); };
  EXPECT_EQ(pick("auto"), std::optional<std::size_t>(2));  // the first other ECG-named, usable signal
  EXPECT_EQ(pick("AUTO"), std::optional<std::size_t>(2));
  EXPECT_EQ(pick_second_lead("auto", names, 2, usable, "", "r"), std::optional<std::size_t>(1));
  EXPECT_EQ(pick_second_lead("auto", {"ECG", "Resp"}, 0, {1, 1}, "", "r"), std::nullopt);  // Resp is no lead
  EXPECT_EQ(pick_second_lead("auto", {"ECG"}, 0, {1}, "", "r"), std::nullopt);             // one signal
  EXPECT_EQ(pick("none"), std::nullopt);
  EXPECT_EQ(pick("V1"), std::optional<std::size_t>(2));
  EXPECT_EQ(pick("0"), std::optional<std::size_t>(0));  // asked for by index: taken whatever its name
  EXPECT_EQ(pick("Resp"), std::optional<std::size_t>(0));
  // Refused with a UsageError that names the option and the file: no such signal, the primary,
  // an unusable one.
  for (const char* bad : {"V9", "4", "99999999999999999999999", "-1", "MLII", "1", "V5", "3"}) {
    try {
      pick(bad);
      ADD_FAILURE() << bad;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--lead2"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("r.hea"), std::string::npos) << e.what();
    }
  }
}

TEST(SecondLead, ResolvedForCsvWfdbAndSaid) {
  const auto dir = testutil::fresh_dir("signal-source-lead2");
  std::string csv = "time,MLII,V1,Resp\n";
  for (int i = 0; i < 400; ++i) csv += std::to_string(i / 360.0) + ",0." + std::to_string(i % 7) + ",-0." + std::to_string(i % 5) + ",1\n";
  testutil::write_text(dir / "a.csv", csv);
  const std::string a = (dir / "a.csv").string();
  SignalSource s = resolve_signal_source(a, {}, std::nullopt, 250.0);
  EXPECT_EQ(s.column, "1");
  EXPECT_EQ(s.lead2_column, "2");
  EXPECT_EQ(s.lead2_name, "column 'V1' (2)");
  EXPECT_NE(s.description().find("column 'MLII' (1), second lead column 'V1' (2)"), std::string::npos) << s.description();
  CsvOptions o;
  o.lead2 = "none";
  s = resolve_signal_source(a, o, std::nullopt, 250.0);
  EXPECT_EQ(s.lead2_column, "");
  EXPECT_EQ(s.description().find("second lead"), std::string::npos);
  o.lead2 = "Resp";  // asked for: taken (its name is the user's business)
  EXPECT_EQ(resolve_signal_source(a, o, std::nullopt, 250.0).lead2_column, "3");
  o.lead2 = "time";  // a time column is never a lead
  EXPECT_THROW(resolve_signal_source(a, o, std::nullopt, 250.0), UsageError);
  o.lead2 = "auto";
  o.column = "V1";  // the other way round
  EXPECT_EQ(resolve_signal_source(a, o, std::nullopt, 250.0).lead2_column, "1");
  // The seed's one-column file, and a file without a header (no names): none.
  testutil::write_text(dir / "h.csv", "heartbeats\n1\n2\n");
  EXPECT_EQ(resolve_signal_source((dir / "h.csv").string(), {}, std::nullopt, 250.0).lead2_column, "");
  testutil::write_text(dir / "n.csv", "1,2\n2,1\n1.5,1\n");
  CsvOptions no_header;
  no_header.has_header = false;
  EXPECT_EQ(resolve_signal_source((dir / "n.csv").string(), no_header, std::nullopt, 250.0).lead2_column, "");
  no_header.lead2 = "1";
  EXPECT_EQ(resolve_signal_source((dir / "n.csv").string(), no_header, std::nullopt, 250.0).lead2_column, "1");

  // A WFDB record: MIT-BIH's 114 has V5 first and MLII second.
  testutil::write_text(dir / "rec.hea", "rec 2 360 4\nrec.dat 16 200 12 0 0 0 0 V5\nrec.dat 16 200 12 0 0 0 0 MLII\n");
  testutil::write_text(dir / "rec.dat", std::string(16, '\0'));
  const std::string rec = (dir / "rec").string();
  s = resolve_signal_source(rec, {}, std::nullopt, 250.0);
  EXPECT_EQ(s.signal_name, "signal 'V5' (0)");
  EXPECT_EQ(s.lead2_column, "1");
  EXPECT_EQ(s.lead2_name, "signal 'MLII' (1)");
  CsvOptions mlii;
  mlii.column = "MLII";
  s = resolve_signal_source(rec, mlii, std::nullopt, 250.0);
  EXPECT_EQ(s.signal_name, "signal 'MLII' (1)");
  EXPECT_EQ(s.lead2_name, "signal 'V5' (0)");
  mlii.lead2 = "V5";
  EXPECT_EQ(resolve_signal_source(rec, mlii, std::nullopt, 250.0).lead2_column, "0");
  mlii.lead2 = "MLII";
  EXPECT_THROW(resolve_signal_source(rec, mlii, std::nullopt, 250.0), UsageError);
}

}  // namespace
}  // namespace ecgpipe
