// Internal: the median of every centred window of a series (the AF detector's RR statistics).
#pragma once

#include <vector>

namespace ecgpipe::detail {

// The median of each centred window of `w` values of x (w/2 before, w - w/2 - 1 after; the ends
// repeat the first and last value), NaNs left out; NaN where a window holds none. The median of
// an even count is the mean of the middle two. A series of at most w values: the median of all of
// it, everywhere. w >= 1 (InternalError otherwise).
//
// Why the short case (2026-11-26): clamped windows let the end values stand for most of each
// window of a series shorter than it, and 30 s of AF (~47 intervals against a window of 64) split
// in two around its middle, its second half "N". The longer series, on which the AF detector's
// numbers were cross-validated, keep clamped windows: windows shrunk or shifted at the ends
// instead moved the AF database's and DS1's gross figures by up to a point either way and lost
// a synthetic AF episode cut by the record's end (RhythmCli.SyntheticParoxysmalAf...).
//
// One sorted window slides along x (a value leaves, one enters: a binary search and a move of at
// most w values), O(n w) moves with a small constant instead of a selection per window: 1.4 M beats
// of a 14-day recording took seconds with the selection. The result does not depend on how it is
// computed: a median picks values of the window, and the mean of two is one rounded operation.
std::vector<double> rolling_median(const std::vector<double>& x, int w);

}  // namespace ecgpipe::detail
