// CPU reference of the flat Adam update (src/model/adam_update.hpp).
#include "model/adam_update.hpp"

#include <cmath>

namespace ecgpipe::detail {

adam::Scalars adam_scalars(double lr, long long t) {
  const double steps = static_cast<double>(t);
  const double bias1 = 1.0 - std::pow(static_cast<double>(adam::kBeta1), steps);
  const double bias2 = 1.0 - std::pow(static_cast<double>(adam::kBeta2), steps);
  return {static_cast<float>(lr / bias1), static_cast<float>(std::sqrt(bias2))};
}

void adam_update_cpu(float* params, const float* grad, float* m, float* v, std::size_t n, adam::Scalars s) {
  for (std::size_t i = 0; i < n; ++i) adam::update(params[i], grad[i], m[i], v[i], s);
}

}  // namespace ecgpipe::detail
