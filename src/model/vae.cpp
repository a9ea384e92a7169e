// Stage 5: trains the seed's LightVAE on the beat matrix (or loads a saved one) and scores every
// beat: the stage's entry points (include/ecgpipe/model/vae.hpp). The model is src/model/light_vae.cpp, the
// optimizer src/model/graph_adam.cpp, scoring src/model/vae_scoring.cpp, the model file src/model/model_file.cpp.
#include "ecgpipe/model/vae.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>

#include "model/beat_tensor.hpp"
#include "model/flat_training.hpp"
#include "common/clock.hpp"
#include "model/graph_adam.hpp"
#include "model/light_vae.hpp"
#include "model/model_weights.hpp"
#include "model/training_loop.hpp"
#include "model/torch_error.hpp"
#include "model/vae_scoring.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAStream.h>

#include "model/light_vae_fused.hpp"
#endif

namespace ecgpipe {
namespace {

using namespace detail;

// One training step on the rows `idx` of `rows`; adds the batch loss to `loss_sum`. Launches
// device work only (no host reads), so it can be captured in a CUDA graph.
void train_step(LightVae& model, GraphAdam& adam, const torch::Tensor& rows, const torch::Tensor& idx, torch::Tensor& loss_sum) {
  auto x = rows.index_select(0, idx);
  adam.zero_grad();
  auto [mu, logvar] = model->encode(x);
  auto loss = vae_loss(model->decode(reparameterize(mu, logvar)), x, mu, logvar);
  loss.backward();
  adam.step();
  torch::NoGradGuard no_grad;
  loss_sum.add_(loss.detach());
}

// A training step on the rows `idx` (device work only, so that it can be captured).
using StepFunction = std::function<void(const torch::Tensor& idx)>;

#ifdef ECGPIPE_TORCH_CUDA
// Whether the fused step (src/model/light_vae_fused.hpp) can train this model: the fused kernels
// are usable here (fused_kernels_usable) and every parameter sits in GraphAdam's flat buffer
// where the kernel expects it.
bool use_fused_step(LightVae& model, const GraphAdam& adam, int dims) {
  if (!fused_kernels_usable(dims)) return false;
  if (adam.parameters().numel() != light_vae_fused_parameters(dims)) return false;
  const float* base = adam.parameters().data_ptr<float>();
  for (const auto& p : model->named_parameters()) {
    if (light_vae_fused_offset(dims, p.key().c_str()) != p.value().data_ptr<float>() - base) return false;
  }
  return true;
}

// The fused step: the normal draws as reparameterize takes them (one randn of the batch's shape:
// the generator advances as on the LibTorch path), the fused forward and backward pass into
// GraphAdam's gradient buffer, the batch loss added to loss_sum, then the Adam update.
void fused_train_step(int dims, GraphAdam& adam, const torch::Tensor& rows, const torch::Tensor& idx,
                      torch::Tensor& loss_sum, const torch::Tensor& partials) {
  auto eps = torch::randn({idx.size(0), kLatentDim}, rows.options());
  light_vae_step_cuda(span_of<const float>(adam.parameters()), dims, span_of<const float>(rows),
                      span_of<const std::int64_t>(idx), span_of<const float>(eps), span_of<float>(partials),
                      span_of<float>(adam.gradients()), loss_sum.data_ptr<float>(), c10::cuda::getCurrentCUDAStream());
  adam.step();
}

// The training step for one batch size, captured once and replayed: one graph launch instead of
// ~300 kernel launches from the host per step (a handful with the fused step). `idx` is the
// static input the replay reads.
struct CapturedStep {
  at::cuda::CUDAGraph graph;
  torch::Tensor idx;
};

std::unique_ptr<CapturedStep> capture_step(const StepFunction& step, std::int64_t rows, const torch::Device& device) {
  auto captured = std::make_unique<CapturedStep>();
  captured->idx = torch::zeros({rows}, torch::TensorOptions().dtype(torch::kInt64).device(device));
  // Capture records the work without running it: the step is executed only by replay(). Thread-
  // local mode: with `--jobs N` other threads read, band-pass and detect their recordings on the
  // GPU meanwhile. In CUDA's default (global) mode those threads' cudaMallocAsync and
  // cudaStreamSynchronize fail ("operation not permitted when stream is capturing"), or their
  // calls invalidate this capture, which leaves LibTorch's CUDA generator marked as capturing so
  // that the next randn of any training throws: 3 to 5 of 8 30-minute recordings failed with
  // --jobs 4 on an H100 (BatchCliGpu.ManyRecordingsAtOnceOnOneGpuEqualOneAtATime).
  captured->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
  step(captured->idx);
  captured->graph.capture_end();
  return captured;
}
#endif

// Same seed, same scores on the same device: cuDNN may otherwise pick convolution algorithms
// whose backward passes accumulate with atomics (run-to-run differences in the weights, seen on
// an H100), or benchmark and pick different algorithms from run to run. The deterministic ones
// cost little at these layer sizes. No effect on the CPU.
void require_deterministic_kernels() {
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

}  // namespace

void normalise_rows_cpu(float* rows, std::int64_t n, std::int64_t cols) {
  if (n <= 0) return;
  torch::Tensor x = torch::from_blob(rows, {n, cols}, torch::kFloat32);
  detail::normalise_rows(x);
}

namespace {

TrainResult train_and_score_here(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                                 const std::string& meta_json, const ScoreFunction& score) {
  const std::int64_t n = beats.rows();
  const std::int64_t dims = beats.cols();
  const auto n_train = static_cast<std::int64_t>(options.train_fraction * static_cast<double>(n));
  // On these errors `beats` frees the matrix as the exception leaves.
  check_trainable(n, dims, options);

  const bool on_cuda = beats.on_cuda();
  BeatTensor in(std::move(beats));
  const torch::Device device = in.device;
  require_deterministic_kernels();
  const torch::Tensor& data = in.data;
  const auto opts = data.options();

  // LibTorch's default generator is one per process: two trainings at once (`--jobs N`) would
  // draw from it in turns and neither would get its seed's sequence. One training at a time
  // keeps each result equal to a separate process's.
  static std::mutex training_mutex;
  const std::lock_guard<std::mutex> training_lock(training_mutex);
  torch::manual_seed(options.seed);
  TrainResult result;
  const auto perm = permutation(n, options.seed);
  auto perm_t = torch::from_blob(const_cast<std::int64_t*>(perm.data()), {n}, torch::kInt64).to(device);
  // The split as row numbers into `data`, not copies of the rows: a batch gathers its rows from the
  // matrix itself (the same rows in the same order as from a copied training set), so training
  // holds the matrix once (issue 12: a 7-day recording's 700 k beats).
  const auto train_rows = perm_t.slice(0, 0, n_train), test_rows = perm_t.slice(0, n_train, n);
  const std::int64_t n_test = n - n_train;
  result.in_train.assign(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n_train; ++i) result.in_train[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = 1;

  LightVae model(dims);
  model->to(device);
  GraphAdam adam(model->parameters(), options.learning_rate);

  auto t0 = Clock::now();
  model->train();
  const std::int64_t batch = resolve_batch_size(options.batch_size, n_train);
  result.batch_size = static_cast<int>(batch);
  [[maybe_unused]] const std::int64_t full_batches = n_train / batch, rest = n_train % batch;
  auto loss_sum = torch::zeros({}, opts);  // summed on the device; one host read per epoch
  StepFunction step = [&](const torch::Tensor& idx) { train_step(model, adam, data, idx, loss_sum); };
#ifdef ECGPIPE_TORCH_CUDA
  torch::Tensor partials;  // the fused step's per-row gradients, for the largest batch
  if (on_cuda && use_fused_step(model, adam, static_cast<int>(dims))) {
    partials = torch::empty({static_cast<std::int64_t>(light_vae_partials_floats(static_cast<int>(dims), batch))}, opts);
    step = [&, d = static_cast<int>(dims)](const torch::Tensor& idx) { fused_train_step(d, adam, data, idx, loss_sum, partials); };
    result.fused_step = true;
  }
  std::unique_ptr<CapturedStep> full_step, rest_step;
#endif
  auto epoch_start = Clock::now();
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    // The DataLoader's shuffle=True: a fresh order of the training rows each epoch (CPU generator,
    // seeded above), as row numbers into `data`.
    auto order = train_rows.index_select(0, torch::randperm(n_train, torch::TensorOptions().dtype(torch::kInt64)).to(device));
    loss_sum.zero_();
    std::int64_t b = 0;  // first row of the next batch
#ifdef ECGPIPE_TORCH_CUDA
    if (on_cuda) {
      if (epoch == 1) {
        // One eager step first: it creates the cuDNN handles and the gradients, which must exist
        // before capture. Then the step is captured once per batch size and replayed; any capture
        // failure falls back to eager steps.
        const std::int64_t first = std::min(batch, n_train);
        step(order.slice(0, 0, first));
        b = first;
        try {
          if (full_batches > 0) full_step = capture_step(step, batch, device);
          if (rest > 0) rest_step = capture_step(step, rest, device);
          result.cuda_graph = true;
        } catch (const c10::Error&) {
          full_step.reset();
          rest_step.reset();
          result.cuda_graph = false;
        }
      }
      if (result.cuda_graph) {
        for (; b + batch <= n_train; b += batch) {
          full_step->idx.copy_(order.slice(0, b, b + batch));
          full_step->graph.replay();
        }
        if (b < n_train) {
          rest_step->idx.copy_(order.slice(0, b, n_train));
          rest_step->graph.replay();
          b = n_train;
        }
      }
    }
#endif
    for (; b < n_train; b += batch) step(order.slice(0, b, std::min(b + batch, n_train)));
    end_epoch(epoch, loss_sum.item<double>(), n_train, options, epoch_start, result);
  }
  result.train_seconds = seconds_since(t0);

  t0 = Clock::now();
  model->eval();
  torch::NoGradGuard no_grad;
  {
    // Test loss as the seed computes it: the full forward pass (sampled z), summed, per beat.
    auto total = torch::zeros({}, opts);
    double fused_total = 0.0;  // the fused kernel's per-row losses, summed on the host
    // The fused kernels' parameters when they trained: GraphAdam's flat buffer is already in their
    // layout (use_fused_step checked it), so no copy as score_all's fused_parameters makes.
    const torch::Tensor flat = result.fused_step ? adam.parameters() : torch::Tensor();
    for (std::int64_t b = 0; b < n_test; b += batch) {
      auto x = data.index_select(0, test_rows.slice(0, b, std::min(b + batch, n_test)));
#ifdef ECGPIPE_TORCH_CUDA
      if (flat.defined()) {
        // The same draws as reparameterize's randn_like: one (rows x 2) normal tensor a batch.
        // The per-row values come to the host (a few hundred kB) and are summed there in double:
        // a device sum loaded LibTorch's reduction module for this alone (~15 ms on an H100).
        const auto s = fused_scores(flat, dims, x, torch::randn({x.size(0), kLatentDim}, opts)).to(torch::kCPU).contiguous();
        const float* v = s.data_ptr<float>();
        for (std::int64_t r = 0; r < s.size(0); ++r, v += kFusedScoreValues) fused_total += static_cast<double>(fused_row_loss(v));
        continue;
      }
#endif
      auto [mu, logvar] = model->encode(x);
      total += vae_loss(model->decode(reparameterize(mu, logvar)), x, mu, logvar);
    }
    result.test_loss = (flat.defined() ? fused_total : total.item<double>()) / static_cast<double>(n_test);
    score_all(model, data, on_cuda, score, result, flat);
  }
  result.score_seconds = seconds_since(t0);

  // The model file: parameters and buffers (safetensors) plus what is needed to use it.
  result.model_file = serialise_model(model, meta_json);
  write_model_file(model_path, result.model_file);
  return result;
}

TrainResult score_with_model_here(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score) {
  // On these errors `beats` frees the matrix as the exception leaves.
  check_scorable(beats.rows());
  const SafetensorsContent content = open_model(model_path);
  const bool on_cuda = beats.on_cuda();
  const std::int64_t cols = beats.cols();
  BeatTensor in(std::move(beats));
  require_deterministic_kernels();
  LightVae model(cols);
  load_model(model, content, model_path, cols);
  model->to(in.device);
  const auto t0 = Clock::now();
  TrainResult result;
  result.in_train.assign(static_cast<std::size_t>(in.data.size(0)), 0);
  score_all(model, in.data, on_cuda, score, result);
  result.score_seconds = seconds_since(t0);
  return result;
}

}  // namespace

TrainResult train_and_score(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                            const std::string& meta_json, const ScoreFunction& score) {
  if (detail::model_runs_without_torch(beats))
    return detail::train_and_score_flat_cuda(std::move(beats), options, model_path, meta_json, score);
  return detail::with_torch_errors_as_ours(
      "training", [&] { return train_and_score_here(std::move(beats), options, model_path, meta_json, score); });
}

TrainResult score_with_model(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score) {
  if (detail::model_runs_without_torch(beats)) return detail::score_with_model_flat_cuda(std::move(beats), model_path, score);
  return detail::with_torch_errors_as_ours("scoring", [&] { return score_with_model_here(std::move(beats), model_path, score); });
}

}  // namespace ecgpipe
