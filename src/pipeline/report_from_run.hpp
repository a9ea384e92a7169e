// Internal (pipeline side): a finished run as the report's ReportData (include/ecgpipe/report/report.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/report/report.hpp"

namespace ecgpipe {

struct RunOptions;
struct RunResult;
struct StageSeconds;

// Everything a finished run knows (pipeline.hpp): counts, timings, beat lengths, losses, latent
// means, scores and the TrainResult extras (sample rows, median beat, decoded grid, outliers;
// missing ones stay empty and their plots say "not available"). The excerpt (from sample 0) and
// its band-passed curve come from segmentation; R peaks sit `r_peak_offset` samples after a
// beat's start.
ReportData report_data_from_run(const RunOptions& options, const RunResult& result, std::int64_t r_peak_offset,
                                std::vector<float> signal_excerpt, std::vector<double> bandpassed_excerpt,
                                std::vector<EventStrip> strips = {});

// The report's timing table (ReportData::stage_seconds) from a run's stage seconds, in page order.
std::vector<std::pair<std::string, double>> report_stage_seconds(const StageSeconds& seconds);

}  // namespace ecgpipe
