// Internal (the CPU's chunked segmentation, segment_stream.cpp, and the second lead,
// second_lead.cpp): windows of a signal copied out of it while it arrives in consecutive pieces;
// the host twin of device_row_gather.hpp; and where each beat's classifier window starts (the
// GPU's gathers too).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "ecgpipe/classify/beat_features.hpp"

namespace ecgpipe {

// Copies the samples of fixed windows [start_i, start_i + length_i) out of a signal that arrives
// in consecutive pieces, into row i of `dest` (stride floats a row, zero where a window lies
// outside the signal). Windows ascending by start, and by end (rows do not overlap; the windows
// have one length).
class WindowGather {
 public:
  WindowGather(const std::vector<std::int64_t>& starts, std::vector<std::int32_t> lengths, std::size_t stride, float* dest)
      : starts_(starts), lengths_(std::move(lengths)), stride_(stride), dest_(dest) {}

  void push(const float* x, std::int64_t x_begin, std::int64_t count) {
    const std::int64_t x_end = x_begin + count;
    while (first_ < starts_.size() && starts_[first_] + lengths_[first_] <= x_begin) ++first_;
    for (std::size_t j = first_; j < starts_.size() && starts_[j] < x_end; ++j) {
      const std::int64_t lo = std::max(starts_[j], x_begin), hi = std::min(starts_[j] + lengths_[j], x_end);
      if (lo < hi) std::memcpy(dest_ + j * stride_ + static_cast<std::size_t>(lo - starts_[j]), x + (lo - x_begin),
                               static_cast<std::size_t>(hi - lo) * sizeof(float));
    }
  }

 private:
  const std::vector<std::int64_t>& starts_;
  std::vector<std::int32_t> lengths_;
  std::size_t stride_;
  float* dest_;
  std::size_t first_ = 0;
};

// The first sample of each beat's classifier window (FeatureWindow: R - before; negative near the
// start, zero-filled there as past the end).
inline std::vector<std::int64_t> feature_window_starts(const std::vector<std::int64_t>& r_peaks, const FeatureWindow& fw) {
  std::vector<std::int64_t> starts(r_peaks.size());
  for (std::size_t i = 0; i < r_peaks.size(); ++i) starts[i] = r_peaks[i] - fw.before;
  return starts;
}

}  // namespace ecgpipe
