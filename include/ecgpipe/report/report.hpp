// report.html: one self-contained page (inline SVG, no scripts, nothing fetched) that reads as a
// Holter report: a banner with the input's warnings, the clinical summary, the hourly table, event
// strips on ECG paper (true scale when printed), heart-rate variability, the rhythm / runs / pauses
// lists with the HR trend, the EC57 figures against a reference; then, only when a model was
// trained, an appendix of model diagnostics (counts and timings, a signal excerpt, the RR
// histogram, the loss curve, the 2-D latent space, beats decoded from a latent grid, the top
// outliers).
// ReportData, what the page is drawn from: include/ecgpipe/report/report_data.hpp.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "ecgpipe/report/report_data.hpp"

namespace ecgpipe {

// Latent scatter plots keep at most this many points (an SVG of 100k circles is tens of MB).
inline constexpr std::size_t kMaxScatterPoints = 20000;

// Which points a latent scatter draws: all n when n <= max_points; otherwise every index in `keep`
// (e.g. the top outliers) plus evenly spaced others, max(max_points, keep.size()) in all, ascending.
// Deterministic.
std::vector<std::size_t> scatter_subsample(std::size_t n, const std::vector<std::size_t>& keep,
                                           std::size_t max_points = kMaxScatterPoints);

// The page. Never throws on odd data: NaN values are skipped and a plot with nothing left to
// draw becomes a "no data" panel.
std::string render_report_html(const ReportData& data);
void write_report_html(std::ostream& out, const ReportData& data);
// The same page in three parts, for a writer that knows the run's timings only at the end: the
// body (everything before the model appendix), the appendix's figures (empty without a trained
// model; they do not read data.stage_seconds) and the end (the appendix's heading and summary
// tables, which list data.stage_seconds, then the figures and the closing tags). The first two
// can be drawn at once and before the timings are known; body then end is write_report_html's page.
void write_report_html_body(std::ostream& out, const ReportData& data);
std::string report_html_appendix_figures(const ReportData& data);
void write_report_html_end(std::ostream& out, const ReportData& data, const std::string& appendix_figures);

// Titles of the page's fixed plots, in page order (the tests look for each): the HR trend, then
// with `model_trained` the appendix's panels. Event strips are titled by their events.
std::vector<std::string> report_plot_titles(bool model_trained = true);

}  // namespace ecgpipe
