// Internal: the beat template, a per-sample median over many beats' windows (beat_features.cpp).
#pragma once

#include <cstddef>
#include <vector>

namespace ecgpipe::detail {

// For each sample k < length: the median over the rows i < rows whose use[i] is set of
// double(raw[i * stride + k]) - medians[i] (a row's window minus its own median), numpy's median
// (the mean of the two middle values of an even count; 0 for no rows). On `threads` threads.
//
// Exact, by selection around a sample: each column's values are sampled (every step-th used row),
// the sample brackets the middle ranks, and one pass counts the values below the bracket and keeps
// those inside it, where the middle ones are selected. Sorted, the column is [below] [inside]
// [above], so a rank inside the bracket is the inside value at rank - below: the same number a
// selection over the whole column gives. Where the bracket misses (a sample unlike its column),
// that column is gathered whole. Memory: a few per cent of the rows a column, where gathering whole
// columns held 8 doubles a row per thread (1.3 GB for 14 days' 1.4 M beats on 15 threads).
std::vector<double> column_median(const float* raw, std::size_t stride, const std::vector<double>& medians, std::size_t rows,
                                  int length, const std::vector<char>& use, int threads);

// numpy's median of v, reordering v: the middle value, or the mean of the two middle values of an
// even count; 0 for none. (Selection: the same value as sorting.)
double median_in_place(std::vector<double>& v);

// The same by gathering every column whole: the reference the tests compare with.
std::vector<double> column_median_whole(const float* raw, std::size_t stride, const std::vector<double>& medians,
                                        std::size_t rows, int length, const std::vector<char>& use);

}  // namespace ecgpipe::detail
