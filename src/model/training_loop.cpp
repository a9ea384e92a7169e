// What both trainings share around their steps (src/model/training_loop.hpp).
#include "model/training_loop.hpp"

#include <numeric>
#include <utility>

namespace ecgpipe::detail {

void shuffle_in_place(std::vector<std::int64_t>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i-- > 1;) {
    const auto j = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(v[i], v[j]);
  }
}

std::vector<std::int64_t> permutation(std::int64_t n, std::mt19937_64& rng) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  shuffle_in_place(p, rng);
  return p;
}

std::vector<std::int64_t> permutation(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return permutation(n, rng);
}

void end_epoch(int epoch, double loss_sum, std::int64_t n_train, const TrainOptions& options, Clock::time_point& epoch_start,
               TrainResult& result) {
  const double mean_loss = loss_sum / static_cast<double>(n_train);
  result.epoch_loss.push_back(mean_loss);
  const auto now = Clock::now();
  const double beats_per_second = static_cast<double>(n_train) / std::chrono::duration<double>(now - epoch_start).count();
  epoch_start = now;
  if (options.on_epoch) options.on_epoch(epoch, mean_loss, beats_per_second);
}

}  // namespace ecgpipe::detail

