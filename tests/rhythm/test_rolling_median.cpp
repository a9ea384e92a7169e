// The sliding rolling median (src/rhythm/rolling_median.cpp) against the definition computed the
// plain way: every window gathered and sorted. Exact equality: both pick values of the window and
// the even case is one rounded mean of the same two values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "rhythm/rolling_median.hpp"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> by_definition(const std::vector<double>& x, int w) {
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  std::vector<double> out(x.size(), kNaN);
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    std::vector<double> v;
    // Centred, the ends clamped; a series no longer than the window: all of it.
    const std::ptrdiff_t first = n <= w ? 0 : i - w / 2, last = n <= w ? n : i - w / 2 + w;
    for (std::ptrdiff_t j = first; j < last; ++j) {
      const double value = x[static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(j, 0, n - 1))];
      if (!std::isnan(value)) v.push_back(value);
    }
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    const std::size_t k = v.size();
    out[static_cast<std::size_t>(i)] = k % 2 == 1 ? v[k / 2] : (v[k / 2] + v[k / 2 - 1]) / 2.0;
  }
  return out;
}

// Equal element by element, NaN where the definition gives NaN.
void expect_same(const std::vector<double>& got, const std::vector<double>& want, std::size_t n, int w) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "n " << n << " w " << w << " at " << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << "n " << n << " w " << w << " at " << i;
    }
  }
}

}  // namespace

TEST(RollingMedian, EqualsTheDefinitionOverSizesWindowsAndNaNs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(200.0, 400.0);
  std::uniform_int_distribution<int> few(0, 5);  // repeated values: duplicates in the window
  for (const std::size_t n : {0u, 1u, 2u, 3u, 15u, 31u, 32u, 33u, 64u, 65u, 200u}) {
    for (const int w : {1, 2, 3, 14, 15, 63, 64, 65, 300}) {
      for (const int kind : {0, 1, 2}) {
        std::vector<double> x(n);
        for (std::size_t i = 0; i < n; ++i) {
          x[i] = kind == 1 ? 300.0 + few(rng) : value(rng);
          if (kind == 2 && i % 5 < 2) x[i] = kNaN;  // the AF detector's lag differences start with NaNs
        }
        expect_same(ecgpipe::detail::rolling_median(x, w), by_definition(x, w), n, w);
      }
    }
  }
}

TEST(RollingMedian, AllNaNGivesNaNAndAWindowBelowOneIsRefused) {
  const std::vector<double> x(10, kNaN);
  for (double v : ecgpipe::detail::rolling_median(x, 4)) EXPECT_TRUE(std::isnan(v));
  const std::vector<double> leading = {kNaN, kNaN, kNaN, 5.0};
  // Window 3 at i = 0..1 holds only NaNs; from i = 2 on it reaches the 5.
  const std::vector<double> got = ecgpipe::detail::rolling_median(leading, 3);
  EXPECT_TRUE(std::isnan(got[0]));
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_EQ(got[2], 5.0);
  EXPECT_EQ(got[3], 5.0);
  EXPECT_THROW(ecgpipe::detail::rolling_median(leading, 0), ecgpipe::InternalError);
}
