// Event strips as ECG paper (src/report/report_strip.hpp). Everything is in millimetres of paper.
#include "report/report_strip.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "common/xml_escape.hpp"
#include "report/svg.hpp"

namespace ecgpipe {
namespace {

using svg::fixed;

constexpr double kMajorMm = 5.0;               // a major grid square
constexpr double kCalibrationMv = 1.0;         // the calibration pulse's height
constexpr double kCalibrationSeconds = 0.2;    // and width (5 mm), as ECG machines draw it
constexpr double kCalibrationStartMm = 2.5;    // inside the lead-in
constexpr double kHeadroomMm = 2.0;            // between the trace's extremes and the grid's edge
constexpr double kMinAboveMm = 15.0, kMaxAboveMm = 50.0;  // grid above the baseline (mm)
constexpr double kMinBelowMm = 10.0, kMaxBelowMm = 30.0;  // and below it
constexpr double kMaxTraceMm = kMaxAboveMm + kMaxBelowMm - 2 * kHeadroomMm;
constexpr double kColumnsPerMm = 10.0;         // trace resolution when decimated: 0.1 mm
constexpr double kFontMm = 3.2, kLabelFontMm = 3.6;

constexpr const char* kMinorGrid = "#f5c6c6";  // pale red, as ECG paper
constexpr const char* kMajorGrid = "#e08a8a";
constexpr const char* kTraceColour = "#111111";
constexpr const char* kArtefactFill = "#9a9a9a";
constexpr const char* kEventColour = "#1f4e9a";

std::string mm(double v) { return fixed(v, 2); }

// The smallest 1-2-5 x 10^k factor that brings `span` within `limit`.
double shrink_factor(double span, double limit) {
  double k = 1.0;
  constexpr double kSteps[] = {2.0, 2.5, 2.0};  // 1 -> 2 -> 5 -> 10 -> 20 ...
  for (int i = 0; span / k > limit && i < 60; ++i) k *= kSteps[i % 3];
  return k;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

const char* beat_class_colour(char cls) {
  // Okabe-Ito colours: told apart by colour-blind readers; V and S far apart (not red and orange).
  switch (cls) {
    case 'N': return "#222222";
    case 'S': return "#0072b2";
    case 'V': return "#d55e00";
    case 'F': return "#cc79a7";
    case 'Q': return "#7a7a7a";
    default: return "#7a7a7a";
  }
}

std::string strip_svg(const EventStrip& st, double fs, const ReportClock& clock) {
  const double paper_mm = kStripSeconds * kStripMmPerSecond;
  const double width = kStripLeadInMm + paper_mm;
  const auto window = static_cast<std::int64_t>(std::floor(kStripSeconds * fs));  // samples on the paper
  const std::size_t n = std::min(st.signal.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, window)));
  const auto x_of = [&](double seconds_in) { return kStripLeadInMm + seconds_in * kStripMmPerSecond; };

  // Gain: mm per signal unit. Unknown units are drawn as mV; shrunk by a stated 1-2-5 factor when
  // they would not fit (a CSV in ADC counts), rather than clipped to a flat line.
  const bool units_ok = std::isfinite(st.units_per_mv) && st.units_per_mv > 0;
  double gain = kStripMmPerMv / (units_ok ? st.units_per_mv : 1.0);
  std::vector<double> finite;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(st.signal[i])) finite.push_back(st.signal[i]);
  const double baseline = median_of(finite);  // the isoelectric level, for placing the trace
  double lo = 0, hi = 0;
  for (double v : finite) {
    lo = std::min(lo, v - baseline);
    hi = std::max(hi, v - baseline);
  }
  double shrink = 1.0;
  if ((!st.units_known || !units_ok) && (hi - lo) * gain > kMaxTraceMm) {
    shrink = shrink_factor((hi - lo) * gain, kMaxTraceMm);
    gain /= shrink;
  }
  const double cal_mm = kCalibrationMv * kStripMmPerMv;  // 10 mm: 1 mV, or `shrink` units when shrunk
  const auto fit = [](double need, double lo_mm, double hi_mm) {
    return std::clamp(std::ceil((need + kHeadroomMm) / kMajorMm) * kMajorMm, lo_mm, hi_mm);
  };
  const double above = fit(std::max(hi * gain, cal_mm), kMinAboveMm, kMaxAboveMm);
  const double below = fit(-lo * gain, kMinBelowMm, kMaxBelowMm);
  const double top = kStripLabelMm, grid_h = above + below, base_y = top + above;
  const double height = top + grid_h + kStripFootMm;

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"strip\" viewBox=\"0 0 " << mm(width) << ' ' << mm(height)
    << "\" width=\"" << mm(width) << "mm\" height=\"" << mm(height)
    << "mm\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" role=\"img\" aria-label=\"" << xml_escape(st.title)
    << "\">\n<title>" << xml_escape(st.title) << "</title>\n";
  // The grid: one path of minor lines, one of major lines (every 5 mm), the paper's whole area.
  std::string minor, major;
  for (int i = 0; i <= static_cast<int>(std::lround(width)); ++i)
    (i % 5 == 0 ? major : minor) += "M" + mm(i) + " " + mm(top) + "V" + mm(top + grid_h);
  for (int j = 0; j <= static_cast<int>(std::lround(grid_h)); ++j)
    (j % 5 == 0 ? major : minor) += "M0 " + mm(top + j) + "H" + mm(width);
  s << "<path class=\"grid-minor\" d=\"" << minor << "\" stroke=\"" << kMinorGrid << "\" stroke-width=\"0.1\"/>\n"
    << "<path class=\"grid-major\" d=\"" << major << "\" stroke=\"" << kMajorGrid << "\" stroke-width=\"0.3\"/>\n";

  // Artefact under the trace.
  const std::int64_t end_sample = st.start_sample + window;
  for (const auto& [a, b] : st.artefact) {
    const std::int64_t a0 = std::max(a, st.start_sample), b0 = std::min(b, end_sample);
    if (!(b0 > a0)) continue;
    const double x0 = x_of(static_cast<double>(a0 - st.start_sample) / fs), x1 = x_of(static_cast<double>(b0 - st.start_sample) / fs);
    s << "<rect class=\"artefact\" x=\"" << mm(x0) << "\" y=\"" << mm(top) << "\" width=\"" << mm(x1 - x0) << "\" height=\""
      << mm(grid_h) << "\" fill=\"" << kArtefactFill << "\" fill-opacity=\"0.35\"/>\n";
  }

  // Calibration pulse: 1 mV (10 mm) for 0.2 s, on the baseline.
  const double c0 = kCalibrationStartMm, c1 = c0 + kCalibrationSeconds * kStripMmPerSecond;
  s << "<path class=\"calibration\" d=\"M" << mm(0.5) << " " << mm(base_y) << "H" << mm(c0) << "V" << mm(base_y - cal_mm) << "H" << mm(c1)
    << "V" << mm(base_y) << "H" << mm(kStripLeadInMm - 0.5) << "\" fill=\"none\" stroke=\"" << kTraceColour
    << "\" stroke-width=\"0.3\"/>\n";

  // The trace; decimated to the min and max of each 0.1 mm column when denser than that.
  bool clipped = false;
  std::string d;
  bool pen = false;
  const auto point = [&](std::size_t i) {
    const double v = st.signal[i];
    if (!std::isfinite(v)) {
      pen = false;
      return;
    }
    double y = base_y - (v - baseline) * gain;
    if (y < top || y > top + grid_h) {
      clipped = true;
      y = std::clamp(y, top, top + grid_h);
    }
    d += (pen ? "L" : "M") + mm(x_of(static_cast<double>(i) / fs)) + " " + mm(y);
    pen = true;
  };
  const auto columns = static_cast<std::size_t>(paper_mm * kColumnsPerMm);
  if (n <= 2 * columns) {
    for (std::size_t i = 0; i < n; ++i) point(i);
  } else {
    const auto column_of = [&](std::size_t i) {
      return static_cast<std::size_t>(static_cast<double>(i) / fs * kStripMmPerSecond * kColumnsPerMm);
    };
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    for (std::size_t i = 0; i < n;) {
      const std::size_t col = column_of(i);
      std::size_t j = i, lo_i = kNone, hi_i = kNone;
      bool gap = false;
      for (; j < n && column_of(j) == col; ++j) {
        const float v = st.signal[j];
        if (!std::isfinite(v)) {
          gap = true;
          continue;
        }
        if (lo_i == kNone || v < st.signal[lo_i]) lo_i = j;
        if (hi_i == kNone || v > st.signal[hi_i]) hi_i = j;
      }
      if (gap) pen = false;  // a NaN in the column breaks the trace there
      if (lo_i != kNone) {
        point(std::min(lo_i, hi_i));
        if (lo_i != hi_i) point(std::max(lo_i, hi_i));
      }
      i = j;
    }
  }
  if (!d.empty()) {
    s << "<path class=\"trace\" d=\"" << d << "\" fill=\"none\" stroke=\"" << kTraceColour
      << "\" stroke-width=\"0.3\" stroke-linejoin=\"round\"/>\n";
  } else {
    s << "<text x=\"" << mm(kStripLeadInMm + paper_mm / 2) << "\" y=\"" << mm(base_y - kMajorMm)
      << "\" text-anchor=\"middle\" font-size=\"" << mm(kLabelFontMm) << "\" fill=\"#777777\">no signal</text>\n";
  }

  // Each beat's class letter above its R peak.
  for (std::size_t k = 0; k < st.beat_samples.size(); ++k) {
    const std::int64_t p = st.beat_samples[k];
    if (p < st.start_sample || p >= end_sample) continue;
    const char cls = k < st.beat_classes.size() ? st.beat_classes[k] : '?';
    s << "<text class=\"beat\" x=\"" << mm(x_of(static_cast<double>(p - st.start_sample) / fs)) << "\" y=\""
      << mm(kStripLabelMm - 1.5) << "\" text-anchor=\"middle\" font-size=\"" << mm(kLabelFontMm)
      << "\" font-weight=\"bold\" fill=\"" << beat_class_colour(cls) << "\">" << xml_escape(std::string(1, cls)) << "</text>\n";
  }

  // The foot: the strip's start, the event's place (a triangle), the scale.
  const double foot_y = top + grid_h + kStripFootMm - 1.8;
  const double start_s = static_cast<double>(st.start_sample) / fs;
  s << "<text x=\"" << mm(kStripLeadInMm) << "\" y=\"" << mm(foot_y) << "\" font-size=\"" << mm(kFontMm) << "\">"
    << xml_escape(clock.at(start_s)) << "</text>\n";
  const double ev = (st.event_s - start_s) * kStripMmPerSecond;
  if (std::isfinite(ev) && ev >= 0 && ev <= paper_mm) {
    const double ex = kStripLeadInMm + ev, ey = top + grid_h + 0.4;
    s << "<path class=\"event\" d=\"M" << mm(ex) << " " << mm(ey) << "l-1.6 3h3.2z\" fill=\"" << kEventColour << "\"/>\n";
  }
  std::string scale = "25 mm/s, ";
  if (!st.units_known || !units_ok) {
    scale += "units unknown (CSV): drawn as mV";
    if (shrink > 1) scale += ", scaled 1:" + svg::short_num(shrink) + " to fit (pulse = " + svg::short_num(shrink) + " units)";
  } else {
    scale += "10 mm/mV";
  }
  if (clipped) scale += "; clipped at the grid edge";
  s << "<text x=\"" << mm(width) << "\" y=\"" << mm(foot_y) << "\" text-anchor=\"end\" font-size=\"" << mm(kFontMm) << "\">"
    << xml_escape(scale) << "</text>\n</svg>\n";
  return s.str();
}

std::string strips_section_html(const ReportData& d, const ReportClock& clock) {
  std::ostringstream s;
  s << "<section id=\"strips\">\n<h2>Event strips</h2>\n";
  if (d.strips.empty()) {
    s << "<p class=\"none\">no data: no event strips</p>\n</section>\n";
    return s.str();
  }
  const double fs = sample_rate(d);
  s << "<p class=\"legend\">10-s strips at 25 mm/s on 1 mm / 5 mm paper, 10 mm/mV (1 mV calibration pulse at the left). "
       "Beats: ";
  const char* names[][2] = {{"N", "normal"}, {"S", "supraventricular ectopic"}, {"V", "ventricular ectopic"},
                            {"F", "fusion"}, {"Q", "unclassifiable"}};
  for (const auto& [letter, name] : names)
    s << "<b style=\"color:" << beat_class_colour(letter[0]) << "\">" << letter << "</b> " << name << "; ";
  s << "<span class=\"artefact-key\">grey</span>: artefact; <span style=\"color:#1f4e9a\">▲</span>: the event. "
       "Times: "
    << clock.times_are() << ".</p>\n";
  for (const EventStrip& st : d.strips) {
    s << "<figure class=\"strip\">\n<figcaption class=\"strip-title\">" << xml_escape(st.title) << " — "
      << xml_escape(clock.at(st.event_s)) << "</figcaption>\n"
      << strip_svg(st, fs, clock) << "</figure>\n";
  }
  s << "</section>\n";
  return s.str();
}

}  // namespace ecgpipe
