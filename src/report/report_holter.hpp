// Internal (report.html): the Holter summary block at the top of the page: a per-minute heart
// rate trend (SVG, src/report/svg.hpp) and the ectopy table (src/report/report_holter.cpp).
#pragma once

#include <string>

#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"

namespace ecgpipe {

// The trend figure's title (one of report_plot_titles()).
inline constexpr const char* kTitleHeartRate = "Heart rate per minute";

// A <section> with the HR-trend figure (AF episodes shaded on it) and the rate / rhythm / ectopy /
// pause tables; without classes the ectopy rows say "n/a (no beat classes)"; without `episodes`
// (nullptr) there is no rhythm table.
std::string holter_section_html(const HolterSummary& summary, const std::vector<RhythmEpisode>* episodes = nullptr,
                                double fs = 0.0);

}  // namespace ecgpipe
