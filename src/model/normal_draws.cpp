// CPU reference of the normal draws (src/model/normal_draws.hpp).
#include "model/normal_draws.hpp"

#include "kernels/common/philox.cuh"

namespace ecgpipe::detail {

void normal_draws_cpu(std::uint64_t seed, std::uint32_t stream_id, std::uint64_t first, float* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) out[i] = philox::normal(seed, stream_id, first + i);
}

}  // namespace ecgpipe::detail
