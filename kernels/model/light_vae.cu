// The LightVAE's training step as two kernels (src/model/light_vae_fused.hpp; the per-beat math
// is kernels/model/light_vae_math.cuh, its CPU reference src/model/light_vae_fused.cpp).
//
// 1. step_kernel: one block per row of the batch. The block's 256 threads run the whole forward
//    and backward pass of that beat out of shared memory (thread j of a layer's loop handles
//    output element j, j += 256: channel j / length, position j % length), and write the beat's
//    gradient of every parameter and its loss to its row of `partials` (parameters + 1 floats).
// 2. sum_rows_kernel: the batch's gradient and loss, summed over the rows in a fixed order (no
//    atomics: the same sums on every run, as LibTorch's deterministic kernels give).
// Both only launch work on the stream: the model code captures them in a CUDA graph.
// score_kernel and decode_kernel: the eval pass (scores, latent means, the report's decoded grid)
// from the same code, a block per row or latent point.
#include <cstdint>
#include <string>

#include "model/light_vae_fused.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/model/light_vae_math.cuh"

namespace ecgpipe::detail {
namespace {

namespace lv = light_vae;
using launch::kFullMask;
using launch::kWarpSize;

// Threads per beat: the longest layer loops (4 x dims outputs) take a few passes; 8 warps.
constexpr int kStepThreads = 256;
constexpr int kStepWarps = kStepThreads / kWarpSize;
// Shared floats before the workspace: a slot per warp for team sums, and one for the result.
constexpr int kScratchFloats = kStepWarps + 1;

// The block as a light_vae team (members are threads). sum(): a shuffle tree within each warp,
// then warp 0 adds the warp sums in warp order; the same order every run.
struct BlockTeam {
  int rank = 0, size = 1;
  float* scratch = nullptr;
  __host__ __device__ void sync() const {
#ifdef __CUDA_ARCH__
    __syncthreads();
#endif
  }
  __host__ __device__ float sum(float v) const {
#ifdef __CUDA_ARCH__
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
    const int lane = rank % kWarpSize, warp = rank / kWarpSize;
    __syncthreads();  // the scratch may still be read from the previous sum
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    if (rank == 0) {
      float s = 0.0f;
      for (int w = 0; w < size / kWarpSize; ++w) s += scratch[w];
      scratch[kStepWarps] = s;
    }
    __syncthreads();
    return scratch[kStepWarps];
#else
    return v;
#endif
  }
};

// The block as a team, and its beat's workspace in the dynamic shared memory after the team's
// scratch (the layout shared_bytes() sizes).
__device__ BlockTeam block_team(int dims, lv::Workspace& w) {
  extern __shared__ float shared[];
  lv::carve(shared + kScratchFloats, dims, w);
  return BlockTeam{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), shared};
}

__global__ void __launch_bounds__(kStepThreads)
    step_kernel(const float* __restrict__ params, lv::Layout lay, const float* __restrict__ rows,
                const std::int64_t* __restrict__ idx, const float* __restrict__ eps, float* __restrict__ partials) {
  lv::Workspace w;
  const BlockTeam team = block_team(lay.dims, w);
  const std::int64_t b = blockIdx.x;
  float* out = partials + b * (lay.total + 1);
  lv::beat_step(team, params, lay, rows + idx[b] * lay.dims, eps + lv::kLatent * b, w, out, out + lay.total);
}

// Mapping: one block per row r, its threads over the positions of each layer (as step_kernel).
__global__ void __launch_bounds__(kStepThreads)
    score_kernel(const float* __restrict__ params, lv::Layout lay, const float* __restrict__ rows,
                 const float* __restrict__ eps, float* __restrict__ out) {
  lv::Workspace w;
  const BlockTeam team = block_team(lay.dims, w);
  const std::int64_t r = blockIdx.x;
  lv::beat_score(team, params, lay, rows + r * lay.dims, eps != nullptr ? eps + lv::kLatent * r : nullptr, w,
                 out + kFusedScoreValues * r);
}

// Mapping: one block per latent point k, its threads over the decoder's positions.
__global__ void __launch_bounds__(kStepThreads)
    decode_kernel(const float* __restrict__ params, lv::Layout lay, const float* __restrict__ z, float* __restrict__ out) {
  lv::Workspace w;
  const BlockTeam team = block_team(lay.dims, w);
  const std::int64_t k = blockIdx.x;
  if (threadIdx.x < lv::kLatent) w.z[threadIdx.x] = z[lv::kLatent * k + threadIdx.x];
  __syncthreads();
  lv::beat_decode(team, params, lay, w);
  for (int t = static_cast<int>(threadIdx.x); t < lay.dims; t += static_cast<int>(blockDim.x)) out[k * lay.dims + t] = w.rec[t];
}

// Mapping: a block of 32 columns x 8 row groups; lane = column (coalesced reads along a row),
// warp g sums rows g, g + 8, ... in order, then lane sums the 8 group sums in order. Column
// `parameters` is the loss, added to *loss_sum; the others are written to grad.
constexpr int kSumGroups = 8;
__global__ void __launch_bounds__(kWarpSize* kSumGroups)
    sum_rows_kernel(const float* __restrict__ partials, std::int64_t batch, int parameters, float* __restrict__ grad,
                    float* __restrict__ loss_sum) {
  __shared__ float group_sum[kSumGroups][kWarpSize];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize, group = static_cast<int>(threadIdx.x) / kWarpSize;
  const int column = static_cast<int>(blockIdx.x) * kWarpSize + lane;
  const int columns = parameters + 1;
  float s = 0.0f;
  if (column < columns) {
    for (std::int64_t r = group; r < batch; r += kSumGroups) s += partials[r * columns + column];
  }
  group_sum[group][lane] = s;
  __syncthreads();
  if (group != 0 || column >= columns) return;
  float total = 0.0f;
  for (int g = 0; g < kSumGroups; ++g) total += group_sum[g][lane];
  if (column < parameters) {
    grad[column] = total;
  } else {
    *loss_sum += total;
  }
}

std::size_t shared_bytes(int dims) {
  return sizeof(float) * static_cast<std::size_t>(kScratchFloats + lv::workspace_floats(dims));
}

// Above 48 KB a kernel must opt in to more dynamic shared memory (cheap, and not a stream
// operation, so it may run during graph capture).
template <class Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  ECGPIPE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

void check_fused_params(DeviceSpan<const float> params, const lv::Layout& lay, const char* who) {
  if (params.size != static_cast<std::size_t>(lay.total)) {
    throw InternalError(std::string(who) + ": " + std::to_string(params.size) + " parameters, dims " +
                        std::to_string(lay.dims) + " needs " + std::to_string(lay.total));
  }
}

}  // namespace

bool light_vae_fused_supported(int dims) {
  if (dims < 8 || dims % 8 != 0 || dims > lv::kMaxFusedDims) return false;
  int device = 0, optin = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) return false;
  return shared_bytes(dims) <= static_cast<std::size_t>(optin);
}

std::size_t light_vae_partials_floats(int dims, std::int64_t batch) {
  return static_cast<std::size_t>(batch) * static_cast<std::size_t>(lv::make_layout(dims).total + 1);
}

void light_vae_step_cuda(DeviceSpan<const float> params, int dims, DeviceSpan<const float> rows,
                         DeviceSpan<const std::int64_t> idx, DeviceSpan<const float> eps, DeviceSpan<float> partials,
                         DeviceSpan<float> grad, float* loss_sum, cudaStream_t stream) {
  const lv::Layout lay = lv::make_layout(dims);
  const auto batch = static_cast<std::int64_t>(idx.size);
  if (params.size != static_cast<std::size_t>(lay.total) || grad.size != params.size ||
      eps.size != static_cast<std::size_t>(lv::kLatent * batch) || partials.size < light_vae_partials_floats(dims, batch) ||
      rows.size % static_cast<std::size_t>(dims) != 0) {
    throw InternalError("light_vae_step_cuda: buffer sizes do not match dims " + std::to_string(dims) + " and batch " +
                        std::to_string(batch));
  }
  if (batch == 0) return;
  const std::size_t smem = shared_bytes(dims);
  allow_shared(step_kernel, smem);
  step_kernel<<<static_cast<unsigned>(batch), kStepThreads, smem, stream>>>(params.data, lay, rows.data, idx.data,
                                                                          eps.data, partials.data);
  ECGPIPE_CUDA_CHECK_LAUNCH("light_vae step_kernel");
  const unsigned column_blocks = static_cast<unsigned>((lay.total + 1 + kWarpSize - 1) / kWarpSize);
  sum_rows_kernel<<<column_blocks, kWarpSize * kSumGroups, 0, stream>>>(partials.data, batch, lay.total, grad.data, loss_sum);
  ECGPIPE_CUDA_CHECK_LAUNCH("light_vae sum_rows_kernel");
}

void light_vae_score_cuda(DeviceSpan<const float> params, int dims, DeviceSpan<const float> rows, DeviceSpan<const float> eps,
                          DeviceSpan<float> out, cudaStream_t stream) {
  const lv::Layout lay = lv::make_layout(dims);
  check_fused_params(params, lay, "light_vae_score_cuda");
  const auto count = static_cast<std::int64_t>(rows.size / static_cast<std::size_t>(dims));
  if (rows.size % static_cast<std::size_t>(dims) != 0 || out.size < static_cast<std::size_t>(kFusedScoreValues * count) ||
      (!eps.empty() && eps.size != static_cast<std::size_t>(lv::kLatent * count))) {
    throw InternalError("light_vae_score_cuda: buffer sizes do not match dims " + std::to_string(dims));
  }
  if (count == 0) return;
  const std::size_t smem = shared_bytes(dims);
  allow_shared(score_kernel, smem);
  score_kernel<<<static_cast<unsigned>(count), kStepThreads, smem, stream>>>(params.data, lay, rows.data,
                                                                           eps.empty() ? nullptr : eps.data, out.data);
  ECGPIPE_CUDA_CHECK_LAUNCH("light_vae score_kernel");
}

void light_vae_decode_cuda(DeviceSpan<const float> params, int dims, DeviceSpan<const float> z, DeviceSpan<float> out,
                           cudaStream_t stream) {
  const lv::Layout lay = lv::make_layout(dims);
  check_fused_params(params, lay, "light_vae_decode_cuda");
  const auto count = static_cast<std::int64_t>(z.size / lv::kLatent);
  if (z.size % lv::kLatent != 0 || out.size < static_cast<std::size_t>(count * dims)) {
    throw InternalError("light_vae_decode_cuda: buffer sizes do not match dims " + std::to_string(dims));
  }
  if (count == 0) return;
  const std::size_t smem = shared_bytes(dims);
  allow_shared(decode_kernel, smem);
  decode_kernel<<<static_cast<unsigned>(count), kStepThreads, smem, stream>>>(params.data, lay, z.data, out.data);
  ECGPIPE_CUDA_CHECK_LAUNCH("light_vae decode_kernel");
}

}  // namespace ecgpipe::detail
