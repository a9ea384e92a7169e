// Stage 4: beat selection and exact zero padding.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/common/error.hpp"
#include "gpu_test_util.hpp"

namespace {

using ecgpipe::BeatLimits;
using ecgpipe::pad_beats_cpu;
using ecgpipe::select_beats;

TEST(Beats, SelectsByLengthInclusive) {
  const std::vector<std::int64_t> gates{0, 99, 199, 455, 712, 800};
  // lengths: 99 (too short), 100 (min, kept), 256 (max, kept), 257 (too long), 88 (too short)
  const auto t = select_beats(gates, BeatLimits{100, 256});
  EXPECT_EQ(t.start, (std::vector<std::int64_t>{99, 199}));
  EXPECT_EQ(t.length, (std::vector<std::int32_t>{100, 256}));
}

TEST(Beats, NoneOrOneGateGivesNoBeats) {
  EXPECT_EQ(select_beats({}, {}).size(), 0u);
  EXPECT_EQ(select_beats({42}, {}).size(), 0u);
}

TEST(Beats, OneBeat) {
  const auto t = select_beats({10, 160}, {});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.start[0], 10);
  EXPECT_EQ(t.length[0], 150);
}

TEST(Beats, PaddingIsExact) {
  std::vector<float> signal(50);
  for (int i = 0; i < 50; ++i) signal[i] = static_cast<float>(i) + 0.5f;
  ecgpipe::BeatTable t;
  t.start = {3, 20, 49};
  t.length = {4, 8, 1};
  const auto m = pad_beats_cpu(signal, t, 8);
  ASSERT_EQ(m.size(), 24u);
  const std::vector<float> expect{3.5f,  4.5f,  5.5f,  6.5f,  0, 0, 0, 0,  //
                                  20.5f, 21.5f, 22.5f, 23.5f, 24.5f, 25.5f, 26.5f, 27.5f,  //
                                  49.5f, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(m, expect);
}

TEST(Beats, EmptyTableGivesEmptyMatrix) { EXPECT_TRUE(pad_beats_cpu({1.0f}, {}, 256).empty()); }

// A row outside the signal is a bug upstream: the CPU reference refuses it, negative starts and
// lengths included (they would wrap around in unsigned arithmetic and could pass a bounds test).
TEST(Beats, PadRefusesRowsOutsideTheSignal) {
  const std::vector<float> x(100, 1.0f);
  for (const auto& [start, length] : std::vector<std::pair<std::int64_t, std::int32_t>>{{0, 150}, {-1, 10}, {95, 6}, {0, 300}, {10, -5}}) {
    ecgpipe::BeatTable t;
    t.start = {start};
    t.length = {length};
    EXPECT_THROW(ecgpipe::pad_beats_cpu(x, t, 256), ecgpipe::InternalError) << start << "+" << length;
  }
}

#ifdef ECGPIPE_WITH_CUDA
// --- GPU path: pad_beats_cuda against select_beats + pad_beats_cpu, exactly (rows are in
// candidate order by construction, values are copied floats and zeros).

using ecgpipe::pad_beats_cuda;
using ecgpipe_test::download;
using ecgpipe_test::TestStream;
using ecgpipe_test::upload;

std::vector<float> ramp_signal(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000) * 0.25f + 0.125f;  // no zeros
  return x;
}

void expect_same_as_cpu(const std::vector<float>& signal, const std::vector<std::int64_t>& gates,
                        const BeatLimits& limits, const std::string& what) {
  TestStream stream;
  const auto d_signal = upload(signal, stream);
  const auto d_gates = upload(gates, stream);
  const auto beats = pad_beats_cuda(d_signal.cspan(), d_gates.cspan(), limits, stream);

  const auto table = select_beats(gates, limits);
  const auto matrix = pad_beats_cpu(signal, table, limits.max_length);
  ASSERT_EQ(beats.rows, table.size()) << what;
  EXPECT_EQ(beats.start.size(), beats.rows) << what;
  EXPECT_EQ(beats.length.size(), beats.rows) << what;
  EXPECT_EQ(beats.matrix.size(), beats.rows * static_cast<std::size_t>(limits.max_length)) << what;
  EXPECT_EQ(download(beats.start.data(), beats.rows, stream), table.start) << what;
  EXPECT_EQ(download(beats.length.data(), beats.rows, stream), table.length) << what;
  EXPECT_EQ(download(beats.matrix.data(), matrix.size(), stream), matrix) << what;
}

// Gates `count + 1` long with gaps cycling through `gaps`, starting at `first`.
std::vector<std::int64_t> gates_with_gaps(std::int64_t first, std::size_t count, const std::vector<std::int64_t>& gaps) {
  std::vector<std::int64_t> g{first};
  for (std::size_t i = 0; i < count; ++i) g.push_back(g.back() + gaps[i % gaps.size()]);
  return g;
}

TEST(BeatsGpu, NoCandidates) {
  SKIP_WITHOUT_GPU();
  const auto x = ramp_signal(1000);
  expect_same_as_cpu(x, {}, {}, "no gates");
  expect_same_as_cpu(x, {42}, {}, "one gate");
  expect_same_as_cpu(x, {0, 50, 99, 400, 999}, {}, "no beat in range");  // 50, 49, 301, 599
}

TEST(BeatsGpu, OneBeat) {
  SKIP_WITHOUT_GPU();
  const auto x = ramp_signal(1000);
  expect_same_as_cpu(x, {10, 160}, {}, "one beat");
  expect_same_as_cpu(x, {0, 100}, {}, "min length at the start");
  expect_same_as_cpu(x, {10, 266}, {}, "max length");
  expect_same_as_cpu(x, {744, 1000}, {}, "max-length beat ending at the signal's end");
}

TEST(BeatsGpu, AroundAWarpOfBeats) {
  SKIP_WITHOUT_GPU();
  const auto x = ramp_signal(20000);
  for (std::size_t beats : {31, 32, 33, 64, 65}) {
    // All kept, lengths 100 .. 256 (not multiples of 32, and exactly 256).
    expect_same_as_cpu(x, gates_with_gaps(7, beats, {100, 131, 256, 200, 161}), {},
                       std::to_string(beats) + " kept beats");
    // Alternating kept / too long / too short.
    expect_same_as_cpu(x, gates_with_gaps(0, beats, {150, 300, 99, 256, 257, 100}), {},
                       std::to_string(beats) + " mixed candidates");
  }
}

TEST(BeatsGpu, BeatsAtTheVeryEnd) {
  SKIP_WITHOUT_GPU();
  const std::size_t n = 5000;
  const auto x = ramp_signal(n);
  // The last candidate ends exactly at n: its last sample is x[n - 1].
  std::vector<std::int64_t> gates;
  for (std::int64_t g = static_cast<std::int64_t>(n); g >= 0; g -= 150) gates.insert(gates.begin(), g);
  expect_same_as_cpu(x, gates, {}, "beats up to the end");
}

TEST(BeatsGpu, RowWidthsAroundAWarp) {
  SKIP_WITHOUT_GPU();
  const auto x = ramp_signal(3000);
  // max_length 1, 31, 32, 33, 64, 65: rows narrower than, equal to and just over the warp stride.
  for (int max_length : {1, 31, 32, 33, 64, 65}) {
    const BeatLimits limits{1, max_length};
    expect_same_as_cpu(x, gates_with_gaps(3, 40, {1, 30, 31, 32, 33, 64, 65, 66}), limits,
                       "max_length=" + std::to_string(max_length));
  }
  expect_same_as_cpu(x, gates_with_gaps(0, 20, {5, 6, 7}), BeatLimits{6, 6}, "min == max");
}

TEST(BeatsGpu, LargeRandomGates) {
  SKIP_WITHOUT_GPU();
  const std::size_t n = 1000000;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (auto& v : x) v = u(rng);
  std::uniform_int_distribution<std::int64_t> gap(40, 320);  // about half the candidates kept
  std::vector<std::int64_t> gates;
  for (std::int64_t g = gap(rng); g < static_cast<std::int64_t>(n); g += gap(rng)) gates.push_back(g);
  expect_same_as_cpu(x, gates, {}, "1e6 samples");
  expect_same_as_cpu(x, gates, BeatLimits{1, 320}, "all kept");
}

TEST(BeatsGpu, BeatOutsideTheSignalThrows) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  const auto x = ramp_signal(100);
  const auto d_signal = upload(x, stream);
  const auto d_gates = upload(std::vector<std::int64_t>{0, 150}, stream);  // kept, but ends past 100
  EXPECT_THROW(pad_beats_cuda(d_signal.cspan(), d_gates.cspan(), {}, stream), ecgpipe::InternalError);
  ecgpipe::BeatTable t;
  t.start = {0};
  t.length = {150};
  EXPECT_THROW(pad_beats_cpu(x, t, 256), ecgpipe::InternalError) << "as the CPU reference does";
  // Not kept (too short): never read, so no error, as on the CPU.
  const auto d_short = upload(std::vector<std::int64_t>{90, 150}, stream);
  EXPECT_EQ(pad_beats_cuda(d_signal.cspan(), d_short.cspan(), {}, stream).rows, 0u);
}

// --- Rows from an explicit table (the robust preset's beat_windows): pad_table_cuda against
// pad_beats_cpu, exactly.

void expect_table_same_as_cpu(const std::vector<float>& signal, const ecgpipe::BeatTable& table, int max_length,
                              const std::string& what) {
  TestStream stream;
  const auto d_signal = upload(signal, stream);
  const auto beats = ecgpipe::pad_table_cuda(d_signal.cspan(), table, max_length, stream);
  const auto matrix = pad_beats_cpu(signal, table, max_length);
  ASSERT_EQ(beats.rows, table.size()) << what;
  EXPECT_EQ(beats.matrix.size(), matrix.size()) << what;
  EXPECT_EQ(download(beats.start.data(), beats.rows, stream), table.start) << what;
  EXPECT_EQ(download(beats.length.data(), beats.rows, stream), table.length) << what;
  EXPECT_EQ(download(beats.matrix.data(), matrix.size(), stream), matrix) << what;
}

// `rows` rows with lengths cycling through `lengths`, each starting `step` after the previous one.
ecgpipe::BeatTable table_of(std::size_t rows, std::int64_t first, std::int64_t step, const std::vector<std::int32_t>& lengths) {
  ecgpipe::BeatTable t;
  for (std::size_t r = 0; r < rows; ++r) {
    t.start.push_back(first + static_cast<std::int64_t>(r) * step);
    t.length.push_back(lengths[r % lengths.size()]);
  }
  return t;
}

TEST(BeatsGpu, TableOfZeroOneAndAroundAWarpOfBeats) {
  SKIP_WITHOUT_GPU();
  const auto x = ramp_signal(20000);
  for (std::size_t rows : {0, 1, 31, 32, 33, 64, 65}) {
    expect_table_same_as_cpu(x, table_of(rows, 5, 200, {256, 1, 100, 255, 31, 32, 33}), 256,
                             std::to_string(rows) + " rows");
    // Overlapping rows (the robust layout: a row runs to the next beat's start, or max_length).
    expect_table_same_as_cpu(x, table_of(rows, 0, 90, {368, 90, 200}), 368, std::to_string(rows) + " overlapping rows");
  }
}

TEST(BeatsGpu, TableRowWidthsAroundAWarp) {
  SKIP_WITHOUT_GPU();
  const auto x = ramp_signal(3000);
  for (int max_length : {1, 8, 31, 32, 33, 64, 65})
    expect_table_same_as_cpu(x, table_of(40, 3, 50, {1, max_length, (max_length + 1) / 2}), max_length,
                             "max_length=" + std::to_string(max_length));
}

TEST(BeatsGpu, TableFromBeatWindowsCutAtTheSignalEnd) {
  SKIP_WITHOUT_GPU();
  const std::size_t n = 5000;
  const auto x = ramp_signal(n);
  // R peaks up to the last sample: the last rows are cut by the end of the signal.
  std::vector<std::int64_t> peaks;
  for (std::int64_t r = 80; r < static_cast<std::int64_t>(n); r += 170) peaks.push_back(r);
  peaks.push_back(static_cast<std::int64_t>(n) - 1);
  const auto table = ecgpipe::beat_windows(peaks, static_cast<std::int64_t>(n), 76, 256);
  ASSERT_GT(table.size(), 2u);
  EXPECT_EQ(table.start.back() + table.length.back(), static_cast<std::int64_t>(n)) << "the last row ends at the end";
  expect_table_same_as_cpu(x, table, 256, "beat_windows");
  // A row ending exactly at the last sample, and one of a single sample there.
  ecgpipe::BeatTable end;
  end.start = {static_cast<std::int64_t>(n) - 256, static_cast<std::int64_t>(n) - 1};
  end.length = {256, 1};
  expect_table_same_as_cpu(x, end, 256, "rows at the very end");
}

TEST(BeatsGpu, TableRowOutsideTheSignalThrows) {
  SKIP_WITHOUT_GPU();
  TestStream stream;
  const auto x = ramp_signal(100);
  const auto d_signal = upload(x, stream);
  for (const auto& [start, length] : std::vector<std::pair<std::int64_t, std::int32_t>>{{0, 150}, {-1, 10}, {95, 6}, {0, 300}}) {
    ecgpipe::BeatTable t;
    t.start = {start};
    t.length = {length};
    EXPECT_THROW(ecgpipe::pad_table_cuda(d_signal.cspan(), t, 256, stream), ecgpipe::InternalError) << start << "+" << length;
    EXPECT_THROW(pad_beats_cpu(x, t, 256), ecgpipe::InternalError) << "as the CPU reference does";
  }
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
