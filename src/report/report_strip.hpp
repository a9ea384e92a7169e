// Internal (report.html): an event strip as an ECG paper printout. SVG user units are millimetres
// (viewBox in mm, width/height in mm), so the page prints at true scale: 25 mm/s, 10 mm/mV, the
// standard 1 mm / 5 mm grid in pale red, a 1 mV calibration pulse in a lead-in at the left, each
// beat's class letter above its R peak, artefact shaded grey.
#pragma once

#include <string>

#include "ecgpipe/report/report_data.hpp"
#include "report/report_time.hpp"

namespace ecgpipe {

inline constexpr double kStripMmPerSecond = 25.0;  // paper speed
inline constexpr double kStripMmPerMv = 10.0;      // standard gain
inline constexpr double kStripSeconds = 10.0;      // a strip's length: 250 mm of paper
inline constexpr double kStripLeadInMm = 10.0;     // left of the trace: the calibration pulse
inline constexpr double kStripLabelMm = 6.0;       // above the grid: the beats' class letters
inline constexpr double kStripFootMm = 6.0;        // below the grid: start time, speed and gain

// The colour of a beat class letter on a strip (N S V F Q; any other letter grey).
const char* beat_class_colour(char cls);

// One strip as an <svg> (width = lead-in + 250 mm). `fs`: the samples' rate (> 0). Never throws
// on odd data: NaN samples break the trace, beats and artefact outside the strip are left out, an
// empty signal draws the grid with "no signal".
std::string strip_svg(const EventStrip& strip, double fs, const ReportClock& clock);

// The event-strips section: the class legend, then each strip with its title and time.
std::string strips_section_html(const ReportData& data, const ReportClock& clock);

}  // namespace ecgpipe
