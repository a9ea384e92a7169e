// Internal (model code only): the LightVAE's training and scoring without LibTorch, written once
// over the device's operations (`Ops`): the GPU's (flat_training_cuda.cpp: the fused kernels,
// kernels/model/) and the CPU reference's (flat_training_cpu.cpp: the same kernels' CPU references),
// so that the GPU's result is checked against a reference that follows every step the same way.
//
// The training is the LibTorch path's (vae.cpp): the same split of the beats (permutation of the
// seed), the seed's loss, batches, epochs and Adam, the fused step's forward and backward pass.
// What differs is where the random numbers come from: the initial weights and each epoch's
// shuffle from seeded std::mt19937_64 generators on the host, the reparameterisation's normal
// draws from Philox streams numbered by draw (kernels/common/philox.cuh), so that a run's model
// depends on its seed only, whatever the device.
//
// Ops provides: Floats and Indices (device buffers), floats(k) (zeroed), indices(k),
// partials(dims, batch) (the fused step's scratch), put(buffer, host vector), zero(buffer),
// get(buffer) -> host vector (waits for the device), draws(seed, stream, first, buffer, count),
// step(params, idx, at, count, eps, partials, grad, loss), adam(params, grad, m, v, scalars),
// score(params, eps or nullptr, out) over every row, decode(params, z) -> host rows,
// template_distance() and column_median() -> host vectors, rows_at(index) -> host rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/vae_types.hpp"
#include "model/adam_update.hpp"
#include "model/flat_parameters.hpp"
#include "model/light_vae_fused.hpp"
#include "model/report_extras.hpp"
#include "model/training_loop.hpp"

namespace ecgpipe::detail {

// The normal draws' streams: the training steps' and the test loss's.
inline constexpr std::uint32_t kTrainDraws = 0, kTestDraws = 1;

// Every beat's scores at z = mu (the fused kernel's recon_error, neg_elbo, latent means), its
// template distance, the outlier score (`score`, else recon_error) and the report's rows, median
// beat and decoded grid, for the parameters `params`, into `result`.
template <class Ops>
void score_flat(Ops& ops, const typename Ops::Floats& params, std::int64_t n, const ScoreFunction& score, TrainResult& result) {
  const auto un = static_cast<std::size_t>(n);
  auto scored = ops.floats(un * kFusedScoreValues);
  ops.score(params, nullptr, scored);
  const std::vector<float> s = ops.get(scored);
  result.recon_error.resize(un);
  result.neg_elbo.resize(un);
  result.latent_mean.resize(un * kLatentDim);
  for (std::size_t i = 0; i < un; ++i) {
    const float* row = &s[i * kFusedScoreValues];
    result.recon_error[i] = row[0];
    result.neg_elbo[i] = fused_row_loss(row);
    for (int d = 0; d < kLatentDim; ++d) result.latent_mean[i * kLatentDim + static_cast<std::size_t>(d)] = row[2 + d];
  }
  result.template_distance = ops.template_distance();
  result.score = score ? score(result) : result.recon_error;
  if (result.score.size() != un) throw InternalError("score function returned the wrong count");
  choose_report_rows(result, n);
  result.sample_rows = ops.rows_at(result.sample_index);
  result.outlier_rows = ops.rows_at(result.outlier_index);
  result.median_beat = ops.column_median();
  place_latent_grid(result, n);
  result.decoded_grid = ops.decode(params, result.grid_latent);
}

// score_with_model without LibTorch: the checked parameters `flat` of a model file score the `n`
// rows of `ops`; in_train all 0.
template <class Ops>
TrainResult score_flat_model(Ops& ops, const std::vector<float>& flat, std::int64_t n, const ScoreFunction& score) {
  TrainResult result;
  result.libtorch = false;
  result.in_train.assign(static_cast<std::size_t>(n), 0);
  const auto t0 = Clock::now();
  auto params = ops.floats(flat.size());
  ops.put(params, flat);
  score_flat(ops, params, n, score, result);
  result.score_seconds = seconds_since(t0);
  return result;
}

template <class Ops>
TrainResult train_flat(Ops& ops, std::int64_t n, int dims, const TrainOptions& options, const std::string& meta_json,
                       const ScoreFunction& score) {
  const auto n_train = static_cast<std::int64_t>(options.train_fraction * static_cast<double>(n));
  const std::int64_t n_test = n - n_train;
  TrainResult result;
  result.fused_step = true;
  result.libtorch = false;

  // The split as the LibTorch path makes it (the same beats train on every device); then the
  // shuffles continue from the split's generator.
  std::mt19937_64 order_rng(options.seed);
  const std::vector<std::int64_t> perm = permutation(n, order_rng);
  result.in_train.assign(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n_train; ++i) result.in_train[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = 1;

  auto t0 = Clock::now();
  const auto total = static_cast<std::size_t>(light_vae_fused_parameters(dims));
  auto params = ops.floats(total);
  ops.put(params, light_vae_initial_parameters(dims, options.seed));
  auto grad = ops.floats(total), m = ops.floats(total), v = ops.floats(total);
  const std::int64_t batch = resolve_batch_size(options.batch_size, n_train);
  result.batch_size = static_cast<int>(batch);
  // A step's buffers for the largest batch there is: --batch-size may exceed the training rows.
  const std::int64_t step_rows = std::min(batch, n_train);
  auto eps = ops.floats(static_cast<std::size_t>(kLatentDim * step_rows));
  auto partials = ops.partials(dims, step_rows);
  auto idx = ops.indices(static_cast<std::size_t>(n_train));
  auto loss = ops.floats(1);
  std::vector<std::int64_t> order(perm.begin(), perm.begin() + n_train);
  shuffle_in_place(order, order_rng);
  std::uint64_t drawn = 0;  // draws of kTrainDraws taken so far
  long long steps = 0;
  auto epoch_start = Clock::now();
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    ops.put(idx, order);
    ops.zero(loss);
    for (std::int64_t b = 0; b < n_train; b += batch) {
      const std::int64_t count = std::min(batch, n_train - b);
      const auto draws = static_cast<std::size_t>(kLatentDim * count);
      ops.draws(options.seed, kTrainDraws, drawn, eps, draws);
      drawn += draws;
      ops.step(params, idx, b, count, eps, partials, grad, loss);
      ops.adam(params, grad, m, v, adam_scalars(options.learning_rate, ++steps));
    }
    // The next epoch's order while the device trains this one; then the epoch's one host read.
    if (epoch < options.epochs) shuffle_in_place(order, order_rng);
    end_epoch(epoch, static_cast<double>(ops.get(loss)[0]), n_train, options, epoch_start, result);
  }
  result.train_seconds = seconds_since(t0);

  t0 = Clock::now();
  // Every beat scored twice, one kernel each: with a sampled z for the test loss (as the seed
  // computes it; draw 2r, 2r + 1 of kTestDraws for row r), summed on the host over the test beats
  // in double; and at z = mu for the scores (score_flat).
  const auto un = static_cast<std::size_t>(n);
  {
    auto scored = ops.floats(un * kFusedScoreValues);
    auto test_eps = ops.floats(un * kLatentDim);
    ops.draws(options.seed, kTestDraws, 0, test_eps, un * kLatentDim);
    ops.score(params, &test_eps, scored);
    const std::vector<float> s = ops.get(scored);
    double test_total = 0.0;
    for (std::int64_t i = n_train; i < n; ++i) {
      const auto row = static_cast<std::size_t>(perm[static_cast<std::size_t>(i)]);
      test_total += static_cast<double>(fused_row_loss(&s[row * kFusedScoreValues]));
    }
    result.test_loss = test_total / static_cast<double>(n_test);
  }
  score_flat(ops, params, n, score, result);
  const std::vector<float> trained = ops.get(params);
  result.score_seconds = seconds_since(t0);
  result.model_file = serialise_flat_model(trained, dims, meta_json);
  return result;
}

}  // namespace ecgpipe::detail
