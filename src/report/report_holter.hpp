// Internal (report.html): the Holter summary block at the top of the page: a per-minute heart
// rate trend (SVG, src/report/svg.hpp) and the ectopy table (src/report/report_holter.cpp).
#pragma once

#include <string>

#include "ecgpipe/classify/holter.hpp"

namespace ecgpipe {

// The trend figure's title (one of report_plot_titles()).
inline constexpr const char* kTitleHeartRate = "Heart rate per minute";

// A <section> with the HR-trend figure and the rate / ectopy / pause tables; without classes
// the ectopy rows say "n/a (no beat classes)".
std::string holter_section_html(const HolterSummary& summary);

}  // namespace ecgpipe
