// Stage 3: NMS gates against the seed's own O(n * window) definition, exactly.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "gpu_test_util.hpp"

namespace {

using ecgpipe::detect_gates_cpu;

// Literal transcription of the seed: segment_kernel, then out[1:] *= (diff(out) == 1).
std::vector<std::int64_t> seed_gates(const std::vector<double>& y, int window) {
  const auto n = static_cast<std::int64_t>(y.size());
  if (n < window) return {};
  std::vector<int> out(static_cast<std::size_t>(n - window + 1));
  for (std::int64_t p = 0; p + window <= n; ++p) {
    double accum = -INFINITY;
    for (int k = 0; k < window; ++k) accum = y[p + k] > accum ? y[p + k] : accum;
    out[p] = accum == y[p + (window + 1) / 2] ? 1 : 0;
  }
  std::vector<int> fixed = out;
  for (std::size_t i = 1; i < out.size(); ++i) fixed[i] = out[i] * ((out[i] - out[i - 1]) == 1 ? 1 : 0);
  std::vector<std::int64_t> gates;
  for (std::size_t i = 0; i < fixed.size(); ++i)
    if (fixed[i]) gates.push_back(static_cast<std::int64_t>(i));
  return gates;
}

TEST(Peaks, KnownSignal) {
  // Peaks at 5 and 15 with window 5 (center offset 3): gate p = peak - 3.
  std::vector<double> y(20, 0.0);
  y[5] = 2.0;
  y[15] = 1.0;
  // Plateaus of zeros also make gates (max == center), exactly as in the seed; check against it.
  EXPECT_EQ(detect_gates_cpu(y, 5), seed_gates(y, 5));
  std::vector<double> z(20);
  for (int i = 0; i < 20; ++i) z[i] = -std::abs(i - 8.0);  // one peak at 8
  EXPECT_EQ(detect_gates_cpu(z, 5), (std::vector<std::int64_t>{5}));
}

TEST(Peaks, ShorterThanWindowHasNoGates) {
  EXPECT_TRUE(detect_gates_cpu({}, 180).empty());
  EXPECT_TRUE(detect_gates_cpu(std::vector<double>(179, 1.0), 180).empty());
}

TEST(Peaks, ExactlyOneWindow) {
  std::vector<double> y(180, 0.0);
  y[90] = 1.0;  // the center of window 180 is (180 + 1) / 2 = 90
  EXPECT_EQ(detect_gates_cpu(y, 180), (std::vector<std::int64_t>{0}));
  y[90] = 0.0;
  y[91] = 1.0;
  EXPECT_TRUE(detect_gates_cpu(y, 180).empty());
}

TEST(Peaks, RejectsBadWindow) {
  EXPECT_THROW(detect_gates_cpu({1.0}, 0), ecgpipe::UsageError);
  EXPECT_THROW(detect_gates_cpu({1.0, 2.0}, 1), ecgpipe::UsageError) << "window 1 compares outside its window";
}

TEST(Peaks, RandomSignalsWithTiesMatchSeed) {
  std::mt19937 rng(7);
  for (std::size_t n : {1, 31, 32, 33, 500, 5000}) {
    for (int window : {2, 3, 32, 180}) {
      // Values quantised to a few levels, so ties and plateaus are common.
      std::uniform_int_distribution<int> level(0, 6);
      std::vector<double> y(n);
      for (auto& v : y) v = level(rng) * 0.5;
      EXPECT_EQ(detect_gates_cpu(y, window), seed_gates(y, window)) << "n=" << n << " window=" << window;
    }
  }
}

#ifdef ECGPIPE_WITH_CUDA
// --- GPU path: detect_gates_cuda against the CPU, exactly.
//
using ecgpipe::detect_gates_cuda;
using ecgpipe_test::download;
using ecgpipe_test::TestStream;
using ecgpipe_test::upload;

std::vector<std::int64_t> gates_gpu(const std::vector<double>& y, int window, cudaStream_t stream) {
  const auto d_y = upload(y, stream);
  std::size_t count = 12345;
  const auto gates = detect_gates_cuda(d_y.cspan(), window, count, stream);
  EXPECT_EQ(gates.size(), count) << "the returned buffer holds exactly the gates";
  return download(gates.data(), count, stream);
}

// The reference the GPU must equal: the CPU's O(n) deque (cheap at any n).
std::vector<std::int64_t> gates_reference(const std::vector<double>& y, int window) { return detect_gates_cpu(y, window); }

std::vector<double> quantised_signal(std::size_t n, int levels, std::mt19937& rng) {
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<double> y(n);
  for (auto& v : y) v = level(rng) * 0.5;
  return y;
}

std::vector<double> continuous_signal(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, 1.0);
  std::vector<double> y(n);
  for (auto& v : y) v = noise(rng);
  return y;
}

// ECG-like: a sharp peak every ~300 samples on a slow wave, with a little noise.
std::vector<double> ecg_like_signal(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double phase = static_cast<double>(i % 300) - 150.0;
    y[i] = std::exp(-phase * phase / 20.0) + 0.2 * std::sin(static_cast<double>(i) * 0.01) + noise(rng);
  }
  return y;
}

TEST(PeaksGpu, RandomSignalsMatchCpuExactly) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  std::mt19937 rng(11);
  // Sizes around a warp, around the 256-sample span one warp scans, several blocks of warps.
  for (std::size_t n : {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 256, 257, 258, 1000, 5000, 70001}) {
    for (int window : {2, 3, 4, 31, 32, 33, 64, 180, 255, 256, 257, 300, 1000}) {
      const std::string what = "n=" + std::to_string(n) + " window=" + std::to_string(window);
      const auto ties = quantised_signal(n, 3, rng);  // ties and plateaus everywhere
      EXPECT_EQ(gates_gpu(ties, window, stream), gates_reference(ties, window)) << what << " (ties)";
      const auto smooth = continuous_signal(n, rng);
      EXPECT_EQ(gates_gpu(smooth, window, stream), gates_reference(smooth, window)) << what << " (continuous)";
    }
  }
}

TEST(PeaksGpu, PlateausAndConstantSignals) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  for (int window : {2, 3, 32, 180}) {
    const std::vector<double> flat(1000, 0.25);
    EXPECT_EQ(gates_gpu(flat, window, stream), detect_gates_cpu(flat, window)) << "window=" << window;
    EXPECT_EQ(gates_gpu(flat, window, stream), (std::vector<std::int64_t>{0})) << "window=" << window;
    // Wide plateaus (runs of 50 equal values) at alternating heights.
    std::vector<double> steps(1000);
    for (std::size_t i = 0; i < steps.size(); ++i) steps[i] = ((i / 50) % 2 == 0) ? 1.0 : -1.0;
    EXPECT_EQ(gates_gpu(steps, window, stream), detect_gates_cpu(steps, window)) << "window=" << window;
    EXPECT_EQ(gates_gpu(steps, window, stream), seed_gates(steps, window)) << "window=" << window;
  }
}

TEST(PeaksGpu, WindowEdges) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  std::mt19937 rng(3);
  const auto y = continuous_signal(180, rng);
  EXPECT_TRUE(gates_gpu(std::vector<double>(179, 1.0), 180, stream).empty()) << "window > n";
  EXPECT_TRUE(gates_gpu({}, 180, stream).empty()) << "n = 0";
  EXPECT_EQ(gates_gpu(y, 180, stream), detect_gates_cpu(y, 180)) << "window == n";
  std::vector<double> one(180, 0.0);
  one[90] = 1.0;
  EXPECT_EQ(gates_gpu(one, 180, stream), (std::vector<std::int64_t>{0}));
  // Peak as the last compared sample of the signal: p = n - window, center p + (window + 1) / 2.
  std::vector<double> tail(1000, 0.0);
  for (std::size_t i = 0; i < tail.size(); ++i) tail[i] = -static_cast<double>(i % 7);
  tail[1000 - 180 + 90] = 5.0;
  EXPECT_EQ(gates_gpu(tail, 180, stream), detect_gates_cpu(tail, 180));
}

TEST(PeaksGpu, LargeEcgLikeSignal) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  std::mt19937 rng(1);
  const auto y = ecg_like_signal(1000000, rng);
  const auto cpu = detect_gates_cpu(y, 180);
  EXPECT_GT(cpu.size(), 3000u) << "a peak every 300 samples";
  EXPECT_EQ(gates_gpu(y, 180, stream), cpu);
  const auto ties = quantised_signal(1000000, 5, rng);
  for (int window : {2, 32, 180}) EXPECT_EQ(gates_gpu(ties, window, stream), detect_gates_cpu(ties, window)) << window;
}

TEST(PeaksGpu, RejectsBadWindow) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  std::size_t count = 0;
  EXPECT_THROW(detect_gates_cuda({}, 0, count, stream), ecgpipe::UsageError);
  EXPECT_THROW(detect_gates_cuda({}, 1, count, stream), ecgpipe::UsageError);
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
