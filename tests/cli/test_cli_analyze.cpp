// Issue 27 through the executable: `analyze` (no VAE), the rate and column said and taken from a
// time column, artefact kept out of pauses and runs, `detect --out -` and record names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ecgpipe/config.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using testutil::read_text;
using testutil::run_ecgpipe;
using testutil::write_text;

using testutil::q;

nlohmann::json report_of(const fs::path& out) { return nlohmann::json::parse(read_text(out / "report.json")); }

TEST(AnalyzeCli, HolterAnalysisWithoutAModel) {
  const auto dir = testutil::fresh_dir();
  const auto r = run_ecgpipe("analyze '" ECGPIPE_SOURCE_DIR "/data/sample.csv' --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> files = testutil::list_dir(dir / "a");
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"artefact.csv", "beats.csv", "report.html", "report.json", "rhythm.csv",
                                             "sample.ecgpipe", "sample.hea"}));  // no model.safetensors, no outliers.csv
  // artefact.csv: the stretches of report.json's quality, one a row.
  const std::string artefact = read_text(dir / "a" / "artefact.csv");
  EXPECT_EQ(artefact.substr(0, 44), "start_sample,end_sample,start_s,end_s,beats\n");
  EXPECT_EQ(testutil::count_lines(artefact), 1 + report_of(dir / "a")["quality"]["artefact"].size());
  const auto j = report_of(dir / "a");
  EXPECT_EQ(j["mode"], "analyze");
  EXPECT_FALSE(j.contains("loss"));
  EXPECT_FALSE(j.contains("outliers"));
  EXPECT_TRUE(j["holter"]["hrv"]["sdnn_ms"].is_number());
  EXPECT_EQ(j["input"]["fs_source"], "default: a CSV has no rate, pass --fs");
  ASSERT_EQ(j["warnings"].size(), 1u);  // the rate is the default: said, in the report too
  EXPECT_NE(r.err.find("warning: "), std::string::npos) << r.err;
  // beats.csv: the same columns as run's, the model's empty, the quality last.
  std::istringstream in(read_text(dir / "a" / "beats.csv"));
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_EQ(header.substr(header.size() - 21), ",class,rhythm,quality");
  EXPECT_NE(row.find(",,,,,,,,,"), std::string::npos) << row;  // split .. latent_mu1 empty
  const std::string html = read_text(dir / "a" / "report.html");
  EXPECT_EQ(html.find("Model diagnostics"), std::string::npos);
  // run refuses no epochs and says what to use instead.
  const auto e = run_ecgpipe("-q run '" ECGPIPE_SOURCE_DIR "/data/sample.csv' --epochs 0 --out " + q(dir / "r"), dir);
  EXPECT_EQ(e.code, 2);
  EXPECT_NE(e.err.find("--epochs"), std::string::npos) << e.err;
}

// `analyze` into the folder of an earlier `run`: that run's outliers.csv scored another recording's
// beats (or the same one's, by a model this analysis did not use); it stayed beside the new
// beats.csv, and `summarize` listed its top outliers as this analysis's (found on a hostile tour).
// It goes with the analysis's commit; the model stays (minutes of training, and a file `score`
// may be pointed at) and the log says whose it is.
TEST(AnalyzeCli, AnEarlierRunsScoresDoNotStayBesideAnAnalysis) {
  const auto dir = testutil::fresh_dir();
  ASSERT_EQ(run_ecgpipe("-q synth " + q(dir / "a.csv") + " --duration 60", dir).code, 0);
  ASSERT_EQ(run_ecgpipe("-q synth " + q(dir / "b.csv") + " --duration 60 --seed 7", dir).code, 0);
  ASSERT_EQ(run_ecgpipe("-q run " + q(dir / "a.csv") + " --fs 250 --epochs 1 --out " + q(dir / "o"), dir).code, 0);
  ASSERT_TRUE(std::filesystem::exists(dir / "o" / "outliers.csv"));
  const auto r = run_ecgpipe("analyze " + q(dir / "b.csv") + " --fs 250 --out " + q(dir / "o"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "o" / "outliers.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "o" / "model.safetensors"));
  EXPECT_NE(r.err.find("model.safetensors is an earlier run's model, not of this analysis (kept)"), std::string::npos) << r.err;
  const auto s = run_ecgpipe("-q summarize " + q(dir / "o") + " --out " + q(dir / "s"), dir);
  ASSERT_EQ(s.code, 0) << s.err;
  const auto rows = testutil::csv_rows(read_text(dir / "s" / "summary.csv"));
  ASSERT_GE(rows.size(), 2u);
  const auto top = std::find(rows[0].begin(), rows[0].end(), "top_outliers") - rows[0].begin();
  ASSERT_LT(static_cast<std::size_t>(top), rows[1].size());
  EXPECT_EQ(rows[1][top], "") << "no outliers in an analysis";
}

// A `time,ECG` CSV (the NeuroKit2-style export): the ECG column at the time column's
// rate, both said; the same file read on `time` is refused.
TEST(AnalyzeCli, TimeColumnGivesTheRateAndTheSignalIsTheOtherColumn) {
  const auto dir = testutil::fresh_dir();
  auto r = run_ecgpipe("-q synth " + q(dir / "s.csv") + " --fs 360 --duration 120", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(read_text(dir / "s.csv"));
  std::string line, text = "time,ECG\n";
  std::getline(in, line);
  char buf[64];
  for (int i = 0; std::getline(in, line); ++i) {
    std::snprintf(buf, sizeof buf, "%.6f,", i / 360.0);
    text += buf + line + "\n";
  }
  write_text(dir / "t.csv", text);
  r = run_ecgpipe("analyze " + q(dir / "t.csv") + " --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("CSV, 360 Hz (time column 'time'), column 'ECG' (1)"), std::string::npos) << r.err;
  const auto j = report_of(dir / "a");
  EXPECT_NEAR(j["input"]["fs"].get<double>(), 360.0, 360.0 * 1e-6);  // times to 1 us
  EXPECT_EQ(j["input"]["signal"], "column 'ECG' (1)");
  EXPECT_TRUE(j["warnings"].empty()) << j["warnings"];
  EXPECT_NEAR(j["holter"]["heart_rate"]["mean_bpm"].get<double>(), 70.0, 3.0);  // synth's default rate
  r = run_ecgpipe("-q detect " + q(dir / "t.csv") + " --column time --out " + q(dir / "p.csv"), dir);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("column 'time' (0) only rises"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "p.csv"));
}

// A result no ECG gives is said loudly: a slow sine (0.2 Hz: its peaks as beats, 12 bpm, or every
// other one) is no ECG at any rate.
TEST(AnalyzeCli, ImplausibleResultsAreSaid) {
  const auto dir = testutil::fresh_dir();
  std::string text = "heartbeats\n";
  char buf[32];
  for (int i = 0; i < 250 * 120; ++i) {
    std::snprintf(buf, sizeof buf, "%.4f\n", std::sin(2.0 * M_PI * 0.2 * i / 250.0));
    text += buf;
  }
  write_text(dir / "sine.csv", text);
  const auto r = run_ecgpipe("analyze " + q(dir / "sine.csv") + " --fs 250 --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("outside 25-300 bpm"), std::string::npos) << r.err;
  const auto j = report_of(dir / "a");
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("the rate or the column is likely wrong"), std::string::npos);
  EXPECT_NE(read_text(dir / "a" / "report.html").find("the rate or the column is likely wrong"), std::string::npos);
}

// `ecgpipe synth --scenario noise`: sinus rhythm with bursts of muscle noise, electrode motion and
// baseline wander. No pause and no ectopic run may be reported inside a burst; most of each burst
// is artefact. Three seeds.
TEST(AnalyzeCli, NoPauseAndNoRunInsideNoise) {
  const auto dir = testutil::fresh_dir();
  for (int seed = 1; seed <= 3; ++seed) {
    const std::string name = "noise" + std::to_string(seed);
    auto r = run_ecgpipe("-q synth " + q(dir / (name + ".csv")) + " --scenario noise --duration 900 --seed " +
                             std::to_string(seed),
                         dir);
    ASSERT_EQ(r.code, 0) << r.err;
    r = run_ecgpipe("-q analyze " + q(dir / (name + ".csv")) + " --fs 250 --out " + q(dir / name), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<std::pair<double, double>> bursts;  // seconds
    std::istringstream in(read_text(dir / (name + "_noise.csv")));
    std::string line;
    std::getline(in, line);
    ASSERT_EQ(line, "start_sample,end_sample,kind");
    while (std::getline(in, line)) {
      long long a = 0, b = 0;
      ASSERT_EQ(std::sscanf(line.c_str(), "%lld,%lld", &a, &b), 2) << line;
      bursts.emplace_back(a / 250.0, b / 250.0);
    }
    ASSERT_GE(bursts.size(), 9u);
    const auto j = report_of(dir / name);
    const auto inside = [&](double t) {
      for (const auto& [a, b] : bursts)
        if (t >= a && t < b) return true;
      return false;
    };
    const auto& h = j["holter"];
    EXPECT_EQ(h["pauses"]["count"], 0) << name;
    for (const auto& run : h["runs"]) EXPECT_FALSE(inside(run["start_s"].get<double>())) << name << ": " << run;
    // Coverage: muscle and wander bursts wholly, motion bursts at least half (its slow swings
    // pass as ECG in places; what it does to beats there is still kept out of runs, above).
    double burst_s = 0, covered_s = 0;
    for (const auto& [a, b] : bursts) {
      burst_s += b - a;
      for (const auto& s : j["quality"]["artefact"])
        covered_s += std::max(0.0, std::min(b, s["end_s"].get<double>()) - std::max(a, s["start_s"].get<double>()));
    }
    EXPECT_GT(covered_s, 0.8 * burst_s) << name;
  }
}

// analyze's beats.csv (empty model cells, a quality column) is read by eval and rhythm as any
// beats file: no score column, and rhythm's HRV leaves its artefact beats out as the run did.
TEST(AnalyzeCli, ItsBeatsFileIsReadByEvalAndRhythm) {
  const auto dir = testutil::fresh_dir();
  auto r = run_ecgpipe("-q synth " + q(dir / "n.csv") + " --scenario noise --duration 600 --seed 1", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_ecgpipe("-q analyze " + q(dir / "n.csv") + " --fs 250 --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = report_of(dir / "a");
  ASSERT_GT(report["quality"]["artefact_beats"].get<int>(), 0);
  r = run_ecgpipe("-q eval --reference " + q(dir / "n_beats.csv") + " " + q(dir / "a" / "beats.csv") + " --fs 250 --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_GT(nlohmann::json::parse(r.out)["se"].get<double>(), 0.9) << r.out;
  r = run_ecgpipe("-q rhythm " + q(dir / "a" / "beats.csv") + " --fs 250 --out " + q(dir / "r") + " --json", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto hrv = nlohmann::json::parse(r.out)["hrv"];
  if (report["holter"]["af"]["afib_s"].get<double>() == 0.0) {  // the run also leaves AF out of its HRV
    EXPECT_EQ(hrv["nn_intervals"], report["holter"]["hrv"]["nn_intervals"]) << hrv;
  }
  EXPECT_LT(hrv["nn_intervals"].get<int>(), hrv["rr_intervals"].get<int>() - report["quality"]["artefact_beats"].get<int>());
}

// A QRS whose R and S are about as large (every third beat's R a tenth smaller): the detector's R
// peak sits on the R in two beats and on the S, 20 ms later, in the third, which made every third
// interval 20 ms long and the next 20 ms short: RMSSD 46.1 ms where the beats' is 41.8, and a
// 0.083-Hz pattern (every third beat) put 109 ms^2 into LF, where the beats have none. HRV reads
// the QRS-aligned beats (beat_features.hpp: qrs_shift): 42.3 ms and 3 ms^2.
TEST(AnalyzeCli, HrvIsNotInflatedByAnRPeakThatSitsOnTheSInSomeBeats) {
  const double fs = 360.0;
  std::vector<std::int64_t> truth;
  double t = 1.0;
  for (int i = 0; i < 400; ++i) {
    truth.push_back(static_cast<std::int64_t>(std::lround(t * fs)));
    t += 0.8 + 0.05 * std::sin(2.0 * M_PI * 0.25 * 0.8 * (i + 1));  // a 0.25-Hz modulation: RMSSD ~42 ms
  }
  const std::int64_t n = truth.back() + 360;
  std::vector<double> x(static_cast<std::size_t>(n), 0.0);
  auto bump = [&](double centre, double amplitude, double width_s) {
    const auto lo = std::max<std::int64_t>(0, static_cast<std::int64_t>(centre - 6 * width_s * fs));
    const auto hi = std::min<std::int64_t>(n, static_cast<std::int64_t>(centre + 6 * width_s * fs));
    for (std::int64_t k = lo; k < hi; ++k) x[static_cast<std::size_t>(k)] += amplitude * std::exp(-0.5 * std::pow((k - centre) / (width_s * fs), 2));
  };
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const auto c = static_cast<double>(truth[i]);
    bump(c, i % 3 == 0 ? 0.9 : 1.0, 0.008), bump(c + 0.02 * fs, -1.0, 0.008);
    bump(c - 0.16 * fs, 0.15, 0.02), bump(c + 0.3 * fs, 0.3, 0.04);
  }
  std::string csv = "ecg\n";
  char cell[32];
  for (const double v : x) std::snprintf(cell, sizeof cell, "%.5f\n", v), csv += cell;
  const auto dir = testutil::fresh_dir();
  write_text(dir / "flip.csv", csv);
  const auto r = run_ecgpipe("-q analyze " + q(dir / "flip.csv") + " --fs 360 --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  double sum = 0.0;
  for (std::size_t i = 2; i < truth.size(); ++i) {
    const double d = static_cast<double>((truth[i] - truth[i - 1]) - (truth[i - 1] - truth[i - 2])) / fs * 1000.0;
    sum += d * d;
  }
  const double rmssd = std::sqrt(sum / static_cast<double>(truth.size() - 2));
  const auto hrv = report_of(dir / "a")["holter"]["hrv"];
  // Within 1 ms: the beats are whole samples, so the aligned beats are the true ones; what is left
  // is the few beats the classifier does not call N, whose intervals are not NN.
  EXPECT_NEAR(hrv["rmssd_ms"].get<double>(), rmssd, 1.0) << hrv;
  EXPECT_LT(hrv["lf_ms2"].get<double>(), 0.02 * hrv["hf_ms2"].get<double>()) << hrv;
  EXPECT_GT(hrv["nn_intervals"].get<int>(), 300) << hrv;  // 345 of 399: the rest touch a beat not called N
}

TEST(DetectCli, OutDashAndDevStdoutWriteToStdout) {
  const auto dir = testutil::fresh_dir();
  for (const char* out : {"-", "/dev/stdout"}) {
    const auto r = run_ecgpipe("-q detect '" ECGPIPE_SOURCE_DIR "/data/sample.csv' --out " + std::string(out), dir);
    ASSERT_EQ(r.code, 0) << out << ": " << r.err;
    EXPECT_EQ(r.out.substr(0, 14), "index,r_peak\n0") << out;
    EXPECT_GT(testutil::count_lines(r.out), 700u) << out;
  }
}

// A WFDB record name without extension, as WFDB tools take it.
// `seconds` of synthetic ECG at 360 Hz as the WFDB record dir/rec (format 16, gain 1000 adu/mV),
// its record line ending in `start` (header(5)'s "hh:mm:ss dd/mm/yyyy", or nothing).
void write_synth_record(const fs::path& dir, int seconds, const std::string& start = "") {
  const auto r = run_ecgpipe("-q synth " + q(dir / "s.csv") + " --fs 360 --duration " + std::to_string(seconds), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream in(read_text(dir / "s.csv"));
  std::string line, dat;
  std::getline(in, line);
  std::size_t n = 0;
  while (std::getline(in, line)) {
    const auto v = static_cast<std::int16_t>(std::lround(std::stod(line) * 1000.0));
    dat.push_back(static_cast<char>(v & 0xff));
    dat.push_back(static_cast<char>((v >> 8) & 0xff));
    ++n;
  }
  write_text(dir / "rec.dat", dat);
  write_text(dir / "rec.hea", "rec 1 360 " + std::to_string(n) + (start.empty() ? "" : " " + start) +
                                  "\nrec.dat 16 1000 16 0 0 0 0 ECG\n");
}

TEST(DetectCli, RecordNameWithoutExtension) {
  const auto dir = testutil::fresh_dir();
  write_synth_record(dir, 60);
  const auto r = run_ecgpipe("detect " + q(dir / "rec") + " --out " + q(dir / "p.csv"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("WFDB, 360 Hz (WFDB header), signal 'ECG' (0)"), std::string::npos) << r.err;
  EXPECT_GT(testutil::count_lines(read_text(dir / "p.csv")), 60u);
}

// A Holter report's hourly table is in clock hours where the record says when it started (a
// WFDB header's base time and date): 20 minutes from 08:50 are 08:50-09:00 and 09:00-09:10, not
// "08:50-09:50" (one recording hour read as a clock hour, as before), and report.json's per_hour
// has the same spans in seconds. Without a start time the rows are the recording's hours.
TEST(AnalyzeCli, HourlyTableIsInClockHoursFromTheRecordsStart) {
  const auto dir = testutil::fresh_dir();
  write_synth_record(dir, 1200, "08:50:00 26/11/2026");
  auto r = run_ecgpipe("-q analyze " + q(dir / "rec") + " --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  // The beats before 09:00 (600 s = sample 216 000), from beats.csv.
  std::istringstream in(read_text(dir / "a" / "beats.csv"));
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line.rfind("index,start,r_peak,", 0), 0u) << line;
  std::int64_t before = 0, all = 0;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string field;
    for (int column = 0; column < 3; ++column) std::getline(row, field, ',');
    before += std::stoll(field) < 216000 ? 1 : 0;
    ++all;
  }
  const auto j = report_of(dir / "a");
  EXPECT_EQ(j["input"]["start"], "2026-11-26 08:50:00");
  EXPECT_EQ(j["holter"]["hour_phase_s"], 3000.0);
  const auto& hours = j["holter"]["per_hour"];
  ASSERT_EQ(hours.size(), 2u) << hours;
  EXPECT_EQ(hours[0]["start_s"], 0.0);
  EXPECT_EQ(hours[0]["end_s"], 600.0);
  EXPECT_EQ(hours[1]["start_s"], 600.0);
  EXPECT_EQ(hours[1]["end_s"], 1200.0);
  EXPECT_EQ(hours[0]["beats"], before);
  EXPECT_EQ(hours[1]["beats"], all - before);
  // The page's counts have thousands separators ("1,402").
  const auto count = [](std::int64_t n) {
    std::string digits = std::to_string(n);
    for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
    return digits;
  };
  const std::string html = read_text(dir / "a" / "report.html");
  EXPECT_NE(html.find("<tr><th>08:50–09:00</th><td>0:10:00</td><td>" + count(before) + "</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>09:00–09:10</th><td>0:10:00</td><td>" + count(all - before) + "</td>"), std::string::npos);
  // No start time: one row of the recording's 20 minutes.
  write_synth_record(dir, 1200);
  r = run_ecgpipe("-q analyze " + q(dir / "rec") + " --out " + q(dir / "b"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(report_of(dir / "b")["holter"]["per_hour"].size(), 1u);
  EXPECT_EQ(report_of(dir / "b")["holter"]["hour_phase_s"], 0.0);
  EXPECT_NE(read_text(dir / "b" / "report.html").find("<tr><th>0:00–0:20</th><td>0:20:00</td><td>" + count(all) + "</td>"),
            std::string::npos);
}

// A CSV has no header time: --start gives it, so that its report (and the viewer) read clock
// time as a WFDB or EDF record's do; it is checked as the report reads it, refused for a batch
// (each recording started at its own time) and where a header says otherwise.
TEST(AnalyzeCli, StartGivesACsvItsClockTime) {
  const auto dir = testutil::fresh_dir();
  auto r = run_ecgpipe("-q synth " + q(dir / "s.csv") + " --fs 360 --duration 1200", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_ecgpipe("-q analyze " + q(dir / "s.csv") + " --fs 360 --start '2026-11-26 08:50:00' --out " + q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = report_of(dir / "a");
  EXPECT_EQ(j["input"]["start"], "2026-11-26 08:50:00");
  EXPECT_EQ(j["holter"]["hour_phase_s"], 3000.0);
  EXPECT_EQ(j["holter"]["per_hour"].size(), 2u);
  EXPECT_NE(read_text(dir / "a" / "report.html").find("<tr><th>recording start</th><td>2026-11-26 08:50:00</td></tr>"),
            std::string::npos);
  r = run_ecgpipe("-q analyze " + q(dir / "s.csv") + " --fs 360 --start 23:59:30 --out " + q(dir / "t"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(report_of(dir / "t")["input"]["start"], "23:59:30");
  // Not a time the report reads: a usage error, one line, nothing written.
  for (const char* bad : {"08:50", "25:00:00", "2026-13-01 08:00:00", "yesterday", "08:50:00 x", ""}) {
    r = run_ecgpipe("-q analyze " + q(dir / "s.csv") + " --fs 360 --start '" + bad + "' --out " + q(dir / "bad"), dir);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--start"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir / "bad"));
  }
  // Several recordings: each has its own start.
  r = run_ecgpipe("-q analyze " + q(dir / "s.csv") + " " + q(dir / "s.csv") + " --fs 360 --start 08:00:00 --out " +
                      q(dir / "many"), dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--start is for one recording"), std::string::npos) << r.err;
  // A header's own start and another --start: refused, as a header's rate and another --fs are.
  write_synth_record(dir, 60, "10:20:30 01/02/2003");
  r = run_ecgpipe("-q analyze " + q(dir / "rec") + " --start '2003-02-01 11:00:00' --out " + q(dir / "w"), dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("2003-02-01 10:20:30"), std::string::npos) << r.err;
  r = run_ecgpipe("-q analyze " + q(dir / "rec") + " --start '2003-02-01 10:20:30' --out " + q(dir / "w"), dir);
  EXPECT_EQ(r.code, 0) << r.err;  // the same start: nothing to refuse
}

}  // namespace
