// Scoring every beat with the LightVAE (src/model/vae_scoring.hpp); which rows the report keeps is
// src/model/report_extras.cpp.
#include "model/vae_scoring.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "model/beat_tensor.hpp"
#include "model/report_extras.hpp"
#include "model/template_distance.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>

#include <cstdlib>
#include <string>

#include "model/light_vae_fused.hpp"
#endif

namespace ecgpipe {
namespace detail {
namespace {

// Rows scored per forward pass (any size gives the same scores). On the CPU small batches keep
// the activations in cache (16384 rows took 9.9 s for 92 k beats on 2 cores, 1024 rows 2.4 s);
// on the GPU large batches mean fewer launches.
constexpr std::int64_t kScoreBatchCpu = 1024;
constexpr std::int64_t kScoreBatchCuda = 16384;

// A float tensor's values, in order, to dst on the host.
void copy_to(const torch::Tensor& t, float* dst) {
  const auto h = t.to(torch::kCPU).contiguous();
  std::memcpy(dst, h.data_ptr<float>(), static_cast<std::size_t>(h.numel()) * sizeof(float));
}

// Rows `idx` of the matrix on the host (report_extras.hpp rows_to_host, on LibTorch's current
// stream when the matrix is on a GPU).
std::vector<float> tensor_rows_to_host(const torch::Tensor& data, const std::vector<std::int64_t>& idx) {
  const torch::Tensor rows = data.contiguous();
  void* stream = nullptr;
#ifdef ECGPIPE_TORCH_CUDA
  if (rows.is_cuda()) stream = static_cast<cudaStream_t>(c10::cuda::getCurrentCUDAStream());
#endif
  return rows_to_host(rows.data_ptr<float>(), static_cast<int>(rows.size(1)), idx, stream);
}

// The decoder on latent points z (k x 2): the fused kernel when `flat` is defined, else LibTorch's.
torch::Tensor decode(LightVae& model, const torch::Tensor& flat, const torch::Tensor& z) {
#ifdef ECGPIPE_TORCH_CUDA
  if (flat.defined()) {
    auto zc = z.contiguous();
    auto out = torch::empty({z.size(0), model->dims}, z.options());
    light_vae_decode_cuda(span_of<const float>(flat), static_cast<int>(model->dims), span_of<const float>(zc),
                          span_of<float>(out), c10::cuda::getCurrentCUDAStream());
    return out;
  }
#else
  (void)flat;
#endif
  return model->decode(z);
}

// The report's extras: sample rows, top outliers, median beat, decoded latent grid.
void fill_report_extras(LightVae& model, const torch::Tensor& flat, const torch::Tensor& data, const torch::Tensor& median_row,
                        TrainResult& r) {
  const std::int64_t n = data.size(0);
  choose_report_rows(r, n);
  r.sample_rows = tensor_rows_to_host(data, r.sample_index);
  r.outlier_rows = tensor_rows_to_host(data, r.outlier_index);
  auto median = median_row.to(torch::kCPU).contiguous();
  r.median_beat.assign(median.data_ptr<float>(), median.data_ptr<float>() + median.numel());
  place_latent_grid(r, n);
  auto z = torch::from_blob(r.grid_latent.data(), {kGridSide * kGridSide, kLatentDim}, torch::kFloat32).to(data.device());
  auto decoded = decode(model, flat, z).to(torch::kCPU).contiguous();
  r.decoded_grid.assign(decoded.data_ptr<float>(), decoded.data_ptr<float>() + decoded.numel());
}

}  // namespace

void score_all(LightVae& model, const torch::Tensor& data, bool on_cuda, const ScoreFunction& score, TrainResult& result,
               const torch::Tensor& trained_flat) {
  torch::NoGradGuard no_grad;
  model->eval();
  const std::int64_t n = data.size(0);
  const auto un = static_cast<std::size_t>(n);
  result.recon_error.resize(un);
  result.neg_elbo.resize(un);
  result.latent_mean.resize(un * kLatentDim);
  torch::Tensor flat;  // the fused kernels' parameters, when they score
#ifdef ECGPIPE_TORCH_CUDA
  if (on_cuda && fused_kernels_usable(model->dims)) flat = trained_flat.defined() ? trained_flat : fused_parameters(model);
  if (flat.defined()) {
    // One kernel for every beat (a block per beat, kernels/model/light_vae.cu); its rows of
    // kFusedScoreValues come to the host in one copy and are taken apart there. (Splitting them on the device with torch::cat loaded a kernel
    // module for this alone: 12 ms on an H100, 2026-11-24.)
    const auto s = fused_scores(flat, model->dims, data, torch::Tensor()).to(torch::kCPU).contiguous();
    const float* v = s.data_ptr<float>();
    for (std::size_t i = 0; i < un; ++i, v += kFusedScoreValues) {
      result.recon_error[i] = v[0];
      result.neg_elbo[i] = fused_row_loss(v);
      for (int d = 0; d < kLatentDim; ++d) result.latent_mean[i * kLatentDim + static_cast<std::size_t>(d)] = v[2 + d];
    }
  }
#else
  (void)trained_flat;
#endif
  const std::int64_t score_batch = on_cuda ? kScoreBatchCuda : kScoreBatchCpu;
  for (std::int64_t b = 0; !flat.defined() && b < n; b += score_batch) {
    auto x = data.slice(0, b, std::min(b + score_batch, n));
    auto [mu, logvar] = model->encode(x);
    auto recon = (model->decode(mu) - x).square().mean(1);
    auto elbo = recon - kKlWeight * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1);
    const auto at = static_cast<std::size_t>(b);
    copy_to(recon, result.recon_error.data() + at);
    copy_to(elbo, result.neg_elbo.data() + at);
    copy_to(mu, result.latent_mean.data() + at * kLatentDim);
  }
  // The report keeps the whole recording's median beat; the distances use local ones.
  auto median_row = column_median(data);
  result.template_distance.resize(un);
  copy_to(template_distance(data), result.template_distance.data());
  result.score = score ? score(result) : result.recon_error;
  if (result.score.size() != un) throw InternalError("score function returned the wrong count");
  fill_report_extras(model, flat, data, median_row, result);
}

bool fused_kernels_usable(std::int64_t dims) {
#ifdef ECGPIPE_TORCH_CUDA
  const char* env = std::getenv("ECGPIPE_FUSED_VAE");
  return !(env != nullptr && std::string(env) == "0") && light_vae_fused_supported(static_cast<int>(dims));
#else
  (void)dims;
  return false;
#endif
}

#ifdef ECGPIPE_TORCH_CUDA
torch::Tensor fused_parameters(LightVae& model) {
  const int dims = static_cast<int>(model->dims);
  torch::NoGradGuard no_grad;
  std::vector<std::pair<int, torch::Tensor>> parts;
  for (const auto& p : model->named_parameters()) {
    const int at = light_vae_fused_offset(dims, p.key().c_str());
    if (at < 0) throw InternalError("fused LightVAE: unknown parameter " + p.key());
    parts.emplace_back(at, p.value().detach().reshape({-1}));
  }
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<torch::Tensor> ordered;
  std::int64_t at = 0;
  for (auto& [offset, t] : parts) {
    if (offset != at) throw InternalError("fused LightVAE: parameter layout differs from the model at offset " + std::to_string(at));
    at += t.numel();
    ordered.push_back(t);
  }
  if (at != light_vae_fused_parameters(dims)) throw InternalError("fused LightVAE: parameter count differs from the model");
  return torch::cat(ordered).contiguous();
}

torch::Tensor fused_scores(const torch::Tensor& flat, std::int64_t dims, const torch::Tensor& rows, const torch::Tensor& eps) {
  auto x = rows.contiguous();
  auto out = torch::empty({x.size(0), kFusedScoreValues}, x.options());
  DeviceSpan<const float> e{};
  torch::Tensor ec;
  if (eps.defined()) {
    ec = eps.contiguous();
    e = span_of<const float>(ec);
  }
  light_vae_score_cuda(span_of<const float>(flat), static_cast<int>(dims), span_of<const float>(x), e, span_of<float>(out),
                       c10::cuda::getCurrentCUDAStream());
  return out;
}
#endif

}  // namespace detail

}  // namespace ecgpipe
