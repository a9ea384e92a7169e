// Stage 5: the seed's LightVAE in LibTorch, trained with Adam, then used to score every beat.
// The only translation unit (with bandpass.cpp) that includes LibTorch.
#include "ecgpipe/vae.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <numeric>
#include <random>

#include "ecgpipe/config.hpp"
#include "ecgpipe/error.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace ecgpipe {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// Swish with one learnable slope shared by every layer, as in the seed (a single `sigma` module).
struct SwishImpl : nn::Module {
  SwishImpl() { alpha = register_parameter("alpha", torch::ones({1})); }
  torch::Tensor forward(const torch::Tensor& x) { return x * torch::sigmoid(alpha * x); }
  torch::Tensor alpha;
};
TORCH_MODULE(Swish);

// Encoder/decoder kernel size and padding of every Conv1d in the seed ("same" length).
constexpr int kKernel = 3;
constexpr int kPad = 1;
constexpr int kStride = 1;

nn::Conv1d conv(int in, int out) {
  return nn::Conv1d(nn::Conv1dOptions(in, out, kKernel).stride(kStride).padding(kPad));
}

struct LightVaeImpl : nn::Module {
  explicit LightVaeImpl(std::int64_t dims) : dims(dims) {
    sigma = register_module("sigma", Swish());
    conv0 = register_module("conv0", conv(1, 4));
    conv1 = register_module("conv1", conv(4, 8));
    conv2 = register_module("conv2", conv(8, 16));
    convA = register_module("convA", conv(16, kLatentDim));
    convB = register_module("convB", conv(16, kLatentDim));
    // The seed's Linear(2, 16 * n // 16), viewed as 8 channels of n/8 samples.
    restore = register_module("restore", nn::Linear(kLatentDim, 16 * dims / 16));
    conv3 = register_module("conv3", conv(8, 4));
    conv4 = register_module("conv4", conv(4, 2));
    conv5 = register_module("conv5", conv(2, 1));
    // The fixed [1, 2, 1] anti-aliasing filter (not normalised, as in the seed); not trained.
    down_filter = register_buffer("down_filter", torch::tensor({1.0f, 2.0f, 1.0f}).view({1, 1, 3}));
  }

  // Depthwise [1,2,1] filter with stride 2: halves the length.
  torch::Tensor down(const torch::Tensor& x) {
    const auto channels = x.size(1);
    return F::conv1d(x, down_filter.expand({channels, 1, 3}),
                     F::Conv1dFuncOptions().stride(2).padding(1).groups(channels));
  }

  // Nearest-neighbour x2 upsampling written as a broadcast: same values as nn::Upsample, but
  // its backward is a cheap sum instead of the slow upsample_nearest1d_backward kernel.
  static torch::Tensor up(const torch::Tensor& x) {
    return x.unsqueeze(-1).expand({x.size(0), x.size(1), x.size(2), 2}).reshape({x.size(0), x.size(1), 2 * x.size(2)});
  }

  std::pair<torch::Tensor, torch::Tensor> encode(const torch::Tensor& input) {
    auto x = input.view({-1, 1, dims});
    x = down(sigma(conv0(x)));
    x = down(sigma(conv1(x)));
    x = down(sigma(conv2(x)));
    return {convA(x).mean(2), convB(x).mean(2)};
  }

  torch::Tensor decode(const torch::Tensor& z) {
    auto x = restore(z).view({-1, 8, dims / 8});
    x = sigma(conv3(up(x)));
    x = sigma(conv4(up(x)));
    return conv5(up(x)).view({-1, dims});
  }

  std::int64_t dims;
  Swish sigma{nullptr};
  nn::Conv1d conv0{nullptr}, conv1{nullptr}, conv2{nullptr}, convA{nullptr}, convB{nullptr};
  nn::Linear restore{nullptr};
  nn::Conv1d conv3{nullptr}, conv4{nullptr}, conv5{nullptr};
  torch::Tensor down_filter;
};
TORCH_MODULE(LightVae);

// The seed's loss, summed over the batch: sum_b mean_t (recon - x)^2  -  0.1 * sum_b mean_k (1 +
// logvar - mu^2 - exp(logvar)).
torch::Tensor vae_loss(const torch::Tensor& recon, const torch::Tensor& x, const torch::Tensor& mu,
                       const torch::Tensor& logvar) {
  auto mse = (recon - x).square().mean(1).sum();
  auto kld = -kKlWeight * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1).sum();
  return mse + kld;
}

torch::Tensor reparameterize(const torch::Tensor& mu, const torch::Tensor& logvar) {
  auto std = torch::exp(0.5 * logvar);
  return mu + torch::randn_like(std) * std;
}

// Seeded Fisher-Yates on the host: the same permutation on every device and standard library
// (std::shuffle's algorithm is implementation-defined).
std::vector<std::int64_t> permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(j)]);
  }
  return p;
}

// Rows scored per forward pass (any size gives the same scores). On the CPU small batches keep
// the activations in cache (16384 rows took 9.9 s for 92 k beats on 2 cores, 1024 rows 2.4 s);
// on the GPU large batches mean fewer launches.
constexpr std::int64_t kScoreBatchCpu = 1024;
constexpr std::int64_t kScoreBatchCuda = 16384;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Adam with PyTorch's defaults (betas 0.9/0.999, eps 1e-8, no weight decay), written with the
// step count as a device tensor so that a whole training step, the update included, can be
// captured once in a CUDA graph and replayed (torch::optim::Adam keeps the count on the host and
// would freeze the bias correction into the graph). Same arithmetic on the CPU.
class Adam {
 public:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;

  // The parameters (and their gradients) are moved into one flat buffer each, every parameter
  // becoming a view into it: the update is then a handful of kernels over one buffer instead of
  // ~10 kernels per parameter tensor (19 of them), the difference that matters once a step is a
  // replayed graph. The arithmetic per element is unchanged.
  Adam(const std::vector<torch::Tensor>& params, double lr) : lr_(lr) {
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

  // Zeroed in place (not set to None): gradients keep their addresses across graph replays.
  void zero_grad() { grad_.zero_(); }

  void step() {
    torch::NoGradGuard no_grad;
    step_.add_(1);
    const auto bc1 = 1 - torch::pow(kBeta1, step_);
    const auto bc2_sqrt = torch::sqrt(1 - torch::pow(kBeta2, step_));
    m_.mul_(kBeta1).add_(grad_, 1 - kBeta1);
    v_.mul_(kBeta2).addcmul_(grad_, grad_, 1 - kBeta2);
    flat_.sub_((lr_ / bc1) * m_ / (v_.sqrt() / bc2_sqrt + kEps));
  }

 private:
  torch::Tensor flat_, grad_, m_, v_, step_;
  double lr_;
};

// One training step on the rows `idx` of `train`; adds the batch loss to `loss_sum`. Launches
// device work only (no host reads), so it can be captured in a CUDA graph.
void train_step(LightVae& model, Adam& adam, const torch::Tensor& train, const torch::Tensor& idx, torch::Tensor& loss_sum) {
  auto x = train.index_select(0, idx);
  adam.zero_grad();
  auto [mu, logvar] = model->encode(x);
  auto loss = vae_loss(model->decode(reparameterize(mu, logvar)), x, mu, logvar);
  loss.backward();
  adam.step();
  torch::NoGradGuard no_grad;
  loss_sum.add_(loss.detach());
}

#ifdef ECGPIPE_TORCH_CUDA
// The training step for one batch size, captured once and replayed: one graph launch instead of
// ~300 kernel launches from the host per step. `idx` is the static input the replay reads.
struct CapturedStep {
  at::cuda::CUDAGraph graph;
  torch::Tensor idx;
};

std::unique_ptr<CapturedStep> capture_step(LightVae& model, Adam& adam, const torch::Tensor& train, std::int64_t rows,
                                           torch::Tensor& loss_sum) {
  auto captured = std::make_unique<CapturedStep>();
  captured->idx = torch::zeros({rows}, torch::TensorOptions().dtype(torch::kInt64).device(train.device()));
  // Capture records the work without running it: the step is executed only by replay().
  captured->graph.capture_begin();
  train_step(model, adam, train, captured->idx, loss_sum);
  captured->graph.capture_end();
  return captured;
}
#endif

// Evenly spaced indices 0..n-1, at most `k` of them.
std::vector<std::int64_t> evenly_spaced(std::int64_t n, std::int64_t k) {
  std::vector<std::int64_t> idx;
  const std::int64_t m = std::min(n, k);
  for (std::int64_t i = 0; i < m; ++i) idx.push_back(i * n / m);
  return idx;
}

std::vector<float> rows_to_host(const torch::Tensor& data, const std::vector<std::int64_t>& idx) {
  if (idx.empty()) return {};
  auto t = torch::from_blob(const_cast<std::int64_t*>(idx.data()), {static_cast<std::int64_t>(idx.size())}, torch::kInt64)
               .to(data.device());
  auto rows = data.index_select(0, t).to(torch::kCPU).contiguous();
  return {rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel()};
}

// The report's extras: sample rows, top outliers, median beat, decoded latent grid.
void fill_report_extras(LightVae& model, const torch::Tensor& data, const torch::Tensor& mu_all, const torch::Tensor& median_row,
                        TrainResult& r) {
  const std::int64_t n = data.size(0);
  r.sample_index = evenly_spaced(n, kSampleRows);
  r.sample_rows = rows_to_host(data, r.sample_index);
  const auto top = top_scores(r.score.data(), r.score.size(), kTopOutliers);
  r.outlier_index.assign(top.begin(), top.end());
  r.outlier_rows = rows_to_host(data, r.outlier_index);
  auto median = median_row.to(torch::kCPU).contiguous();
  r.median_beat.assign(median.data_ptr<float>(), median.data_ptr<float>() + median.numel());
  // The grid spans the latent means' range (1st..99th percentile per axis, robust to outliers).
  constexpr double kLowQuantile = 0.01, kHighQuantile = 0.99;
  auto lo = torch::quantile(mu_all, kLowQuantile, 0), hi = torch::quantile(mu_all, kHighQuantile, 0);
  auto steps = torch::linspace(0.0, 1.0, kGridSide, mu_all.options());
  auto gy = steps.view({kGridSide, 1}).expand({kGridSide, kGridSide}).reshape({-1});
  auto gx = steps.view({1, kGridSide}).expand({kGridSide, kGridSide}).reshape({-1});
  auto z = torch::stack({lo[0] + gx * (hi[0] - lo[0]), lo[1] + gy * (hi[1] - lo[1])}, 1);
  auto decoded = model->decode(z).to(torch::kCPU).contiguous();
  auto zc = z.to(torch::kCPU).contiguous();
  r.decoded_grid.assign(decoded.data_ptr<float>(), decoded.data_ptr<float>() + decoded.numel());
  r.grid_latent.assign(zc.data_ptr<float>(), zc.data_ptr<float>() + zc.numel());
}

// The beat matrix as a tensor on its device, without a copy (on the GPU it also owns the buffer
// through the deleter), with LibTorch set to the pipeline's stream for the object's lifetime.
struct DeviceTensor {
  torch::Device device{torch::kCPU};
  torch::Tensor data;
#ifdef ECGPIPE_TORCH_CUDA
  std::optional<c10::cuda::CUDAStreamGuard> stream_guard;
#endif
  explicit DeviceTensor(const BeatMatrix& beats) {
#ifdef ECGPIPE_TORCH_CUDA
    if (beats.on_cuda) {
      device = torch::Device(torch::kCUDA, c10::cuda::current_device());
      // LibTorch works on the pipeline's stream: no cross-stream sync needed for the matrix.
      stream_guard.emplace(c10::cuda::getStreamFromExternal(static_cast<cudaStream_t>(beats.cuda_stream), device.index()));
    }
#else
    if (beats.on_cuda) throw DeviceError("this build's LibTorch has no CUDA support");
#endif
    const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
    data = beats.release ? torch::from_blob(beats.data, {beats.rows, beats.cols}, beats.release, opts)
                         : torch::from_blob(beats.data, {beats.rows, beats.cols}, opts);
    if (beats.normalise && beats.rows > 0) normalise_rows(data);
  }

  // See BeatMatrix::normalise. In place: the matrix is ours (CPU: the pipeline's buffer, which
  // it does not read again; GPU: owned through the deleter). A median, not a mean, for both the
  // baseline and the template, so that a minority of odd beats moves neither.
  static void normalise_rows(torch::Tensor& x) {
    torch::NoGradGuard no_grad;
    x.sub_(std::get<0>(x.median(1, /*keepdim=*/true)));
    const auto rms = std::get<0>(x.median(0)).square().mean().sqrt();
    // A flat recording (RMS 0) stays as it is rather than turning into NaN.
    x.div_(torch::where(rms > 0, rms, torch::ones_like(rms)));
  }
};

// Every beat's scores in signal order (reconstruction error at the latent mean, and the seed's
// loss per beat with z = mu: a deterministic negative ELBO), latent means, and the report extras.
void score_all(LightVae& model, const torch::Tensor& data, bool on_cuda, const ScoreFunction& score, TrainResult& result) {
  torch::NoGradGuard no_grad;
  model->eval();
  const std::int64_t n = data.size(0);
  std::vector<torch::Tensor> errors, elbos, means;
  const std::int64_t score_batch = on_cuda ? kScoreBatchCuda : kScoreBatchCpu;
  for (std::int64_t b = 0; b < n; b += score_batch) {
    auto x = data.slice(0, b, std::min(b + score_batch, n));
    auto [mu, logvar] = model->encode(x);
    auto recon = (model->decode(mu) - x).square().mean(1);
    elbos.push_back(recon - kKlWeight * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1));
    errors.push_back(recon);
    means.push_back(mu);
  }
  auto mu_all = torch::cat(means);
  // Distance from the dominant beat shape around each beat: beats in blocks of kTemplateBlock,
  // each block compared with the per-sample median of the kTemplateSpan beats centred on it,
  // relative to that template's energy. Local, because a long recording (or several recordings
  // in one file) drifts in morphology; wide, so that a minority of odd beats, even a stretch of
  // bigeminy, cannot move the median. A tiny energy floor: a flat template (all-zero recording)
  // gives distances, not a division by zero. The report keeps the whole recording's median.
  constexpr double kMinTemplateEnergy = 1e-12;
  auto median_row = std::get<0>(data.median(0));
  std::vector<torch::Tensor> distances;
  for (std::int64_t b = 0; b < n; b += kTemplateBlock) {
    const std::int64_t lo = std::max<std::int64_t>(0, b - (kTemplateSpan - kTemplateBlock) / 2);
    const std::int64_t hi = std::min(n, lo + kTemplateSpan);
    const auto tmpl = std::get<0>(data.slice(0, lo, hi).median(0));
    const auto energy = tmpl.square().mean().clamp_min(kMinTemplateEnergy);
    distances.push_back((data.slice(0, b, std::min(b + kTemplateBlock, n)) - tmpl).square().mean(1) / energy);
  }
  auto dist = torch::cat(distances).to(torch::kCPU).contiguous();
  result.template_distance.assign(dist.data_ptr<float>(), dist.data_ptr<float>() + n);
  auto err = torch::cat(errors).to(torch::kCPU).contiguous();
  auto elbo = torch::cat(elbos).to(torch::kCPU).contiguous();
  auto mu = mu_all.to(torch::kCPU).contiguous();
  result.recon_error.assign(err.data_ptr<float>(), err.data_ptr<float>() + n);
  result.neg_elbo.assign(elbo.data_ptr<float>(), elbo.data_ptr<float>() + n);
  result.latent_mean.assign(mu.data_ptr<float>(), mu.data_ptr<float>() + n * kLatentDim);
  result.score = score ? score(result) : result.recon_error;
  if (result.score.size() != static_cast<std::size_t>(n)) throw InternalError("score function returned the wrong count");
  fill_report_extras(model, data, mu_all, median_row, result);
}

// Same seed, same scores on the same device: cuDNN may otherwise pick convolution algorithms
// whose backward passes accumulate with atomics (run-to-run differences in the weights, seen on
// an H100), or benchmark and pick different algorithms from run to run. The deterministic ones
// cost little at these layer sizes. No effect on the CPU.
void require_deterministic_kernels() {
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

// Archive keys of the model file beside the module's own parameters and buffers.
constexpr const char* kMetaKey = "ecgpipe.meta";

}  // namespace

void normalise_rows_cpu(float* rows, std::int64_t n, std::int64_t cols) {
  if (n <= 0) return;
  torch::Tensor x = torch::from_blob(rows, {n, cols}, torch::kFloat32);
  DeviceTensor::normalise_rows(x);
}

TrainResult train_and_score(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                            const std::string& meta_json, const ScoreFunction& score) {
  const std::int64_t n = beats.rows;
  const std::int64_t dims = beats.cols;
  const auto n_train = static_cast<std::int64_t>(options.train_fraction * static_cast<double>(n));
  if (n_train < 1 || n - n_train < 1) {
    if (beats.release) beats.release(beats.data);
    throw InputError("too few beats for a train/test split: found " + std::to_string(n) +
                     " beats, need at least 2 (check --min-length/--max-length and the sampling rate)");
  }
  if (dims % kModelLengthMultiple != 0) throw UsageError("--max-length must be a multiple of 8");

  DeviceTensor in(beats);
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
  auto train = data.index_select(0, perm_t.slice(0, 0, n_train));
  auto test = data.index_select(0, perm_t.slice(0, n_train, n));
  result.in_train.assign(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n_train; ++i) result.in_train[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])] = 1;

  LightVae model(dims);
  model->to(device);
  Adam adam(model->parameters(), options.learning_rate);

  auto t0 = std::chrono::steady_clock::now();
  model->train();
  const std::int64_t batch = resolve_batch_size(options.batch_size, n_train);
  result.batch_size = static_cast<int>(batch);
  [[maybe_unused]] const std::int64_t full_batches = n_train / batch, rest = n_train % batch;
  auto loss_sum = torch::zeros({}, opts);  // summed on the device; one host read per epoch
#ifdef ECGPIPE_TORCH_CUDA
  std::unique_ptr<CapturedStep> full_step, rest_step;
#endif
  auto epoch_start = std::chrono::steady_clock::now();
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    // The DataLoader's shuffle=True: a fresh order each epoch (CPU generator, seeded above).
    auto order = torch::randperm(n_train, torch::TensorOptions().dtype(torch::kInt64)).to(device);
    loss_sum.zero_();
    std::int64_t b = 0;  // first row of the next batch
#ifdef ECGPIPE_TORCH_CUDA
    if (beats.on_cuda) {
      if (epoch == 1) {
        // One eager step first: it creates the cuDNN handles and the gradients, which must exist
        // before capture. Then the step is captured once per batch size and replayed; any capture
        // failure falls back to eager steps.
        const std::int64_t first = std::min(batch, n_train);
        train_step(model, adam, train, order.slice(0, 0, first), loss_sum);
        b = first;
        try {
          if (full_batches > 0) full_step = capture_step(model, adam, train, batch, loss_sum);
          if (rest > 0) rest_step = capture_step(model, adam, train, rest, loss_sum);
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
    for (; b < n_train; b += batch) {
      train_step(model, adam, train, order.slice(0, b, std::min(b + batch, n_train)), loss_sum);
    }
    const double mean_loss = loss_sum.item<double>() / static_cast<double>(n_train);
    result.epoch_loss.push_back(mean_loss);
    const auto now = std::chrono::steady_clock::now();
    const double beats_per_second = static_cast<double>(n_train) / std::chrono::duration<double>(now - epoch_start).count();
    epoch_start = now;
    if (options.on_epoch) options.on_epoch(epoch, mean_loss, beats_per_second);
  }
  result.train_seconds = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  model->eval();
  torch::NoGradGuard no_grad;
  {
    // Test loss as the seed computes it: the full forward pass (sampled z), summed, per beat.
    auto total = torch::zeros({}, opts);
    for (std::int64_t b = 0; b < test.size(0); b += batch) {
      auto x = test.slice(0, b, std::min(b + batch, test.size(0)));
      auto [mu, logvar] = model->encode(x);
      total += vae_loss(model->decode(reparameterize(mu, logvar)), x, mu, logvar);
    }
    result.test_loss = total.item<double>() / static_cast<double>(test.size(0));
  }
  score_all(model, data, beats.on_cuda, score, result);
  result.score_seconds = seconds_since(t0);

  // The model file: parameters and buffers (torch::save archive) plus what is needed to use it.
  torch::serialize::OutputArchive archive;
  model->to(torch::kCPU);
  model->save(archive);
  archive.write(kMetaKey, c10::IValue(meta_json));
  try {
    archive.save_to(model_path);
  } catch (const c10::Error& e) {
    throw OutputError("cannot write model " + model_path + ": " + e.what_without_backtrace());
  }
  return result;
}

namespace {

torch::serialize::InputArchive open_model(const std::string& model_path) {
  std::ifstream probe(model_path, std::ios::binary);
  if (!probe) throw InputError("cannot open model " + model_path + ": " + std::strerror(errno));
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(model_path, torch::Device(torch::kCPU));
  } catch (const c10::Error&) {
    throw InputError(model_path + " is not an ecgpipe model file (not a LibTorch archive)");
  }
  return archive;
}

}  // namespace

std::string read_model_meta(const std::string& model_path) {
  auto archive = open_model(model_path);
  c10::IValue meta;
  if (!archive.try_read(kMetaKey, meta) || !meta.isString()) {
    throw InputError(model_path + " is not an ecgpipe model file (no " + kMetaKey + " record)");
  }
  return meta.toStringRef();
}

TrainResult score_with_model(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score) {
  if (beats.rows < 1) {
    if (beats.release) beats.release(beats.data);
    throw InputError("no beats to score (check the recording and the model's sampling rate)");
  }
  auto archive = open_model(model_path);
  DeviceTensor in(beats);
  require_deterministic_kernels();
  LightVae model(beats.cols);
  // Loading replaces the tensors whatever their shapes; the decoder's first layer tells the beat
  // length the model was trained on (restore: Linear(latent, beat length)).
  try {
    model->load(archive);
  } catch (const c10::Error& e) {
    throw InputError("model " + model_path + " cannot be loaded: " + e.what_without_backtrace());
  }
  if (model->restore->weight.size(0) != beats.cols || model->restore->weight.size(1) != kLatentDim) {
    throw InputError("model " + model_path + " takes beats of " + std::to_string(model->restore->weight.size(0)) +
                     " samples, not " + std::to_string(beats.cols));
  }
  model->to(in.device);
  const auto t0 = std::chrono::steady_clock::now();
  TrainResult result;
  result.in_train.assign(static_cast<std::size_t>(beats.rows), 0);
  score_all(model, in.data, beats.on_cuda, score, result);
  result.score_seconds = seconds_since(t0);
  return result;
}

std::vector<std::size_t> top_scores(const float* scores, std::size_t n, std::size_t k) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(scores[i])) idx.push_back(i);
  k = std::min(k, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(),
                    [&](std::size_t a, std::size_t b) { return scores[a] > scores[b] || (scores[a] == scores[b] && a < b); });
  idx.resize(k);
  return idx;
}

int resolve_batch_size(int requested, std::int64_t n_train) {
  if (requested > 0) return requested;
  return static_cast<int>(std::clamp<std::int64_t>(n_train / kAutoBatchSteps, kMinAutoBatch, kSeedBatch));
}

std::string torch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

bool torch_cuda_available() { return torch::cuda::is_available(); }

void set_cpu_threads(int threads) {
  if (threads > 0) at::set_num_threads(threads);
}

int cpu_threads() { return at::get_num_threads(); }

}  // namespace ecgpipe
