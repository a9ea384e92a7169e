// The fused LightVAE training step (src/model/light_vae_fused.hpp): its CPU reference against
// LibTorch's autograd on the model of src/model/light_vae.cpp, and the CUDA kernel against the CPU
// reference (GPU tests skip without a GPU).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/graph_adam.hpp"
#include "model/light_vae.hpp"
#include "model/light_vae_fused.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/model/vae.hpp"
#include "gpu_test_util.hpp"

namespace {

using ecgpipe::detail::GraphAdam;
using ecgpipe::detail::LightVae;

std::vector<float> to_vector(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

float largest_magnitude(const float* v, std::size_t n) {
  float largest = 0.0f;
  for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(v[i]));
  return largest;
}
float largest_magnitude(const std::vector<float>& v) { return largest_magnitude(v.data(), v.size()); }

// A model with LibTorch's initialisation plus noise on every parameter (so alpha is not 1 and
// no bias is 0, which would hide a missing term), in GraphAdam's flat buffer.
struct Model {
  LightVae net;
  GraphAdam adam;
  Model(int dims, std::uint64_t seed) : net(make(dims, seed)), adam(net->parameters(), 1e-3) {}
  static LightVae make(int dims, std::uint64_t seed) {
    torch::manual_seed(seed);
    LightVae m(dims);
    torch::NoGradGuard no_grad;
    for (auto& p : m->parameters()) p.add_(0.1 * torch::randn_like(p));
    return m;
  }
};

struct Batch {
  std::vector<float> rows;        // `count` rows of dims
  std::vector<std::int64_t> idx;  // the batch: rows in a shuffled order, some left out
  std::vector<float> eps;         // two normal draws per batch row
};

Batch make_batch(int dims, int count, int batch, std::uint64_t seed) {
  torch::manual_seed(seed);
  Batch b;
  b.rows = to_vector(torch::randn({count, dims}));
  auto perm = torch::randperm(count, torch::kInt64).slice(0, 0, batch).contiguous();
  b.idx.assign(perm.data_ptr<std::int64_t>(), perm.data_ptr<std::int64_t>() + batch);
  b.eps = to_vector(torch::randn({batch, ecgpipe::kLatentDim}));
  return b;
}

// LibTorch's gradient of the summed batch loss (the training step of src/model/vae.cpp with the normal
// draws given), as the flat gradient buffer; the loss in *loss.
std::vector<float> autograd_gradient(Model& m, int dims, const Batch& b, float* loss) {
  const auto batch = static_cast<std::int64_t>(b.idx.size());
  auto rows = torch::from_blob(const_cast<float*>(b.rows.data()), {static_cast<std::int64_t>(b.rows.size()) / dims, dims});
  auto idx = torch::from_blob(const_cast<std::int64_t*>(b.idx.data()), {batch}, torch::kInt64);
  auto eps = torch::from_blob(const_cast<float*>(b.eps.data()), {batch, ecgpipe::kLatentDim});
  auto x = rows.index_select(0, idx);
  m.adam.zero_grad();
  auto [mu, logvar] = m.net->encode(x);
  auto z = mu + eps * torch::exp(0.5 * logvar);
  auto l = ecgpipe::detail::vae_loss(m.net->decode(z), x, mu, logvar);
  l.backward();
  *loss = l.item<float>();
  return to_vector(m.adam.gradients());
}

// Every gradient entry within `rel` of the largest magnitude of its parameter tensor (float32
// sums in different orders: see the callers for each tolerance).
void expect_gradients_near(const std::vector<float>& got, const std::vector<float>& want, Model& m, int dims, double rel,
                           const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& p : m.net->named_parameters()) {
    const int at = ecgpipe::detail::light_vae_fused_offset(dims, p.key().c_str());
    ASSERT_GE(at, 0) << p.key();
    const auto n = static_cast<std::size_t>(p.value().numel());
    const float largest = largest_magnitude(want.data() + at, n);
    const double tolerance = rel * largest + 1e-7;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_NEAR(got[at + i], want[at + i], tolerance) << what << ": " << p.key() << "[" << i << "] (largest " << largest << ")";
    }
  }
}

TEST(LightVaeFused, LayoutIsTheModelsParameterOrderInGraphAdamsBuffer) {
  for (int dims : {8, 256, 520}) {
    Model m(dims, 1);
    const float* base = m.adam.parameters().data_ptr<float>();
    EXPECT_EQ(m.adam.parameters().numel(), ecgpipe::detail::light_vae_fused_parameters(dims));
    int named = 0;
    for (const auto& p : m.net->named_parameters()) {
      EXPECT_EQ(ecgpipe::detail::light_vae_fused_offset(dims, p.key().c_str()), p.value().data_ptr<float>() - base) << p.key();
      ++named;
    }
    EXPECT_EQ(named, 19);
  }
  EXPECT_EQ(ecgpipe::detail::light_vae_fused_offset(8, "down_filter"), -1);
}

// The hand-written backward pass equals autograd's. Tolerance 2e-5 of each tensor's largest
// gradient: both sum up to dims x batch float32 products, in different orders (autograd through
// cuDNN-free CPU convolutions, the reference position by position); the differences seen were
// ~1e-6 relative. dims 8 is the edge where the encoder's last length is 1.
TEST(LightVaeFused, CpuReferenceGradientsEqualLibTorchAutograd) {
  for (int dims : {8, 64, 256}) {
    for (int batch : {1, 3}) {
      const std::string what = "dims " + std::to_string(dims) + " batch " + std::to_string(batch);
      Model m(dims, 7);
      const Batch b = make_batch(dims, batch + 2, batch, 11);
      float torch_loss = 0.0f;
      const auto want = autograd_gradient(m, dims, b, &torch_loss);
      std::vector<float> got(want.size());
      float loss = 0.0f;
      const auto params = to_vector(m.adam.parameters());
      ecgpipe::detail::light_vae_step_cpu(params.data(), dims, b.rows.data(), b.idx.data(), batch, b.eps.data(), got.data(),
                                          &loss);
      EXPECT_NEAR(loss, torch_loss, 1e-5 * std::abs(torch_loss)) << what;
      expect_gradients_near(got, want, m, dims, 2e-5, what);
    }
  }
}

TEST(LightVaeFused, CpuReferenceAddsTheLossAndSumsBeats) {
  constexpr int kDims = 16;
  Model m(kDims, 3);
  const Batch b = make_batch(kDims, 4, 4, 5);
  const auto params = to_vector(m.adam.parameters());
  const auto p = static_cast<std::size_t>(ecgpipe::detail::light_vae_fused_parameters(kDims));
  std::vector<float> all(p), sum(p, 0.0f), one(p);
  float loss_all = 1.5f, loss_parts = 0.0f;
  ecgpipe::detail::light_vae_step_cpu(params.data(), kDims, b.rows.data(), b.idx.data(), 4, b.eps.data(), all.data(), &loss_all);
  for (int i = 0; i < 4; ++i) {
    ecgpipe::detail::light_vae_step_cpu(params.data(), kDims, b.rows.data(), b.idx.data() + i, 1, b.eps.data() + 2 * i,
                                        one.data(), &loss_parts);
    for (std::size_t k = 0; k < p; ++k) sum[k] += one[k];
  }
  // Same additions in the same order: exact.
  EXPECT_EQ(all, sum);
  EXPECT_FLOAT_EQ(loss_all - 1.5f, loss_parts);
}

// Scoring and decoding against the LibTorch model's eval pass (the values vae_scoring.cpp takes:
// reconstruction error at z = mu, the KL term, mu; the decoder on latent points). Tolerance 1e-5
// relative to each quantity's largest magnitude: float32 sums in different orders.
TEST(LightVaeFused, CpuScoresAndDecodingEqualTheModels) {
  for (int dims : {8, 256}) {
    Model m(dims, 21);
    const Batch b = make_batch(dims, 5, 5, 23);
    const auto params = to_vector(m.adam.parameters());
    torch::NoGradGuard no_grad;
    auto x = torch::from_blob(const_cast<float*>(b.rows.data()), {5, dims});
    auto [mu, logvar] = m.net->encode(x);
    auto mse = (m.net->decode(mu) - x).square().mean(1);
    auto kld = -ecgpipe::kKlWeight * (1 + logvar - mu.pow(2) - logvar.exp()).mean(1);
    const auto want = to_vector(torch::stack({mse, kld, mu.select(1, 0), mu.select(1, 1)}, 1));
    std::vector<float> got(want.size());
    ecgpipe::detail::light_vae_score_cpu(params.data(), dims, b.rows.data(), 5, nullptr, got.data());
    float largest = largest_magnitude(want);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * largest) << "dims " << dims << " value " << i;

    const std::vector<float> z = {0.5f, -1.0f, 2.0f, 0.25f};
    const auto decoded = to_vector(m.net->decode(torch::tensor(z).view({2, 2})));
    std::vector<float> mine(decoded.size());
    ecgpipe::detail::light_vae_decode_cpu(params.data(), dims, z.data(), 2, mine.data());
    largest = largest_magnitude(decoded);
    for (std::size_t i = 0; i < decoded.size(); ++i) EXPECT_NEAR(mine[i], decoded[i], 1e-5 * largest) << "dims " << dims;
  }
}

#ifdef ECGPIPE_WITH_CUDA
struct GpuStep {
  std::vector<float> grad;
  float loss = 0.0f;
};

GpuStep run_kernel(const std::vector<float>& params, int dims, const Batch& b) {
  ecgpipe_test::TestStream stream;
  const auto batch = static_cast<std::int64_t>(b.idx.size());
  auto d_params = ecgpipe_test::upload(params, stream);
  auto d_rows = ecgpipe_test::upload(b.rows, stream);
  auto d_idx = ecgpipe_test::upload(b.idx, stream);
  auto d_eps = ecgpipe_test::upload(b.eps, stream);
  ecgpipe::DeviceBuffer<float> partials(ecgpipe::detail::light_vae_partials_floats(dims, batch), stream);
  ecgpipe::DeviceBuffer<float> grad(params.size(), stream);
  auto loss = ecgpipe_test::upload(std::vector<float>{0.25f}, stream);
  ecgpipe::detail::light_vae_step_cuda(d_params.cspan(), dims, d_rows.cspan(), d_idx.cspan(), d_eps.cspan(), partials.span(),
                                       grad.span(), loss.data(), stream);
  GpuStep out;
  out.grad = ecgpipe_test::download(grad.data(), grad.size(), stream);
  out.loss = ecgpipe_test::download(loss.data(), 1, stream)[0] - 0.25f;
  return out;
}

// Kernel against the CPU reference. Tolerance 2e-5 of each tensor's largest gradient: the kernel
// sums positions in a shuffle tree and beats in 8 interleaved groups, the reference in order, and
// nvcc contracts multiply-adds into FMAs. Batches of 1 and 33 rows (one beyond a 32-row group
// boundary of the sum), dims 8, 256 and 512 (the largest fused size).
TEST(LightVaeFusedGpu, KernelEqualsCpuReferenceAndRepeatsBitForBit) {
  SKIP_WITHOUT_GPU();
  for (int dims : {8, 256, 512}) {
    if (!ecgpipe::detail::light_vae_fused_supported(dims)) GTEST_SKIP() << "this GPU lacks the shared memory for dims " << dims;
    for (int batch : {1, 33}) {
      const std::string what = "dims " + std::to_string(dims) + " batch " + std::to_string(batch);
      Model m(dims, 9);
      const Batch b = make_batch(dims, batch + 5, batch, 13);
      const auto params = to_vector(m.adam.parameters());
      std::vector<float> want(params.size());
      float want_loss = 0.0f;
      ecgpipe::detail::light_vae_step_cpu(params.data(), dims, b.rows.data(), b.idx.data(), batch, b.eps.data(), want.data(),
                                          &want_loss);
      const GpuStep got = run_kernel(params, dims, b);
      EXPECT_NEAR(got.loss, want_loss, 1e-5 * std::abs(want_loss)) << what;
      expect_gradients_near(got.grad, want, m, dims, 2e-5, what);
      const GpuStep again = run_kernel(params, dims, b);
      EXPECT_EQ(again.grad, got.grad) << what;
      EXPECT_EQ(again.loss, got.loss) << what;
    }
  }
}

// The eval kernels against their CPU references (tolerance as for the step: 2e-5 of the largest
// magnitude; the kernel's mean is a shuffle-tree sum). 33 rows, with and without draws.
TEST(LightVaeFusedGpu, ScoreAndDecodeKernelsEqualCpuReference) {
  SKIP_WITHOUT_GPU();
  for (int dims : {8, 256}) {
    ecgpipe_test::TestStream stream;
    Model m(dims, 31);
    const Batch b = make_batch(dims, 33, 33, 37);
    const auto params = to_vector(m.adam.parameters());
    auto d_params = ecgpipe_test::upload(params, stream);
    auto d_rows = ecgpipe_test::upload(b.rows, stream);
    auto d_eps = ecgpipe_test::upload(b.eps, stream);
    for (bool sampled : {false, true}) {
      std::vector<float> want(33 * ecgpipe::detail::kFusedScoreValues);
      ecgpipe::detail::light_vae_score_cpu(params.data(), dims, b.rows.data(), 33, sampled ? b.eps.data() : nullptr, want.data());
      ecgpipe::DeviceBuffer<float> out(want.size(), stream);
      ecgpipe::detail::light_vae_score_cuda(d_params.cspan(), dims, d_rows.cspan(),
                                            sampled ? d_eps.cspan() : ecgpipe::DeviceSpan<const float>{}, out.span(), stream);
      const auto got = ecgpipe_test::download(out.data(), out.size(), stream);
      const float largest = largest_magnitude(want);
      for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 2e-5 * largest) << "dims " << dims << " i " << i;
    }
    const std::vector<float> z = {0.5f, -1.0f, 2.0f, 0.25f, -3.0f, 1.5f};
    std::vector<float> want(3 * static_cast<std::size_t>(dims));
    ecgpipe::detail::light_vae_decode_cpu(params.data(), dims, z.data(), 3, want.data());
    auto d_z = ecgpipe_test::upload(z, stream);
    ecgpipe::DeviceBuffer<float> out(want.size(), stream);
    ecgpipe::detail::light_vae_decode_cuda(d_params.cspan(), dims, d_z.cspan(), out.span(), stream);
    const auto got = ecgpipe_test::download(out.data(), out.size(), stream);
    const float largest = largest_magnitude(want);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 2e-5 * largest) << "decode dims " << dims;
  }
}

TEST(LightVaeFusedGpu, UnsupportedSizesAreRefusedNotRun) {
  SKIP_WITHOUT_GPU();
  EXPECT_FALSE(ecgpipe::detail::light_vae_fused_supported(0));
  EXPECT_FALSE(ecgpipe::detail::light_vae_fused_supported(12));
  EXPECT_FALSE(ecgpipe::detail::light_vae_fused_supported(520));
  EXPECT_TRUE(ecgpipe::detail::light_vae_fused_supported(256));
}
#endif

}  // namespace
