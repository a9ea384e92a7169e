// report.html: the renderer on hand-made data (self-contained, every plot, odd inputs), the
// scatter subsample, and the page `ecgpipe run` writes.
#include <gtest/gtest.h>

#include <cctype>
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

void expect_every_title(const std::string& html) {
  const auto& titles = ecgpipe::report_plot_titles();
  EXPECT_EQ(titles.size(), 9u);
  EXPECT_EQ(count_of(html, "<svg"), titles.size());
  for (const auto& t : titles) EXPECT_NE(html.find("<title>" + t + "</title>"), std::string::npos) << t;
}

TEST(Report, FullDataGivesEveryPlotAndItsNumbers) {
  const std::string html = ecgpipe::render_report_html(sample_data());
  expect_self_contained(html);
  expect_every_title(html);
  EXPECT_EQ(html.find("no data"), std::string::npos);
  EXPECT_NE(html.find("rec&lt;1&gt;&amp;.csv"), std::string::npos);
  EXPECT_EQ(html.find("rec<1>"), std::string::npos);
  for (const char* number : {"12,345", "321", "0.125", "2.750", "1.875", "1.75", "#1: beat 96, 0:01:01.5", "all 300 beats",
                             "V (30)", "N (270)", "seed&lt;x&gt;", "z = (4.00, 4.00)", "13 R peaks"})
    EXPECT_NE(html.find(number), std::string::npos) << number;
}

// The histogram says what its values are: row lengths (seed rows) or RR intervals (rr rows).
TEST(Report, LengthHistogramOfBeatsOrOfRrIntervals) {
  auto d = sample_data();  // 250 Hz: 4 ms a sample; lengths 150..189 (150..169 eight times each, 170..189 seven), median 168
  const std::string rows = ecgpipe::render_report_html(d);
  EXPECT_NE(rows.find("beat length (samples; 4.0 ms each)"), std::string::npos);
  EXPECT_NE(rows.find("beats, 150..189 samples, median 168 (bins of 1)."), std::string::npos);
  d.lengths_are_rr = true;
  const std::string rr = ecgpipe::render_report_html(d);
  EXPECT_EQ(rr.find("beat length (samples"), std::string::npos);
  EXPECT_NE(rr.find("RR interval to the next beat (samples; 4.0 ms each)"), std::string::npos);
  EXPECT_NE(rr.find(" RR intervals between kept beats, 150..189 samples, median 168 (672 ms) (bins of 1)."),
            std::string::npos);
}

TEST(Report, EmptyDataGivesNoDataPanels) {
  const ReportData empty;
  const std::string html = ecgpipe::render_report_html(empty);
  expect_self_contained(html);
  expect_every_title(html);
  EXPECT_EQ(count_of(html, "no data:"), ecgpipe::report_plot_titles().size());
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
  // Everything the pipeline has is drawn; without a reference the class scatter shows the
  // predicted classes (issue 10).
  EXPECT_EQ(count_of(html, "no data:"), 0u);
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

}  // namespace
