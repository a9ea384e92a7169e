// The GPU path's cell parser (kernels/io/csv_parse.cuh), run on the host against fast_float, the CPU
// reference (csv.hpp parse_cell): on every machine, not only through a GPU. A cell the port
// parses must give fast_float's bits; one it rejects, fast_float must reject; "undecided" (the
// port leaves fast_float's big-integer path to the host) is allowed only with more than 19
// significant digits or in Eisel-Lemire's rare corner, and is counted.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/io/csv_parse.cuh"
#include "ecgpipe/io/csv.hpp"

namespace {

namespace cp = ecgpipe::csv_parse;

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Compares the port with fast_float on one cell; returns true if the port left it undecided.
bool check(const std::string& cell) {
  float port = 0.0f, ref = 0.0f;
  const cp::CellResult r = cp::parse_cell(cell.data(), cell.data() + cell.size(), port, cp::host_tables());
  const bool ok = ecgpipe::parse_cell(cell, ref);
  if (r == cp::kCellOk) {
    EXPECT_TRUE(ok) << '"' << cell << "\": the port accepts what fast_float rejects";
    EXPECT_EQ(bits(port), bits(ref)) << '"' << cell << "\": " << port << " vs " << ref;
  } else if (r == cp::kCellBad) {
    EXPECT_FALSE(ok) << '"' << cell << "\": the port rejects what fast_float reads as " << ref;
  }
  return r == cp::kCellUndecided;
}

TEST(CsvParse, EdgeCellsMatchFastFloat) {
  for (const char* cell :
       {"0", "-0", "+0", "0e999999999", "1e-50", "1.4e-45", "7e-46", "7.1e-46", "3.4028235677973366e38",
        "3.4028235677973367e38", "3.5e38", "1.000000059604644775390625", "1.000000178813934326171875",
        "123456789012345678901234567890", "0.00000000000000000000000000012345", "+.5", "5.", ".5", "  \t 9 \t",
        "1.e3", "16777217", "16777216e-10", "9007199254740993", "1e10", "1e11", "1e-10", "1e-11", "-1e-11",
        "0.1000000000000000055511151231257827021181583404541015625", "", " ", ".", "+", "-", "+-1", "--1", "1e", "1e+",
        "1e-", "e5", "1.2.3", "1,2", "nan", "inf", "-inf", "0x10", "1 2", "١", "1e0000000000000000000001", "00000000000000000000001",
        "4.9406564584124654e-324", "1.17549435e-38", "1.17549421e-38", "1.1754942e-38", "8388608.5", "8388609.5",
        "16777216.5", "33554433", "0.000001", "999999999999999999", "9999999999999999999", "99999999999999999999"}) {
    (void)check(cell);
  }
}

// Random cells in the forms real files have (printf's %e/%f/%g, integers, random float32 bit
// patterns printed exactly and shortest) and random digit strings with random exponents.
TEST(CsvParse, RandomCellsMatchFastFloat) {
  std::mt19937_64 rng(20261123);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> expo(-50, 40), digits(1, 24), kind(0, 7);
  constexpr int kCells = 200000;
  int undecided = 0, long_cells = 0;
  char buf[96];
  for (int n = 0; n < kCells; ++n) {
    const double x = normal(rng);
    std::string cell;
    switch (kind(rng)) {
      case 0: std::snprintf(buf, sizeof buf, "%.16e", x * std::pow(10.0, expo(rng))); cell = buf; break;
      case 1: std::snprintf(buf, sizeof buf, "%.4f", x * 1000); cell = buf; break;
      case 2: std::snprintf(buf, sizeof buf, "%g", x); cell = buf; break;
      case 3: {
        std::uint32_t u = static_cast<std::uint32_t>(rng());
        float f;
        std::memcpy(&f, &u, sizeof f);
        if (!std::isfinite(f)) f = 1.0f;
        std::snprintf(buf, sizeof buf, (rng() & 1) ? "%.9g" : "%.8e", static_cast<double>(f));
        cell = buf;
        break;
      }
      case 4: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x * 1e6)); cell = buf; break;
      case 5: std::snprintf(buf, sizeof buf, "%.17g", x * std::pow(10.0, expo(rng))); cell = buf; break;
      default: {  // digits, maybe a point, maybe an exponent
        const int d = digits(rng);
        for (int k = 0; k < d; ++k) cell += static_cast<char>('0' + rng() % 10);
        if (rng() & 1) cell.insert(rng() % (cell.size() + 1), ".");
        if (rng() & 1) cell += "e" + std::to_string(expo(rng));
        long_cells += d > 19;
      }
    }
    undecided += check(cell);
  }
  // Undecided cells are the big-integer path's (> 19 digits; none of the printf forms has more
  // than 17): a few of the long random digit strings at most.
  EXPECT_LE(undecided, long_cells) << undecided << " undecided of " << kCells;
}

}  // namespace
