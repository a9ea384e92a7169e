// Stage 5: LightVAE training and scoring on the CPU (GPU variant when a CUDA LibTorch is present).
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <type_traits>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "model/torch_error.hpp"
#include "ecgpipe/model/vae.hpp"
#include "test_util.hpp"

namespace {

using ecgpipe::BeatMatrix;
using ecgpipe::TrainOptions;
using ecgpipe::train_and_score;

constexpr int kDims = 64;  // small multiple of 8 keeps the test fast
const std::string kMeta = R"({"format": 1, "note": "test"})";

std::vector<float> beat_matrix(int rows, int outliers) { return testutil::beat_rows(rows, outliers, kDims); }

TrainOptions small_options(int epochs) {
  TrainOptions o;
  o.epochs = epochs;
  o.batch_size = 32;
  o.learning_rate = 1e-2;  // few steps: a larger step than Adam's default gets somewhere
  return o;
}

TEST(Vae, TrainsScoresAndSaves) {
  const auto dir = testutil::fresh_dir();
  auto m = beat_matrix(200, 4);
  const auto model = (dir / "model.safetensors").string();
  std::vector<double> seen;
  auto opts = small_options(20);
  opts.on_epoch = [&](int epoch, double loss, double beats_per_second) {
    EXPECT_GT(beats_per_second, 0.0);
    EXPECT_EQ(epoch, static_cast<int>(seen.size()) + 1);
    seen.push_back(loss);
  };
  const auto r = train_and_score(BeatMatrix::view(m.data(), 200, kDims), opts, model, kMeta);
  ASSERT_EQ(r.epoch_loss.size(), 20u);
  EXPECT_EQ(seen, r.epoch_loss);
  EXPECT_LT(r.epoch_loss.back(), r.epoch_loss.front()) << "training lowers the loss";
  EXPECT_TRUE(std::isfinite(r.test_loss));
  ASSERT_EQ(r.recon_error.size(), 200u);
  ASSERT_EQ(r.latent_mean.size(), 200u * ecgpipe::kLatentDim);
  int train = 0;
  for (auto t : r.in_train) train += t;
  EXPECT_EQ(train, 150) << "int(0.75 * 200)";
  for (float e : r.recon_error) EXPECT_TRUE(std::isfinite(e) && e >= 0.0f);
  EXPECT_GT(std::filesystem::file_size(model), 0u);
}

TEST(Vae, SavedModelScoresLikeTheTrainedOne) {
  const auto dir = testutil::fresh_dir();
  auto m = beat_matrix(100, 3), copy = m;
  const auto model = (dir / "model.safetensors").string();
  const auto trained = train_and_score(BeatMatrix::view(m.data(), 100, kDims), small_options(5), model, kMeta);
  EXPECT_EQ(ecgpipe::read_model_meta(model), kMeta);
  const auto scored = ecgpipe::score_with_model(BeatMatrix::view(copy.data(), 100, kDims), model);
  EXPECT_EQ(scored.recon_error, trained.recon_error) << "same parameters, same arithmetic";
  EXPECT_EQ(scored.neg_elbo, trained.neg_elbo);
  EXPECT_EQ(scored.latent_mean, trained.latent_mean);
  EXPECT_TRUE(scored.epoch_loss.empty());
  // The model's layers are sized for kDims-sample beats.
  auto other = beat_matrix(10, 0);
  EXPECT_THROW(ecgpipe::score_with_model(BeatMatrix::view(other.data(), 5, 2 * kDims), model), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::score_with_model(BeatMatrix::view(other.data(), 0, kDims), model), ecgpipe::InputError);
}

TEST(Vae, ModelFileValidation) {
  const auto dir = testutil::fresh_dir();
  EXPECT_THROW(ecgpipe::read_model_meta((dir / "missing.pt").string()), ecgpipe::InputError);
  testutil::write_text(dir / "text.pt", "not a model\n");
  EXPECT_THROW(ecgpipe::read_model_meta((dir / "text.pt").string()), ecgpipe::InputError);
}

TEST(Vae, SameSeedSameResult) {
  const auto dir = testutil::fresh_dir();
  auto m1 = beat_matrix(64, 0), m2 = m1;
  const auto a = train_and_score(BeatMatrix::view(m1.data(), 64, kDims), small_options(3), (dir / "a.pt").string(), kMeta);
  const auto b = train_and_score(BeatMatrix::view(m2.data(), 64, kDims), small_options(3), (dir / "b.pt").string(), kMeta);
  EXPECT_EQ(a.epoch_loss, b.epoch_loss);
  EXPECT_EQ(a.recon_error, b.recon_error);
  EXPECT_EQ(a.in_train, b.in_train);
}

// The rr model's normalisation (BeatMatrix::normalise): each row minus its median, all rows over
// the RMS of the median row. So a recording's gain and a row's offset change nothing: the same
// beats at 1000x the amplitude plus a per-row offset give the same template distances, up to
// float rounding of the larger values (relative 1e-4: a few ulps of float accumulated over 64
// samples and the medians).
TEST(Vae, NormalisedRowsAreGainAndOffsetInvariant) {
  const auto dir = testutil::fresh_dir();
  auto m1 = beat_matrix(64, 4), m2 = m1;
  for (std::size_t i = 0; i < m2.size(); ++i) m2[i] = 1000.0f * m2[i] + static_cast<float>(i / kDims);
  BeatMatrix b1 = BeatMatrix::view(m1.data(), 64, kDims), b2 = BeatMatrix::view(m2.data(), 64, kDims);
  b1.normalise = b2.normalise = true;
  const auto a = train_and_score(std::move(b1), small_options(1), (dir / "a.pt").string(), kMeta);
  const auto b = train_and_score(std::move(b2), small_options(1), (dir / "b.pt").string(), kMeta);
  ASSERT_EQ(a.template_distance.size(), 64u);
  for (std::size_t i = 0; i < 64; ++i) EXPECT_NEAR(a.template_distance[i], b.template_distance[i], 1e-4 * (1 + a.template_distance[i])) << i;
  // The median row has unit RMS after normalisation.
  double ms = 0;
  for (float v : a.median_beat) ms += static_cast<double>(v) * v;
  EXPECT_NEAR(std::sqrt(ms / kDims), 1.0, 1e-5);
  // The 4 rows of another shape are the 4 furthest from the median row.
  for (std::size_t i = 0; i < 60; ++i)
    for (std::size_t j = 60; j < 64; ++j) EXPECT_LT(a.template_distance[i], a.template_distance[j]) << i << " vs " << j;
}

// A ScoreFunction decides the score and so the report's outlier rows.
TEST(Vae, ScoreFunctionRanksTheOutlierRows) {
  const auto dir = testutil::fresh_dir();
  auto m = beat_matrix(64, 0);
  const ecgpipe::ScoreFunction by_index = [](const ecgpipe::TrainResult& t) {
    std::vector<float> s(t.recon_error.size());
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<float>(i);
    return s;
  };
  const auto r = train_and_score(BeatMatrix::view(m.data(), 64, kDims), small_options(1), (dir / "m.pt").string(), kMeta, by_index);
  EXPECT_EQ(r.score[10], 10.0f);
  ASSERT_FALSE(r.outlier_index.empty());
  EXPECT_EQ(r.outlier_index.front(), 63);
  const auto plain = train_and_score(BeatMatrix::view(m.data(), 64, kDims), small_options(1), (dir / "p.pt").string(), kMeta);
  EXPECT_EQ(plain.score, plain.recon_error) << "without a function the score is recon_error";
}

// A LibTorch error (its what() has a C++ backtrace, dozens of lines) leaves the model stage as one
// line: found when a GPU training's error reached error.json with its whole backtrace.
TEST(Vae, LibTorchErrorsBecomeOneLine) {
  try {
    ecgpipe::detail::with_torch_errors_as_ours("training", [] { TORCH_CHECK(false, "boom ", 42); });
    ADD_FAILURE() << "no InternalError";
  } catch (const ecgpipe::InternalError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("training: LibTorch: boom 42", 0), 0u) << what;
  }
  EXPECT_EQ(ecgpipe::detail::with_torch_errors_as_ours("x", [] { return 7; }), 7);
  EXPECT_THROW(ecgpipe::detail::with_torch_errors_as_ours("x", [] { throw ecgpipe::InputError("ours"); }), ecgpipe::InputError);
}

TEST(Vae, AutomaticBatchSize) {
  EXPECT_EQ(ecgpipe::resolve_batch_size(32, 100000), 32) << "an explicit size is kept";
  EXPECT_EQ(ecgpipe::resolve_batch_size(0, 1000), ecgpipe::kMinAutoBatch);
  EXPECT_EQ(ecgpipe::resolve_batch_size(0, 3200), 100);
  EXPECT_EQ(ecgpipe::resolve_batch_size(0, 1000000), ecgpipe::kSeedBatch);
}

TEST(Vae, TooFewBeatsForASplit) {
  const auto dir = testutil::fresh_dir();
  auto m = beat_matrix(1, 0);
  EXPECT_THROW(train_and_score(BeatMatrix::view(m.data(), 1, kDims), small_options(1), (dir / "m.pt").string(), kMeta),
               ecgpipe::InputError);
  EXPECT_THROW(train_and_score(BeatMatrix::view(nullptr, 0, kDims), small_options(1), (dir / "m.pt").string(), kMeta),
               ecgpipe::InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "m.pt"));
}

TEST(Vae, TwoBeatsIsTheSmallestSplit) {
  const auto dir = testutil::fresh_dir();
  auto m = beat_matrix(2, 0);
  const auto r = train_and_score(BeatMatrix::view(m.data(), 2, kDims), small_options(1), (dir / "m.pt").string(), kMeta);
  EXPECT_EQ(r.in_train[0] + r.in_train[1], 1);
}

}  // namespace

// The beat matrix has one owner from its allocation to LibTorch's tensor deleter: it cannot be
// copied, and every path frees it exactly once: the errors before LibTorch takes it (too few
// beats, a bad row length, no beats to score, a missing model), a successful training, a matrix
// never used. Counted with a deleter that counts (any allocator works the same way).
TEST(BeatMatrixOwner, EveryPathFreesTheMatrixOnce) {
  static_assert(!std::is_copy_constructible_v<BeatMatrix> && !std::is_copy_assignable_v<BeatMatrix>);
  static_assert(std::is_nothrow_move_constructible_v<BeatMatrix>);
  const auto dir = testutil::fresh_dir();
  int allocated = 0, freed = 0;
  const auto make = [&](std::int64_t rows, std::int64_t cols) {
    const std::vector<float> rows_of = beat_matrix(static_cast<int>(rows), 0);
    auto* p = new float[static_cast<std::size_t>(std::max<std::int64_t>(1, rows * cols))]();
    for (std::size_t i = 0; i < rows_of.size() && cols == kDims; ++i) p[i] = rows_of[i];
    ++allocated;
    return BeatMatrix(p, rows, cols, [&freed](float* q) {
      delete[] q;
      ++freed;
    });
  };
  const std::string model = (dir / "m.pt").string();
  EXPECT_THROW(train_and_score(make(1, kDims), small_options(1), model, kMeta), ecgpipe::InputError);
  EXPECT_EQ(freed, 1) << "too few beats";
  EXPECT_THROW(train_and_score(make(4, kDims + 4), small_options(1), model, kMeta), ecgpipe::UsageError);
  EXPECT_EQ(freed, 2) << "a row length the VAE cannot take";
  EXPECT_THROW(ecgpipe::score_with_model(make(0, kDims), model), ecgpipe::InputError);
  EXPECT_EQ(freed, 3) << "no beats to score";
  EXPECT_THROW(ecgpipe::score_with_model(make(4, kDims), (dir / "missing.pt").string()), ecgpipe::InputError);
  EXPECT_EQ(freed, 4) << "a missing model";
  const auto r = train_and_score(make(8, kDims), small_options(1), model, kMeta);
  EXPECT_EQ(r.in_train.size(), 8u);
  EXPECT_EQ(freed, 5) << "trained: the tensor's deleter";
  {
    BeatMatrix a = make(2, kDims);
    BeatMatrix b = std::move(a);
    BeatMatrix c;
    c = std::move(b);
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(c.rows(), 2);
  }
  EXPECT_EQ(freed, 6) << "moved twice, never used";
  EXPECT_EQ(allocated, freed);
  // A view frees nothing; host rows the matrix holds free themselves.
  {
    std::vector<float> mine(kDims, 1.0f);
    BeatMatrix v = BeatMatrix::view(mine.data(), 1, kDims);
    BeatMatrix h(std::vector<float>(2 * kDims, 0.0f), 2, kDims);
    EXPECT_NE(h.data(), nullptr);
  }
  EXPECT_EQ(freed, 6);
}

#ifdef ECGPIPE_WITH_CUDA
#include <torch/torch.h>

#include "model/beat_tensor.hpp"
#include "model/column_median_cuda.hpp"
#include "model/normalise_rows_cuda.hpp"
#include "model/template_distance.hpp"
#include "model/template_distance_cuda.hpp"
#include "gpu_test_util.hpp"

namespace {

// The template-distance kernels against LibTorch's definition on the CPU (the reference): the
// medians are a selection (exact), the sums are float in another order, so 1e-5 relative (a
// 176-term float sum's rounding, ~176 x 6e-8); and a second run repeats the first bit for bit.
// Row counts: 1, a block edge (511, 512, 513), a whole span (1024, 1025), several blocks with a
// short last one (2600); a few beats made odd so that the distances spread.
TEST(TemplateDistanceGpu, KernelsEqualLibTorchsDefinition) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  constexpr int kCols = 176;
  for (const std::int64_t n : {1, 511, 512, 513, 1024, 1025, 2600}) {
    torch::manual_seed(static_cast<std::uint64_t>(n));
    auto rows = torch::randn({n, kCols});
    if (n > 10) rows.slice(0, 3, 6).mul_(4.0);
    const torch::Tensor ref = ecgpipe::detail::template_distance(rows).contiguous();
    const std::vector<float> host(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
    const auto d_rows = ecgpipe_test::upload(host, stream);
    ecgpipe::DeviceBuffer<float> d_out(static_cast<std::size_t>(n), stream);
    std::vector<std::vector<float>> runs;
    for (int run = 0; run < 2; ++run) {
      ecgpipe::detail::template_distance_cuda(d_rows.cspan(), n, kCols, ecgpipe::kTemplateBlock, ecgpipe::kTemplateSpan, d_out.span(),
                                              stream);
      runs.push_back(ecgpipe_test::download(d_out.data(), static_cast<std::size_t>(n), stream));
    }
    EXPECT_EQ(runs[0], runs[1]) << "n " << n;
    for (std::int64_t i = 0; i < n; ++i) {
      const float want = ref[i].item<float>();
      ASSERT_NEAR(runs[0][static_cast<std::size_t>(i)], want, 1e-5f * std::fabs(want) + 1e-7f) << "n " << n << ", row " << i;
    }
  }
}

// Rows of random values with ties (a third rounded to a few levels, zeros of both signs among
// them) and a few large ones, so that medians land on repeated values and the ranks must count
// ties by position.
torch::Tensor median_test_rows(std::int64_t n, std::int64_t cols, std::uint64_t seed) {
  torch::manual_seed(seed);
  auto rows = torch::randn({n, cols});
  auto coarse = rows.slice(1, 0, cols / 3 + 1);
  coarse.copy_(coarse.mul(2.0).round().div(2.0));
  if (n > 3) rows.slice(0, 1, 3).mul_(50.0);
  rows.index_put_({0, 0}, -0.0f);
  return rows;
}

// The column medians are a selection: equal to LibTorch's median(x, 0) (the CPU reference) value
// for value, at row counts around a warp and the kernel's 256-row blocks, one column and column
// counts around the 32 a block takes.
TEST(ColumnMedianGpu, EqualsLibTorchsExactly) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  for (const std::int64_t n : {1, 2, 31, 32, 33, 255, 256, 257, 4099, 70001})
    for (const int cols : {1, 31, 32, 33, 176}) {
      const torch::Tensor rows = median_test_rows(n, cols, static_cast<std::uint64_t>(n * 1000 + cols));
      const torch::Tensor want = std::get<0>(rows.median(0)).contiguous();
      const std::vector<float> host(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
      const auto d_rows = ecgpipe_test::upload(host, stream);
      ecgpipe::DeviceBuffer<float> d_out(static_cast<std::size_t>(cols), stream);
      ecgpipe::detail::column_median_cuda(d_rows.cspan(), n, cols, d_out.span(), stream);
      const std::vector<float> got = ecgpipe_test::download(d_out.data(), static_cast<std::size_t>(cols), stream);
      for (int c = 0; c < cols; ++c) ASSERT_EQ(got[static_cast<std::size_t>(c)], want[c].item<float>()) << n << " x " << cols << ", column " << c;
    }
}

// The normalisation against LibTorch's on the CPU (the reference): the medians are exact, the RMS
// of `cols` float squares is summed in another order (relative rounding at most cols x 2^-24,
// 1.5e-5 for 256), so 2e-5 relative; a second run repeats the first bit for bit. A flat matrix
// stays as it is (RMS 0: divided by 1), all zeros after its row medians.
TEST(NormaliseRowsGpu, EqualsLibTorchsDefinition) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  for (const std::int64_t n : {1, 2, 33, 513, 5000})
    for (const int cols : {8, 176, 256}) {
      torch::Tensor want = median_test_rows(n, cols, static_cast<std::uint64_t>(n + cols)).add(3.0f);
      const std::vector<float> host(want.data_ptr<float>(), want.data_ptr<float>() + want.numel());
      ecgpipe::detail::normalise_rows(want);
      std::vector<std::vector<float>> runs;
      for (int run = 0; run < 2; ++run) {
        auto d_rows = ecgpipe_test::upload(host, stream);
        ecgpipe::detail::normalise_rows_cuda(d_rows.span(), n, cols, stream);
        runs.push_back(ecgpipe_test::download(d_rows.data(), host.size(), stream));
      }
      EXPECT_EQ(runs[0], runs[1]) << n << " x " << cols;
      const float* w = want.data_ptr<float>();
      for (std::size_t i = 0; i < host.size(); ++i)
        ASSERT_NEAR(runs[0][i], w[i], 2e-5f * std::fabs(w[i]) + 1e-7f) << n << " x " << cols << ", value " << i;
    }
  const std::vector<float> flat(40 * 16, 2.5f);
  auto d_flat = ecgpipe_test::upload(flat, stream);
  ecgpipe::detail::normalise_rows_cuda(d_flat.span(), 40, 16, stream);
  EXPECT_EQ(ecgpipe_test::download(d_flat.data(), flat.size(), stream), std::vector<float>(flat.size(), 0.0f));
}

#ifdef ECGPIPE_TORCH_CUDA
// The model code's entries (normalise_rows and column_median on a CUDA tensor, what BeatTensor and
// scoring call) run ecgpipe's kernels, not LibTorch's median: their values equal the kernels' bit
// for bit (LibTorch's first median costs 0.13 s in a process on an H100).
TEST(NormaliseRowsGpu, ModelCodesEntriesRunTheKernels) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  constexpr std::int64_t kRows = 2600;
  constexpr int kCols = 176;
  const torch::Tensor rows = median_test_rows(kRows, kCols, 11);
  const std::vector<float> host(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
  auto d_rows = ecgpipe_test::upload(host, stream);
  ecgpipe::DeviceBuffer<float> d_medians(kCols, stream);
  ecgpipe::detail::column_median_cuda(d_rows.cspan(), kRows, kCols, d_medians.span(), stream);
  const std::vector<float> medians = ecgpipe_test::download(d_medians.data(), kCols, stream);
  ecgpipe::detail::normalise_rows_cuda(d_rows.span(), kRows, kCols, stream);
  const std::vector<float> kernels = ecgpipe_test::download(d_rows.data(), host.size(), stream);

  const torch::Tensor median_entry = ecgpipe::detail::column_median(rows.to(torch::kCUDA)).to(torch::kCPU).contiguous();
  EXPECT_EQ(std::vector<float>(median_entry.data_ptr<float>(), median_entry.data_ptr<float>() + kCols), medians);
  torch::Tensor on_gpu = rows.to(torch::kCUDA);
  ecgpipe::detail::normalise_rows(on_gpu);
  const torch::Tensor entry = on_gpu.to(torch::kCPU).contiguous();
  EXPECT_EQ(std::vector<float>(entry.data_ptr<float>(), entry.data_ptr<float>() + entry.numel()), kernels);
}

// The model code's entry (template_distance on a CUDA tensor, what scoring calls) runs the
// kernels, not LibTorch's loop of ~5 launches a block: its values equal the kernels' bit for bit.
// (template_distance.cpp tested ECGPIPE_TORCH_CUDA without including the config header, so every
// GPU run took the loop: 20-25 ms of scoring for 93 k beats on an H100, found 2026-11-24.)
TEST(TemplateDistanceGpu, ScoringsEntryRunsTheKernels) {
  SKIP_WITHOUT_GPU();
  ecgpipe_test::TestStream stream;
  constexpr int kCols = 176;
  constexpr std::int64_t kRows = 2600;
  torch::manual_seed(7);
  auto rows = torch::randn({kRows, kCols});
  rows.slice(0, 3, 6).mul_(4.0);
  const std::vector<float> host(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
  const auto d_rows = ecgpipe_test::upload(host, stream);
  ecgpipe::DeviceBuffer<float> d_out(static_cast<std::size_t>(kRows), stream);
  ecgpipe::detail::template_distance_cuda(d_rows.cspan(), kRows, kCols, ecgpipe::kTemplateBlock, ecgpipe::kTemplateSpan, d_out.span(),
                                          stream);
  const std::vector<float> kernels = ecgpipe_test::download(d_out.data(), static_cast<std::size_t>(kRows), stream);
  const torch::Tensor entry = ecgpipe::detail::template_distance(rows.to(torch::kCUDA)).to(torch::kCPU).contiguous();
  const std::vector<float> got(entry.data_ptr<float>(), entry.data_ptr<float>() + kRows);
  EXPECT_EQ(got, kernels);
}
#endif

}  // namespace
#endif
