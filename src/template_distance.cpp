// Distance of each beat from the local median beat (src/detail/template_distance.hpp).
#include "detail/template_distance.hpp"

#include <algorithm>
#include <vector>

#include "ecgpipe/vae.hpp"

namespace ecgpipe::detail {

// Beats in blocks of kTemplateBlock, each block compared with the per-sample median of the
// kTemplateSpan beats centred on it, relative to that template's energy. Local, because a long
// recording (or several recordings in one file) drifts in morphology; wide, so that a minority
// of odd beats, even a stretch of bigeminy, cannot move the median. A tiny energy floor: a flat
// template (all-zero recording) gives distances, not a division by zero.
torch::Tensor template_distance(const torch::Tensor& data) {
  constexpr double kMinTemplateEnergy = 1e-12;
  const std::int64_t n = data.size(0);
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
