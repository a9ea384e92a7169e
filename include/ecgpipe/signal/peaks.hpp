// Stage 3: R-peak gate by 1-D non-maximum suppression (the seed's segment kernel).
//
// For p = 0 .. n-window:  gate[p] = ( max(y[p .. p+window-1]) == y[p + (window+1)/2] )
// then the seed's fix-up keeps only the first gate of a run of adjacent gates
// (gate[p] &= !gate[p-1] for p >= 1, evaluated on the original gates). The result is the list of
// gate positions p, ascending. Note p is the window start: the R peak itself sits at
// p + (window+1)/2, so a beat segment starts that many samples before its R peak.
// Comparisons are exact (==), so the CPU and GPU give identical gates for identical input.
#pragma once

#include <cstdint>
#include <vector>

#include "ecgpipe/config.hpp"

namespace ecgpipe {

// The smallest window whose compared sample lies inside it: (w + 1) / 2 <= w - 1 needs w >= 2.
// (With w = 1 the seed compares against the next sample and reads past the array at the end.)
inline constexpr int kMinNmsWindow = 2;

// Offset of the compared sample inside the NMS window (the seed's (window + 1) // 2).
inline int nms_center_offset(int window) { return (window + 1) / 2; }

// CPU reference, O(n) with a monotonic deque. Empty when y.size() < window.
// Throws UsageError if window < kMinNmsWindow (the GPU path too).
std::vector<std::int64_t> detect_gates_cpu(const std::vector<double>& y, int window);

}  // namespace ecgpipe
