// report.html: the page in its order (warnings, the clinical sections, event strips, the model
// appendix) and the appendix's panels (plots and captions), drawn with the SVG toolkit
// (src/report/svg.hpp) from a ReportData. The clinical sections are src/report/report_holter.cpp,
// the strips src/report/report_strip.cpp. No scripts, no external fonts or images: the file works
// offline as is. The run -> ReportData mapping is src/pipeline/report_from_run.cpp.
#include "ecgpipe/report/report.hpp"

#include "common/clock.hpp"
#include "report/report_holter.hpp"
#include "report/report_strip.hpp"
#include "report/report_time.hpp"
#include "report/svg.hpp"
#include "common/time_format.hpp"
#include "common/xml_escape.hpp"
#include "ecgpipe/model/outlier_score.hpp"  // top_scores: the one outlier ranking

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <sstream>

namespace ecgpipe {
namespace {

using namespace svg;
using detail::clock_duration;
using detail::recording_time;

// ---------------------------------------------------------------------------------------------
// The page's plots

constexpr double kFullWidth = 1300;  // px: a full-width figure
constexpr double kHalfWidth = 640;   // px: two figures side by side
constexpr double kPlotHeight = 340;  // px: a single plot's height
constexpr double kNoDataHeight = 120;

const char* const kTitleExcerpt = "Signal excerpt with R peaks";
const char* const kTitleLengths = "Beat lengths";
const char* const kTitleOverlay = "Overlaid beats";
const char* const kTitleLoss = "Loss per epoch";
const char* const kTitleLatentScore = "Latent space by score";
const char* const kTitleLatentClass = "Latent space by class";
const char* const kTitleGrid = "Beats decoded from a latent grid";
const char* const kTitleOutliers = "Top outliers over the median beat";

struct Panel {
  std::string svg;
  std::string caption;
};

// A figure with its title and a grey message where the plot would be.
Panel no_data(const std::string& title, double width, const std::string& why) {
  svg::Figure f(title, width, kNoDataHeight);
  constexpr double kInset = 8;
  f.raw("<rect x=\"" + px(kInset) + "\" y=\"" + px(svg::Figure::kTitleHeight) + "\" width=\"" + px(width - 2 * kInset) +
        "\" height=\"" + px(kNoDataHeight - kInset) + "\" fill=\"#f6f6f6\" stroke=\"#dddddd\"/>\n<text x=\"" +
        px(width / 2) + "\" y=\"" + px(svg::Figure::kTitleHeight + kNoDataHeight / 2) +
        "\" text-anchor=\"middle\" dominant-baseline=\"middle\" font-size=\"14\" fill=\"" + kNoteColour +
        "\">no data: " + xml_escape(why) + "</text>\n");
  return {f.str(), ""};
}


// x values of a beat row in ms from the beat's start; `length` (0 = all) limits the row.
std::vector<double> beat_ms(std::size_t n, double fs) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i) / fs * detail::kMsPerSecond;
  return x;
}
std::vector<double> row_values(const float* row, std::size_t cols, std::int32_t length) {
  const std::size_t n = length > 0 ? std::min(cols, static_cast<std::size_t>(length)) : cols;
  return std::vector<double>(row, row + n);
}

Panel excerpt_panel(const ReportData& d) {
  const double fs = sample_rate(d);
  const std::size_t n = d.excerpt_signal.size();
  Extent ys;
  ys.add_all(d.excerpt_signal);
  if (ys.empty()) return no_data(kTitleExcerpt, kFullWidth, "no signal excerpt");
  std::vector<double> t(n), sig(d.excerpt_signal.begin(), d.excerpt_signal.end());
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<double>(d.excerpt_start + static_cast<std::int64_t>(i)) / fs;
  const Range tr{t.front(), t.back() > t.front() ? t.back() : t.front() + 1.0 / fs};

  // The peaks inside the excerpt, on the raw signal and (delayed) on the band-passed curve.
  std::vector<double> pt, pv, ct, cv;
  for (std::int64_t p : d.excerpt_peaks) {
    const std::int64_t i = p - d.excerpt_start;
    if (i >= 0 && i < static_cast<std::int64_t>(n)) {
      pt.push_back(t[static_cast<std::size_t>(i)]);
      pv.push_back(sig[static_cast<std::size_t>(i)]);
    }
    const std::int64_t j = i + d.curve_delay;
    if (j >= 0 && j < static_cast<std::int64_t>(d.excerpt_bandpassed.size())) {
      ct.push_back(static_cast<double>(d.excerpt_start + j) / fs);
      cv.push_back(d.excerpt_bandpassed[static_cast<std::size_t>(j)]);
    }
  }

  constexpr double kStackedHeight = 250;  // each of the two stacked plots
  constexpr double kPeakRadius = 3.5;
  svg::Figure f(kTitleExcerpt, kFullWidth, 2 * kStackedHeight);
  svg::Plot top(kFullWidth, kStackedHeight, tr, ys.range(kYPad));
  top.labels("time (s)", "signal (as read)").subtitle("raw signal, R peaks of kept beats");
  top.line(t, sig, {kLineColour, 1.0});
  top.dots(pt, pv, kAccentColour, kPeakRadius);
  f.add(top, 0, 0);

  Extent cs;
  cs.add_all(d.excerpt_bandpassed);
  svg::Plot bottom(kFullWidth, kStackedHeight, tr, cs.empty() ? Range{} : cs.range(kYPad));
  bottom.labels("time (s)", "band-passed").subtitle("Ricker band-passed curve (the detector's input), its peaks");
  if (cs.empty()) {
    bottom.note("band-passed curve not available");
  } else {
    std::vector<double> tc(d.excerpt_bandpassed.size());
    for (std::size_t i = 0; i < tc.size(); ++i) tc[i] = static_cast<double>(d.excerpt_start + static_cast<std::int64_t>(i)) / fs;
    bottom.line(tc, std::vector<double>(d.excerpt_bandpassed.begin(), d.excerpt_bandpassed.end()), {"#2ca02c", 1.0});
    bottom.dots(ct, cv, kAccentColour, kPeakRadius);
  }
  f.add(bottom, 0, kStackedHeight);
  return {f.str(), thousands(pt.size()) + " R peaks in " + fixed(static_cast<double>(n) / fs, 1) + " s from " +
                       recording_time(tr.lo) + "; red dots: R peaks of kept beats (the curve's peak lags by " +
                       std::to_string(d.curve_delay) + " samples)."};
}

Panel lengths_panel(const ReportData& d) {
  Extent e;
  e.add_all(d.beat_lengths);
  if (e.empty()) return no_data(kTitleLengths, kHalfWidth, "no beats");
  const std::int64_t lo_i = *std::min_element(d.beat_lengths.begin(), d.beat_lengths.end());
  const std::int64_t hi_i = *std::max_element(d.beat_lengths.begin(), d.beat_lengths.end());
  constexpr std::int64_t kMaxBins = 60;  // narrower bars than ~8 px are hard to read
  const std::int64_t width = std::max<std::int64_t>(1, (hi_i - lo_i + kMaxBins) / kMaxBins);
  const std::int64_t bins = (hi_i - lo_i) / width + 1;
  // Binned in whole samples (no empty or double bins from rounding), drawn and told in ms.
  const double ms = detail::kMsPerSecond / sample_rate(d);
  std::vector<double> counts(static_cast<std::size_t>(bins), 0.0), edges;
  for (auto len : d.beat_lengths) counts[static_cast<std::size_t>((len - lo_i) / width)] += 1.0;
  for (std::int64_t b = 0; b <= bins; ++b) edges.push_back(static_cast<double>(lo_i + b * width) * ms);
  const double top = *std::max_element(counts.begin(), counts.end());
  svg::Figure f(kTitleLengths, kHalfWidth, kPlotHeight);
  svg::Plot p(kHalfWidth, kPlotHeight, {edges.front(), edges.back()}, {0.0, top * (1.0 + kYPad)});
  const std::string what = d.lengths_are_rr ? "RR interval to the next beat" : "beat length";
  p.labels(what + " (ms)", "beats");
  p.bars(edges, counts, kLineColour);
  f.add(p, 0, 0);
  std::vector<std::int32_t> sorted = d.beat_lengths;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  const std::int32_t median = sorted[sorted.size() / 2];
  const std::string counted = d.lengths_are_rr ? " RR intervals between kept beats, " : " beats, ";
  const auto in_ms = [&](double samples) { return fixed(samples * ms, 0); };
  return {f.str(), thousands(d.beat_lengths.size()) + counted + in_ms(static_cast<double>(lo_i)) + ".." +
                       in_ms(static_cast<double>(hi_i)) + " ms, median " + in_ms(median) + " ms (bins of " +
                       fixed(static_cast<double>(width) * ms, 1) + " ms)."};
}

Panel overlay_panel(const ReportData& d) {
  if (d.beat_cols <= 0 || d.overlay_rows.size() < static_cast<std::size_t>(d.beat_cols)) {
    return no_data(kTitleOverlay, kFullWidth, "beat rows not available");
  }
  const auto cols = static_cast<std::size_t>(d.beat_cols);
  const std::size_t rows = d.overlay_rows.size() / cols;
  const double fs = sample_rate(d);
  const bool has_median = d.median_beat.size() == cols;
  auto length_of = [&](std::size_t r) { return r < d.overlay_lengths.size() ? d.overlay_lengths[r] : 0; };
  Extent ys, xs;
  for (std::size_t r = 0; r < rows; ++r) ys.add_all(row_values(&d.overlay_rows[r * cols], cols, length_of(r)));
  if (has_median) ys.add_all(d.median_beat);
  if (ys.empty()) return no_data(kTitleOverlay, kFullWidth, "beat rows are not finite");
  const std::vector<double> x = beat_ms(cols, fs);
  svg::Figure f(kTitleOverlay, kFullWidth, kPlotHeight);
  svg::Plot p(kFullWidth, kPlotHeight, {0.0, x.back() > 0 ? x.back() : 1.0}, ys.range(kYPad));
  p.labels("ms from beat start", "signal");
  // Faint enough that 200 overlapping beats show where most of them run.
  constexpr double kOverlayOpacity = 0.18;
  for (std::size_t r = 0; r < rows; ++r) {
    p.line(x, row_values(&d.overlay_rows[r * cols], cols, length_of(r)), {kLineColour, 1.0, kOverlayOpacity});
  }
  std::vector<svg::LegendEntry> legend{{"beats", kLineColour}};
  if (has_median) {
    p.line(x, std::vector<double>(d.median_beat.begin(), d.median_beat.end()), {kMedianColour, 2.0});
    legend.push_back({"median beat", kMedianColour});
  }
  p.legend(legend);
  f.add(p, 0, 0);
  return {f.str(), thousands(rows) + " of " + thousands(d.beats) + " beats (evenly spaced through the recording)" +
                       (has_median ? "; black: the per-sample median of all beats." : ".")};
}

Panel loss_panel(const ReportData& d) {
  Extent ys;
  ys.add_all(d.train_loss);
  ys.add(d.test_loss);
  if (ys.empty()) return no_data(kTitleLoss, kHalfWidth, "no loss values");
  const std::size_t epochs = d.train_loss.size();
  std::vector<double> x(epochs), y(d.train_loss.begin(), d.train_loss.end());
  for (std::size_t i = 0; i < epochs; ++i) x[i] = static_cast<double>(i + 1);
  constexpr double kEpochPad = 0.5;  // half an epoch either side so the end markers are whole
  const double last = std::max<double>(1.0, static_cast<double>(epochs));
  svg::Figure f(kTitleLoss, kHalfWidth, kPlotHeight);
  svg::Plot p(kHalfWidth, kPlotHeight, {1.0 - kEpochPad, last + kEpochPad}, ys.range(kYPad));
  p.labels("epoch", "loss per beat (MSE + 0.1 KL)");
  constexpr double kMarker = 3.0;
  p.line(x, y, {kLineColour, 2.0});
  p.dots(x, y, kLineColour, kMarker);
  std::vector<svg::LegendEntry> legend{{"train", kLineColour}};
  if (std::isfinite(d.test_loss)) {
    p.hline(d.test_loss, {kTestColour, 2.0, 1.0, true});
    p.dots({last}, {d.test_loss}, kTestColour, kMarker + 1);
    legend.push_back({"test (after training)", kTestColour, svg::LegendEntry::dashed});
  }
  if (epochs == 0) p.note("no train loss per epoch");
  p.legend(legend);
  f.add(p, 0, 0);
  const double final_train = epochs ? d.train_loss.back() : std::numeric_limits<double>::quiet_NaN();
  return {f.str(), thousands(epochs) + " epochs; final train loss " + short_num(final_train) + ", test loss " +
                       short_num(d.test_loss) + "."};
}

// The latent points both scatters draw (same subsample), in drawing order.
struct LatentView {
  std::size_t n = 0;                   // beats with a latent mean and a score
  std::vector<std::size_t> shown;      // indices drawn
  std::vector<std::size_t> top;        // highest scores (ringed), highest first
  Range x, y;
  std::string note;                    // "all N beats" / "N of M beats ..."
};

constexpr std::size_t kRingedOutliers = 12;  // the outliers panel's count: ringed in the scatter
constexpr std::size_t kKeepTopScores = 100;  // always drawn, whatever the subsample

LatentView latent_view(const ReportData& d) {
  LatentView v;
  v.n = std::min(d.latent.size() / 2, d.scores.size());
  std::vector<std::size_t> keep = top_scores(d.scores.data(), v.n, kKeepTopScores);
  v.top.assign(keep.begin(), keep.begin() + static_cast<std::ptrdiff_t>(std::min(kRingedOutliers, keep.size())));
  for (const auto& o : d.outliers)
    if (o.index >= 0 && static_cast<std::size_t>(o.index) < v.n) keep.push_back(static_cast<std::size_t>(o.index));
  v.shown = scatter_subsample(v.n, keep);
  Extent xs, ys;
  for (std::size_t i : v.shown) {
    if (!std::isfinite(d.latent[2 * i]) || !std::isfinite(d.latent[2 * i + 1])) continue;
    xs.add(d.latent[2 * i]);
    ys.add(d.latent[2 * i + 1]);
  }
  v.x = xs.range(kYPad);
  v.y = ys.range(kYPad);
  if (xs.empty()) v.shown.clear();
  v.note = v.shown.size() == v.n ? "all " + thousands(v.n) + " beats"
                                 : thousands(v.shown.size()) + " of " + thousands(v.n) +
                                       " beats (evenly spaced subsample; the " + std::to_string(kKeepTopScores) +
                                       " highest scores always kept)";
  return v;
}

constexpr double kScatterRadius = 2.2;
constexpr double kScatterRightMargin = 90;  // px: the colour bar / the class legend; same frames side by side
constexpr double kScatterOpacity = 0.8;

Panel latent_score_panel(const ReportData& d, const LatentView& v) {
  if (v.shown.empty()) return no_data(kTitleLatentScore, kHalfWidth, "no latent means with scores");
  // Colour scale: 1st..99th percentile of the scores, so one extreme beat does not wash out the rest.
  std::vector<float> sorted;
  for (std::size_t i = 0; i < v.n; ++i)
    if (std::isfinite(d.scores[i])) sorted.push_back(d.scores[i]);
  if (sorted.empty()) return no_data(kTitleLatentScore, kHalfWidth, "no finite scores");
  std::sort(sorted.begin(), sorted.end());
  constexpr double kLowPct = 0.01, kHighPct = 0.99;
  const auto at = [&](double q) { return static_cast<double>(sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))]); };
  Range c{at(kLowPct), at(kHighPct)};
  if (!(c.hi > c.lo)) {  // (nearly) constant scores: a small span around the value
    Extent e;
    e.add(c.lo);
    c = e.range();
  }

  svg::Figure f(kTitleLatentScore, kHalfWidth, kPlotHeight);
  svg::Plot p(kHalfWidth, kPlotHeight, v.x, v.y, svg::Density::normal, kScatterRightMargin);
  p.labels("latent 1 (mean)", "latent 2 (mean)");
  // One path per colour bin, low scores first so the high ones are drawn on top.
  constexpr int kColourBins = 32;
  std::vector<std::vector<double>> bx(kColourBins), by(kColourBins);
  for (std::size_t i : v.shown) {
    const double t = (static_cast<double>(d.scores[i]) - c.lo) / (c.hi - c.lo);
    const int b = std::clamp(static_cast<int>((std::isfinite(t) ? t : 0.0) * kColourBins), 0, kColourBins - 1);
    bx[static_cast<std::size_t>(b)].push_back(d.latent[2 * i]);
    by[static_cast<std::size_t>(b)].push_back(d.latent[2 * i + 1]);
  }
  for (int b = 0; b < kColourBins; ++b) {
    p.dots(bx[static_cast<std::size_t>(b)], by[static_cast<std::size_t>(b)], viridis((b + 0.5) / kColourBins),
           kScatterRadius, kScatterOpacity);
  }
  std::vector<double> rx, ry;
  for (std::size_t i : v.top) {
    rx.push_back(d.latent[2 * i]);
    ry.push_back(d.latent[2 * i + 1]);
  }
  constexpr double kRingRadius = 6;
  p.rings(rx, ry, kAccentColour, kRingRadius);
  p.legend({{"top " + std::to_string(v.top.size()) + " scores", kAccentColour, svg::LegendEntry::ring}});
  f.add(p, 0, 0);

  // Colour bar: stacked rects (no gradient ids that could clash between inline SVGs).
  constexpr double kBarGap = 12, kBarWidth = 14, kBarLabelGap = 4, kBarFont = 11, kBarTitleInset = 8;
  constexpr double kBarOverlap = 0.5;  // px: adjacent colour cells overlap, no hairline gaps
  const double bar_x = p.frame_left() + p.inner_w() + kBarGap, bar_w = kBarWidth, bar_top = svg::Figure::kTitleHeight + p.frame_top(), bar_h = p.inner_h();
  std::string bar;
  for (int b = 0; b < kColourBins; ++b) {
    const double y = bar_top + bar_h * (1.0 - static_cast<double>(b + 1) / kColourBins);
    bar += "<rect x=\"" + px(bar_x) + "\" y=\"" + px(y) + "\" width=\"" + px(bar_w) + "\" height=\"" +
           px(bar_h / kColourBins + kBarOverlap) + "\" fill=\"" + viridis((b + 0.5) / kColourBins) + "\"/>\n";
  }
  bar += "<rect x=\"" + px(bar_x) + "\" y=\"" + px(bar_top) + "\" width=\"" + px(bar_w) + "\" height=\"" + px(bar_h) +
         "\" fill=\"none\" stroke=\"#888888\"/>\n";
  double step = 1.0;
  constexpr int kBarTicks = 5;
  for (double t : nice_ticks(c, kBarTicks, &step)) {
    const double y = bar_top + bar_h * (c.hi - t) / (c.hi - c.lo);
    bar += "<text x=\"" + px(bar_x + bar_w + kBarLabelGap) + "\" y=\"" + px(y) + "\" dominant-baseline=\"middle\" font-size=\"" +
           px(kBarFont) + "\">" +
           tick_label(t, step) + "</text>\n";
  }
  bar += "<text transform=\"translate(" + px(kHalfWidth - kBarTitleInset) + ' ' + px(bar_top + bar_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">score (" + xml_escape(d.score_name) + ")</text>\n";
  f.raw(bar);
  return {f.str(), v.note + ". Colour: score (" + d.score_name + "), clipped to its 1st..99th percentile (" + short_num(c.lo) +
                       ".." + short_num(c.hi) + "); red rings: the " + std::to_string(v.top.size()) +
                       " highest scores."};
}

Panel latent_class_panel(const ReportData& d, const LatentView& v) {
  if (d.classes.empty()) return no_data(kTitleLatentClass, kHalfWidth, "no reference classes given");
  if (d.classes.size() != v.n) {
    return no_data(kTitleLatentClass, kHalfWidth,
                   "reference classes (" + thousands(d.classes.size()) + ") do not match the beats (" + thousands(v.n) + ")");
  }
  if (v.shown.empty()) return no_data(kTitleLatentClass, kHalfWidth, "no latent means");
  std::map<char, std::size_t> count;
  for (char c : d.classes) ++count[c];
  std::vector<std::pair<char, std::size_t>> by_freq(count.begin(), count.end());
  std::stable_sort(by_freq.begin(), by_freq.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::map<char, std::string> colour;
  constexpr std::size_t kPalette = sizeof kCategorical / sizeof kCategorical[0];
  for (std::size_t k = 0; k < by_freq.size(); ++k) {
    colour[by_freq[k].first] = k == 0 ? kCommonClassColour : kCategorical[(k - 1) % kPalette];
  }
  svg::Figure f(kTitleLatentClass, kHalfWidth, kPlotHeight);
  svg::Plot p(kHalfWidth, kPlotHeight, v.x, v.y, svg::Density::normal, kScatterRightMargin);
  p.labels("latent 1 (mean)", "latent 2 (mean)");
  std::vector<svg::LegendEntry> legend;
  // Most common class first, so the rare classes are drawn on top.
  for (const auto& [cls, total] : by_freq) {
    std::vector<double> xs, ys;
    for (std::size_t i : v.shown) {
      if (d.classes[i] != cls) continue;
      xs.push_back(d.latent[2 * i]);
      ys.push_back(d.latent[2 * i + 1]);
    }
    p.dots(xs, ys, colour[cls], kScatterRadius, kScatterOpacity);
    legend.push_back({std::string(1, cls) + " (" + thousands(total) + ")", colour[cls], svg::LegendEntry::dot});
  }
  p.legend(legend, svg::LegendPlace::right);
  f.add(p, 0, 0);
  return {f.str(), v.note + ". Colour: reference class (count over all beats)."};
}

Panel grid_panel(const ReportData& d) {
  const int side = d.grid_side;
  const std::size_t cols = d.beat_cols > 0 ? static_cast<std::size_t>(d.beat_cols) : 0;
  if (side <= 0 || cols == 0 || d.decoded_grid.size() != static_cast<std::size_t>(side * side) * cols) {
    return no_data(kTitleGrid, kFullWidth, "decoded grid not available");
  }
  Extent ys;
  ys.add_all(d.decoded_grid);
  if (ys.empty()) return no_data(kTitleGrid, kFullWidth, "decoded beats are not finite");
  const bool has_z = d.grid_latent.size() == static_cast<std::size_t>(2 * side * side);
  const double fs = sample_rate(d);
  const std::vector<double> x = beat_ms(cols, fs);
  constexpr double kCellHeight = 150;
  const double cell_w = kFullWidth / side;
  svg::Figure f(kTitleGrid, kFullWidth, kCellHeight * side);
  for (int g = 0; g < side * side; ++g) {
    svg::Plot p(cell_w, kCellHeight, {0.0, x.back() > 0 ? x.back() : 1.0}, ys.range(kYPad), svg::Density::compact);
    if (has_z) {
      p.subtitle("z = (" + fixed(d.grid_latent[2 * static_cast<std::size_t>(g)], 2) + ", " +
                 fixed(d.grid_latent[2 * static_cast<std::size_t>(g) + 1], 2) + ")");
    }
    p.line(x, row_values(&d.decoded_grid[static_cast<std::size_t>(g) * cols], cols, 0), {kLineColour, 1.5});
    // Grid row 0 holds the lowest latent 2: draw it at the bottom, like the scatter's y axis.
    const int row = side - 1 - g / side, col = g % side;
    f.add(p, col * cell_w, row * kCellHeight);
  }
  return {f.str(), std::to_string(side) + " x " + std::to_string(side) +
                       " beats decoded from an evenly spaced grid over the latent means (left to right: latent 1; "
                       "bottom to top: latent 2); x in ms, shared y scale."};
}

Panel outliers_panel(const ReportData& d) {
  const std::size_t cols = d.beat_cols > 0 ? static_cast<std::size_t>(d.beat_cols) : 0;
  std::vector<const ReportBeat*> beats;
  for (const auto& o : d.outliers)
    if (!o.row.empty()) beats.push_back(&o);
  if (beats.empty()) return no_data(kTitleOutliers, kFullWidth, "outlier rows not available");
  const bool has_median = cols > 0 && d.median_beat.size() == cols;
  Extent ys;
  std::size_t longest = has_median ? cols : 0;
  for (const auto* b : beats) {
    ys.add_all(row_values(b->row.data(), b->row.size(), b->length));
    longest = std::max(longest, b->row.size());
  }
  if (has_median) ys.add_all(d.median_beat);
  if (ys.empty()) return no_data(kTitleOutliers, kFullWidth, "outlier rows are not finite");
  const double fs = sample_rate(d);
  const std::vector<double> x = beat_ms(longest, fs);
  constexpr int kPerRow = 4;
  constexpr double kCellHeight = 200;
  const double cell_w = kFullWidth / kPerRow;
  const auto rows = static_cast<int>((beats.size() + kPerRow - 1) / kPerRow);
  svg::Figure f(kTitleOutliers, kFullWidth, kCellHeight * rows);
  for (std::size_t k = 0; k < beats.size(); ++k) {
    const ReportBeat& b = *beats[k];
    svg::Plot p(cell_w, kCellHeight, {0.0, x.back() > 0 ? x.back() : 1.0}, ys.range(kYPad), svg::Density::compact);
    p.subtitle("#" + std::to_string(k + 1) + ": beat " + std::to_string(b.index) + ", " + recording_time(b.time_s) +
               ", score " + short_num(b.score));
    if (has_median) p.line(x, std::vector<double>(d.median_beat.begin(), d.median_beat.end()), {kMedianColour, 1.2, 0.6, true});
    p.line(x, row_values(b.row.data(), b.row.size(), b.length), {kAccentColour, 1.5});
    f.add(p, static_cast<double>(k % kPerRow) * cell_w, static_cast<double>(k / kPerRow) * kCellHeight);
  }
  return {f.str(), "The " + std::to_string(beats.size()) + " beats with the highest score (" + d.score_name + ", red)" +
                       (has_median ? " over the median beat (dashed)" : "") +
                       "; time of the R peak in the recording, x in ms from the beat start."};
}

std::string summary_tables(const ReportData& d) {
  const double fs = sample_rate(d);
  std::ostringstream s;
  auto row = [&](const std::string& k, const std::string& v) { s << "<tr><th>" << xml_escape(k) << "</th><td>" << v << "</td></tr>\n"; };
  s << "<div class=\"tables\"><table><caption>Counts</caption>\n";
  row("input", xml_escape(d.file_name));
  row("device", xml_escape(d.device.empty() ? "n/a" : d.device));
  row("sampling rate", short_num(fs) + " Hz");
  for (const auto& [name, value] : d.settings) row(name, xml_escape(value));
  row("samples", thousands(d.samples) + " (" + clock_duration(static_cast<double>(d.samples) / fs) + ")");
  row("R-peak candidates", thousands(d.candidates));
  row("beats kept", thousands(d.beats));
  row("train / test beats", thousands(d.train_beats) + " / " + thousands(d.test_beats));
  row("epochs", std::to_string(d.epochs));
  row("final train loss", short_num(d.train_loss.empty() ? std::numeric_limits<double>::quiet_NaN() : d.train_loss.back()));
  row("test loss", short_num(d.test_loss));
  s << "</table>\n<table><caption>Seconds per stage</caption>\n";
  for (const auto& [name, sec] : d.stage_seconds) row(name, std::isfinite(sec) ? fixed(sec, 3) : "n/a");
  if (d.stage_seconds.empty()) row("timings", "n/a");
  s << "</table></div>\n";
  return s.str();
}

constexpr const char* kStyle =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1320px}"
    "h1{font-size:22px;margin:0 0 4px}p.sub{color:#555;margin:0 0 16px;font-size:13px}"
    "h2{font-size:18px;margin:26px 0 8px;padding-bottom:3px;border-bottom:2px solid #444}"
    ".warnings{border:4px solid #c62828;background:#fdecea;color:#7f0000;padding:10px 16px;margin:0 0 18px;"
    "font-size:15px;-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    ".warnings ul{margin:6px 0 0;padding-left:22px}"
    ".tables{display:flex;gap:40px;align-items:flex-start;flex-wrap:wrap;margin-bottom:16px}"
    "table{border-collapse:collapse;font-size:13px}caption{text-align:left;font-weight:bold;padding:4px 0;white-space:nowrap}"
    "th,td{padding:3px 12px;border-bottom:1px solid #e3e3e3}th{text-align:left;font-weight:normal;color:#555}"
    "td{text-align:right}table.hourly th,table.list th{text-align:right}table.hourly td:first-child{text-align:left}"
    "p.note{font-size:12px;color:#555;margin:4px 0 12px}p.none{color:#777;font-size:13px}"
    "p.legend{font-size:12px;color:#333}.artefact-key{background:#c8c8c8;padding:0 4px}"
    "figure.strip{margin:0 0 14px}figcaption.strip-title{font-size:14px;font-weight:bold;color:#222;margin:0 0 2px}"
    ".row{display:flex;gap:20px;flex-wrap:wrap}figure{margin:0 0 22px}"
    "figcaption{font-size:12px;color:#555;margin-top:2px;max-width:1300px}"
    "figure.half figcaption{max-width:640px}"
    "p.appendix{font-size:13px;color:#555}"
    // Printed: A4 landscape fits a strip (260 mm) at true scale; no figure split over two pages.
    "@page{size:A4 landscape;margin:10mm}"
    "@media print{body{margin:0;max-width:none}figure,table,.warnings{break-inside:avoid}"
    "section#appendix{break-before:page}}";

void figure(std::ostream& out, const Panel& p, bool half) {
  out << "<figure" << (half ? " class=\"half\"" : "") << ">\n" << p.svg;
  if (!p.caption.empty()) out << "<figcaption>" << xml_escape(p.caption) << "</figcaption>\n";
  out << "</figure>\n";
}

}  // namespace

std::vector<std::size_t> scatter_subsample(std::size_t n, const std::vector<std::size_t>& keep, std::size_t max_points) {
  std::vector<std::size_t> out;
  if (n <= max_points) {
    out.resize(n);
    std::iota(out.begin(), out.end(), std::size_t{0});
    return out;
  }
  for (std::size_t k : keep)
    if (k < n) out.push_back(k);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() < max_points) {
    // The rest evenly spaced over the beats not kept: the j-th pick is position j * free / m among
    // them, mapped to its index by skipping the kept ones below it. Exactly max_points in all.
    const std::vector<std::size_t> kept = out;
    const std::size_t free = n - kept.size(), m = max_points - kept.size();
    std::size_t skipped = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const auto pos = static_cast<std::size_t>(static_cast<unsigned long long>(j) * free / m);
      while (skipped < kept.size() && kept[skipped] <= pos + skipped) ++skipped;
      out.push_back(pos + skipped);
    }
    std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(kept.size()), out.end());
  }
  return out;
}

std::vector<std::string> report_plot_titles(bool model_trained) {
  std::vector<std::string> titles{kTitleHeartRate};
  if (model_trained)
    titles.insert(titles.end(), {kTitleExcerpt, kTitleLengths, kTitleLoss, kTitleLatentScore, kTitleLatentClass,
                                 kTitleOverlay, kTitleGrid, kTitleOutliers});
  return titles;
}

namespace {

// The input's warnings (a guessed rate, an implausible result) above everything else.
void warnings_banner(std::ostream& out, const ReportData& d) {
  if (d.warnings.empty()) return;
  out << "<div id=\"warnings\" class=\"warnings\" role=\"alert\"><b>Check the input before reading this report:</b>\n<ul>\n";
  for (const auto& w : d.warnings) out << "<li>" << xml_escape(w) << "</li>\n";
  out << "</ul></div>\n";
}

}  // namespace

// Model diagnostics: how the autoencoder saw the beats; not clinical findings. The figures apart
// from the heading and the summary tables, which list the run's timings (write_report_html_end).
std::string report_html_appendix_figures(const ReportData& d) {
  if (!d.model_trained) return {};
  const LatentView latent = latent_view(d);
  std::ostringstream out;
  figure(out, excerpt_panel(d), false);
  out << "<div class=\"row\">\n";
  figure(out, lengths_panel(d), true);
  figure(out, loss_panel(d), true);
  out << "</div>\n<div class=\"row\">\n";
  figure(out, latent_score_panel(d, latent), true);
  figure(out, latent_class_panel(d, latent), true);
  out << "</div>\n";
  figure(out, overlay_panel(d), false);
  figure(out, grid_panel(d), false);
  figure(out, outliers_panel(d), false);
  return out.str();
}

void write_report_html_body(std::ostream& out, const ReportData& d) {
  const ReportClock clock(d.recording_start);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Holter report: "
      << xml_escape(d.file_name) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  warnings_banner(out, d);
  out << "<h1>Holter report: " << xml_escape(d.file_name) << "</h1>\n<p class=\"sub\">Automated analysis by ecgpipe "
      << "(beat detection, beat classes, rhythm, heart-rate variability); to be reviewed by a physician.</p>\n";
  out << clinical_summary_html(d, clock) << hourly_section_html(d, clock) << strips_section_html(d, clock)
      << hrv_section_html(d);
  out << events_section_html(d, clock);
  if (!d.holter) {
    out << "<section id=\"trend\">\n";
    figure(out, no_data(kTitleHeartRate, kFullWidth, "no Holter summary"), false);
    out << "</section>\n";
  }
  out << ec57_section_html(d);
}

void write_report_html_end(std::ostream& out, const ReportData& d, const std::string& appendix_figures) {
  if (d.model_trained) {
    out << "<section id=\"appendix\">\n<h2>Appendix: model diagnostics</h2>\n<p class=\"appendix\">How the variational "
           "autoencoder saw the beats and how each was scored ("
        << xml_escape(d.score_name) << "; higher = more unusual). For the engineer, not clinical findings.</p>\n"
        << summary_tables(d) << appendix_figures << "</section>\n";
  }
  out << "</body>\n</html>\n";
}

void write_report_html(std::ostream& out, const ReportData& d) {
  write_report_html_body(out, d);
  write_report_html_end(out, d, report_html_appendix_figures(d));
}

std::string render_report_html(const ReportData& d) {
  std::ostringstream s;
  write_report_html(s, d);
  return s.str();
}

}  // namespace ecgpipe
