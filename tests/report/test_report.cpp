// report.html: the renderer on hand-made data (the Holter report's sections in order, its figures
// rounded to what they mean, self-contained, hostile and odd inputs, the model appendix only
// with a model), the scatter subsample, and the page `ecgpipe run` writes.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <cmath>
#include <algorithm>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ecgpipe/report/report.hpp"
#include "test_util.hpp"

namespace {

using ecgpipe::ReportData;

constexpr int kCols = 64;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t count_of(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// A beat-like bump, shifted and scaled per beat.
std::vector<float> bump_row(int k) {
  std::vector<float> row(kCols);
  for (int i = 0; i < kCols; ++i) {
    const double d = i - 20.0 - k % 5;
    row[static_cast<std::size_t>(i)] = static_cast<float>((1.0 + 0.1 * (k % 3)) * std::exp(-0.5 * d * d / 9.0));
  }
  return row;
}

ReportData sample_data(std::size_t beats = 300) {
  ReportData d;
  d.file_name = "rec<1>&.csv";  // escaped on the page
  d.device = "cpu";
  d.settings = {{"detector", "seed<x>"}};
  d.samples = 12345;
  d.candidates = 321;
  d.beats = beats;
  d.train_beats = beats * 3 / 4;
  d.test_beats = beats - d.train_beats;
  d.epochs = 3;
  d.stage_seconds = {{"read CSV", 0.125}, {"train", 2.5}, {"total", 2.75}};
  for (int i = 0; i < 2500; ++i) {
    d.excerpt_signal.push_back(static_cast<float>(std::sin(i * 0.05) + (i % 200 == 50 ? 2.0 : 0.0)));
    d.excerpt_bandpassed.push_back(std::cos(i * 0.05));
  }
  for (int p = 50; p < 2500; p += 200) d.excerpt_peaks.push_back(p);
  d.curve_delay = 14;
  for (std::size_t i = 0; i < beats; ++i) d.beat_lengths.push_back(static_cast<std::int32_t>(150 + i % 40));
  d.beat_cols = kCols;
  for (int k = 0; k < 20; ++k) {
    const auto row = bump_row(k);
    d.overlay_rows.insert(d.overlay_rows.end(), row.begin(), row.end());
  }
  d.median_beat = bump_row(0);
  d.train_loss = {3.5, 2.25, 1.75};
  d.test_loss = 1.875;
  for (std::size_t i = 0; i < beats; ++i) {
    d.latent.push_back(static_cast<float>(std::cos(static_cast<double>(i))));
    d.latent.push_back(static_cast<float>(std::sin(static_cast<double>(i) * 0.7)));
    d.scores.push_back(static_cast<float>(i % 97) * 0.01f);
    d.classes += i % 10 == 0 ? 'V' : 'N';
  }
  d.grid_side = 5;
  for (int g = 0; g < 25; ++g) {
    const auto row = bump_row(g);
    d.decoded_grid.insert(d.decoded_grid.end(), row.begin(), row.end());
    d.grid_latent.push_back(static_cast<float>(g % 5));
    d.grid_latent.push_back(static_cast<float>(g / 5));
  }
  for (int k = 0; k < 5; ++k) {
    ecgpipe::ReportBeat b;
    b.index = 96 + 97 * k;
    b.time_s = 61.5 + k;
    b.score = 0.96;
    b.length = 50;
    b.row = bump_row(k + 2);
    d.outliers.push_back(b);
  }
  // A Holter summary: 120 beats at 60 bpm (classes: test_holter.cpp checks the table).
  std::vector<std::int64_t> peaks;
  for (std::int64_t i = 0; i < 120; ++i) peaks.push_back(125 + 250 * i);
  d.holter = ecgpipe::holter_summary(peaks, 250.0, {}, 120.0);
  return d;
}

// 10 s at 250 Hz from `start`, a beat each second (P, QRS, T as Gaussians, in mV), classes `cls`
// (one letter a beat; a V beat wide, without P).
ecgpipe::EventStrip strip(const std::string& title, std::int64_t start, const std::string& cls = "NNNNNNNNNN") {
  ecgpipe::EventStrip s;
  s.title = title;
  s.start_sample = start;
  s.event_s = static_cast<double>(start) / 250.0 + 5.0;
  s.signal.assign(2500, 0.0f);
  const auto wave = [&](double centre_s, double mv, double width_s) {
    for (std::size_t i = 0; i < s.signal.size(); ++i) {
      const double z = (static_cast<double>(i) / 250.0 - centre_s) / width_s;
      s.signal[i] += static_cast<float>(mv * std::exp(-0.5 * z * z));
    }
  };
  for (std::size_t k = 0; k < 10; ++k) {
    const double r = 0.5 + static_cast<double>(k);
    const bool v = k < cls.size() && cls[k] == 'V';
    if (!v) wave(r - 0.16, 0.15, 0.025);
    wave(r, v ? 1.6 : 1.2, v ? 0.03 : 0.01);
    wave(r + 0.03, -0.25, 0.012);
    wave(r + 0.3, v ? -0.4 : 0.3, 0.05);
    s.beat_samples.push_back(start + static_cast<std::int64_t>(r * 250.0));
    s.beat_classes += k < cls.size() ? cls[k] : 'N';
  }
  s.units_known = true;
  return s;
}

// Everything the clinical report shows (issue 27's fields), on top of sample_data. 120 beats at
// 250 Hz, a beat a second but one 3.332-s pause after beat 59; V every 20th beat from 10 (6), an
// S run at 55-57 (3); the recording 1.5 h from 08:15:00, 400 s of it artefact.
ReportData clinical_data() {
  ReportData d = sample_data();
  std::vector<std::int64_t> peaks;
  std::vector<char> cls;
  for (std::int64_t i = 0; i < 120; ++i) {
    peaks.push_back(125 + 250 * i + (i >= 60 ? 583 : 0));
    cls.push_back(i % 20 == 10 ? 'V' : i >= 55 && i <= 57 ? 'S' : 'N');
  }
  d.holter = ecgpipe::holter_summary(peaks, 250.0, cls, 5400.0);
  d.rhythm_episodes = std::vector<ecgpipe::RhythmEpisode>{{0, 5000, ecgpipe::Rhythm::N, 20, 60.0},
                                                          {5000, 27500, ecgpipe::Rhythm::AFIB, 90, 95.3},
                                                          {27500, 1350000, ecgpipe::Rhythm::N, 10, 60.0}};
  d.recording_start = "2026-11-26 08:15:00";
  d.recording_s = 5400.0;
  d.analysed_s = 5000.0;
  d.artefact_s = 400.0;
  d.artefact_spans = {{250000, 350000}};
  d.input_description = "250 Hz (WFDB header), signal 'MLII' (0)";
  // Clock hours (HolterHour::start_s / end_s): 08:15-09:00 with the artefact, 09:00-09:45.
  d.hourly = {{0, 2300.0, 120, 6, 3, 45.4, 60.2, 75.6, 1, 90.0, 0.0, 2700.0},
              {1, 2700.0, 0, 0, 0, kNaN, kNaN, kNaN, 0, 0.0, 2700.0, 5400.0}};
  d.pauses = {{59.5, 3.332}};
  d.strips = {strip("Longest pause 3.33 s", 13625), strip("Fastest S run (3 beats, 60 bpm)", 11000, "NNNNVNNNSN")};
  d.strips[1].artefact = {{11000 + 1750, 11000 + 2250}};
  ecgpipe::HrvResult h;
  h.nn_intervals = 100;
  h.rr_intervals = 119;
  h.nn_seconds = 100.04;
  h.mean_nn_ms = 1000.4;
  h.sdnn_ms = 45.6;
  h.sdann_ms = kNaN;
  h.sdnn_index_ms = kNaN;
  h.rmssd_ms = 23.46;
  h.pnn50_percent = 3.1;
  h.segments = 0;
  h.vlf_ms2 = kNaN;
  h.lf_ms2 = 512.4;
  h.hf_ms2 = 256.6;
  h.lf_hf = 1.9968;
  d.hrv = h;
  d.warnings = {"no --fs given: read as 250 Hz", "median heart rate 20 bpm: implausible"};
  d.ec57 = {{"QRS Se", "99.87 %"}, {"VEB +P", "97.10 %"}};
  return d;
}

void expect_self_contained(const std::string& html) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  // Only the SVG namespace URI (an identifier, never fetched) may look like a web address.
  std::string rest = html;
  const std::string ns = "http://www.w3.org/2000/svg";
  for (auto p = rest.find(ns); p != std::string::npos; p = rest.find(ns)) rest.erase(p, ns.size());
  EXPECT_EQ(rest.find("http://"), std::string::npos);
  EXPECT_EQ(rest.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(count_of(html, "<svg"), count_of(html, "</svg>"));
  // A printed NaN or inf: the word not inside another one ("dominant-baseline").
  for (const std::string word : {"nan", "inf"}) {
    for (auto p = html.find(word); p != std::string::npos; p = html.find(word, p + 1))
      EXPECT_TRUE(p > 0 && std::isalpha(static_cast<unsigned char>(html[p - 1]))) << html.substr(p > 40 ? p - 40 : 0, 80);
  }
}

// Every fixed plot once, and one <svg> per event strip besides.
void expect_every_title(const std::string& html, bool model_trained = true) {
  const auto titles = ecgpipe::report_plot_titles(model_trained);
  EXPECT_EQ(titles.size(), model_trained ? 9u : 1u);
  EXPECT_EQ(count_of(html, "<svg"), titles.size() + count_of(html, "<figure class=\"strip\">"));
  for (const auto& t : titles) EXPECT_EQ(count_of(html, "<title>" + t + "</title>"), 1u) << t;
}

// The page from `marker` on (a section and what follows it).
std::string from(const std::string& html, const std::string& marker) {
  const auto p = html.find(marker);
  return p == std::string::npos ? std::string() : html.substr(p);
}

TEST(Report, FullDataGivesEveryPlotAndItsNumbers) {
  const std::string html = ecgpipe::render_report_html(clinical_data());
  expect_self_contained(html);
  expect_every_title(html);
  EXPECT_EQ(html.find("no data"), std::string::npos);
  EXPECT_NE(html.find("rec&lt;1&gt;&amp;.csv"), std::string::npos);
  EXPECT_EQ(html.find("rec<1>"), std::string::npos);
  for (const char* number : {"12,345", "321", "0.125", "2.750", "1.875", "1.75", "#1: beat 96, 0:01:01.5", "all 300 beats",
                             "V (30)", "N (270)", "seed&lt;x&gt;", "z = (4.00, 4.00)", "13 R peaks"})
    EXPECT_NE(html.find(number), std::string::npos) << number;
}

// The page in three parts (run draws the body and the appendix's figures while the run's last
// timings are not known yet): body then end is the whole page, byte for byte, and only the end's
// own part holds the timings; figures drawn before the timings are set are the figures after.
TEST(Report, BodyFiguresThenEndIsThePageAndOnlyTheEndHasTheTimings) {
  ReportData holter_only = clinical_data();
  holter_only.model_trained = false;
  for (const ReportData& d : {clinical_data(), sample_data(), ReportData(), holter_only}) {
    std::ostringstream body, end;
    ecgpipe::write_report_html_body(body, d);
    const std::string figures = ecgpipe::report_html_appendix_figures(d);
    EXPECT_EQ(figures.empty(), !d.model_trained);
    ecgpipe::write_report_html_end(end, d, figures);
    EXPECT_EQ(body.str() + end.str(), ecgpipe::render_report_html(d));
    EXPECT_NE(end.str().find(figures), std::string::npos);
    const std::string closing = "</body>\n</html>\n";
    ASSERT_GE(end.str().size(), closing.size());
    EXPECT_EQ(end.str().substr(end.str().size() - closing.size()), closing);
  }
  ReportData d = sample_data();
  ASSERT_TRUE(d.model_trained);
  std::ostringstream body;
  ecgpipe::write_report_html_body(body, d);
  const std::string figures = ecgpipe::report_html_appendix_figures(d);
  d.stage_seconds = {{"read CSV", 0.125}, {"train", 2.5}, {"total", 9.875}};
  EXPECT_EQ(ecgpipe::report_html_appendix_figures(d), figures);
  std::ostringstream end;
  ecgpipe::write_report_html_end(end, d, figures);
  EXPECT_EQ(body.str().find("9.875"), std::string::npos);
  EXPECT_EQ(figures.find("9.875"), std::string::npos);
  EXPECT_NE(end.str().find("9.875"), std::string::npos) << "timings set after the body and figures were drawn";
  EXPECT_EQ(body.str() + end.str(), ecgpipe::render_report_html(d));
}

// The histogram says what its values are: row lengths (seed rows) or RR intervals (rr rows).
TEST(Report, LengthHistogramOfBeatsOrOfRrIntervals) {
  auto d = sample_data();  // 250 Hz: 4 ms a sample; lengths 150..189 (150..169 eight times each, 170..189 seven), median 168
  // In ms (4 ms a sample): 600..756 ms, median 672 ms, a bin per sample.
  const std::string rows = ecgpipe::render_report_html(d);
  EXPECT_NE(rows.find("beat length (ms)"), std::string::npos);
  EXPECT_NE(rows.find("300 beats, 600..756 ms, median 672 ms (bins of 4.0 ms)."), std::string::npos);
  EXPECT_EQ(rows.find("samples;"), std::string::npos);
  d.lengths_are_rr = true;
  const std::string rr = ecgpipe::render_report_html(d);
  EXPECT_EQ(rr.find("beat length (ms)"), std::string::npos);
  EXPECT_NE(rr.find("RR interval to the next beat (ms)"), std::string::npos);
  EXPECT_NE(rr.find("300 RR intervals between kept beats, 600..756 ms, median 672 ms (bins of 4.0 ms)."),
            std::string::npos);
}

TEST(Report, EmptyDataGivesNoDataPanels) {
  const ReportData empty;
  const std::string html = ecgpipe::render_report_html(empty);
  expect_self_contained(html);
  expect_every_title(html);
  // Each fixed plot is a "no data" panel; each clinical section says what it lacks.
  EXPECT_EQ(count_of(from(html, "id=\"appendix\""), "no data:"), ecgpipe::report_plot_titles().size() - 1);
  for (const char* why : {"no data: no Holter summary", "no data: no hourly table", "no data: no event strips",
                          "no data: heart-rate variability not computed", "no data: no rhythm analysis"})
    EXPECT_NE(html.find(why), std::string::npos) << why;
  EXPECT_NE(html.find("<tr><th>recording time</th><td>—</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>file</th><td>—</td></tr>"), std::string::npos);
}

TEST(Report, NanInputsAreSkippedOrGiveNoData) {
  ReportData d = sample_data();
  for (auto& v : d.excerpt_signal) v = static_cast<float>(kNaN);
  for (auto& v : d.overlay_rows) v = static_cast<float>(kNaN);
  for (auto& v : d.decoded_grid) v = static_cast<float>(kNaN);
  for (auto& v : d.latent) v = static_cast<float>(kNaN);
  for (auto& o : d.outliers)
    for (auto& v : o.row) v = static_cast<float>(kNaN);
  d.median_beat.clear();
  d.train_loss = {kNaN, 2.0, kNaN};  // one finite epoch still draws
  d.test_loss = kNaN;
  d.scores[3] = static_cast<float>(kNaN);
  const std::string html = ecgpipe::render_report_html(d);
  expect_self_contained(html);
  expect_every_title(html);
  EXPECT_NE(html.find("no data: no signal excerpt"), std::string::npos);
  EXPECT_NE(html.find("no data: beat rows are not finite"), std::string::npos);
  EXPECT_NE(html.find("no data: decoded beats are not finite"), std::string::npos);
  EXPECT_NE(html.find("no data: outlier rows are not finite"), std::string::npos);
  EXPECT_NE(html.find("no data: no latent means"), std::string::npos);
  EXPECT_EQ(html.find("no data: no loss values"), std::string::npos);
}

TEST(Report, MismatchedOrMissingPiecesSayNotAvailable) {
  ReportData d = sample_data();
  d.classes = "NV";  // not one per beat
  d.decoded_grid.pop_back();
  d.excerpt_bandpassed.clear();
  const std::string html = ecgpipe::render_report_html(d);
  expect_self_contained(html);
  EXPECT_NE(html.find("do not match the beats"), std::string::npos);
  EXPECT_NE(html.find("decoded grid not available"), std::string::npos);
  EXPECT_NE(html.find("band-passed curve not available"), std::string::npos);
  d.classes.clear();
  EXPECT_NE(ecgpipe::render_report_html(d).find("no reference classes given"), std::string::npos);
}

TEST(Report, LargeScatterIsSubsampledAndSaysSo) {
  constexpr std::size_t kBeats = 100000;
  ReportData d = sample_data(kBeats);
  d.scores[77777] = 1000.0f;  // the top outlier must be drawn
  d.latent[2 * 77777] = 50.0f;
  const std::string html = ecgpipe::render_report_html(d);
  expect_self_contained(html);
  EXPECT_NE(html.find("20,000 of 100,000 beats"), std::string::npos);
  // The point at latent x = 50 widens the x axis: a tick label of 50 appears only if it is drawn.
  EXPECT_NE(html.find(">50</text>"), std::string::npos);
  constexpr std::size_t kMaxBytes = 3u << 20;  // both scatters plus the rest stay a few MB at most
  EXPECT_LT(html.size(), kMaxBytes);
}

TEST(ScatterSubsample, KeepsTheGivenIndicesIsCappedAndDeterministic) {
  const std::vector<std::size_t> keep{99999, 5, 77777, 5, 123457 /* out of range: ignored */};
  const auto a = ecgpipe::scatter_subsample(100000, keep, 1000);
  const auto b = ecgpipe::scatter_subsample(100000, keep, 1000);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), a.size());
  for (std::size_t k : {99999u, 5u, 77777u}) EXPECT_TRUE(std::binary_search(a.begin(), a.end(), k)) << k;
  EXPECT_EQ(a.back(), 99999u);
  // Evenly spaced: no gap between drawn indices much wider than n / max_points.
  for (std::size_t i = 1; i < a.size(); ++i) EXPECT_LE(a[i] - a[i - 1], 2 * 100000u / 1000u) << i;
  // Every index kept when the cap is large enough to need them all... and a dense keep list works.
  std::vector<std::size_t> dense(500);
  for (std::size_t i = 0; i < dense.size(); ++i) dense[i] = 2 * i;
  const auto c = ecgpipe::scatter_subsample(1000, dense, 900);
  EXPECT_EQ(c.size(), 900u);
  EXPECT_EQ(std::set<std::size_t>(c.begin(), c.end()).size(), c.size());
  EXPECT_LT(c.back(), 1000u);
}

TEST(ScatterSubsample, SmallInputsAreKeptWhole) {
  const auto a = ecgpipe::scatter_subsample(10, {3}, 20);
  ASSERT_EQ(a.size(), 10u);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], i);
  EXPECT_TRUE(ecgpipe::scatter_subsample(0, {}, 20).empty());
  // More kept indices than the cap: all of them, nothing else.
  EXPECT_EQ(ecgpipe::scatter_subsample(100, {1, 2, 3}, 2), (std::vector<std::size_t>{1, 2, 3}));
}

TEST(Report, RunWritesReportHtmlWithEveryPlot) {
  const auto dir = testutil::fresh_dir();
  const auto out = dir / "out";
  const auto r = testutil::run_ecgpipe(std::string("run '") + ECGPIPE_SOURCE_DIR +
                                           "/data/sample.csv' --device cpu --epochs 2 -q --out '" + out.string() + "'",
                                       dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testutil::read_text(out / "report.html");
  ASSERT_FALSE(html.empty());
  expect_self_contained(html);
  expect_every_title(html);
  // The default (rr) model's rows all have one length: the histogram shows the RR intervals, 703
  // between the sample's 704 beats.
  for (const char* needle : {"sample.csv", "150,000", "beat classes (predicted)", "RR interval to the next beat",
                             "703 RR intervals between kept beats"})
    EXPECT_NE(html.find(needle), std::string::npos) << needle;
  // Everything the pipeline has is drawn in the model appendix; without a reference the class
  // scatter shows the predicted classes (issue 10).
  EXPECT_EQ(count_of(from(html, "id=\"appendix\""), "no data:"), 0u);
  EXPECT_EQ(html.find("not available"), std::string::npos);
  // A beat's time reads the same in outliers.csv (rank,index,r_peak,time_s,time,...) and in its
  // outlier panel ("#rank: beat index, time, ...").
  std::istringstream csv(testutil::read_text(out / "outliers.csv"));
  std::string line;
  std::getline(csv, line);  // header
  for (int rank = 1; rank <= 3 && std::getline(csv, line); ++rank) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 5u) << line;
    const std::string panel = "#" + cells[0] + ": beat " + cells[1] + ", " + cells[4] + ",";
    EXPECT_NE(html.find(panel), std::string::npos) << panel;
  }
}

// The order a cardiologist reads: warnings, summary, hourly table, strips, HRV, rhythm / runs /
// pauses, EC57, and the model appendix last.
TEST(Report, SectionsComeInTheHolterReportsOrder) {
  const std::string html = ecgpipe::render_report_html(clinical_data());
  expect_self_contained(html);
  std::size_t last = 0;
  for (const char* id : {"warnings", "summary", "hourly", "strips", "hrv", "events", "ec57", "appendix"}) {
    const auto p = html.find(std::string("id=\"") + id + "\"");
    ASSERT_NE(p, std::string::npos) << id;
    EXPECT_GT(p, last) << id;
    last = p;
  }
  EXPECT_LT(html.find("id=\"warnings\""), html.find("<h1>"));  // the banner above everything
  EXPECT_EQ(from(html, "id=\"appendix\"").find("<section", 1), std::string::npos);  // nothing after the appendix
  EXPECT_LT(html.find("<title>Heart rate per minute</title>"), html.find("id=\"ec57\""));
  EXPECT_GT(html.find("<title>Loss per epoch</title>"), html.find("id=\"appendix\""));
  EXPECT_EQ(count_of(html, "<figure class=\"strip\">"), 2u);
  expect_every_title(html);
}

// The clinical summary rounds to what the numbers mean: whole bpm, times to the second (clock time
// from the start), pauses to 0.01 s, rates per hour analysed to 0.1.
TEST(Report, ClinicalSummaryIsRoundedAndInClockTime) {
  const std::string html = ecgpipe::render_report_html(clinical_data());
  for (const char* row : {
           "<tr><th>recording start</th><td>2026-11-26 08:15:00</td></tr>",
           "<tr><th>recording time</th><td>1:30:00</td></tr>",
           "<tr><th>analysed time</th><td>1:23:20 (92.6 %)</td></tr>",
           "<tr><th>artefact (left out)</th><td>0:06:40 (7.4 %) in 1 stretch</td></tr>",
           "<tr><th>input</th><td>250 Hz (WFDB header), signal &#39;MLII&#39; (0)</td></tr>",
           "<tr><th>beats</th><td>120</td></tr>",
           "<tr><th>beats</th><td>6</td><td>3</td></tr>",
           "<tr><th>per hour analysed</th><td>4.3</td><td>2.2</td></tr>",  // 6 and 3 in 5000 s
           "<tr><th>couplets</th><td>0</td><td>0</td></tr>",
           "<tr><th>runs (≥ 3)</th><td>0</td><td>1</td></tr>",
           "<tr><th>longest run</th><td>—</td><td>3 beats</td></tr>",
           "<tr><th>pauses ≥ 2.0 s</th><td>1</td></tr>",
           "<tr><th>longest pause</th><td>3.33 s at 08:16:00</td></tr>",  // beat 59 at 59.5 s
           "<tr><th>predominant</th><td>sinus or other (not AF, VT, IVR, SVTA, bigeminy, trigeminy)</td></tr>",
           "<tr><th>AF episodes</th><td>1</td></tr>",
           "<tr><th>longest AF episode</th><td>0:01:30</td></tr>",
           "<tr><th>heart rate in AF</th><td>95 bpm</td></tr>",
       })
    EXPECT_NE(html.find(row), std::string::npos) << row;
  EXPECT_NE(html.find("Times are clock time."), std::string::npos);
  EXPECT_EQ(html.find("extrapolated"), std::string::npos);  // 1:23:20 analysed: no extrapolation
  // The HR row's rate is whole bpm with a clock time.
  const std::string summary = from(html, "id=\"summary\"").substr(0, from(html, "id=\"summary\"").find("</section>"));
  EXPECT_NE(summary.find("<tr><th>min (8-beat average)</th><td>"), std::string::npos);
  EXPECT_NE(summary.find(" bpm at 08:1"), std::string::npos);
}

// The heart-rate trend's time axis reads as the page's other times: the clock's, ticks on round
// clock times, where the start is known (08:15 + 90 min: 08:20 .. 09:40 every 10 min); else the
// time from the start, h:mm. Once it was "minute of the recording" whatever the start.
TEST(Report, HeartRateTrendAxisIsInClockTime) {
  ReportData d = clinical_data();
  std::string html = ecgpipe::render_report_html(d);
  std::string trend = from(html, "aria-label=\"" + std::string("Heart rate per minute"));
  trend = trend.substr(0, trend.find("</svg>"));
  for (const char* label : {">08:20</text>", ">08:30</text>", ">09:40</text>", ">clock time</text>"})
    EXPECT_NE(trend.find(label), std::string::npos) << label;
  EXPECT_EQ(trend.find(">08:15</text>"), std::string::npos) << "08:15 is no round ten minutes";
  EXPECT_EQ(trend.find("minute of the recording"), std::string::npos);
  d.recording_start.clear();
  html = ecgpipe::render_report_html(d);
  trend = from(html, "aria-label=\"" + std::string("Heart rate per minute"));
  trend = trend.substr(0, trend.find("</svg>"));
  for (const char* label : {">0:00</text>", ">0:10</text>", ">1:30</text>", ">time from the start (h:mm)</text>"})
    EXPECT_NE(trend.find(label), std::string::npos) << label;
}

TEST(Report, UnderAnHourAnalysedThePerHourRatesSayTheyAreExtrapolated) {
  ReportData d = clinical_data();
  d.recording_s = 1800.0;
  d.analysed_s = 1800.0;  // 6 VEB in 30 min: 12.0 per hour, extrapolated
  d.recording_start.clear();
  const std::string html = ecgpipe::render_report_html(d);
  EXPECT_NE(html.find("<tr><th>per hour analysed</th><td>12.0</td><td>6.0</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("with 0:30:00 analysed, under an hour, they are <b>extrapolated</b>"), std::string::npos);
  // Without a start, times are elapsed and the page says so.
  EXPECT_NE(html.find("Times are elapsed time from the start of the recording."), std::string::npos);
  EXPECT_NE(html.find("<tr><th>longest pause</th><td>3.33 s at 0:01:00</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>0:00–0:45</th>"), std::string::npos);  // the first row's span, elapsed
}

TEST(Report, HourlyTableHrvAndEc57Rows) {
  const std::string html = ecgpipe::render_report_html(clinical_data());
  for (const char* row : {
           "<tr><th>hour</th><th>analysed</th><th>beats</th><th>HR min</th><th>HR mean</th><th>HR max</th><th>VEB</th>"
           "<th>SVEB</th><th>pauses</th><th>AF (min)</th></tr>",
           "<tr><th>08:15–09:00</th><td>0:38:20</td><td>120</td><td>45</td><td>60</td><td>76</td><td>6</td><td>3</td>"
           "<td>1</td><td>1.5</td></tr>",
           "<tr><th>09:00–09:45</th><td>0:45:00</td><td>0</td><td>—</td><td>—</td><td>—</td><td>0</td><td>0</td>"
           "<td>0</td><td>0.0</td></tr>",
           "<tr><th>total</th><td>1:23:20</td><td>120</td><td>45</td>",
           // Its rates are the summary's (an APC's interval is no hourly maximum).
           "</table>\n<p class=\"note\">HR min and max are 8-beat averages, as in the summary; HR mean is over the "
           "hour's RR intervals.</p>",
           "<tr><th>NN intervals used</th><td>100 of 119 RR (84.0 %), 0:01:40</td></tr>",
           "<tr><th>mean NN</th><td>1000 ms</td></tr>",
           "<tr><th>SDNN</th><td>46 ms</td></tr>",
           "<tr><th>SDANN (5-min means)</th><td>—</td></tr>",
           "<tr><th>SDNN index (5-min SDs)</th><td>—</td></tr>",
           "<tr><th>RMSSD</th><td>23.5 ms</td></tr>",
           "<tr><th>pNN50</th><td>3.1 %</td></tr>",
           "<tr><th>VLF (0.0033–0.04 Hz)</th><td>—</td></tr>",
           "<tr><th>LF (0.04–0.15 Hz)</th><td>512 ms²</td></tr>",
           "<tr><th>HF (0.15–0.4 Hz)</th><td>257 ms²</td></tr>",
           "<tr><th>LF/HF</th><td>2.00</td></tr>",
           "<tr><th>QRS Se</th><td>99.87 %</td></tr>",
           "<tr><th>VEB +P</th><td>97.10 %</td></tr>",
           // The lists: the AF episode, the S run, the pause, with clock times.
           "<tr><th>atrial fibrillation</th><td>08:15:20</td><td>0:01:30</td><td>90</td><td>95 bpm</td></tr>",
           "<tr><th>S (supraventricular)</th><td>08:15:56</td><td>3</td><td>60 bpm</td></tr>",
           "<tr><th>08:16:00</th><td>3.33 s</td></tr>",
       })
    EXPECT_NE(html.find(row), std::string::npos) << row;
  ReportData d = clinical_data();
  d.ec57.clear();
  EXPECT_EQ(ecgpipe::render_report_html(d).find("id=\"ec57\""), std::string::npos);  // no reference, no section
}

// HRV from less than the Task Force's shortest standard recording (5 minutes of NN intervals: a
// record mostly in AF or ectopy, a short recording) is shown, and said to be short where it is
// read: MIT-BIH 203's SDNN came from 3 NN intervals beside "3 of 2 197 RR" and nothing more.
TEST(Report, HrvFromUnderFiveMinutesOfNnIntervalsIsSaidToBeShort) {
  ReportData d = clinical_data();  // 100 NN intervals, 100.04 s of them
  const std::string note =
      "<p class=\"note\"><b>From 0:01:40 of NN intervals</b>: under the 5 minutes of the Task Force's shortest "
      "standard recording, so these figures are not comparable with published values.</p>";
  const std::string short_html = ecgpipe::render_report_html(d);
  EXPECT_NE(short_html.find(note), std::string::npos);
  EXPECT_LT(short_html.find("id=\"hrv\""), short_html.find(note));
  d.hrv->nn_seconds = 300.0;  // exactly 5 minutes: the standard's own length, no note
  const std::string html = ecgpipe::render_report_html(d);
  EXPECT_EQ(html.find("<b>From "), std::string::npos);
  EXPECT_NE(html.find("<tr><th>NN intervals used</th><td>100 of 119 RR (84.0 %), 0:05:00</td></tr>"), std::string::npos);
}

// Strings from file names and the input reach the page only escaped.
TEST(Report, HostileStringsAreEscapedEverywhere) {
  ReportData d = clinical_data();
  const std::string evil = "<script>alert('x')</script>\"&amp;";
  const std::string escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;amp;";
  d.file_name = evil + ".csv";
  d.warnings = {evil};
  d.strips[0].title = evil;
  d.recording_start = evil;
  d.input_description = evil;
  d.ec57 = {{evil, evil}};
  d.settings = {{evil, evil}};
  d.score_name = evil;
  d.device = evil;
  const std::string html = ecgpipe::render_report_html(d);
  expect_self_contained(html);  // no <script anywhere
  EXPECT_EQ(html.find(evil), std::string::npos);
  EXPECT_EQ(html.find("alert('x')"), std::string::npos);
  EXPECT_NE(html.find("<li>" + escaped + "</li>"), std::string::npos);                                // warning
  EXPECT_NE(html.find("<h1>Holter report: " + escaped + ".csv</h1>"), std::string::npos);             // file name
  EXPECT_NE(html.find("<figcaption class=\"strip-title\">" + escaped + " — "), std::string::npos);    // strip title
  EXPECT_NE(html.find("<tr><th>recording start</th><td>&#39;" + escaped), std::string::npos);        // unreadable start
  EXPECT_NE(html.find("<tr><th>input</th><td>" + escaped + "</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>" + escaped + "</th><td>" + escaped + "</td></tr>"), std::string::npos);  // EC57 row
}

// NaN and empty clinical fields: "—" or "no data", never "nan" and never a crash.
TEST(Report, NanAndEmptyClinicalFieldsReadAsDashOrNoData) {
  ReportData d = clinical_data();
  ecgpipe::HrvResult nan_hrv;
  nan_hrv.mean_nn_ms = nan_hrv.sdnn_ms = nan_hrv.sdann_ms = nan_hrv.sdnn_index_ms = nan_hrv.rmssd_ms = kNaN;
  nan_hrv.pnn50_percent = nan_hrv.vlf_ms2 = nan_hrv.lf_ms2 = nan_hrv.hf_ms2 = nan_hrv.lf_hf = kNaN;
  d.hrv = nan_hrv;
  d.hourly = {{0, kNaN, 0, 0, 0, kNaN, kNaN, kNaN, 0, kNaN, kNaN, kNaN}};
  d.holter = ecgpipe::holter_summary({125}, 250.0, {'N'}, 0.0);  // one beat: no rate, no pause
  d.recording_s = d.analysed_s = d.artefact_s = kNaN;
  d.pauses = {{kNaN, kNaN}};
  d.rhythm_episodes = std::vector<ecgpipe::RhythmEpisode>{};
  d.strips = {ecgpipe::EventStrip{}};  // no samples at all
  d.strips[0].event_s = kNaN;
  const std::string html = ecgpipe::render_report_html(d);
  expect_self_contained(html);
  for (const char* row : {"<tr><th>SDNN</th><td>—</td></tr>", "<tr><th>LF/HF</th><td>—</td></tr>",
                          "<tr><th>NN intervals used</th><td>0 of 0 RR (—), 0:00:00</td></tr>", "<tr><th>mean</th><td>—</td></tr>",
                          "<tr><th>min (8-beat average)</th><td>—</td></tr>", "<tr><th>longest RR interval</th><td>—</td></tr>",
                          "<tr><th>—</th><td>—</td><td>0</td><td>—</td><td>—</td><td>—</td><td>0</td><td>0</td><td>0</td><td>—</td></tr>",
                          "<tr><th>—</th><td>—</td></tr>",
                          "<tr><th>predominant</th><td>—</td></tr>", ">no signal</text>"})
    EXPECT_NE(html.find(row), std::string::npos) << row;
}

// Holter analysis without training: no model panels, no appendix.
TEST(Report, WithoutATrainedModelThereIsNoAppendix) {
  ReportData d = clinical_data();
  d.model_trained = false;
  const std::string html = ecgpipe::render_report_html(d);
  expect_self_contained(html);
  expect_every_title(html, false);
  EXPECT_EQ(html.find("id=\"appendix\""), std::string::npos);
  for (const auto& t : ecgpipe::report_plot_titles(true)) {
    if (t != "Heart rate per minute") {
      EXPECT_EQ(html.find(t), std::string::npos) << t;
    }
  }
  for (const char* model_word : {"latent", "epoch", "<caption>Counts</caption>", "autoencoder"})
    EXPECT_EQ(html.find(model_word), std::string::npos) << model_word;
  EXPECT_EQ(count_of(html, "<svg"), 3u);  // the HR trend and the two strips
}

// A ReportData filled as before issue 27 (no clinical fields) still gives a whole page.
TEST(Report, AnOldCallersDataStillRenders) {
  const std::string html = ecgpipe::render_report_html(sample_data());
  expect_self_contained(html);
  expect_every_title(html);
  EXPECT_EQ(html.find("id=\"warnings\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"ec57\""), std::string::npos);
  for (const char* text : {"<tr><th>recording start</th><td>not in the input: times are elapsed from the start of the recording</td></tr>",
                           "<tr><th>recording time</th><td>0:02:00</td></tr>",  // the Holter summary's duration
                           "<tr><th>analysed time</th><td>0:02:00 (100.0 %)</td></tr>",
                           "<tr><th>input</th><td>250 Hz</td></tr>", "<tr><th>mean</th><td>60 bpm</td></tr>",
                           "n/a (no beat classes)", "no data: no event strips", "no data: no hourly table",
                           "no data: heart-rate variability not computed", "id=\"appendix\""})
    EXPECT_NE(html.find(text), std::string::npos) << text;
  // With classes but no hourly rows, the Holter summary's hours give the counts.
  ReportData d = sample_data();
  d.holter = ecgpipe::holter_summary({125, 375, 625}, 250.0, {'N', 'V', 'N'}, 0.0);
  EXPECT_NE(ecgpipe::render_report_html(d).find("<tr><th>0:00–0:00:02</th><td>3</td><td>1</td><td>0</td></tr>"),
            std::string::npos);
}

// The hand-made clinical page, written where ECGPIPE_REPORT_SAMPLE names (to look at it, e.g.
// with scripts/render-report.sh) and checked whole; without the variable only checked.
TEST(Report, SamplePageForLooking) {
  const std::string html = ecgpipe::render_report_html(clinical_data());
  expect_self_contained(html);
  if (const char* path = std::getenv("ECGPIPE_REPORT_SAMPLE")) {
    std::ofstream out(path, std::ios::binary);
    out << html;
    ASSERT_TRUE(out.good()) << path;
  }
}

}  // namespace
