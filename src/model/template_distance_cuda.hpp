// Internal: the template distances (template_distance.hpp) on the GPU, the kernels of
// kernels/model/template_distance.cu behind one launcher. CUDA builds only; no LibTorch here.
#pragma once

#include <cstdint>

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe::detail {

// The most rows one template is the median of: a CUDA block sorts them in shared memory.
inline constexpr std::int64_t kMaxTemplateSpanCuda = 1024;

// out[i] = mean over the cols samples of (rows[i] - T_b)^2 / max(mean(T_b^2), 1e-12), where b =
// i / block_rows and T_b is the per-sample lower median (torch.median's) of rows [lo, lo + span)
// clipped to the matrix, lo = max(0, b * block_rows - (span - block_rows) / 2): the LibTorch
// definition of template_distance.cpp. The medians equal LibTorch's exactly (a selection); the
// sums are in a fixed order of their own (float), so the distances agree to rounding and repeat
// bit for bit. rows: n x cols, row-major, on the device; span <= kMaxTemplateSpanCuda.
void template_distance_cuda(DeviceSpan<const float> rows, std::int64_t n, int cols, std::int64_t block_rows,
                            std::int64_t span, DeviceSpan<float> out, cudaStream_t stream);

}  // namespace ecgpipe::detail
#endif
