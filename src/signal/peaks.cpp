// Stage 3 on the CPU: the seed's NMS gate, O(n) with a monotonic deque.
#include "ecgpipe/signal/peaks.hpp"

#include <deque>
#include <string>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

std::vector<std::int64_t> detect_gates_cpu(const std::vector<double>& y, int window) {
  if (window < kMinNmsWindow) {
    throw UsageError("--nms-window must be at least " + std::to_string(kMinNmsWindow) + " samples, got " + std::to_string(window));
  }
  const auto n = static_cast<std::int64_t>(y.size());
  std::vector<std::int64_t> gates;
  if (n < window) return gates;
  const int center = nms_center_offset(window);
  // Indices whose values are decreasing from the front: front is the max of the current window.
  // Equal values: keep the earlier one too (pop only strictly smaller), value comparison is all
  // the gate needs, so which index of a tie sits in front does not matter.
  std::deque<std::int64_t> dq;
  bool previous = false;
  for (std::int64_t i = 0; i < n; ++i) {
    while (!dq.empty() && y[static_cast<std::size_t>(dq.back())] < y[static_cast<std::size_t>(i)]) dq.pop_back();
    dq.push_back(i);
    const std::int64_t p = i - window + 1;  // window [p, i] is complete
    if (p < 0) continue;
    if (dq.front() < p) dq.pop_front();
    const bool gate = y[static_cast<std::size_t>(dq.front())] == y[static_cast<std::size_t>(p + center)];
    // Seed fix-up: keep p = 0 as is, and for p >= 1 only the first gate of a run.
    if (gate && (p == 0 || !previous)) gates.push_back(p);
    previous = gate;
  }
  return gates;
}

}  // namespace ecgpipe
