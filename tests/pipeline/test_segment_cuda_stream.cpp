// The GPU's chunked path (issue 29, src/pipeline/segment_cuda_stream.cpp): a recording over the
// GPU budget streamed through the GPU in chunks gives the whole GPU path's results bit for bit
// (R peaks, beat rows, the device matrix, classes, excerpts; end to end beats.csv and the scores),
// with device memory that grows with the beats only. The chunk arithmetic runs on every build.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/synth.hpp"
#include "ecgpipe/pipeline/gpu_budget.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "test_util.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/pipeline/segment_cuda.hpp"
#include "gpu_test_util.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using namespace ecgpipe;

using testutil::ScopedEnv;
constexpr const char* kChunkEnv = "ECGPIPE_GPU_CHUNK_SAMPLES";

TEST(GpuChunkSize, FromTheBudgetWithinItsBounds) {
  ::unsetenv(kChunkEnv);
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  EXPECT_EQ(gpu_chunk_samples(0).samples, kMinGpuChunkSamples);  // below the fixed buffers: the smallest chunk
  EXPECT_EQ(gpu_chunk_samples(kGpuChunkFixedBytes).samples, kMinGpuChunkSamples);
  // 64 MiB over the fixed part at 64 B a sample: exactly 2^20 samples; a byte less rounds down.
  EXPECT_EQ(gpu_chunk_samples(kGpuChunkFixedBytes + 64 * kMiB).samples, std::int64_t{1} << 20);
  EXPECT_EQ(gpu_chunk_samples(kGpuChunkFixedBytes + 64 * kMiB - 1).samples, (std::int64_t{1} << 20) - 1);
  EXPECT_EQ(gpu_chunk_samples(kGpuChunkFixedBytes + kGpuBytesPerChunkSample * kMinGpuChunkSamples).samples, kMinGpuChunkSamples);
  EXPECT_EQ(gpu_chunk_samples(std::uint64_t{80} << 30).samples, kMaxGpuChunkSamples);  // an 80 GB GPU: the largest chunk
  EXPECT_EQ(gpu_chunk_samples(~std::uint64_t{0}).samples, kMaxGpuChunkSamples);
  EXPECT_EQ(gpu_chunk_samples(64 * kMiB).source, "the smallest chunk: the budget is below the fixed buffers");
  EXPECT_EQ(gpu_chunk_samples(std::uint64_t{8} << 30).source, "from the budget");
}

TEST(GpuChunkSize, TheVariableForcesAnyChunkAndIsChecked) {
  {
    ScopedEnv e(kChunkEnv, "1");
    EXPECT_EQ(gpu_chunk_samples(std::uint64_t{8} << 30).samples, 1);
    EXPECT_EQ(gpu_chunk_samples(0).source, kChunkEnv);
  }
  {
    ScopedEnv e(kChunkEnv, "33554432");  // kMaxGpuChunkSamples
    EXPECT_EQ(gpu_chunk_samples(0).samples, kMaxGpuChunkSamples);
  }
  for (const char* bad : {"", "0", "-5", "x", "12k", "1e3", "33554433", "99999999999999999999"}) {
    ScopedEnv e(kChunkEnv, bad);
    EXPECT_THROW(gpu_chunk_samples(0), UsageError) << "'" << bad << "'";
  }
}

#ifdef ECGPIPE_WITH_CUDA

std::vector<std::uint32_t> bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

std::vector<float> matrix_of(const Segmentation& seg) {
  const auto n = static_cast<std::size_t>(seg.matrix.rows() * seg.matrix.cols());
  std::vector<float> host(n);
  if (n > 0) ECGPIPE_CUDA_CHECK(cudaMemcpy(host.data(), seg.matrix.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void expect_same_segmentation(Segmentation& a, Segmentation& b, const std::string& what) {
  ECGPIPE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(a.samples, b.samples) << what;
  EXPECT_EQ(a.candidates, b.candidates) << what;
  EXPECT_EQ(a.beats.start, b.beats.start) << what;
  EXPECT_EQ(a.beats.length, b.beats.length) << what;
  ASSERT_TRUE(a.matrix.on_cuda() && b.matrix.on_cuda()) << what;
  EXPECT_EQ(a.matrix.rows(), b.matrix.rows()) << what;
  EXPECT_EQ(a.matrix.cols(), b.matrix.cols()) << what;
  EXPECT_EQ(bits(matrix_of(a)), bits(matrix_of(b))) << what;
  finish_classification(a);
  finish_classification(b);
  EXPECT_EQ(a.beat_class, b.beat_class) << what;
  EXPECT_EQ(bits(a.signal_excerpt), bits(b.signal_excerpt)) << what;
  ASSERT_EQ(a.curvature_excerpt.size(), b.curvature_excerpt.size()) << what;
  EXPECT_EQ(0, std::memcmp(a.curvature_excerpt.data(), b.curvature_excerpt.data(), a.curvature_excerpt.size() * sizeof(double)))
      << what;
}

RunOptions options_for(const std::string& input, double fs) {
  RunOptions o;
  o.input = input;
  o.fs = fs;
  o.ricker_width = seed_windows(fs).ricker_width;
  o.nms_window = seed_windows(fs).nms_window;
  o.limits = BeatLimits{seed_windows(fs).min_length, seed_windows(fs).max_length};
  return o;
}

// Chunk sizes for a recording: one sample (short recordings only), 31/32/33 band-pass blocks (a
// cuFFT batch and either side), a prime, and edges through beats and inside the band-pass halo
// (65507 + 10: block 1's input starts at the hop, block 0's ends at 65536).
void expect_chunked_equals_whole(const RunOptions& o, const std::vector<std::int64_t>& chunks, const std::string& what) {
  const auto ctx = make_cuda_context();
  RunOptions whole_options = o;
  whole_options.chunk_seconds = 0;  // whole, whatever the budget
  Segmentation whole = segment_cuda(whole_options, *ctx);
  ASSERT_GT(whole.beats.size(), 10u) << what;
  for (const std::int64_t chunk : chunks) {
    GpuChunkReport report;
    Segmentation chunked = segment_cuda_chunked(o, *ctx, chunk, &report);
    EXPECT_LE(report.chunks_largest, static_cast<std::size_t>(chunk)) << what;
    Segmentation again = segment_cuda(whole_options, *ctx);
    expect_same_segmentation(chunked, again, what + ", chunks of " + std::to_string(chunk));
  }
  finish_classification(whole);
}

TEST(SegmentChunkedGpu, BundledSampleEqualsTheWholeGpuPath) {
  SKIP_WITHOUT_GPU();
  const RunOptions o = options_for(ECGPIPE_SOURCE_DIR "/data/sample.csv", 360.0);
  // The sample's first R peaks lie near 156, 450: a chunk of 400 cuts the second beat's row.
  expect_chunked_equals_whole(o, {1, 400, 7919, 65507 + 10, 65536, 150000, 1 << 20}, "data/sample.csv");
}

TEST(SegmentChunkedGpu, SynthCsvOverManyBlocksEqualsTheWholeGpuPath) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  const std::int64_t hop = 65536 - 29;
  const std::vector<float> x = testutil::synth_signal(250.0, 34 * hop + 777, 3, SynthScenario::bigeminy);
  testutil::write_signal_csv(dir / "rec.csv", x);
  const RunOptions o = options_for((dir / "rec.csv").string(), 250.0);
  expect_chunked_equals_whole(o, {31 * hop, 32 * hop, 33 * hop, 65507 + 10, 999983}, "synth CSV, 34 blocks");
  // Samples in memory and the seed model's rows (windows of their own) go the same way.
  RunOptions seed_rows = o;
  seed_rows.model = Model::seed;
  expect_chunked_equals_whole(seed_rows, {32 * hop}, "seed model rows");
  RunOptions in_memory = o;
  in_memory.samples = std::make_shared<const std::vector<float>>(x);
  expect_chunked_equals_whole(in_memory, {100003}, "samples in memory");
}

// The whole path keeps a host copy of the signal up to kMaxHostSignal samples (signal quality,
// the report's strips); past it the classifier's windows are cut on the device and only they go
// down (the host's peak of a 14-day run had held the signal and its windows): the same classes
// as the chunked path either side of the limit, and the copy kept only up to it.
TEST(SegmentChunkedGpu, WholePathPastTheHostCopysLimitCutsTheWindowsOnTheDevice) {
  SKIP_WITHOUT_GPU();
  const auto ctx = make_cuda_context();
  const std::vector<float> x = testutil::synth_signal(250.0, kMaxHostSignal + 1, 6, SynthScenario::bigeminy);
  for (const std::size_t n : {kMaxHostSignal, kMaxHostSignal + 1}) {
    RunOptions o = options_for("memory", 250.0);
    o.samples = std::make_shared<const std::vector<float>>(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
    o.chunk_seconds = 0;  // whole
    Segmentation whole = segment_cuda(o, *ctx);
    Segmentation chunked = segment_cuda_chunked(o, *ctx, std::int64_t{1} << 22);
    expect_same_segmentation(whole, chunked, std::to_string(n) + " samples");
    EXPECT_GT(whole.beat_class.size(), 100000u);
    EXPECT_EQ(whole.host_signal.size(), n <= kMaxHostSignal ? n : 0u) << n;
    EXPECT_EQ(whole.quality.has_value(), n <= kMaxHostSignal) << n;
  }
}

// Device memory: 4x the samples cost the chunked path only the beat matrix's growth, while the
// whole path's grows with the samples (kGpuBytesPerSample).
TEST(SegmentChunkedGpu, DeviceMemoryGrowsWithTheBeatsNotTheSamples) {
  SKIP_WITHOUT_GPU();
  const auto ctx = make_cuda_context();
  int device = 0;
  ECGPIPE_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  ECGPIPE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  const auto peak_used = [&](const RunOptions& o, std::int64_t chunk, std::size_t& matrix_bytes) {
    ECGPIPE_CUDA_CHECK(cudaDeviceSynchronize());
    std::uint64_t zero = 0, peak = 0;
    ECGPIPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    Segmentation seg = segment_cuda_chunked(o, *ctx, chunk);
    ECGPIPE_CUDA_CHECK(cudaDeviceSynchronize());
    ECGPIPE_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &peak));
    // The matrix, and the classifier's windows that pass 2 copies out of it on the device for
    // the classification thread (held until that thread has them on the host): both per beat.
    matrix_bytes = static_cast<std::size_t>(seg.matrix.rows() * (seg.matrix.cols() + feature_window(o.fs).length)) * sizeof(float);
    finish_classification(seg);
    return static_cast<std::size_t>(peak);
  };
  RunOptions o = options_for("memory", 250.0);
  std::size_t short_matrix = 0, long_matrix = 0;
  o.samples = std::make_shared<const std::vector<float>>(testutil::synth_signal(250.0, 4000000, 5, SynthScenario::bigeminy));
  const std::size_t short_peak = peak_used(o, 500000, short_matrix);
  o.samples = std::make_shared<const std::vector<float>>(testutil::synth_signal(250.0, 16000000, 5, SynthScenario::bigeminy));
  const std::size_t long_peak = peak_used(o, 500000, long_matrix);
  RecordProperty("peak_4M_bytes", std::to_string(short_peak));
  RecordProperty("peak_16M_bytes", std::to_string(long_peak));
  std::printf("chunked GPU path, chunks of 500000: device peak %zu B for 4 M samples, %zu B for 16 M (matrix and windows %zu, %zu)\n",
              short_peak, long_peak, short_matrix, long_matrix);
  // 12 M more samples would cost the whole path 12 M x 44 B = 528 MB; here the growth of the
  // matrix and the windows, plus 8 MiB of slack (the device copy of the row table: 12 B a beat;
  // allocation granularity).
  EXPECT_LE(long_peak, short_peak + (long_matrix - short_matrix) + (std::size_t{8} << 20));
  EXPECT_LT(short_peak, kGpuChunkFixedBytes + 500000 * kGpuBytesPerChunkSample + short_matrix);
}

// End to end: `run` over the budget with small forced chunks writes the whole GPU run's beats.csv
// (R peaks, classes, scores) byte for byte, and says which path it took and why.
TEST(SegmentChunkedGpuCli, RunOverTheBudgetWritesTheWholeRunsBeatsAndScores) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  testutil::write_signal_csv(dir / "rec.csv", testutil::synth_signal(250.0, 250 * 1200, 9, SynthScenario::bigeminy));
  const std::string in = testutil::q(dir / "rec.csv");
  const auto whole = testutil::run_ecgpipe("run " + in + " --device cuda --epochs 3 --seed 7 --out '" + (dir / "whole").string() + "'", dir);
  ASSERT_EQ(whole.code, 0) << whole.err;
  EXPECT_NE(whole.err.find("read and detected whole on the GPU"), std::string::npos) << whole.err;
  for (const char* chunk : {"65517", "100000"}) {
    ScopedEnv e(kChunkEnv, chunk);
    const fs::path out = dir / (std::string("chunked") + chunk);
    const auto r = testutil::run_ecgpipe("run " + in + " --device cuda --gpu-memory 1K --epochs 3 --seed 7 --out '" + out.string() + "'", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find(std::string("streamed through the GPU in chunks of ") + chunk + " samples (ECGPIPE_GPU_CHUNK_SAMPLES)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(testutil::read_text(out / "beats.csv"), testutil::read_text(dir / "whole" / "beats.csv")) << chunk;
    const auto a = nlohmann::json::parse(testutil::read_text(out / "report.json"));
    const auto b = nlohmann::json::parse(testutil::read_text(dir / "whole" / "report.json"));
    for (const char* key : {"counts", "classes", "holter", "loss"}) EXPECT_EQ(a[key], b[key]) << key << ", chunks of " << chunk;
  }
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
