// stream_csv_column_cuda (issue 29): the GPU CSV reader handing its column over chunk by chunk
// gives read_csv_column's values bit for bit, in order, with consecutive first indices, whatever
// the chunk size (lines straddling chunk edges), and the same errors.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/io/csv.hpp"
#include "test_util.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/io/csv_cuda.hpp"
#include "gpu_test_util.hpp"
#include "io/csv_internal.hpp"
#endif

namespace {

using namespace ecgpipe;

#ifdef ECGPIPE_WITH_CUDA
struct Streamed {
  std::vector<float> values;
  std::size_t chunks = 0;
  std::uint64_t returned = 0;
};

Streamed stream_read(const std::string& path, const CsvOptions& o, std::size_t chunk_bytes) {
  ecgpipe_test::TestStream stream;
  Streamed s;
  s.returned = stream_csv_column_cuda(
      path, o, stream,
      [&](DeviceSpan<const float> chunk, std::uint64_t first) {
        EXPECT_EQ(first, s.values.size()) << "chunk " << s.chunks;
        EXPECT_GT(chunk.size, 0u);
        const std::vector<float> host = ecgpipe_test::download(chunk.data, chunk.size, stream);
        s.values.insert(s.values.end(), host.begin(), host.end());
        ++s.chunks;
      },
      chunk_bytes);
  return s;
}

std::vector<std::uint32_t> bits(const std::vector<float>& v) {
  std::vector<std::uint32_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

// Numbers in several forms (long mantissas among them), LF and CRLF, blank lines, other columns.
std::string mixed_csv(std::size_t rows, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::string text = "time,heartbeats,x\n";
  char buf[96];
  for (std::size_t i = 0; i < rows; ++i) {
    const double x = normal(rng);
    switch (i % 5) {
      case 0: std::snprintf(buf, sizeof buf, "%.4f", x); break;
      case 1: std::snprintf(buf, sizeof buf, "%.25f", x); break;
      case 2: std::snprintf(buf, sizeof buf, "%.9g", x * 1e-7); break;
      case 3: std::snprintf(buf, sizeof buf, "  %+.6e\t", x); break;
      default: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x * 1e6)); break;
    }
    text += std::to_string(i) + ',' + buf + ",z" + (i % 3 == 0 ? "\r\n" : "\n");
    if (i % 97 == 5) text += " \n";
  }
  return text;
}

TEST(CsvStreamGpu, ChunksJoinToTheCpuReadersValues) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  testutil::write_text(dir / "mixed.csv", mixed_csv(20000, 3));
  const std::string path = (dir / "mixed.csv").string();
  const std::vector<float> cpu = read_csv_column(path, {});
  ASSERT_EQ(cpu.size(), 20000u);
  for (const std::size_t chunk : {std::size_t{0}, std::size_t{64}, std::size_t{97}, std::size_t{4096}, std::size_t{1} << 16}) {
    const Streamed s = stream_read(path, {}, chunk);
    EXPECT_EQ(bits(s.values), bits(cpu)) << "chunk bytes " << chunk;
    EXPECT_EQ(s.returned, cpu.size()) << chunk;
    if (chunk == 64) {
      EXPECT_GT(s.chunks, 1000u);
    }
    if (chunk == 0) {
      EXPECT_EQ(s.chunks, 1u) << "the default chunk holds the whole small file";
    }
  }
  // One row; no header.
  testutil::write_text(dir / "one.csv", "1.5\n");
  EXPECT_EQ(stream_read((dir / "one.csv").string(), {"", false}, 0).values, std::vector<float>{1.5f});
}

TEST(CsvStreamGpu, ErrorsAreTheCpuReadersAfterTheChunksBefore) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  std::string text = mixed_csv(3000, 5);
  text += "3000,abc,z\n3001,1.0,z\n";
  testutil::write_text(dir / "bad.csv", text);
  const std::string path = (dir / "bad.csv").string();
  const std::string expected = testutil::input_error_of([&] { (void)read_csv_column(path, {}); });
  ASSERT_NE(expected.find("abc"), std::string::npos) << expected;
  for (const std::size_t chunk : {std::size_t{0}, std::size_t{128}}) {
    std::size_t handed = 0;
    const std::string got = testutil::input_error_of([&] {
      ecgpipe_test::TestStream stream;
      (void)stream_csv_column_cuda(path, {}, stream, [&](DeviceSpan<const float> c, std::uint64_t) { handed += c.size; }, chunk);
    });
    EXPECT_EQ(got, expected) << chunk;
    EXPECT_LE(handed, 3000u) << "nothing after the bad line";
    if (chunk == 128) {
      EXPECT_GT(handed, 2000u) << "the chunks before it were handed over";
    }
  }
  testutil::write_text(dir / "header_only.csv", "heartbeats\n");
  const std::string empty = (dir / "header_only.csv").string();
  EXPECT_EQ(testutil::input_error_of([&] {
              ecgpipe_test::TestStream stream;
              (void)stream_csv_column_cuda(empty, {}, stream, [](DeviceSpan<const float>, std::uint64_t) {});
            }),
            testutil::input_error_of([&] { (void)read_csv_column(empty, {}); }));
}
// Two numeric columns (issue 24: a two-lead CSV), each cell in one of several forms; every
// `undecided_every`-th row's second cell has 25 decimals (more digits than the device decides:
// the host settles it).
std::string two_lead_csv(std::size_t rows, unsigned seed, std::size_t undecided_every = 7) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::string text = "time,MLII,x,V1\n";
  char a[96], b[96];
  for (std::size_t i = 0; i < rows; ++i) {
    const double x = normal(rng), y = normal(rng);
    switch (i % 4) {
      case 0: std::snprintf(a, sizeof a, "%.4f", x); break;
      case 1: std::snprintf(a, sizeof a, "%.9g", x * 1e-7); break;
      case 2: std::snprintf(a, sizeof a, "  %+.6e\t", x); break;
      default: std::snprintf(a, sizeof a, "%lld", static_cast<long long>(x * 1e6)); break;
    }
    std::snprintf(b, sizeof b, i % undecided_every == 3 % undecided_every ? "%.25f" : "%.3f", y);
    text += std::to_string(i) + ',' + a + ",z," + b + (i % 3 == 0 ? "\r\n" : "\n");
    if (i % 97 == 5) text += " \n";
  }
  return text;
}

struct StreamedTwo {
  std::vector<float> first, second;
  std::size_t chunks = 0;
};

StreamedTwo stream_two(const std::string& path, const CsvOptions& o, const std::string& second, std::size_t chunk_bytes) {
  ecgpipe_test::TestStream stream;
  StreamedTwo s;
  const std::uint64_t rows = stream_csv_columns_cuda(
      path, o, {second, " (the other one)"}, stream,
      [&](DeviceSpan<const float> a, DeviceSpan<const float> b, std::uint64_t first) {
        EXPECT_EQ(first, s.first.size()) << "chunk " << s.chunks;
        EXPECT_EQ(a.size, b.size) << "chunk " << s.chunks;
        const std::vector<float> ha = ecgpipe_test::download(a.data, a.size, stream);
        const std::vector<float> hb = ecgpipe_test::download(b.data, b.size, stream);
        s.first.insert(s.first.end(), ha.begin(), ha.end());
        s.second.insert(s.second.end(), hb.begin(), hb.end());
        ++s.chunks;
      },
      chunk_bytes);
  EXPECT_EQ(rows, s.first.size());
  return s;
}

std::pair<std::vector<float>, std::vector<float>> read_two(const std::string& path, const CsvOptions& o, const std::string& second,
                                                           std::size_t chunk_bytes = 0) {
  ecgpipe_test::TestStream stream;
  const CsvSecondColumn column{second, " (the other one)"};
  DeviceColumns d = chunk_bytes == 0 ? read_csv_columns_cuda(path, o, column, stream)
                                     : csv_internal::read_csv_columns_cuda(path, o, column, stream, chunk_bytes);
  auto a = ecgpipe_test::download(d.first.data(), d.first.size(), stream);
  auto b = ecgpipe_test::download(d.second.data(), d.second.size(), stream);
  return {a, b};
}

// One pass, two columns: each is what the CPU reader gives for that column alone, bit for bit,
// whichever comes first in the row, at any chunk size, whole or streamed, with undecided cells in
// the second column (settled on the host) and with more of them than the device lists.
TEST(CsvStreamGpu, TwoColumnsInOnePassAreEachColumnsCpuRead) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  testutil::write_text(dir / "two.csv", two_lead_csv(20000, 4));
  const std::string path = (dir / "two.csv").string();
  const std::vector<float> mlii = read_csv_column(path, {"MLII"}), v1 = read_csv_column(path, {"V1"});
  ASSERT_EQ(mlii.size(), 20000u);
  for (const std::size_t chunk : {std::size_t{0}, std::size_t{64}, std::size_t{97}, std::size_t{4096}}) {
    StreamedTwo s = stream_two(path, {"MLII"}, "V1", chunk);
    EXPECT_EQ(bits(s.first), bits(mlii)) << "chunk bytes " << chunk;
    EXPECT_EQ(bits(s.second), bits(v1)) << "chunk bytes " << chunk;
    s = stream_two(path, {"V1"}, "1", chunk);  // the second column before the first in the row
    EXPECT_EQ(bits(s.first), bits(v1)) << "chunk bytes " << chunk;
    EXPECT_EQ(bits(s.second), bits(mlii)) << "chunk bytes " << chunk;
    const auto [a, b] = read_two(path, {"MLII"}, "V1", chunk);
    EXPECT_EQ(bits(a), bits(mlii)) << "whole, chunk bytes " << chunk;
    EXPECT_EQ(bits(b), bits(v1)) << "whole, chunk bytes " << chunk;
  }
  // Every second cell undecided: 10,000 in the default chunk, past what the device lists (the
  // whole read falls back to the CPU reader, the streamed one parses the chunk on the host).
  testutil::write_text(dir / "many.csv", two_lead_csv(20000, 5, 1));
  const std::string many = (dir / "many.csv").string();
  const std::vector<float> many_mlii = read_csv_column(many, {"MLII"}), many_v1 = read_csv_column(many, {"V1"});
  const StreamedTwo s = stream_two(many, {"MLII"}, "V1", 0);
  EXPECT_EQ(bits(s.first), bits(many_mlii));
  EXPECT_EQ(bits(s.second), bits(many_v1));
  const auto [a, b] = read_two(many, {"MLII"}, "V1");
  EXPECT_EQ(bits(a), bits(many_mlii));
  EXPECT_EQ(bits(b), bits(many_v1));
}

// The first bad row of either column stops the read; a bad cell of the second column is the CPU
// reader's error for that column with the caller's note after it, one of the first column (or
// a NUL byte) the CPU reader's for the first.
TEST(CsvStreamGpu, TwoColumnErrorsAreTheBadColumnsWithTheNote) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  const std::string good = two_lead_csv(3000, 6);
  struct Case {
    std::string name, tail;
    std::string column;  // whose CPU error it is: "MLII" or "V1"
  };
  const std::vector<Case> cases = {
      {"second.csv", "3000,1.5,z,abc\n3001,def,z,1.0\n", "V1"},    // the second's cell, before the first's bad row
      {"first.csv", "3000,abc,z,def\n", "MLII"},                   // both bad in one row: the first's
      {"few.csv", "3000,1.5,z\n", "V1"},                           // too few fields for the second
      {"empty.csv", "3000,1.5,z,\n", "V1"},                        // an empty cell
      {"nul.csv", std::string("3000,1.5,z,2\0\n", 14), "MLII"},    // a NUL byte: the row's, said as the CPU says it
      {"undecided.csv", "3000,1.5,z,1.0000000000000000000000000000000000001x\n", "V1"},  // many digits, then bad
  };
  for (const Case& c : cases) {
    testutil::write_text(dir / c.name, good + c.tail);
    const std::string path = (dir / c.name).string();
    std::string expected = testutil::input_error_of([&] { (void)read_csv_column(path, {c.column}); });
    ASSERT_NE(expected, "") << c.name;
    if (c.column == "V1") expected += " (the other one)";
    for (const std::size_t chunk : {std::size_t{0}, std::size_t{128}}) {
      EXPECT_EQ(testutil::input_error_of([&] { (void)stream_two(path, {"MLII"}, "V1", chunk); }), expected)
          << c.name << ", chunk bytes " << chunk;
      EXPECT_EQ(testutil::input_error_of([&] { (void)read_two(path, {"MLII"}, "V1", chunk); }), expected)
          << c.name << ", whole, chunk bytes " << chunk;
    }
  }
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
