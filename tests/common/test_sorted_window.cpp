// The sliding sorted window (src/common/sorted_window.hpp) against each window sorted afresh:
// exact equality (the same values in the same order), over sizes and ranges at the edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "common/sorted_window.hpp"
#include "ecgpipe/common/error.hpp"

TEST(SortedWindow, ClippedWindowsEqualEachSliceSorted) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(0, 6);  // many duplicates
  for (const std::size_t n : {0u, 1u, 2u, 31u, 32u, 33u, 100u}) {
    std::vector<double> x(n);
    for (auto& v : x) v = 0.25 * small(rng);
    for (const std::size_t each_side : {0u, 1u, 10u, 32u, 64u}) {
      // Whole ranges and ranges that start and end inside (a thread's chunk).
      for (const auto& range : {std::pair<std::size_t, std::size_t>{0, n}, {n / 3, n - n / 4}, {n / 2, n / 2 + 1}}) {
        const std::size_t begin = range.first, end = range.second;  // named: a lambda below uses them
        if (begin > end || end > n) continue;
        std::size_t calls = 0;
        ecgpipe::detail::for_each_clipped_window(x, begin, end, each_side, [&](std::size_t i, const std::vector<double>& w) {
          const std::size_t lo = i > each_side ? i - each_side : 0, hi = std::min(n, i + each_side + 1);
          std::vector<double> want(x.begin() + static_cast<std::ptrdiff_t>(lo), x.begin() + static_cast<std::ptrdiff_t>(hi));
          std::sort(want.begin(), want.end());
          EXPECT_EQ(w, want) << "n " << n << " each side " << each_side << " at " << i;
          EXPECT_EQ(i, begin + calls);
          ++calls;
        });
        EXPECT_EQ(calls, end - begin);
      }
    }
  }
}

TEST(SortedWindow, AValueThatNeverEnteredCannotLeave) {
  ecgpipe::detail::SortedWindow w;
  w.insert(2.0);
  w.insert(1.0);
  w.insert(2.0);
  EXPECT_EQ(w.values(), (std::vector<double>{1.0, 2.0, 2.0}));
  w.erase(2.0);
  EXPECT_EQ(w.values(), (std::vector<double>{1.0, 2.0}));
  EXPECT_THROW(w.erase(3.0), ecgpipe::InternalError);
  EXPECT_THROW(w.erase(0.5), ecgpipe::InternalError);
}
