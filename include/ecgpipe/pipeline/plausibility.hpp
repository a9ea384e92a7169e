// Results that cannot be an ECG read right (issue 27): said loudly, on stderr, in report.json's
// "warnings" and in the report's banner, instead of a quiet exit 0. A wrong rate inside the
// plausible range cannot be told from the beats; signal_source.hpp warns when the rate is a guess.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecgpipe/io/signal_source.hpp"

namespace ecgpipe {

// A median heart rate outside these bounds (beats per minute) is no human rhythm at this rate.
inline constexpr double kPlausibleMinBpm = 25.0, kPlausibleMaxBpm = 300.0;
// From this much signal on, fewer beats than one per kMaxSecondsPerBeat is not an ECG.
inline constexpr double kPlausibleMinSeconds = 60.0, kMaxSecondsPerBeat = 10.0;

// The warnings for `r_peaks` (ascending) found in `samples` samples read as `source` says: the
// source's own warnings, then one per implausible finding, each naming the rate and its source.
std::vector<std::string> plausibility_warnings(const SignalSource& source, std::size_t samples, double fs,
                                               const std::vector<std::int64_t>& r_peaks);

// report.json's "input": the path, the format, the samples, the signal used and how it was named
// (column/header), the rate and where it came from, the recording's start when a header has it.
nlohmann::json input_json(const std::string& path, const SignalSource& source, std::size_t samples,
                          const CsvOptions& csv);

}  // namespace ecgpipe
