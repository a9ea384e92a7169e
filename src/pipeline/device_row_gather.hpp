// Internal (the GPU paths of segmentation): rows of a signal gathered into a device matrix from
// the signal's pieces while each is on the device: the model's rows and the classifier's windows
// of the chunked path (segment_cuda_stream.cpp), and the windows of the whole path past the host
// copy's limit and a CSV's second lead's (segment_cuda.cpp), which is the same with one piece.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/signal/beats_cuda.hpp"
#include "pipeline/window_gather.hpp"  // feature_window_starts

namespace ecgpipe {

// Rows [start_r, start_r + length_r) (ascending by start and by end) gathered from the pieces
// of a signal into a device matrix: the row range that meets each piece found on the host.
class DeviceRowGather {
 public:
  DeviceRowGather(std::vector<std::int64_t> starts, std::vector<std::int32_t> lengths, std::int32_t fixed_length,
                  std::size_t stride, float* matrix, cudaStream_t stream)
      : starts_(std::move(starts)), lengths_(std::move(lengths)), fixed_(fixed_length), stride_(stride), matrix_(matrix),
        d_starts_(starts_.size(), stream), d_lengths_(lengths_.size(), stream) {
    if (!starts_.empty()) copy_to_device(d_starts_.span(), starts_.data(), starts_.size(), stream);
    if (!lengths_.empty()) copy_to_device(d_lengths_.span(), lengths_.data(), lengths_.size(), stream);
  }

  void push(DeviceSpan<const float> x, std::int64_t x_begin, cudaStream_t stream) {
    const std::int64_t x_end = x_begin + static_cast<std::int64_t>(x.size);
    while (first_ < starts_.size() && starts_[first_] + length(first_) <= x_begin) ++first_;
    std::size_t last = first_;
    while (last < starts_.size() && starts_[last] < x_end) ++last;
    gather_rows_cuda(x, x_begin, d_starts_.data(), lengths_.empty() ? nullptr : d_lengths_.data(), fixed_,
                     static_cast<std::int64_t>(first_), static_cast<std::int64_t>(last), matrix_, stride_, stream);
  }

 private:
  std::int64_t length(std::size_t r) const { return lengths_.empty() ? fixed_ : lengths_[r]; }
  std::vector<std::int64_t> starts_;
  std::vector<std::int32_t> lengths_;
  std::int32_t fixed_;
  std::size_t stride_;
  float* matrix_;
  DeviceBuffer<std::int64_t> d_starts_;
  DeviceBuffer<std::int32_t> d_lengths_;
  std::size_t first_ = 0;
};

// The feature windows (beat_features.hpp: feature_window(fs)) at `peaks` (ascending) of a signal
// that is whole on the device, zero outside it: row-major, one row per peak. Waits for the stream
// (the gather's tables are freed on return).
inline DeviceBuffer<float> device_feature_windows(DeviceSpan<const float> signal, const std::vector<std::int64_t>& peaks,
                                                  double fs, cudaStream_t stream) {
  const FeatureWindow fw = feature_window(fs);
  DeviceBuffer<float> windows(peaks.size() * static_cast<std::size_t>(fw.length), stream);
  if (peaks.empty()) return windows;
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(windows.data(), 0, windows.size() * sizeof(float), stream));
  DeviceRowGather gather(feature_window_starts(peaks, fw), {}, fw.length, static_cast<std::size_t>(fw.length), windows.data(),
                         stream);
  gather.push(signal, 0, stream);  // the whole signal: one piece
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the windows are whole; the starts are freed here
  return windows;
}

}  // namespace ecgpipe
