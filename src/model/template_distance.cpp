// Distance of each beat from the local median beat (src/model/template_distance.hpp).
#include "model/template_distance.hpp"

#include <algorithm>
#include <vector>

#include "ecgpipe/config.hpp"
#include "ecgpipe/model/vae_types.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>

#include "model/template_distance_cuda.hpp"
#endif

namespace ecgpipe::detail {

// Beats in blocks of kTemplateBlock, each block compared with the per-sample median of the
// kTemplateSpan beats centred on it, relative to that template's energy. Local, because a long
// recording (or several recordings in one file) drifts in morphology; wide, so that a minority
// of odd beats, even a stretch of bigeminy, cannot move the median. A tiny energy floor: a flat
// template (all-zero recording) gives distances, not a division by zero.
torch::Tensor template_distance(const torch::Tensor& data) {
  const std::int64_t n = data.size(0);
#ifdef ECGPIPE_TORCH_CUDA
  // On a GPU: three kernels (kernels/model/template_distance.cu) instead of ~5 launches per block of
  // beats; the same medians, the sums rounded in their own order.
  static_assert(kTemplateSpan <= kMaxTemplateSpanCuda, "a template's rows are sorted in one CUDA block");
  if (data.is_cuda() && n > 0) {
    const torch::Tensor rows = data.contiguous();
    auto out = torch::empty({n}, rows.options());
    template_distance_cuda(DeviceSpan<const float>{rows.data_ptr<float>(), static_cast<std::size_t>(rows.numel())}, n,
                           static_cast<int>(rows.size(1)), kTemplateBlock, kTemplateSpan,
                           DeviceSpan<float>{out.data_ptr<float>(), static_cast<std::size_t>(n)},
                           c10::cuda::getCurrentCUDAStream());
    return out;
  }
#endif
  std::vector<torch::Tensor> distances;
  for (std::int64_t b = 0; b < n; b += kTemplateBlock) {
    const std::int64_t lo = std::max<std::int64_t>(0, b - (kTemplateSpan - kTemplateBlock) / 2);
    const std::int64_t hi = std::min(n, lo + kTemplateSpan);
    const auto tmpl = std::get<0>(data.slice(0, lo, hi).median(0));
    const auto energy = tmpl.square().mean().clamp_min(kMinTemplateEnergy);
    distances.push_back((data.slice(0, b, std::min(b + kTemplateBlock, n)) - tmpl).square().mean(1) / energy);
  }
  return torch::cat(distances);
}

}  // namespace ecgpipe::detail
