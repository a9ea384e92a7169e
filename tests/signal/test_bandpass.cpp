// Stage 2: Ricker wavelet and FFT band-pass against a direct O(n*k) circular convolution in double.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "gpu_test_util.hpp"

namespace {

using ecgpipe::bandpass_cpu;
using ecgpipe::ricker_wavelet;
using ecgpipe::RickerTaps;
constexpr RickerTaps kSeed = RickerTaps::seed;

// The definition the FFT must reproduce: y[i] = sum_j w[j] * x[(i - j) mod n].
std::vector<double> direct_circular(const std::vector<float>& x, const std::vector<double>& w) {
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < w.size(); ++j) y[i] += w[j] * static_cast<double>(x[(i + n * w.size() - j) % n]);
  return y;
}

std::vector<float> random_signal(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = u(rng);
  return x;
}

// Double-precision FFT round-off grows like eps * log2(n) * sum|w| * max|x|; with |x| <= 2,
// sum|w| < 4 and n <= 1e5 that is ~1e-13, so 1e-9 leaves a wide margin while still catching any
// indexing or scaling error (those are O(0.1)).
constexpr double kFftTolerance = 1e-9;

TEST(Ricker, MatchesSeedFormula) {
  const auto w = ricker_wavelet(30, kSeed);
  ASSERT_EQ(w.size(), 30u);
  for (int j = 0; j < 30; ++j) {
    const double t = -3.0 + 6.0 * j / 29.0;
    EXPECT_NEAR(w[j], 2.0 / std::sqrt(30.0) * std::exp(-0.5 * t * t) * (1 - t * t), 1e-15);
    // Symmetric up to rounding: linspace's points are start + j * step, not mirrored exactly.
    EXPECT_NEAR(w[j], w[29 - j], 1e-15) << "the wavelet is symmetric";
  }
  const auto odd = ricker_wavelet(31, kSeed);
  EXPECT_DOUBLE_EQ(odd[15], 2.0 / std::sqrt(31.0)) << "t = 0 in the middle of an odd width";
  EXPECT_DOUBLE_EQ(w[29], 2.0 / std::sqrt(30.0) * std::exp(-4.5) * (1 - 9.0)) << "last point is t = +3 exactly";
}

// The zero-sum taps are the seed's less their mean (the sum in tap order over width): a constant
// passes the seed's wavelet at 0.088 (30 taps, 250 Hz) and 0.117 (43 taps, 360 Hz) of itself, the
// zero-sum one at round-off (1e-15 bounds 43 sums of terms below 0.4 with eps 2.2e-16).
TEST(Ricker, ZeroSumTapsAreTheSeedsLessTheirMean) {
  for (const int width : {2, 30, 31, 43}) {
    const auto seed = ricker_wavelet(width, kSeed);
    const auto zero = ricker_wavelet(width, RickerTaps::zero_sum);
    ASSERT_EQ(zero.size(), seed.size());
    double sum = 0.0, zero_sum = 0.0;
    for (const double v : seed) sum += v;
    for (const double v : zero) zero_sum += v;
    for (int j = 0; j < width; ++j) EXPECT_EQ(zero[j], seed[j] - sum / width) << width << " taps, tap " << j;
    EXPECT_NEAR(zero_sum, 0.0, 1e-15) << width;
    if (width == 30) {
      EXPECT_NEAR(sum, 0.088, 0.001);
    } else if (width == 43) {
      EXPECT_NEAR(sum, 0.117, 0.001);
    }
  }
  EXPECT_THROW(ricker_wavelet(1, RickerTaps::zero_sum), ecgpipe::UsageError);
}

// What the zero-sum taps are for: a constant (an ADC's 1 024 counts) gives zero, not 0.088 of
// itself, over two FFT blocks and the wrap-around. The bound: round-off of FFTs of 1024 with taps
// below 0.4 (~1e-12), far under the 90 the seed's taps give.
TEST(Bandpass, ZeroSumTapsPassNoConstant) {
  const std::vector<float> x(70000, 1024.0f);
  const auto seed = bandpass_cpu(x, 30, kSeed);
  const auto zero = bandpass_cpu(x, 30, RickerTaps::zero_sum);
  double sum = 0.0;
  for (const double v : ricker_wavelet(30, kSeed)) sum += v;
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(seed[i], 1024.0 * sum, 1e-9) << i;
    ASSERT_NEAR(zero[i], 0.0, 1e-9) << i;
  }
}

TEST(Ricker, RejectsTooNarrow) {
  EXPECT_THROW(ricker_wavelet(1, kSeed), ecgpipe::UsageError);
  EXPECT_THROW(ricker_wavelet(0, kSeed), ecgpipe::UsageError);
}

TEST(Bandpass, EmptySignal) { EXPECT_TRUE(bandpass_cpu({}, 30, kSeed).empty()); }

TEST(Bandpass, ImpulseGivesTheWavelet) {
  std::vector<float> x(100, 0.0f);
  x[10] = 1.0f;
  const auto y = bandpass_cpu(x, 30, kSeed);
  const auto w = ricker_wavelet(30, kSeed);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double expect = (i >= 10 && i < 40) ? w[i - 10] : 0.0;
    EXPECT_NEAR(y[i], expect, kFftTolerance) << "i=" << i;
  }
}

class BandpassSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BandpassSizes, EqualsDirectCircularConvolution) {
  const std::size_t n = GetParam();
  const auto x = random_signal(n, static_cast<unsigned>(n));
  for (const RickerTaps taps : {RickerTaps::seed, RickerTaps::zero_sum}) {
    for (int width : {2, 7, 30}) {
      const auto y = bandpass_cpu(x, width, taps);
      const auto ref = direct_circular(x, ricker_wavelet(width, taps));
      ASSERT_EQ(y.size(), n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_NEAR(y[i], ref[i], kFftTolerance) << "n=" << n << " width=" << width << " zero_sum=" << (taps == RickerTaps::zero_sum) << " i=" << i;
    }
  }
}

// 1, 31/32/33 (around a warp), a wavelet longer than the signal (5 < 30), a prime length, and a
// length with large prime factors, which pocketfft handles with Bluestein's algorithm.
// The overlap-save grid (width 30: FFT blocks of 65536, hop 65507): the first block's last output
// (65535, 65536 samples), one past it, two blocks exactly (131043) and one more, several blocks.
INSTANTIATE_TEST_SUITE_P(Edges, BandpassSizes,
                         ::testing::Values(1, 5, 31, 32, 33, 1024, 4099, 20011, 65535, 65536, 65537, 131043, 131044,
                                           200003));

// The wrap-around outputs are direct sums in tap order: exactly the reference's arithmetic.
TEST(Bandpass, WrappedOutputsAreExactDirectSums) {
  for (const std::size_t n : {std::size_t{5}, std::size_t{29}, std::size_t{30}, std::size_t{1000}}) {
    const auto x = random_signal(n, 7);
    const auto y = bandpass_cpu(x, 30, kSeed);
    const auto ref = direct_circular(x, ricker_wavelet(30, kSeed));
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 29); ++i) EXPECT_EQ(y[i], ref[i]) << "n=" << n << " i=" << i;
  }
}

// A wide wavelet gets a longer FFT block (at least 4 x (width-1)), so every block still has new output.
TEST(Bandpass, BlockLengthGrowsWithTheWavelet) {
  EXPECT_EQ(ecgpipe::BandpassBlocks(30, kSeed).fft_length(), 65536);
  EXPECT_EQ(ecgpipe::BandpassBlocks(16385, kSeed).fft_length(), 65536);
  EXPECT_EQ(ecgpipe::BandpassBlocks(16386, kSeed).fft_length(), 131072);
  const std::size_t n = 140000;  // two blocks of 131072
  const auto x = random_signal(n, 3);
  const auto w = ricker_wavelet(16386, kSeed);
  const auto y = bandpass_cpu(x, 16386, kSeed);
  for (std::size_t i = 0; i < n; i += 97) {  // the direct sum at every 97th output (all would take seconds)
    double ref = 0.0;
    for (std::size_t j = 0; j < w.size(); ++j) ref += w[j] * static_cast<double>(x[(i + n - j) % n]);
    // sum|w| grows like sqrt(width) (~100 here, 4 at width 30): the round-off bound grows with it
    ASSERT_NEAR(y[i], ref, 1e-9) << i;
  }
}

// The CPU band-pass's bits do not depend on LibTorch's thread count: 1, 2, 4 and 16 threads, a
// signal of four blocks and a short one. The GPU host's LibTorch 2.11 (the PyTorch wheel: MKL's
// FFT) gave other bits for 2, 4 and 16 threads than for 1 (8000 samples, 2026-11-26), and with them
// other seed-preset gates in a flat stretch (DetectCli.SeedPresetIsTheSeedsGates failed there under
// OMP_NUM_THREADS 4 and 16); each FFT now runs on one MKL thread (bandpass.cpp). Debian's LibTorch
// (pocketfft) passed before and after.
TEST(Bandpass, SameBitsForEveryThreadCount) {
  const int before = ecgpipe::torch_threads();
  for (const std::size_t n : {std::size_t{8000}, std::size_t{4 * 65536 + 123}}) {
    const auto x = random_signal(n, 11);
    ecgpipe::set_cpu_threads(1);
    const std::vector<double> one = bandpass_cpu(x, 30, kSeed);
    for (const int threads : {2, 4, 16}) {
      ecgpipe::set_cpu_threads(threads);
      const std::vector<double> y = bandpass_cpu(x, 30, kSeed);
      ASSERT_EQ(y.size(), one.size());
      EXPECT_EQ(0, std::memcmp(y.data(), one.data(), y.size() * sizeof(double))) << n << " samples, " << threads << " threads";
    }
  }
  ecgpipe::set_cpu_threads(before);
}

#ifdef ECGPIPE_WITH_CUDA
// --- GPU path: BandpassPlan against bandpass_cpu.
//
// Both sides are double-precision FFTs of the same data (cuFFT vs pocketfft), differing only in
// round-off: ~eps * log2(n) * sum|w| * max|x| ~ 2e-16 * 20 * 4 * 2 ~ 4e-14 absolute for n = 1e6,
// i.e. ~1e-12 relative to the output scale (the taps are the CPU's own, copied). 1e-10 absolute keeps a wide margin and still catches
// any indexing, wrap-around or 1/n scaling error, which are O(0.1).
constexpr double kGpuTolerance = 1e-10;

using ecgpipe::BandpassPlan;
using ecgpipe_test::download;
using ecgpipe_test::TestStream;
using ecgpipe_test::upload;

std::vector<double> bandpass_gpu(const std::vector<float>& x, int width, cudaStream_t stream, RickerTaps taps = kSeed) {
  BandpassPlan plan(x.size(), width, taps, stream);
  const auto d_x = upload(x, stream);
  ecgpipe::DeviceBuffer<double> d_y(x.size(), stream);
  plan.run(d_x.cspan(), d_y.span(), stream);
  return download(d_y.data(), x.size(), stream);
}

void expect_close(const std::vector<double>& gpu, const std::vector<double>& cpu, const std::string& what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  for (std::size_t i = 0; i < cpu.size(); ++i) ASSERT_NEAR(gpu[i], cpu[i], kGpuTolerance) << what << " i=" << i;
}

class BandpassGpuSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BandpassGpuSizes, MatchesCpu) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  const std::size_t n = GetParam();
  const auto x = random_signal(n, static_cast<unsigned>(n) + 1000u);
  // 2: the narrowest wavelet; 30: the seed's; 31: odd (t = 0 tap); 180: longer than the small n.
  for (const RickerTaps taps : {RickerTaps::seed, RickerTaps::zero_sum})
    for (int width : {2, 7, 30, 31, 180})
      expect_close(bandpass_gpu(x, width, stream, taps), bandpass_cpu(x, width, taps),
                   "n=" + std::to_string(n) + " width=" + std::to_string(width) + " zero_sum=" + std::to_string(taps == RickerTaps::zero_sum));
}

// 1 (no cuFFT), 2 (smallest cuFFT), odd/even around a warp, a wavelet longer than the signal,
// primes and a length with large prime factors (Bluestein in both libraries), and 1e6.
INSTANTIATE_TEST_SUITE_P(Edges, BandpassGpuSizes,
                         ::testing::Values(1, 2, 3, 5, 31, 32, 33, 179, 1024, 4099, 20011, 65536, 1000000));

TEST(BandpassGpu, EmptySignal) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  BandpassPlan plan(0, 30, kSeed, stream);
  EXPECT_NO_THROW(plan.run({}, {}, stream));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

TEST(BandpassGpu, ImpulseGivesTheWavelet) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  std::vector<float> x(100, 0.0f);
  x[10] = 1.0f;
  const auto y = bandpass_gpu(x, 30, stream);
  const auto w = ricker_wavelet(30, kSeed);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double expect = (i >= 10 && i < 40) ? w[i - 10] : 0.0;
    EXPECT_NEAR(y[i], expect, kGpuTolerance) << "i=" << i;
  }
}

TEST(BandpassGpu, WrapsAroundLikeTheCpu) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  // The impulse near the end: the wavelet's tail wraps to the start of the output.
  std::vector<float> x(50, 0.0f);
  x[45] = 1.0f;
  expect_close(bandpass_gpu(x, 30, stream), bandpass_cpu(x, 30, kSeed), "impulse at 45");
  const auto direct = direct_circular(x, ricker_wavelet(30, kSeed));
  expect_close(bandpass_gpu(x, 30, stream), direct, "direct");
}

TEST(BandpassGpu, PlanIsReusableAndStreamAgnostic) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  TestStream other;
  const std::size_t n = 4096;
  BandpassPlan plan(n, 30, kSeed, stream);
  ecgpipe::DeviceBuffer<double> d_y(n, stream);
  for (unsigned seed : {1u, 2u, 3u}) {
    const auto x = random_signal(n, seed);
    const auto d_x = upload(x, stream);
    plan.run(d_x.cspan(), d_y.span(), stream);
    expect_close(download(d_y.data(), n, stream), bandpass_cpu(x, 30, kSeed), "same stream, seed " + std::to_string(seed));
  }
  // A run on another stream is ordered after the plan's set-up and earlier runs.
  const auto x = random_signal(n, 4u);
  const auto d_x = upload(x, other);
  ecgpipe::DeviceBuffer<double> d_z(n, other);
  plan.run(d_x.cspan(), d_z.span(), other);
  expect_close(download(d_z.data(), n, other), bandpass_cpu(x, 30, kSeed), "other stream");
}

TEST(BandpassGpu, RejectsBadArguments) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  EXPECT_THROW(BandpassPlan(100, 1, kSeed, stream), ecgpipe::UsageError);
  BandpassPlan plan(100, 30, kSeed, stream);
  ecgpipe::DeviceBuffer<float> x(99, stream);
  ecgpipe::DeviceBuffer<double> y(100, stream);
  EXPECT_THROW(plan.run(x.cspan(), y.span(), stream), ecgpipe::InternalError) << "size differs from the plan's";
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
