// The GPU's chunked detection (issue 29): BandpassBlocksCuda over any ranges of blocks and
// StreamingDetectorCuda over any pieces give the whole-record GPU path's values bit for bit
// (BandpassPlan, detect_beats_cuda), and the CPU's R peaks. Chunk edges on the block grid (31, 32,
// 33 blocks: one cuFFT batch and either side), through a beat, inside the band-pass's halo, one
// sample at a time.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ecgpipe/eval/synth.hpp"
#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/signal/detect.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/signal/bandpass_cuda.hpp"
#include "ecgpipe/signal/detect_cuda.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"
#endif

namespace {

using namespace ecgpipe;

#ifdef ECGPIPE_WITH_CUDA
using ecgpipe_test::download;
using ecgpipe_test::TestStream;
using ecgpipe_test::upload;


// Bit patterns: "equal" means the same bits, not within a tolerance.
std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
  return b;
}

std::vector<double> whole_bandpass(const std::vector<float>& x, int width, cudaStream_t stream) {
  BandpassPlan plan(x.size(), width, ecgpipe::RickerTaps::zero_sum, stream);
  const auto d_x = upload(x, stream);
  DeviceBuffer<double> d_y(x.size(), stream);
  plan.run(d_x.cspan(), d_y.span(), stream);
  return download(d_y.data(), x.size(), stream);
}

// The blocks in groups of `group`, each from an input window holding just its samples.
std::vector<double> grouped_bandpass(const std::vector<float>& x, int width, std::int64_t group, cudaStream_t stream) {
  BandpassBlocksCuda blocks(width, ecgpipe::RickerTaps::zero_sum, stream);
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<double> y(x.size(), 0.0);
  const std::int64_t count = blocks.blocks_for(n), hop = blocks.hop(), w1 = width - 1;
  for (std::int64_t k = 0; k < count; k += group) {
    const std::int64_t last = std::min(count, k + group);
    const std::int64_t in_lo = k * hop, in_hi = std::min((last - 1) * hop + blocks.fft_length(), n);
    const std::int64_t out_lo = in_lo + w1, out_hi = in_hi;
    const std::vector<float> piece(x.begin() + in_lo, x.begin() + in_hi);
    const auto d_piece = upload(piece, stream);
    DeviceBuffer<double> d_out(static_cast<std::size_t>(out_hi - out_lo), stream);
    blocks.run(d_piece.cspan(), in_lo, n, k, last, d_out.span(), out_lo, stream);
    const std::vector<double> out = download(d_out.data(), d_out.size(), stream);
    std::copy(out.begin(), out.end(), y.begin() + out_lo);
  }
  const std::int64_t m = std::min<std::int64_t>(n, w1);
  if (m > 0) {
    const std::vector<float> head(x.begin(), x.begin() + m), tail(x.end() - m, x.end());
    const auto d_head = upload(head, stream), d_tail = upload(tail, stream);
    DeviceBuffer<double> d_w(static_cast<std::size_t>(m), stream);
    blocks.wrapped(d_head.cspan(), d_tail.cspan(), n, d_w.span(), stream);
    const std::vector<double> w = download(d_w.data(), d_w.size(), stream);
    std::copy(w.begin(), w.end(), y.begin());
  }
  return y;
}

TEST(BandpassBlocksGpu, AnyGroupingOfBlocksGivesTheWholeRunsBits) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  const std::vector<float> x = testutil::synth_signal(250.0, 70 * 65507 + 123);  // 71 blocks: three batches, the last partial
  const std::vector<double> whole = whole_bandpass(x, 30, stream);
  for (const std::int64_t group : {1, 5, 31, 32, 33, 71}) {
    EXPECT_EQ(bits(grouped_bandpass(x, 30, group, stream)), bits(whole)) << group << " blocks at a time";
  }
}

TEST(BandpassBlocksGpu, ShortSignalsAndWideWavelets) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  for (const int width : {2, 30, 180, 20000}) {  // 20000: the block grows to 2^17
    for (const std::size_t n : {1, 2, 29, 30, 31, 65536, 65537, 200001}) {
      const std::vector<float> x = testutil::synth_signal(250.0, static_cast<std::int64_t>(n), n);
      const std::vector<double> whole = whole_bandpass(x, width, stream);
      EXPECT_EQ(bits(grouped_bandpass(x, width, 1, stream)), bits(whole)) << "n " << n << " width " << width;
      // The wrap-around is the CPU's direct sums with the CPU's own taps, each product and sum
      // rounded on its own: the same bits; the rest the CPU's blocks up to FFT round-off
      // (test_bandpass.cpp: 1e-10).
      const std::vector<double> cpu = bandpass_cpu(x, width, ecgpipe::RickerTaps::zero_sum);
      const std::size_t wrapped = std::min<std::size_t>(n, static_cast<std::size_t>(width - 1));
      for (std::size_t i = 0; i < wrapped; ++i) ASSERT_EQ(whole[i], cpu[i]) << "n " << n << " width " << width << " i " << i;
      for (std::size_t i = wrapped; i < n; ++i) ASSERT_NEAR(whole[i], cpu[i], 1e-10) << "n " << n << " width " << width << " i " << i;
    }
  }
}

TEST(BandpassBlocksGpu, RejectsWindowsThatDoNotCoverTheBlocks) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  BandpassBlocksCuda blocks(30, ecgpipe::RickerTaps::zero_sum, stream);
  DeviceBuffer<float> x(1000, stream);
  DeviceBuffer<double> y(1000, stream);
  // Block 0 of a 100000-sample signal reads 65536 samples: 1000 are not enough.
  EXPECT_THROW(blocks.run(x.cspan(), 0, 100000, 0, 1, y.span(), 29, stream), InternalError);
  EXPECT_THROW(blocks.run(x.cspan(), 5, 1000, 0, 1, y.span(), 29, stream), InternalError) << "input starts after the block";
  EXPECT_THROW(blocks.wrapped(x.cspan(), x.cspan(), 1000, y.span(), stream), InternalError) << "head of 1000, not 29";
  EXPECT_EQ(blocks.blocks_for(0), 0);
  EXPECT_EQ(blocks.blocks_for(29), 0);
  EXPECT_EQ(blocks.blocks_for(30), 1);
  EXPECT_EQ(blocks.blocks_for(65536), 1);
  EXPECT_EQ(blocks.blocks_for(65537), 2);
}

struct GpuStreamed {
  Detection detection;
  std::vector<double> excerpt;
  std::size_t window_bytes = 0;
};

// The streamed detector's result over pieces cut at `edges` (ascending sample indices).
GpuStreamed stream_on_gpu(const std::vector<float>& x, const DetectOptions& o, const std::vector<std::size_t>& edges,
                          std::size_t excerpt, cudaStream_t stream) {
  const auto d_x = upload(x, stream);
  StreamingDetectorCuda det(o, excerpt, stream);
  std::size_t at = 0;
  for (std::size_t k = 0; k <= edges.size(); ++k) {
    const std::size_t end = k < edges.size() ? std::min(edges[k], x.size()) : x.size();
    if (end > at) det.push({d_x.data() + at, end - at});
    at = std::max(at, end);
  }
  det.finish();
  EXPECT_EQ(det.samples(), static_cast<std::int64_t>(x.size()));
  GpuStreamed r;
  const std::vector<Candidate> candidates = above_floor(det.found(), det.max_envelope());
  r.detection.candidates = candidates.size();
  std::vector<std::int64_t> peaks;
  for (const std::int64_t p : classify_candidates(candidates, o)) {
    const auto it = std::find_if(det.found().begin(), det.found().end(), [p](const ScannedCandidate& c) { return c.candidate.position == p; });
    peaks.push_back(det.refined()[static_cast<std::size_t>(it - det.found().begin())]);
  }
  r.detection.r_peaks = sorted_unique_peaks(std::move(peaks));
  r.excerpt = det.curvature_excerpt();
  r.window_bytes = det.peak_window_bytes();
  return r;
}

std::vector<std::size_t> every(std::size_t piece, std::size_t n) {
  std::vector<std::size_t> edges;
  for (std::size_t at = piece; at < n; at += piece) edges.push_back(at);
  return edges;
}

void expect_same_as_whole_gpu(const std::vector<float>& x, double fs, const std::vector<std::vector<std::size_t>>& cuts,
                              const std::string& what) {
  TestStream stream;
  const DetectOptions o{fs, seed_windows(fs).ricker_width};
  const auto d_x = upload(x, stream);
  DeviceBuffer<double> d_bp(x.size(), stream);
  BandpassPlan plan(x.size(), o.ricker_width, ecgpipe::RickerTaps::zero_sum, stream);
  plan.run(d_x.cspan(), d_bp.span(), stream);
  const Detection whole = detect_beats_cuda(d_x.cspan(), d_bp.cspan(), o, stream);
  const std::size_t excerpt = std::min<std::size_t>(x.size(), static_cast<std::size_t>(10 * fs));
  const std::vector<double> bp = download(d_bp.data(), excerpt, stream);
  // The CPU's R peaks (its band-pass differs by round-off only, which moves no peak here).
  EXPECT_EQ(whole.r_peaks, detect_beats_cpu(x, bandpass_cpu(x, o.ricker_width, ecgpipe::RickerTaps::zero_sum), o).r_peaks) << what;
  if (static_cast<double>(x.size()) > 10 * fs) {
    EXPECT_GT(static_cast<double>(whole.r_peaks.size()), static_cast<double>(x.size()) / fs / 4);
  }
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    const GpuStreamed s = stream_on_gpu(x, o, cuts[c], excerpt, stream);
    EXPECT_EQ(s.detection.r_peaks, whole.r_peaks) << what << ", cut " << c;
    EXPECT_EQ(s.detection.candidates, whole.candidates) << what << ", cut " << c;
    EXPECT_EQ(bits(s.excerpt), bits(bp)) << what << ", cut " << c;
  }
}

TEST(DetectStreamGpu, BlockSizedChunksEqualTheWholeGpuRun) {
  SKIP_WITHOUT_GPU();
  ASSERT_EQ(seed_windows(250.0).ricker_width, 30);
  const std::size_t hop = 65536 - 29;  // the block grid at width 30
  const std::vector<float> x = testutil::synth_signal(250.0, static_cast<std::int64_t>(70 * hop + 4321));
  expect_same_as_whole_gpu(x, 250.0, {every(31 * hop, x.size()), every(32 * hop, x.size()), every(33 * hop, x.size()),
                                      every(32 * hop + 65536, x.size()), every(1000003, x.size())},
                           "70 blocks");
}

TEST(DetectStreamGpu, EdgesThroughBeatsInsideTheHaloAndOneSampleAtATime) {
  SKIP_WITHOUT_GPU();
  const double fs = 250.0;
  const std::vector<float> x = testutil::synth_signal(fs, 150000, 7);
  TestStream stream;
  const DetectOptions o{fs, 30};
  const Detection cpu = detect_beats_cpu(x, bandpass_cpu(x, 30, ecgpipe::RickerTaps::zero_sum), o);
  ASSERT_GT(cpu.r_peaks.size(), 100u);
  std::vector<std::size_t> through_beats;  // an edge on each R peak and one sample after the next
  for (std::size_t k = 0; k + 1 < cpu.r_peaks.size(); k += 2) {
    through_beats.push_back(static_cast<std::size_t>(cpu.r_peaks[k]));
    through_beats.push_back(static_cast<std::size_t>(cpu.r_peaks[k + 1]) + 1);
  }
  // Inside the halo: the last width-1 samples of block 0's input, which block 1 reads too.
  const std::vector<std::size_t> halo{65507 + 3, 65520, 65535, 65536, 131014 + 10};
  std::vector<std::size_t> ones;  // one sample at a time across the first block's end
  for (std::size_t i = 65400; i < 66000; ++i) ones.push_back(i);
  expect_same_as_whole_gpu(x, fs, {through_beats, halo, ones, every(7919, x.size()), every(1, 2000)}, "150000 at 250 Hz");
}

TEST(DetectStreamGpu, ShortRecordingsFlatStretchesAnd360Hz) {
  SKIP_WITHOUT_GPU();
  for (const std::size_t n : {0, 1, 29, 30, 31, 5000, 65536, 65537}) {
    const std::vector<float> x = testutil::synth_signal(250.0, static_cast<std::int64_t>(n), 3);
    expect_same_as_whole_gpu(x, 250.0, {every(1, std::min<std::size_t>(n, 64)), every(333, n), every(65536, n)},
                             "n " + std::to_string(n));
  }
  std::vector<float> flat = testutil::synth_signal(250.0, 140000, 5);
  std::fill(flat.begin() + 10000, flat.begin() + 80000, 0.0f);  // round-off candidates the floor removes
  expect_same_as_whole_gpu(flat, 250.0, {every(10000, flat.size()), every(65536, flat.size())}, "flat stretch");
  expect_same_as_whole_gpu(testutil::synth_signal(360.0, 360 * 400, 9), 360.0, {every(7919, 360 * 400), every(65536, 360 * 400)}, "360 Hz");
}

// Device memory held by the detector's windows depends on the chunk, not on the recording.
TEST(DetectStreamGpu, WindowsStayBoundedWhateverTheLength) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  const DetectOptions o{250.0, 30};
  const std::size_t chunk = 100000;
  for (const std::int64_t n : {std::int64_t{1000000}, std::int64_t{4000000}}) {
    const std::vector<float> x = testutil::synth_signal(250.0, n, 11);
    const GpuStreamed s = stream_on_gpu(x, o, every(chunk, x.size()), 0, stream);
    EXPECT_GT(s.detection.r_peaks.size(), static_cast<std::size_t>(n / 250 / 4));
    // The samples and band-pass of at most two blocks plus the chunk (4 + 8 B a sample): a bound
    // from the chunk and the block, not from n.
    EXPECT_LT(s.window_bytes, (2 * 65536 + chunk) * 12) << n;
  }
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
