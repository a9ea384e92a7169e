// Internal: wall-clock helpers shared by the stages' timings (one home; no copies).
#pragma once

#include <chrono>

namespace ecgpipe::detail {

using Clock = std::chrono::steady_clock;

inline constexpr double kMsPerSecond = 1000.0;

// Seconds elapsed since `t0` (steady clock).
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace ecgpipe::detail
