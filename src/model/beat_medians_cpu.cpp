// CPU references of the median kernels (src/model/beat_medians_cpu.hpp).
#include "model/beat_medians_cpu.hpp"

#include <algorithm>
#include <cmath>

#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe::detail {
namespace {

float lower_median(std::vector<float>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

std::vector<float> column_median_reference(const float* rows, std::int64_t lo, std::int64_t hi, int cols) {
  std::vector<float> out(static_cast<std::size_t>(cols)), column;
  column.reserve(static_cast<std::size_t>(hi - lo));
  for (int c = 0; c < cols; ++c) {
    column.clear();
    for (std::int64_t r = lo; r < hi; ++r) column.push_back(rows[r * cols + c]);
    out[static_cast<std::size_t>(c)] = lower_median(column);
  }
  return out;
}

void normalise_rows_reference(float* rows, std::int64_t n, int cols) {
  if (n <= 0) return;
  std::vector<float> row(static_cast<std::size_t>(cols));
  for (std::int64_t r = 0; r < n; ++r) {
    float* x = rows + r * cols;
    row.assign(x, x + cols);
    const float m = lower_median(row);
    for (int i = 0; i < cols; ++i) x[i] -= m;
  }
  float sum = 0.0f;
  for (const float med : column_median_reference(rows, 0, n, cols)) sum += med * med;
  const float rms = std::sqrt(sum / static_cast<float>(cols));
  const float scale = rms > 0.0f ? rms : 1.0f;
  for (std::int64_t i = 0; i < n * cols; ++i) rows[i] /= scale;
}

std::vector<float> template_distance_reference(const float* rows, std::int64_t n, int cols) {
  std::vector<float> out(static_cast<std::size_t>(n));
  for (std::int64_t b = 0; b * kTemplateBlock < n; ++b) {
    const std::int64_t lo = std::max<std::int64_t>(0, b * kTemplateBlock - (kTemplateSpan - kTemplateBlock) / 2);
    const std::vector<float> tmpl = column_median_reference(rows, lo, std::min(n, lo + kTemplateSpan), cols);
    float energy = 0.0f;
    for (const float t : tmpl) energy += t * t;
    energy = std::max(energy / static_cast<float>(cols), static_cast<float>(kMinTemplateEnergy));
    for (std::int64_t r = b * kTemplateBlock; r < std::min(n, (b + 1) * kTemplateBlock); ++r) {
      float d = 0.0f;
      for (int c = 0; c < cols; ++c) {
        const float e = rows[r * cols + c] - tmpl[static_cast<std::size_t>(c)];
        d += e * e;
      }
      out[static_cast<std::size_t>(r)] = d / static_cast<float>(cols) / energy;
    }
  }
  return out;
}

}  // namespace ecgpipe::detail
