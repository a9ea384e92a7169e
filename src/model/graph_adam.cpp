// Graph-safe Adam (src/model/graph_adam.hpp).
#include "model/graph_adam.hpp"

namespace ecgpipe::detail {

GraphAdam::GraphAdam(const std::vector<torch::Tensor>& params, double lr) : lr_(lr) {
  torch::NoGradGuard no_grad;
  std::int64_t total = 0;
  for (const auto& p : params) total += p.numel();
  const auto opts = params.front().options();
  flat_ = torch::empty({total}, opts);
  grad_ = torch::zeros({total}, opts);
  std::int64_t offset = 0;
  for (auto p : params) {
    const auto n = p.numel();
    auto view = flat_.narrow(0, offset, n).view(p.sizes());
    view.copy_(p);
    p.set_data(view);
    // Autograd accumulates into an existing gradient in place, so it stays inside grad_.
    p.mutable_grad() = grad_.narrow(0, offset, n).view(p.sizes());
    offset += n;
  }
  m_ = torch::zeros({total}, opts);
  v_ = torch::zeros({total}, opts);
  step_ = torch::zeros({}, opts);
}

void GraphAdam::zero_grad() { grad_.zero_(); }

void GraphAdam::step() {
  torch::NoGradGuard no_grad;
  step_.add_(1);
  const auto bc1 = 1 - torch::pow(kBeta1, step_);
  const auto bc2_sqrt = torch::sqrt(1 - torch::pow(kBeta2, step_));
  m_.mul_(kBeta1).add_(grad_, 1 - kBeta1);
  v_.mul_(kBeta2).addcmul_(grad_, grad_, 1 - kBeta2);
  flat_.sub_((lr_ / bc1) * m_ / (v_.sqrt() / bc2_sqrt + kEps));
}

}  // namespace ecgpipe::detail
