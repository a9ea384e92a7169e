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
#include <vector>

#include "ecgpipe/io/csv.hpp"
#include "test_util.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/io/csv_cuda.hpp"
#include "gpu_test_util.hpp"
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
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
