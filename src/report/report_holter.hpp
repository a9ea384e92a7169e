// Internal (report.html): the clinical sections of the page, as HTML fragments drawn from a
// ReportData (src/report/report_holter.cpp): the summary a cardiologist reads first, the hourly
// table, heart-rate variability, the rhythm / runs / pauses lists under the heart-rate trend, and
// the EC57 figures. Event strips: src/report/report_strip.hpp. Every text from the input is
// escaped; a missing or NaN value reads "—", a missing table "no data: ...".
#pragma once

#include <string>

#include "ecgpipe/report/report_data.hpp"
#include "report/report_time.hpp"

namespace ecgpipe {

// The trend figure's title (one of report_plot_titles()).
inline constexpr const char* kTitleHeartRate = "Heart rate per minute";

// Each fragment is a <section id="..."> with its <h2>: summary, hourly, hrv, events, ec57.
std::string clinical_summary_html(const ReportData& data, const ReportClock& clock);
std::string hourly_section_html(const ReportData& data, const ReportClock& clock);
std::string hrv_section_html(const ReportData& data);
std::string events_section_html(const ReportData& data, const ReportClock& clock);
// Empty without EC57 rows (no reference given).
std::string ec57_section_html(const ReportData& data);

}  // namespace ecgpipe
