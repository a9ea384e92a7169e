// Sample spans [start, end): merged when they overlap or touch (artefact stretches from windows
// and gaps, the noise annotations of a run).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ecgpipe {

using SampleSpan = std::pair<std::int64_t, std::int64_t>;

// Sorted, with overlapping and touching spans joined into one.
inline std::vector<SampleSpan> merged_spans(std::vector<SampleSpan> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<SampleSpan> out;
  for (const SampleSpan& s : spans) {
    if (!out.empty() && s.first <= out.back().second) {
      out.back().second = std::max(out.back().second, s.second);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace ecgpipe
