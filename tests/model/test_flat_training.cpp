// The training without LibTorch (src/model/flat_training.hpp, flat_trainer.hpp): its generator, Adam,
// parameter table and model file against LibTorch's model code, the CPU reference's training end to
// end, and on a GPU the kernels and the whole training against the CPU reference (GPU tests skip
// without a GPU).
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/vae.hpp"
#include "kernels/common/philox.cuh"
#include "model/adam_update.hpp"
#include "model/beat_medians_cpu.hpp"
#include "model/beat_tensor.hpp"
#include "model/flat_parameters.hpp"
#include "model/flat_training.hpp"
#include "model/graph_adam.hpp"
#include "model/light_vae.hpp"
#include "model/model_file_format.hpp"
#include "model/model_weights.hpp"
#include "model/safetensors.hpp"
#include "model/normal_draws.hpp"
#include "model/template_distance.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using ecgpipe::BeatMatrix;
using ecgpipe::TrainOptions;
using ecgpipe::TrainResult;
namespace detail = ecgpipe::detail;

constexpr int kDims = 64;
const std::string kMeta = R"({"format": 1, "note": "test"})";

std::vector<float> beat_rows(int rows, int outliers, int dims = kDims) { return testutil::beat_rows(rows, outliers, dims); }

TrainOptions options(int epochs, int batch = 32) {
  TrainOptions o;
  o.epochs = epochs;
  o.batch_size = batch;
  o.learning_rate = 1e-2;  // few steps: a larger step than Adam's default gets somewhere
  return o;
}

std::vector<float> to_vector(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// Random123's published known-answer vectors for Philox4x32-10 (its kat_vectors file).
TEST(Philox, KnownAnswers) {
  namespace px = ecgpipe::philox;
  const auto run = [](px::Block c, std::uint32_t k0, std::uint32_t k1) {
    const px::Block r = px::philox4x32_10(c, k0, k1);
    return std::array<std::uint32_t, 4>{r.v[0], r.v[1], r.v[2], r.v[3]};
  };
  EXPECT_EQ(run({{0, 0, 0, 0}}, 0, 0), (std::array<std::uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(run({{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, 0xffffffff, 0xffffffff),
            (std::array<std::uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(run({{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0),
            (std::array<std::uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// Draw k depends on (seed, stream, k) only: pieces at any offsets (odd ones, across the 4-draw
// blocks) are the whole run's values exactly; other streams and seeds give other numbers; and
// 200 000 draws have mean 0 and variance 1 within 5 standard errors (0.011 and 0.016).
TEST(NormalDraws, NumberedDrawsAreStandardNormal) {
  constexpr std::size_t kN = 200000;
  std::vector<float> all(kN);
  detail::normal_draws_cpu(42, 0, 0, all.data(), kN);
  for (const std::size_t first : {std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{32}, std::size_t{33}, kN - 5}) {
    std::vector<float> piece(5);
    detail::normal_draws_cpu(42, 0, first, piece.data(), piece.size());
    const auto at = all.begin() + static_cast<std::ptrdiff_t>(first);
    EXPECT_EQ(piece, std::vector<float>(at, at + 5)) << first;
  }
  std::vector<float> other(8), reseeded(8);
  detail::normal_draws_cpu(42, 1, 0, other.data(), 8);
  detail::normal_draws_cpu(43, 0, 0, reseeded.data(), 8);
  EXPECT_NE(other, std::vector<float>(all.begin(), all.begin() + 8));
  EXPECT_NE(reseeded, std::vector<float>(all.begin(), all.begin() + 8));
  double sum = 0.0, sq = 0.0;
  for (const float v : all) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += static_cast<double>(v) * v;
  }
  const double mean = sum / kN, var = sq / kN - mean * mean;
  EXPECT_LT(std::abs(mean), 5.0 / std::sqrt(static_cast<double>(kN)));
  EXPECT_LT(std::abs(var - 1.0), 5.0 * std::sqrt(2.0 / kN));
}

// The flat Adam against GraphAdam (LibTorch, the LibTorch path's optimizer) over 5 steps of the
// same gradients: the same update; within 1e-6 of the values (~0.1-1): the two round the same
// formula in different orders (LibTorch's bias corrections are float tensors).
TEST(AdamUpdate, EqualsGraphAdam) {
  torch::manual_seed(5);
  auto p = torch::randn({300});
  std::vector<torch::Tensor> params{p.clone().set_requires_grad(true)};
  detail::GraphAdam reference(params, 1e-2);
  std::vector<float> flat = to_vector(p), m(300, 0.0f), v(300, 0.0f);
  for (int t = 1; t <= 5; ++t) {
    const auto g = torch::randn({300});
    reference.gradients().copy_(g);
    reference.step();
    const std::vector<float> grad = to_vector(g);
    detail::adam_update_cpu(flat.data(), grad.data(), m.data(), v.data(), flat.size(), detail::adam_scalars(1e-2, t));
  }
  const std::vector<float> want = to_vector(reference.parameters());
  for (std::size_t i = 0; i < flat.size(); ++i) EXPECT_NEAR(flat[i], want[i], 1e-6) << i;
}

// The table names every LibTorch parameter of the model with its shape and its place in
// GraphAdam's flat buffer; nothing else.
TEST(FlatParameters, TableIsTheLibTorchModelsParameters) {
  for (const int dims : {8, 64, 176}) {
    detail::LightVae net(dims);
    detail::GraphAdam adam(net->parameters(), 1e-3);
    const float* base = adam.parameters().data_ptr<float>();
    const auto table = detail::light_vae_flat_tensors(dims);
    ASSERT_EQ(table.size(), net->named_parameters().size());
    std::size_t i = 0;
    for (const auto& p : net->named_parameters()) {
      EXPECT_EQ(table[i].name, p.key());
      EXPECT_EQ(table[i].shape, std::vector<std::int64_t>(p.value().sizes().begin(), p.value().sizes().end())) << p.key();
      EXPECT_EQ(table[i].offset, p.value().data_ptr<float>() - base) << p.key();
      ++i;
    }
  }
}

// Initial values: each tensor within LibTorch's bound 1/sqrt(fan_in) and spread over it, alpha 1;
// the same for the same seed, others for another.
TEST(FlatParameters, InitialValuesFollowLibTorchsBounds) {
  const auto a = detail::light_vae_initial_parameters(kDims, 42);
  EXPECT_EQ(a, detail::light_vae_initial_parameters(kDims, 42));
  EXPECT_NE(a, detail::light_vae_initial_parameters(kDims, 43));
  for (const auto& t : detail::light_vae_flat_tensors(kDims)) {
    std::int64_t count = 1;
    for (const auto d : t.shape) count *= d;
    const float* v = a.data() + t.offset;
    if (t.fan_in == 0) {
      EXPECT_EQ(v[0], 1.0f) << t.name;
      continue;
    }
    const float bound = 1.0f / std::sqrt(static_cast<float>(t.fan_in));
    float lo = bound, hi = -bound;
    for (std::int64_t i = 0; i < count; ++i) {
      EXPECT_LE(std::abs(v[i]), bound) << t.name;
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    if (count >= 8) {
      EXPECT_GT(hi - lo, bound) << t.name << ": spread over the range";
    }
  }
}

// The model file written from the flat buffer is byte for byte the one LibTorch's model code
// writes for a module holding the same values.
TEST(FlatParameters, ModelFileEqualsLibTorchsForTheSameValues) {
  const auto flat = detail::light_vae_initial_parameters(kDims, 9);
  detail::LightVae net(kDims);
  detail::GraphAdam adam(net->parameters(), 1e-3);
  {
    torch::NoGradGuard no_grad;
    adam.parameters().copy_(torch::from_blob(const_cast<float*>(flat.data()), {static_cast<std::int64_t>(flat.size())}));
  }
  EXPECT_EQ(detail::serialise_flat_model(flat, kDims, kMeta), detail::serialise_model(net, kMeta));
}

// The median references against LibTorch's definitions (beat_tensor.cpp, template_distance.cpp):
// medians exact; the normalised rows and the distances to float rounding of their sums (1e-5
// relative: a 64-term float sum's rounding, ~64 x 6e-8, with margin).
TEST(BeatMediansCpu, EqualLibTorchsDefinitions) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{31}, std::int64_t{513}, std::int64_t{1100}}) {
    torch::manual_seed(static_cast<std::uint64_t>(n));
    const auto rows = torch::randn({n, kDims});
    const std::vector<float> host = to_vector(rows);
    EXPECT_EQ(detail::column_median_reference(host.data(), 0, n, kDims), to_vector(detail::column_median(rows))) << n;
    auto normalised = host;
    detail::normalise_rows_reference(normalised.data(), n, kDims);
    torch::Tensor t = rows.clone();
    detail::normalise_rows(t);
    const auto want = to_vector(t);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(normalised[i], want[i], 1e-5 * (1.0 + std::abs(want[i]))) << n;
    const auto d = detail::template_distance_reference(host.data(), n, kDims);
    const auto want_d = to_vector(detail::template_distance(rows));
    for (std::size_t i = 0; i < want_d.size(); ++i) ASSERT_NEAR(d[i], want_d[i], 1e-5 * want_d[i]) << n << " row " << i;
  }
}

// Every per-beat score and what the report keeps of them, exactly.
void expect_same_scores(const TrainResult& a, const TrainResult& b) {
  EXPECT_EQ(a.recon_error, b.recon_error);
  EXPECT_EQ(a.neg_elbo, b.neg_elbo);
  EXPECT_EQ(a.latent_mean, b.latent_mean);
  EXPECT_EQ(a.template_distance, b.template_distance);
  EXPECT_EQ(a.median_beat, b.median_beat);
  EXPECT_EQ(a.decoded_grid, b.decoded_grid);
  EXPECT_EQ(a.outlier_index, b.outlier_index);
  EXPECT_EQ(a.sample_rows, b.sample_rows);
  EXPECT_EQ(a.outlier_rows, b.outlier_rows);
}

TrainResult train_cpu(std::vector<float>& m, int rows, const TrainOptions& o, const std::string& path = "") {
  return detail::train_and_score_flat_cpu(BeatMatrix::view(m.data(), rows, static_cast<std::int64_t>(m.size() / rows)), o, path,
                                          kMeta, {});
}

// The CPU reference end to end: the loss falls, the odd rows score highest, the split is the
// LibTorch path's (same seed, same beats train), the same seed repeats the result exactly, and the
// model file opens in LibTorch's model code, whose scoring gives the same scores (1e-4 relative:
// LibTorch's convolutions sum in their own order).
TEST(FlatTrainingCpu, TrainsScoresAndWritesALibTorchModel) {
  const auto dir = testutil::fresh_dir();
  auto m = beat_rows(200, 4);
  auto copy = m;
  const TrainResult r = train_cpu(m, 200, options(8), (dir / "m.safetensors").string());
  EXPECT_FALSE(r.libtorch);
  EXPECT_TRUE(r.fused_step);
  ASSERT_EQ(r.epoch_loss.size(), 8u);
  EXPECT_LT(r.epoch_loss.back(), 0.5 * r.epoch_loss.front());
  EXPECT_TRUE(std::isfinite(r.test_loss));
  ASSERT_EQ(r.recon_error.size(), 200u);
  EXPECT_EQ(r.score, r.recon_error);
  for (int k = 0; k < 4; ++k) EXPECT_GE(r.outlier_index[static_cast<std::size_t>(k)], 196) << "rank " << k;
  EXPECT_EQ(r.decoded_grid.size(), static_cast<std::size_t>(ecgpipe::kGridSide * ecgpipe::kGridSide * kDims));
  EXPECT_EQ(r.median_beat.size(), static_cast<std::size_t>(kDims));
  EXPECT_EQ(r.sample_rows.size(), r.sample_index.size() * kDims);

  const TrainResult again = train_cpu(copy, 200, options(8));
  EXPECT_EQ(again.epoch_loss, r.epoch_loss);
  EXPECT_EQ(again.recon_error, r.recon_error);
  EXPECT_EQ(again.model_file, r.model_file);

  auto lt = beat_rows(200, 4);
  const TrainResult torch_path = ecgpipe::train_and_score(BeatMatrix::view(lt.data(), 200, kDims), options(1), "", kMeta);
  EXPECT_TRUE(torch_path.libtorch);
  EXPECT_EQ(torch_path.in_train, r.in_train) << "the same split as the LibTorch path";

  auto scored_rows = beat_rows(200, 4);
  const TrainResult scored =
      ecgpipe::score_with_model(BeatMatrix::view(scored_rows.data(), 200, kDims), (dir / "m.safetensors").string());
  ASSERT_EQ(scored.recon_error.size(), 200u);
  for (std::size_t i = 0; i < 200; ++i) EXPECT_NEAR(scored.recon_error[i], r.recon_error[i], 1e-4 * r.recon_error[i]) << i;
}

// Edges: 2 beats (the smallest split), 33 training rows in batches of 32 (a last batch of 1), a
// batch size over the rows (--batch-size is not bounded above) and a normalised matrix train; 1
// beat, rows not a multiple of 8 and rows longer than the fused kernels take are refused.
TEST(FlatTrainingCpu, Edges) {
  auto two = beat_rows(2, 0);
  const TrainResult r2 = train_cpu(two, 2, options(2));
  EXPECT_EQ(std::count(r2.in_train.begin(), r2.in_train.end(), 1), 1);
  auto rows44 = beat_rows(44, 2);  // 0.75 x 44 = 33 training rows
  const TrainResult r44 = train_cpu(rows44, 44, options(2));
  EXPECT_EQ(std::count(r44.in_train.begin(), r44.in_train.end(), 1), 33);
  EXPECT_EQ(r44.batch_size, 32);
  for (const double l : r44.epoch_loss) EXPECT_TRUE(std::isfinite(l));
  auto huge = beat_rows(40, 2);  // a batch larger than the training rows: one batch of all 30
  const TrainResult rh = train_cpu(huge, 40, options(2, std::numeric_limits<int>::max()));
  EXPECT_EQ(rh.batch_size, std::numeric_limits<int>::max());
  EXPECT_TRUE(std::isfinite(rh.test_loss));
  auto norm = beat_rows(40, 2);
  BeatMatrix nm = BeatMatrix::view(norm.data(), 40, kDims);
  nm.normalise = true;
  const TrainResult rn = detail::train_and_score_flat_cpu(std::move(nm), options(1), "", kMeta, {});
  EXPECT_TRUE(std::isfinite(rn.test_loss));

  auto one = beat_rows(1, 0);
  EXPECT_THROW(train_cpu(one, 1, options(1)), ecgpipe::InputError);
  auto odd = beat_rows(4, 0, 60);
  EXPECT_THROW(train_cpu(odd, 4, options(1)), ecgpipe::UsageError);
  auto wide = beat_rows(4, 0, 520);
  EXPECT_THROW(train_cpu(wide, 4, options(1)), ecgpipe::UsageError);
}

// A saved model scores without LibTorch as the training scored: the same kernels and parameters
// give the same values exactly; in_train all 0. Its loader refuses what LibTorch's load refuses
// (ModelFile.* test that one), through the same check: here, beats of another length, a
// down_filter that is not [1, 2, 1] (both loaders), no rows, and rows the kernels do not take.
TEST(FlatScoringCpu, ASavedModelScoresAsTheTrainingDid) {
  const auto dir = testutil::fresh_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto m = beat_rows(120, 3);
  const TrainResult trained = train_cpu(m, 120, options(3), path);
  auto again = beat_rows(120, 3);
  const TrainResult scored = detail::score_with_model_flat_cpu(BeatMatrix::view(again.data(), 120, kDims), path, {});
  EXPECT_FALSE(scored.libtorch);
  EXPECT_EQ(scored.in_train, std::vector<std::uint8_t>(120, 0));
  expect_same_scores(scored, trained);

  const auto content = ecgpipe::detail::open_model(path);
  EXPECT_NE(testutil::input_error_of([&] { detail::flat_parameters_from(content, path, 2 * kDims); })
                .find("takes beats of 64 samples, not 128"),
            std::string::npos);
  auto altered = content;
  for (auto& [name, t] : altered.tensors)
    if (name == "down_filter") t.values = {1.0f, 1.0f, 1.0f};
  const std::string odd = (dir / "odd.safetensors").string();
  testutil::write_text(odd, ecgpipe::detail::encode_safetensors(altered));
  const std::string why = "tensor down_filter is not the fixed [1, 2, 1]";
  const auto odd_content = ecgpipe::detail::open_model(odd);
  EXPECT_NE(testutil::input_error_of([&] { detail::flat_parameters_from(odd_content, odd, kDims); }).find(why), std::string::npos);
  detail::LightVae net(kDims);
  EXPECT_NE(testutil::input_error_of([&] { detail::load_model(net, odd_content, odd, kDims); }).find(why),
            std::string::npos);
  EXPECT_THROW(detail::open_flat_model(0, kDims, path), ecgpipe::InputError);
  EXPECT_THROW(detail::open_flat_model(10, 520, path), ecgpipe::UsageError);
}

// Without a GPU (and for a host matrix) train_and_score keeps LibTorch.
TEST(FlatTraining, HostMatricesTrainWithLibTorch) {
  auto m = beat_rows(40, 2);
  EXPECT_TRUE(ecgpipe::train_and_score(BeatMatrix::view(m.data(), 40, kDims), options(1), "", kMeta).libtorch);
  EXPECT_FALSE(ecgpipe::model_runs_without_torch(0));
  EXPECT_FALSE(ecgpipe::model_runs_without_torch(520));
}

}  // namespace

#ifdef ECGPIPE_WITH_CUDA
#include "gpu_test_util.hpp"

namespace {

// The normal draws' kernel gives the CPU reference's floats: the same words of the generator, the
// same double arithmetic rounded once to float; the two maths libraries may differ in the last
// bit of a double, which can move the float by one ulp (1e-6 at the draws' size).
TEST(NormalDrawsGpu, EqualTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  constexpr std::size_t kN = 100003;
  std::vector<float> cpu(kN);
  detail::normal_draws_cpu(7, 1, 12345, cpu.data(), kN);
  ecgpipe::DeviceBuffer<float> d(kN, stream);
  detail::normal_draws_cuda(7, 1, 12345, d.span(), stream);
  const auto gpu = ecgpipe_test::download(d.data(), kN, stream);
  std::size_t same = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    ASSERT_NEAR(gpu[i], cpu[i], 1e-6 * (1.0 + std::abs(cpu[i]))) << i;
    same += gpu[i] == cpu[i];
  }
  EXPECT_GT(same, kN * 999 / 1000);
}

// Adam's kernel equals its CPU reference bit for bit (compiled without fused multiply-add).
TEST(AdamUpdateGpu, EqualsTheCpuReferenceExactly) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  std::mt19937 rng(1);
  std::normal_distribution<float> g(0.0f, 1.0f);
  for (const std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{5000}}) {
    std::vector<float> p(n), m(n, 0.0f), v(n, 0.0f);
    for (auto& x : p) x = g(rng);
    auto dp = ecgpipe_test::upload(p, stream), dm = ecgpipe_test::upload(m, stream), dv = ecgpipe_test::upload(v, stream);
    for (int t = 1; t <= 3; ++t) {
      std::vector<float> grad(n);
      for (auto& x : grad) x = g(rng);
      const auto dg = ecgpipe_test::upload(grad, stream);
      detail::adam_update_cpu(p.data(), grad.data(), m.data(), v.data(), n, detail::adam_scalars(1e-3, t));
      detail::adam_update_cuda(dp.span(), dg.cspan(), dm.span(), dv.span(), detail::adam_scalars(1e-3, t), stream);
      ecgpipe_test::download(dp.data(), 1, stream);  // dg lives until its update has run
    }
    EXPECT_EQ(ecgpipe_test::download(dp.data(), n, stream), p) << n;
    EXPECT_EQ(ecgpipe_test::download(dv.data(), n, stream), v) << n;
  }
}

BeatMatrix on_gpu(const std::vector<float>& rows, std::int64_t n, std::int64_t cols, cudaStream_t stream) {
  auto d = ecgpipe_test::upload(rows, stream);
  float* p = d.release();
  return BeatMatrix(p, n, cols, [stream](float* q) { (void)cudaFreeAsync(q, stream); }, /*on_cuda=*/true, stream);
}

// The whole training on the GPU against the CPU reference, 3 epochs on 300 beats (6 odd), rows
// normalised: the same split exactly; the losses, scores and distances to 1e-3 relative (the
// kernel sums a beat's gradient over the block's threads in another order than the CPU's loop, and
// those float differences pass through ~30 Adam steps); the odd rows on top of both. Twice on the
// GPU: bit for bit the same.
TEST(FlatTrainingGpu, EqualsTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  const auto rows = beat_rows(300, 6);
  auto host = rows;
  BeatMatrix hm = BeatMatrix::view(host.data(), 300, kDims);
  hm.normalise = true;
  const TrainResult cpu = detail::train_and_score_flat_cpu(std::move(hm), options(3), "", kMeta, {});
  TrainResult gpu[2];
  for (auto& g : gpu) {
    BeatMatrix dm = on_gpu(rows, 300, kDims, stream);
    dm.normalise = true;
    ASSERT_TRUE(detail::model_runs_without_torch(dm));
    g = ecgpipe::train_and_score(std::move(dm), options(3), "", kMeta);
    EXPECT_FALSE(g.libtorch);
  }
  EXPECT_EQ(gpu[0].recon_error, gpu[1].recon_error);
  EXPECT_EQ(gpu[0].model_file, gpu[1].model_file);
  EXPECT_EQ(gpu[0].in_train, cpu.in_train);
  ASSERT_EQ(gpu[0].epoch_loss.size(), cpu.epoch_loss.size());
  for (std::size_t e = 0; e < cpu.epoch_loss.size(); ++e)
    EXPECT_NEAR(gpu[0].epoch_loss[e], cpu.epoch_loss[e], 1e-3 * cpu.epoch_loss[e]) << "epoch " << e + 1;
  EXPECT_NEAR(gpu[0].test_loss, cpu.test_loss, 1e-3 * cpu.test_loss);
  for (std::size_t i = 0; i < 300; ++i) {
    EXPECT_NEAR(gpu[0].recon_error[i], cpu.recon_error[i], 1e-3 * cpu.recon_error[i]) << i;
    EXPECT_NEAR(gpu[0].template_distance[i], cpu.template_distance[i], 1e-5 * cpu.template_distance[i]) << i;
  }
  EXPECT_EQ(gpu[0].median_beat, cpu.median_beat);
  const std::set<std::int64_t> top_gpu(gpu[0].outlier_index.begin(), gpu[0].outlier_index.begin() + 6),
      top_cpu(cpu.outlier_index.begin(), cpu.outlier_index.begin() + 6);
  EXPECT_EQ(top_gpu, top_cpu);
}

// A saved model scores a GPU matrix without LibTorch exactly as LibTorch's GPU scoring does (it
// runs the same kernels: ECGPIPE_FUSED_VAE=libtorch keeps it), and as the CPU reference does to
// 1e-4 (the kernel's block sums round in another order than the reference's loop).
TEST(FlatScoringGpu, EqualsLibTorchsGpuScoring) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  const auto dir = testutil::fresh_dir();
  const std::string path = (dir / "m.safetensors").string();
  auto m = beat_rows(600, 6);
  train_cpu(m, 600, options(3), path);
  const auto rows = beat_rows(600, 6);
  const auto scored_on = [&](bool normalise) {
    BeatMatrix dm = on_gpu(rows, 600, kDims, stream);
    dm.normalise = normalise;
    return ecgpipe::score_with_model(std::move(dm), path);
  };
  const TrainResult flat = scored_on(true);
  EXPECT_FALSE(flat.libtorch);
  TrainResult torch_path;
  {
    const testutil::ScopedEnv keep("ECGPIPE_FUSED_VAE", "libtorch");
    torch_path = scored_on(true);
  }
  EXPECT_TRUE(torch_path.libtorch);
  expect_same_scores(flat, torch_path);
  auto host = rows;
  BeatMatrix hm = BeatMatrix::view(host.data(), 600, kDims);
  hm.normalise = true;
  const TrainResult cpu = detail::score_with_model_flat_cpu(std::move(hm), path, {});
  for (std::size_t i = 0; i < 600; ++i) EXPECT_NEAR(flat.recon_error[i], cpu.recon_error[i], 1e-4 * cpu.recon_error[i]) << i;
}

// A GPU run trains without LibTorch and never loads it: with the module pointed at nothing the run
// still succeeds and says so in report.json, and `score` with its model on the GPU too; asked to
// keep LibTorch (ECGPIPE_FUSED_VAE=libtorch) the same run needs the module and fails with its one
// line.
TEST(FlatTrainingGpuCli, RunNeverLoadsLibTorch) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  const auto sample = (fs::path(ECGPIPE_SOURCE_DIR) / "data" / "sample.csv").string();
  const std::string run = "-q run '" + sample + "' --device cuda --epochs 2 --out ";
  const testutil::ScopedEnv no_module("ECGPIPE_TORCH_MODULE", "/nonexistent/libecgpipe_torch.so");
  const auto r = testutil::run_ecgpipe(run + testutil::q(dir / "a"), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testutil::read_text(dir / "a" / "report.json"));
  EXPECT_EQ(report["training"]["libtorch"], false);
  EXPECT_TRUE(report["training"]["cpu_threads"].is_null());
  EXPECT_FALSE(report["versions"]["libtorch"].get<std::string>().empty());
  const auto scored = testutil::run_ecgpipe("-q score '" + sample + "' --model '" + (dir / "a" / "model.safetensors").string() +
                                                "' --device cuda --out '" + (dir / "s").string() + "'",
                                            dir);
  ASSERT_EQ(scored.code, 0) << scored.err;
  EXPECT_EQ(nlohmann::json::parse(testutil::read_text(dir / "s" / "report.json"))["training"]["libtorch"], false);
  const testutil::ScopedEnv keep_libtorch("ECGPIPE_FUSED_VAE", "libtorch");
  const auto kept = testutil::run_ecgpipe(run + testutil::q(dir / "b"), dir);
  EXPECT_EQ(kept.code, 1);
  EXPECT_NE(kept.err.find("LibTorch module"), std::string::npos) << kept.err;
}

}  // namespace
#endif
