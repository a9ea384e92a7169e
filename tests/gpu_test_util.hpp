// Helpers for the GPU tests: a stream owned by the test, host <-> device copies of vectors.
// Only meaningful when ECGPIPE_WITH_CUDA is defined (include ecgpipe/config.hpp first).
#pragma once

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include <gtest/gtest.h>

#include <vector>

// Every stage's GPU API (CUDA builds only; the stage headers themselves are the same in every
// build).
#include "ecgpipe/signal/bandpass_cuda.hpp"
#include "ecgpipe/signal/beats_cuda.hpp"
#include "ecgpipe/io/csv_cuda.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/signal/detect_cuda.hpp"
#include "ecgpipe/signal/peaks_cuda.hpp"

// The first line of every GPU test: skips it, with the reason, on a machine without a GPU.
#define SKIP_WITHOUT_GPU() \
  if (!ecgpipe::cuda_device_available()) GTEST_SKIP() << "no CUDA device"

namespace ecgpipe_test {

// A non-blocking stream (ecgpipe::Stream), so the tests catch any kernel that silently relies on
// the legacy default stream. Declare it before the DeviceBuffers of a test: it must outlive them.
using TestStream = ecgpipe::Stream;

template <class T>
ecgpipe::DeviceBuffer<T> upload(const std::vector<T>& v, cudaStream_t stream) {
  ecgpipe::DeviceBuffer<T> d(v.size(), stream);
  if (!v.empty()) ecgpipe::copy_to_device(d.span(), v.data(), v.size(), stream);
  return d;
}

// Copies `count` elements back and waits for the stream (and so for everything queued before).
template <class T>
std::vector<T> download(const T* data, std::size_t count, cudaStream_t stream) {
  std::vector<T> v(count);
  if (count > 0) ecgpipe::copy_to_host(v.data(), ecgpipe::DeviceSpan<const T>{data, count}, count, stream);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

}  // namespace ecgpipe_test

#endif  // ECGPIPE_WITH_CUDA
