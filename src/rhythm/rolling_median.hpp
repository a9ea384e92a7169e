// Internal: the median of every centred window of a series (the AF detector's RR statistics).
#pragma once

#include <vector>

namespace ecgpipe::detail {

// The median of each centred window of `w` values of x (w/2 before, w - w/2 - 1 after; the ends
// repeat the first and last value), NaNs left out; NaN where a window holds none. The median of
// an even count is the mean of the middle two. w >= 1 (InternalError otherwise).
//
// One sorted window slides along x (a value leaves, one enters: a binary search and a move of at
// most w values), O(n w) moves with a small constant instead of a selection per window: 1.4 M beats
// of a 14-day recording took seconds with the selection. The result does not depend on how it is
// computed: a median picks values of the window, and the mean of two is one rounded operation.
std::vector<double> rolling_median(const std::vector<double>& x, int w);

}  // namespace ecgpipe::detail
