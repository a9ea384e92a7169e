// Per-sample medians over beat windows by selection around a sample: see column_median.hpp.
#include "classify/column_median.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/parallel.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe::detail {
namespace {

constexpr std::size_t kColumnBlock = 8;      // columns per pass over the rows (a row's block: one or two cache lines)
constexpr std::size_t kSampleSize = 4096;    // sampled values a column
constexpr std::size_t kBracket = 128;        // sample ranks each side of the middle: ~4 standard deviations of
                                             // where the middle falls in a sample of 4096
constexpr std::size_t kWholeBelow = 16384;  // fewer used rows: gather them whole (a bracket saves nothing)
constexpr std::size_t kTile = 1024;         // rows a column at a time in the counting pass (an L1-sized scratch row)

double value(const float* raw, std::size_t stride, const std::vector<double>& medians, std::size_t i, std::size_t k) {
  return static_cast<double>(raw[i * stride + k]) - medians[i];  // beat_features.cpp's CenteredRow
}

double whole_column(const float* raw, std::size_t stride, const std::vector<double>& medians, std::size_t rows,
                    const std::vector<char>& use, std::size_t k, std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t i = 0; i < rows; ++i)
    if (use[i]) scratch.push_back(value(raw, stride, medians, i, k));
  return median_in_place(scratch);
}

}  // namespace

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0.0;
  const std::size_t n = v.size(), mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (n % 2 == 1) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)));
}

std::vector<double> column_median_whole(const float* raw, std::size_t stride, const std::vector<double>& medians,
                                        std::size_t rows, int length, const std::vector<char>& use) {
  std::vector<double> out(static_cast<std::size_t>(std::max(length, 0))), scratch;
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = whole_column(raw, stride, medians, rows, use, k, scratch);
  return out;
}

std::vector<double> column_median(const float* raw, std::size_t stride, const std::vector<double>& medians, std::size_t rows,
                                  int length, const std::vector<char>& use, int threads) {
  if (length < 0 || static_cast<std::size_t>(length) > stride || medians.size() < rows || use.size() < rows)
    throw InternalError("column_median: windows, medians and flags disagree");
  std::vector<std::size_t> used;  // the rows that count, in order
  for (std::size_t i = 0; i < rows; ++i)
    if (use[i]) used.push_back(i);
  const std::size_t n = used.size();
  if (n < kWholeBelow) return column_median_whole(raw, stride, medians, rows, length, use);
  const auto L = static_cast<std::size_t>(length);
  std::vector<double> out(L);
  // The middle ranks of the sorted column (equal for an odd count).
  const std::size_t rank_hi = n / 2, rank_lo = n % 2 == 1 ? rank_hi : rank_hi - 1;
  const std::size_t step = std::max<std::size_t>(1, n / kSampleSize);
  const std::size_t blocks = (L + kColumnBlock - 1) / kColumnBlock;
  parallel_chunks(blocks, threads, 1, [&](std::size_t first_block, std::size_t end_block) {
    std::vector<double> sample, inside[kColumnBlock], scratch, tile(kTile);
    double lo[kColumnBlock], hi[kColumnBlock];
    std::size_t below[kColumnBlock];
    for (std::size_t b = first_block; b < end_block; ++b) {
      const std::size_t k0 = b * kColumnBlock, k1 = std::min(L, k0 + kColumnBlock), width = k1 - k0;
      // The bracket of each column from its sample: the sample's values kBracket ranks either
      // side of where the middle ranks fall (open-ended where that passes the sample's ends).
      for (std::size_t c = 0; c < width; ++c) {
        sample.clear();
        for (std::size_t j = 0; j < n; j += step) sample.push_back(value(raw, stride, medians, used[j], k0 + c));
        std::sort(sample.begin(), sample.end());
        const std::size_t m = sample.size();
        const std::size_t at_lo = rank_lo * m / n, at_hi = (rank_hi * m + n - 1) / n;
        lo[c] = at_lo >= kBracket ? sample[at_lo - kBracket] : -std::numeric_limits<double>::infinity();
        hi[c] = at_hi + kBracket < m ? sample[at_hi + kBracket] : std::numeric_limits<double>::infinity();
        below[c] = 0;
        inside[c].clear();
      }
      // Without branches (which half of the values lies below is a coin toss for the predictor):
      // each tile's values are written to a scratch row and the kept ones counted in.
      for (std::size_t t0 = 0; t0 < n; t0 += kTile) {
        const std::size_t t1 = std::min(n, t0 + kTile);
        for (std::size_t c = 0; c < width; ++c) {
          const double l = lo[c], h = hi[c];
          std::size_t kept = 0, under = 0;
          for (std::size_t j = t0; j < t1; ++j) {
            const double v = value(raw, stride, medians, used[j], k0 + c);
            under += v < l;
            tile[kept] = v;
            kept += (v >= l) & (v <= h);
          }
          below[c] += under;
          inside[c].insert(inside[c].end(), tile.begin(), tile.begin() + static_cast<std::ptrdiff_t>(kept));
        }
      }
      for (std::size_t c = 0; c < width; ++c) {
        std::vector<double>& v = inside[c];
        if (below[c] > rank_lo || rank_hi >= below[c] + v.size()) {  // the bracket missed the middle
          out[k0 + c] = whole_column(raw, stride, medians, rows, use, k0 + c, scratch);
          continue;
        }
        const auto mid = v.begin() + static_cast<std::ptrdiff_t>(rank_hi - below[c]);
        std::nth_element(v.begin(), mid, v.end());
        const double upper = *mid;
        // The lower middle value, for an even count: the largest inside value ranked before.
        out[k0 + c] = rank_lo == rank_hi ? upper : 0.5 * (upper + *std::max_element(v.begin(), mid));
      }
    }
  });
  return out;
}

}  // namespace ecgpipe::detail
