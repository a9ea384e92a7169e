// Internal: order statistics of a window that slides along a series (the AF detector's rolling
// medians, the beat classifier's local RR and P-wave statistics).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe::detail {

// The values of a window, kept sorted in a vector (duplicates kept): a value leaves and one enters
// by a binary search and a move of at most the window's size, instead of a sort or a selection of
// the whole window for each position (1.4 M beats of a 14-day recording took seconds that way).
// Statistics taken from values() equal those of the window sorted afresh: the same values in the
// same order. The values must be ordered by < (no NaN: the callers leave NaNs out or have none).
class SortedWindow {
 public:
  void clear() { v_.clear(); }
  void insert(double x) { v_.insert(std::upper_bound(v_.begin(), v_.end(), x), x); }
  // One value equal to x leaves (any: equal values are the same number, as no -0.0 is mixed with
  // 0.0 in a series here). A value that is not in the window is a caller's bug.
  void erase(double x) {
    const auto it = std::lower_bound(v_.begin(), v_.end(), x);
    if (it == v_.end() || !(*it == x)) throw InternalError("SortedWindow: a value left that had not entered");
    v_.erase(it);
  }
  const std::vector<double>& values() const { return v_; }
  bool empty() const { return v_.empty(); }

 private:
  std::vector<double> v_;
};

// numpy's median of values in ascending order (a window's values()): the middle one, or the mean
// of the two middle ones; 0 for none.
inline double median_of_sorted(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  const std::size_t n = v.size(), mid = n / 2;
  return n % 2 == 1 ? v[mid] : 0.5 * (v[mid] + v[mid - 1]);
}

// Calls f(i, window) for i in [begin, end), `window` holding values[lo, hi) with
// lo = max(0, i - each_side), hi = min(n, i + each_side + 1): the window clipped at the ends.
template <class F>
void for_each_clipped_window(const std::vector<double>& values, std::size_t begin, std::size_t end, std::size_t each_side,
                             F&& f) {
  const std::size_t n = values.size();
  SortedWindow window;
  std::size_t lo = 0, hi = 0;  // the window holds values[lo, hi)
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t want_lo = i > each_side ? i - each_side : 0, want_hi = std::min(n, i + each_side + 1);
    if (i == begin || want_lo >= hi) {  // the first position: filled afresh
      window.clear();
      for (std::size_t j = want_lo; j < want_hi; ++j) window.insert(values[j]);
    } else {
      for (std::size_t j = lo; j < want_lo; ++j) window.erase(values[j]);
      for (std::size_t j = hi; j < want_hi; ++j) window.insert(values[j]);
    }
    lo = want_lo, hi = want_hi;
    f(i, window.values());
  }
}

}  // namespace ecgpipe::detail
