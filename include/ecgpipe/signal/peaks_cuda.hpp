// Stage 3, the seed's NMS gates on the GPU (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/signal/peaks.hpp.
#pragma once

#include <cstdint>

#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

// GPU path: sliding max (exact), gate + fix-up, compaction of positions (CUB).
// Returns the gate positions on the device; `count` is the one host value it needs.
DeviceBuffer<std::int64_t> detect_gates_cuda(DeviceSpan<const double> y, int window,
                                             std::size_t& count, cudaStream_t stream);

}  // namespace ecgpipe
