// The beat template's per-sample medians by selection around a sample (src/classify/column_median.cpp)
// against every column gathered whole: exact equality (both select values of the column, and an
// even count's mean is one rounding of the same two values), over shapes that could fool a
// sample: duplicates, sorted and periodic rows, masks with odd and even counts, few rows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "classify/column_median.hpp"
#include "ecgpipe/common/error.hpp"

namespace {

struct Windows {
  std::vector<float> raw;
  std::vector<double> medians;
  std::size_t rows = 0, stride = 0;
};

// rows x stride floats from `value(i, k)`, each row's "median" a fixed function of i.
template <class Value>
Windows make(std::size_t rows, std::size_t stride, Value value) {
  Windows w;
  w.rows = rows, w.stride = stride;
  w.raw.resize(rows * stride);
  w.medians.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t k = 0; k < stride; ++k) w.raw[i * stride + k] = value(i, k);
    w.medians[i] = 0.001 * static_cast<double>(i % 7);
  }
  return w;
}

void expect_equal_to_whole(const Windows& w, int length, const std::vector<char>& use, const char* what) {
  const std::vector<double> want = ecgpipe::detail::column_median_whole(w.raw.data(), w.stride, w.medians, w.rows, length, use);
  for (const int threads : {1, 3}) {
    const std::vector<double> got = ecgpipe::detail::column_median(w.raw.data(), w.stride, w.medians, w.rows, length, use, threads);
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], want[k]) << what << ", column " << k << ", threads " << threads;
  }
}

}  // namespace

TEST(ColumnMedian, EqualsWholeColumnsOverShapesThatCouldFoolASample) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> level(0, 3);
  const std::size_t rows = 40001;  // above the whole-gather threshold; odd
  const std::size_t stride = 19;   // 2 blocks of 8 and a partial one, and a length shorter than the stride
  std::vector<Windows> shapes;
  shapes.push_back(make(rows, stride, [&](std::size_t, std::size_t) { return normal(rng); }));
  shapes.push_back(make(rows, stride, [&](std::size_t, std::size_t) { return 0.5f * static_cast<float>(level(rng)); }));  // ties
  shapes.push_back(make(rows, stride, [&](std::size_t i, std::size_t k) { return static_cast<float>(i) + static_cast<float>(k); }));  // sorted
  // Periodic with the sampling step (rows / 4096 = 9): every sampled row is an outlier.
  shapes.push_back(make(rows, stride, [&](std::size_t i, std::size_t) { return i % 9 == 0 ? 1000.0f : normal(rng); }));
  shapes.push_back(make(rows, stride, [&](std::size_t, std::size_t) { return 2.0f; }));  // constant
  const char* names[] = {"normal", "four levels", "sorted", "periodic outliers", "constant"};
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const Windows& w = shapes[s];
    std::vector<char> all(rows, 1), even(rows, 1), few(rows, 0), none(rows, 0);
    even[5] = 0;                                     // 40000 rows: an even count
    for (std::size_t i = 0; i < rows; i += 4) few[i] = 1;  // 10001: below the threshold, gathered whole
    expect_equal_to_whole(w, 17, all, names[s]);
    expect_equal_to_whole(w, 17, even, names[s]);
    expect_equal_to_whole(w, 19, few, names[s]);
    const std::vector<double> empty = ecgpipe::detail::column_median(w.raw.data(), w.stride, w.medians, rows, 3, none, 2);
    EXPECT_EQ(empty, std::vector<double>(3, 0.0)) << names[s];
  }
}

TEST(ColumnMedian, WindowsLongerThanTheirRowsAreRefused) {
  const std::vector<float> raw(10, 0.0f);
  const std::vector<double> medians(2, 0.0);
  const std::vector<char> use(2, 1);
  EXPECT_THROW(ecgpipe::detail::column_median(raw.data(), 5, medians, 2, 6, use, 1), ecgpipe::InternalError);
  EXPECT_THROW(ecgpipe::detail::column_median(raw.data(), 5, medians, 3, 5, use, 1), ecgpipe::InternalError);
}
