// Internal (model code only): what both trainings (LibTorch's, vae.cpp, and the one without it,
// flat_trainer.hpp) share around their steps: the orders they visit the beats in, from seeded
// generators on the host (the train/test split, each epoch's shuffle), and an epoch's end.
// Fisher-Yates written out, because std::shuffle's algorithm is implementation-defined: the same
// orders on every device and standard library.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/clock.hpp"
#include "ecgpipe/model/vae_types.hpp"

namespace ecgpipe::detail {

// In place, drawing from `rng`.
void shuffle_in_place(std::vector<std::int64_t>& v, std::mt19937_64& rng);

// 0..n-1 shuffled by `rng` (the train/test split: the first rows train).
std::vector<std::int64_t> permutation(std::int64_t n, std::mt19937_64& rng);
// The same from a generator seeded with `seed`.
std::vector<std::int64_t> permutation(std::int64_t n, std::uint64_t seed);

// After epoch `epoch` (1-based), whose batch losses summed to `loss_sum` over `n_train` beats:
// its mean loss into result.epoch_loss and options.on_epoch, with the beats per second since
// `epoch_start`, which restarts now.
void end_epoch(int epoch, double loss_sum, std::int64_t n_train, const TrainOptions& options, Clock::time_point& epoch_start,
               TrainResult& result);

}  // namespace ecgpipe::detail
