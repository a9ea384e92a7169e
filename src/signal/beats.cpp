// Stage 4 on the CPU: select beats between consecutive gates and zero-pad them.
#include "ecgpipe/signal/beats.hpp"

#include <algorithm>
#include <string>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

BeatTable select_beats(const std::vector<std::int64_t>& gates, const BeatLimits& limits) {
  BeatTable table;
  for (std::size_t c = 0; c + 1 < gates.size(); ++c) {
    const std::int64_t length = gates[c + 1] - gates[c];
    if (length >= limits.min_length && length <= limits.max_length) {
      table.start.push_back(gates[c]);
      table.length.push_back(static_cast<std::int32_t>(length));
    }
  }
  return table;
}

std::vector<float> pad_beats_cpu(const std::vector<float>& signal, const BeatTable& beats, int max_length) {
  const auto width = static_cast<std::size_t>(max_length);
  std::vector<float> matrix(beats.size() * width, 0.0f);
  for (std::size_t r = 0; r < beats.size(); ++r) {
    // Checked before the unsigned casts: a negative start or length would wrap around to a huge
    // value and, added together, could pass the bounds test.
    if (beats.start[r] < 0 || beats.length[r] < 0) throw InternalError("beat " + std::to_string(r) + " lies outside the signal");
    const auto start = static_cast<std::size_t>(beats.start[r]);
    const auto length = static_cast<std::size_t>(beats.length[r]);
    if (start + length > signal.size() || length > width) {
      throw InternalError("beat " + std::to_string(r) + " lies outside the signal");
    }
    std::copy_n(signal.begin() + static_cast<std::ptrdiff_t>(start), length, matrix.begin() + static_cast<std::ptrdiff_t>(r * width));
  }
  return matrix;
}

}  // namespace ecgpipe
