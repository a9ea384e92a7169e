// Internal (model code only): CPU references of the median kernels, without LibTorch, for the
// training without LibTorch on the CPU (flat_training_cpu.cpp) and the tests: each follows its
// kernel's definition (normalise_rows_cuda.hpp, column_median_cuda.hpp, template_distance_cuda.hpp);
// medians exactly, sums in float in sample order.
#pragma once

#include <cstdint>
#include <vector>

namespace ecgpipe::detail {

// The lower median (torch.median's: rank (m - 1) / 2) of each column of rows [lo, hi) of the
// row-major matrix `rows` of `cols` columns.
std::vector<float> column_median_reference(const float* rows, std::int64_t lo, std::int64_t hi, int cols);

// In place: each row minus its lower median, then all over the RMS of the column medians (1 if 0).
void normalise_rows_reference(float* rows, std::int64_t n, int cols);

// Each row's mean squared distance from its block's template (kTemplateBlock rows, the median of
// the kTemplateSpan rows around it), over the template's mean square floored at kMinTemplateEnergy.
std::vector<float> template_distance_reference(const float* rows, std::int64_t n, int cols);

}  // namespace ecgpipe::detail
