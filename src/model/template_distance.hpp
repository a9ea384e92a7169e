// Internal (model code only): each beat's distance from the local median beat (vae.hpp,
// TrainResult::template_distance).
#pragma once

#include <torch/torch.h>

namespace ecgpipe::detail {

// Per row of `rows` (beats x samples, any device): mean squared distance from the per-sample
// median of the kTemplateSpan rows around it (rows in blocks of kTemplateBlock), relative to
// that template's mean square. One value per row, on the rows' device.
torch::Tensor template_distance(const torch::Tensor& rows);

}  // namespace ecgpipe::detail
