// Standard normal draws on the GPU (src/model/normal_draws.hpp): a thread per draw, the k-th draw
// of a stream computed from k alone (kernels/common/philox.cuh), so any launch gives the CPU
// reference's numbers.
#include "model/normal_draws.hpp"

#include "ecgpipe/common/error.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/common/philox.cuh"

namespace ecgpipe::detail {
namespace {

__global__ void normal_kernel(std::uint64_t seed, std::uint32_t stream_id, std::uint64_t first, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = philox::normal(seed, stream_id, first + static_cast<std::uint64_t>(i));
}

}  // namespace

void normal_draws_cuda(std::uint64_t seed, std::uint32_t stream_id, std::uint64_t first, DeviceSpan<float> out,
                       cudaStream_t stream) {
  if (out.size == 0) return;
  const auto n = static_cast<std::int64_t>(out.size);
  normal_kernel<<<launch::grid_for(n), launch::kBlockSize, 0, stream>>>(seed, stream_id, first, out.data, n);
  ECGPIPE_CUDA_CHECK_LAUNCH("normal_kernel");
}

}  // namespace ecgpipe::detail
