// Internal (report.html): a small SVG plotting toolkit: number formatting, ranges and "nice"
// ticks, colour maps, and svg::Plot (axes, ticks, labels, marks) inside svg::Figure (one <svg>
// with a title). It knows no ecgpipe type; the report's panels (src/report/report.cpp) are built on it.
// Plot and Figure are defined in the class (their many small members read best beside the
// layout constants); the free functions are in src/report/svg.cpp. Tests: tests/report/test_svg.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/xml_escape.hpp"

namespace ecgpipe::svg {

// ---------------------------------------------------------------------------------------------
// Formatting

// `v` with `decimals` digits after the point (printf %.*f).
std::string fixed(double v, int decimals);
// SVG coordinates: 0.1 px (below what a screen shows; keeps the file small).
std::string px(double v);
// Four significant digits: enough for a loss or a score in a caption; "n/a" if not finite.
std::string short_num(double v);
// 1234567 -> "1,234,567".
std::string thousands(std::uint64_t n);

// ---------------------------------------------------------------------------------------------
// Ranges and ticks

struct Range {
  double lo = 0.0, hi = 1.0;
};

// Finite min/max of whatever is added; NaN and inf are ignored.
class Extent {
 public:
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo_ = std::min(lo_, v);
    hi_ = std::max(hi_, v);
    any_ = true;
  }
  template <typename T>
  void add_all(const std::vector<T>& values) {
    for (const T& v : values) add(static_cast<double>(v));
  }
  bool empty() const { return !any_; }
  // The extent widened by `pad` of its span on each side; a single value gets a unit-ish span.
  Range range(double pad = 0.0) const {
    if (!any_) return {};
    double lo = lo_, hi = hi_;
    if (hi - lo <= 0.0) {
      const double half = lo == 0.0 ? 1.0 : std::abs(lo) * kDegenerateHalfSpan;
      return {lo - half, hi + half};
    }
    const double span = hi - lo;
    return {lo - pad * span, hi + pad * span};
  }

 private:
  static constexpr double kDegenerateHalfSpan = 0.1;  // +-10% around a constant
  double lo_ = std::numeric_limits<double>::infinity();
  double hi_ = -std::numeric_limits<double>::infinity();
  bool any_ = false;
};

inline constexpr double kYPad = 0.05;  // 5% head room above and below the data

// "Nice" ticks (1, 2, 5 x 10^k steps) inside [lo, hi], about `target` of them; the step in
// *step_out (if given). Empty for an empty or non-finite range.
std::vector<double> nice_ticks(Range r, int target, double* step_out);
// A tick's label: enough decimals for `step`, or 3 significant digits for very small/large.
std::string tick_label(double v, double step);
// A time axis in minutes of the recording, `offset_min` minutes after midnight at its start (0:
// elapsed time): ticks inside [lo, hi] where the clock reads a whole multiple of the step, the
// step the smallest of 1, 2, 5, 10, 15, 20, 30 minutes, 1, 2, 3, 4, 6, 12, 24 hours that gives at
// most `target` intervals; the step in *step_out (if given). Empty for an empty or non-finite range.
std::vector<double> time_ticks(Range r, int target, double offset_min, double* step_out);
// A time tick's label: "HH:MM" of the clock (wrapping at midnight) or elapsed "h:mm".
std::string time_tick_label(double t_min, double offset_min, bool clock);

// ---------------------------------------------------------------------------------------------
// Colours

// 0xRRGGBB -> "#rrggbb".
std::string hex_colour(unsigned rgb);
// t in [0, 1] (clamped; NaN as 0) -> viridis (perceptually uniform, readable in grey and by
// colour-blind readers).
std::string viridis(double t);

// Categorical colours (Tableau 10 without grey): reference classes by frequency, the most common
// class drawn in kCommonClassColour so the rare ones stand out.
inline constexpr const char* kCategorical[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
inline constexpr const char* kCommonClassColour = "#a3acb9";
inline constexpr const char* kLineColour = "#1f77b4";    // data curves
inline constexpr const char* kAccentColour = "#d62728";  // peaks, outliers
inline constexpr const char* kMedianColour = "#222222";
inline constexpr const char* kTestColour = "#ff7f0e";
inline constexpr const char* kNoteColour = "#777777";

// ---------------------------------------------------------------------------------------------
// A plot (axes, ticks, labels, marks) placed inside a figure (one <svg> with a title).

struct Stroke {
  std::string colour = kLineColour;
  double width = 1.5;
  double opacity = 1.0;
  bool dashed = false;
};

enum class Density { normal, compact };  // compact: small multiples (fewer ticks, small font)
enum class LegendPlace { above, right };

struct LegendEntry {
  enum Mark { line, dashed, dot, ring };
  std::string label;
  std::string colour;
  Mark mark = line;
};

class Plot {
 public:
  // `reserve_right`: extra px right of the frame (a legend column or a colour bar).
  Plot(double width, double height, Range x, Range y, Density density = Density::normal, double reserve_right = 0)
      : width_(width), height_(height), x_(x), y_(y), density_(density) {
    const bool c = compact();
    left_ = c ? kCompactLeft : kLeft;
    right_ = (c ? kCompactRight : kRight) + reserve_right;
    top_ = c ? kCompactTop : kTop;
    bottom_ = c ? kCompactBottom : kBottom;
  }

  Plot& labels(const std::string& x_label, const std::string& y_label) {
    x_label_ = x_label;
    y_label_ = y_label;
    return *this;
  }
  // The x axis is time in minutes of the recording, ticked and labelled as time_ticks /
  // time_tick_label say (the clock's when `clock`, `offset_min` minutes after midnight at x = 0).
  Plot& time_axis(double offset_min, bool clock) {
    time_offset_min_ = offset_min;
    time_clock_ = clock;
    time_axis_ = true;
    return *this;
  }
  Plot& subtitle(const std::string& s) {
    subtitle_ = s;
    return *this;
  }

  double sx(double x) const { return left_ + (x - x_.lo) / (x_.hi - x_.lo) * inner_w(); }
  double sy(double y) const {
    // Clamped to the frame: a value outside the range (e.g. a clipped colour scale) stays visible.
    const double p = top_ + (y_.hi - y) / (y_.hi - y_.lo) * inner_h();
    return std::clamp(p, top_, top_ + inner_h());
  }

  // A polyline; non-finite points break it.
  void line(const std::vector<double>& xs, const std::vector<double>& ys, const Stroke& s) {
    std::string d;
    bool pen_down = false;
    const std::size_t n = std::min(xs.size(), ys.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) {
        pen_down = false;
        continue;
      }
      d += (pen_down ? 'L' : 'M') + px(sx(xs[i])) + ' ' + px(sy(ys[i]));
      pen_down = true;
    }
    if (d.empty()) return;
    body_ += "<path d=\"" + d + "\" fill=\"none\"" + stroke_attrs(s) + "/>\n";
  }

  // Filled dots as zero-length round-capped path segments: ~15 bytes a point instead of ~50 for
  // <circle>, which matters with 20k points.
  void dots(const std::vector<double>& xs, const std::vector<double>& ys, const std::string& colour, double radius,
            double opacity = 1.0) {
    std::string d;
    const std::size_t n = std::min(xs.size(), ys.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
      d += 'M' + px(sx(xs[i])) + ' ' + px(sy(ys[i])) + "h0";
    }
    if (d.empty()) return;
    body_ += "<path d=\"" + d + "\" stroke=\"" + colour + "\" stroke-width=\"" + px(2 * radius) +
             "\" stroke-linecap=\"round\" opacity=\"" + fixed(opacity, 2) + "\"/>\n";
  }

  // Open circles (highlighting points drawn underneath).
  void rings(const std::vector<double>& xs, const std::vector<double>& ys, const std::string& colour, double radius) {
    const std::size_t n = std::min(xs.size(), ys.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
      body_ += "<circle cx=\"" + px(sx(xs[i])) + "\" cy=\"" + px(sy(ys[i])) + "\" r=\"" + px(radius) +
               "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.5\"/>\n";
    }
  }

  // Bars from edges[i] to edges[i+1] of height heights[i] (a histogram).
  void bars(const std::vector<double>& edges, const std::vector<double>& heights, const std::string& fill) {
    for (std::size_t i = 0; i + 1 < edges.size() && i < heights.size(); ++i) {
      if (!(heights[i] > 0.0)) continue;
      const double x0 = sx(edges[i]), x1 = sx(edges[i + 1]), y = sy(heights[i]), y0 = sy(std::max(0.0, y_.lo));
      body_ += "<rect x=\"" + px(x0) + "\" y=\"" + px(y) + "\" width=\"" + px(std::max(x1 - x0 - kBarGap, kMinBar)) +
               "\" height=\"" + px(y0 - y) + "\" fill=\"" + fill + "\"/>\n";
    }
  }

  // Shaded bands from x0[i] to x1[i] over the frame's height (episodes on a time axis), at least a
  // pixel wide; draw them before the marks they sit under.
  void spans(const std::vector<double>& x0, const std::vector<double>& x1, const std::string& fill, double opacity) {
    for (std::size_t i = 0; i < x0.size() && i < x1.size(); ++i) {
      const double a = sx(std::clamp(x0[i], x_.lo, x_.hi)), b = sx(std::clamp(x1[i], x_.lo, x_.hi));
      body_ += "<rect x=\"" + px(a) + "\" y=\"" + px(top_) + "\" width=\"" + px(std::max(b - a, 1.0)) + "\" height=\"" +
               px(inner_h()) + "\" fill=\"" + fill + "\" fill-opacity=\"" + fixed(opacity, 2) + "\"/>\n";
    }
  }

  void hline(double y, const Stroke& s) {
    if (!std::isfinite(y)) return;
    body_ += "<line x1=\"" + px(left_) + "\" x2=\"" + px(left_ + inner_w()) + "\" y1=\"" + px(sy(y)) + "\" y2=\"" +
             px(sy(y)) + "\"" + stroke_attrs(s) + "/>\n";
  }

  // Grey text in the middle of the frame ("not available").
  void note(const std::string& text) {
    body_ += "<text x=\"" + px(left_ + inner_w() / 2) + "\" y=\"" + px(top_ + inner_h() / 2) +
             "\" text-anchor=\"middle\" fill=\"" + kNoteColour + "\" font-size=\"" + px(font() + 1) + "\">" +
             xml_escape(text) + "</text>\n";
  }

  // A legend outside the frame, so it never hides data: `above` = one row right-aligned in the top
  // margin (a few entries); `right` = a column in the right margin reserved by the constructor.
  void legend(const std::vector<LegendEntry>& entries, LegendPlace place = LegendPlace::above) {
    const double fs = font();
    auto label_w = [&](const LegendEntry& e) { return static_cast<double>(e.label.size()) * fs * kCharWidth; };
    auto entry = [&](const LegendEntry& e, double x, double cy) {
      constexpr double kMarkRadius = 4;
      if (e.mark == LegendEntry::dot || e.mark == LegendEntry::ring) {
        const std::string paint = e.mark == LegendEntry::dot ? "fill=\"" + e.colour + "\""
                                                             : "fill=\"none\" stroke=\"" + e.colour + "\" stroke-width=\"1.5\"";
        body_ += "<circle cx=\"" + px(x + kLegendSample / 2) + "\" cy=\"" + px(cy) + "\" r=\"" + px(kMarkRadius) + "\" " +
                 paint + "/>\n";
      } else {
        const Stroke st{e.colour, 2.0, 1.0, e.mark == LegendEntry::dashed};
        body_ += "<line x1=\"" + px(x) + "\" x2=\"" + px(x + kLegendSample) + "\" y1=\"" + px(cy) + "\" y2=\"" + px(cy) +
                 "\"" + stroke_attrs(st) + "/>\n";
      }
      body_ += "<text x=\"" + px(x + kLegendSample + kLegendGap) + "\" y=\"" + px(cy) +
               "\" dominant-baseline=\"middle\" font-size=\"" + px(fs) + "\">" + xml_escape(e.label) + "</text>\n";
    };
    if (place == LegendPlace::above) {
      double total = 0;
      for (const auto& e : entries) total += kLegendSample + kLegendGap + label_w(e) + kLegendSpacing;
      double x = left_ + inner_w() - total + kLegendSpacing;
      const double cy = top_ - fs / 2 - kTickGap;
      for (const auto& e : entries) {
        entry(e, x, cy);
        x += kLegendSample + kLegendGap + label_w(e) + kLegendSpacing;
      }
      return;
    }
    const double row = fs + kLegendRowGap;
    const auto fits = static_cast<std::size_t>(std::max(1.0, std::floor(inner_h() / row)));
    const double x = left_ + inner_w() + kLegendGap;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const double cy = top_ + row * (static_cast<double>(i) + 0.5);
      if (i + 1 == fits && entries.size() > fits) {  // no room for the rest: say how many
        body_ += "<text x=\"" + px(x) + "\" y=\"" + px(cy) + "\" dominant-baseline=\"middle\" font-size=\"" + px(fs) +
                 "\">+" + std::to_string(entries.size() - i) + " more</text>\n";
        break;
      }
      entry(entries[i], x, cy);
    }
  }

  // The plot at (ox, oy) of its figure: frame, grid lines, ticks, labels, then the marks.
  std::string render(double ox, double oy) const {
    std::string s = "<g transform=\"translate(" + px(ox) + ' ' + px(oy) + ")\">\n";
    s += "<rect x=\"" + px(left_) + "\" y=\"" + px(top_) + "\" width=\"" + px(inner_w()) + "\" height=\"" +
         px(inner_h()) + "\" fill=\"#fbfbfb\" stroke=\"#bbbbbb\"/>\n";
    const double fs = font();
    double step = 1.0;
    const int x_target = compact() ? kCompactXTicks : std::max(2, static_cast<int>(inner_w() / kPxPerXTick));
    for (double t : time_axis_ ? time_ticks(x_, x_target, time_offset_min_, &step) : nice_ticks(x_, x_target, &step)) {
      const double p = sx(t);
      s += "<line x1=\"" + px(p) + "\" x2=\"" + px(p) + "\" y1=\"" + px(top_) + "\" y2=\"" + px(top_ + inner_h()) +
           "\" stroke=\"#e6e6e6\"/>\n";
      s += "<text x=\"" + px(p) + "\" y=\"" + px(top_ + inner_h() + fs + kTickGap) +
           "\" text-anchor=\"middle\" font-size=\"" + px(fs) + "\">" +
           (time_axis_ ? time_tick_label(t, time_offset_min_, time_clock_) : tick_label(t, step)) + "</text>\n";
    }
    const int y_target = compact() ? kCompactYTicks : std::max(2, static_cast<int>(inner_h() / kPxPerYTick));
    for (double t : nice_ticks(y_, y_target, &step)) {
      const double p = sy(t);
      s += "<line x1=\"" + px(left_) + "\" x2=\"" + px(left_ + inner_w()) + "\" y1=\"" + px(p) + "\" y2=\"" + px(p) +
           "\" stroke=\"#e6e6e6\"/>\n";
      s += "<text x=\"" + px(left_ - kTickGap) + "\" y=\"" + px(p) + "\" text-anchor=\"end\" dominant-baseline=\"middle\" "
           "font-size=\"" + px(fs) + "\">" + tick_label(t, step) + "</text>\n";
    }
    if (!x_label_.empty()) {
      s += "<text x=\"" + px(left_ + inner_w() / 2) + "\" y=\"" + px(height_ - kLabelInset) +
           "\" text-anchor=\"middle\" font-size=\"" + px(fs + 1) + "\">" + xml_escape(x_label_) + "</text>\n";
    }
    if (!y_label_.empty()) {
      const double cx = kLabelInset + fs, cy = top_ + inner_h() / 2;
      s += "<text transform=\"translate(" + px(cx) + ' ' + px(cy) + ") rotate(-90)\" text-anchor=\"middle\" "
           "font-size=\"" + px(fs + 1) + "\">" + xml_escape(y_label_) + "</text>\n";
    }
    if (!subtitle_.empty()) {
      s += "<text x=\"" + px(left_) + "\" y=\"" + px(top_ - kTickGap) + "\" font-size=\"" + px(fs + 1) + "\">" +
           xml_escape(subtitle_) + "</text>\n";
    }
    s += body_;
    s += "</g>\n";
    return s;
  }

  double width() const { return width_; }
  double height() const { return height_; }
  double frame_left() const { return left_; }
  double frame_top() const { return top_; }
  double inner_w() const { return width_ - left_ - right_; }
  double inner_h() const { return height_ - top_ - bottom_; }

 private:
  bool compact() const { return density_ == Density::compact; }
  double font() const { return compact() ? kCompactFont : kFont; }
  static std::string stroke_attrs(const Stroke& s) {
    std::string a = " stroke=\"" + s.colour + "\" stroke-width=\"" + px(s.width) + "\"";
    if (s.opacity < 1.0) a += " stroke-opacity=\"" + fixed(s.opacity, 2) + "\"";
    if (s.dashed) a += " stroke-dasharray=\"6 4\"";
    return a;
  }

  // Margins (px) leave room for tick labels, axis labels and a subtitle.
  static constexpr double kLeft = 70, kRight = 16, kTop = 26, kBottom = 48;
  static constexpr double kCompactLeft = 44, kCompactRight = 8, kCompactTop = 20, kCompactBottom = 22;
  static constexpr double kFont = 12, kCompactFont = 10;
  static constexpr double kPxPerXTick = 90, kPxPerYTick = 45;  // tick spacing that labels never crowd
  static constexpr int kCompactXTicks = 4, kCompactYTicks = 3;
  static constexpr double kTickGap = 5, kLabelInset = 8;
  static constexpr double kBarGap = 1, kMinBar = 1;  // px between histogram bars, thinnest bar
  static constexpr double kLegendSample = 22, kLegendGap = 6, kLegendSpacing = 18, kLegendRowGap = 8;
  static constexpr double kCharWidth = 0.6;  // average glyph width / font size of a sans-serif font

  double width_, height_;
  Range x_, y_;
  Density density_;
  double left_, right_, top_, bottom_;
  std::string x_label_, y_label_, subtitle_, body_;
  bool time_axis_ = false, time_clock_ = false;
  double time_offset_min_ = 0.0;
};

// One <svg> with its title on top; plots and raw fragments placed below the title.
class Figure {
 public:
  static constexpr double kTitleHeight = 30;  // px above the first plot

  Figure(std::string title, double width, double height)
      : title_(std::move(title)), width_(width), height_(height) {}
  void add(const Plot& p, double x, double y) { body_ += p.render(x, y + kTitleHeight); }
  void raw(const std::string& fragment) { body_ += fragment; }
  std::string str() const {
    constexpr double kTitleFont = 16, kTitleBaseline = 20, kTitleX = 8;
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + px(width_) + ' ' + px(height_ + kTitleHeight) +
           "\" width=\"" + px(width_) + "\" height=\"" + px(height_ + kTitleHeight) +
           "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" role=\"img\" aria-label=\"" + xml_escape(title_) +
           "\">\n<title>" + xml_escape(title_) + "</title>\n<text x=\"" + px(kTitleX) + "\" y=\"" + px(kTitleBaseline) +
           "\" font-size=\"" + px(kTitleFont) + "\" font-weight=\"bold\">" + xml_escape(title_) + "</text>\n" + body_ +
           "</svg>\n";
  }

 private:
  std::string title_;
  double width_, height_;
  std::string body_;
};

}  // namespace ecgpipe::svg
