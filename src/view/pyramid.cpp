// Min/max pyramid (pyramid.hpp).
#include "ecgpipe/view/pyramid.hpp"

#include <algorithm>

namespace ecgpipe {

Pyramid::Pyramid(std::vector<float> signal) : signal_(std::move(signal)) {
  const std::int64_t n = samples();
  if (n == 0) return;
  // Level 1 from the samples, then each level from the one below; a partial last bin takes
  // the extremes of what it covers.
  std::int64_t below = n;  // bins of the level below
  for (int level = 1; below > 1; ++level) {
    const std::int64_t count = (below + kFactor - 1) / kFactor;
    std::vector<float> mm(static_cast<std::size_t>(2 * count));
    const std::vector<float>* prev = level == 1 ? nullptr : &levels_.back();
    for (std::int64_t b = 0; b < count; ++b) {
      const std::int64_t first = b * kFactor, last = std::min(first + kFactor, below);
      float lo, hi;
      if (prev == nullptr) {
        lo = hi = signal_[static_cast<std::size_t>(first)];
        for (std::int64_t i = first + 1; i < last; ++i) {
          lo = std::min(lo, signal_[static_cast<std::size_t>(i)]);
          hi = std::max(hi, signal_[static_cast<std::size_t>(i)]);
        }
      } else {
        lo = (*prev)[static_cast<std::size_t>(2 * first)];
        hi = (*prev)[static_cast<std::size_t>(2 * first + 1)];
        for (std::int64_t i = first + 1; i < last; ++i) {
          lo = std::min(lo, (*prev)[static_cast<std::size_t>(2 * i)]);
          hi = std::max(hi, (*prev)[static_cast<std::size_t>(2 * i + 1)]);
        }
      }
      mm[static_cast<std::size_t>(2 * b)] = lo;
      mm[static_cast<std::size_t>(2 * b + 1)] = hi;
    }
    levels_.push_back(std::move(mm));
    below = count;
  }
}

std::int64_t Pyramid::bin_width(int level) {
  std::int64_t w = 1;
  for (int k = 0; k < level; ++k) w *= kFactor;
  return w;
}

std::int64_t Pyramid::bins(int level) const {
  if (level < 0 || level >= levels()) return 0;
  if (level == 0) return samples();
  return static_cast<std::int64_t>(levels_[static_cast<std::size_t>(level - 1)].size() / 2);
}

bool Pyramid::tile(int level, std::int64_t tile, std::vector<float>& out) const {
  if (level < 0 || level >= levels() || tile < 0 || tile >= tiles(level)) return false;
  const std::int64_t first = tile * kTileBins, last = std::min(first + kTileBins, bins(level));
  out.resize(static_cast<std::size_t>(2 * (last - first)));
  for (std::int64_t b = first; b < last; ++b) {
    const auto o = static_cast<std::size_t>(2 * (b - first));
    if (level == 0) {
      out[o] = out[o + 1] = signal_[static_cast<std::size_t>(b)];
    } else {
      const auto& mm = levels_[static_cast<std::size_t>(level - 1)];
      out[o] = mm[static_cast<std::size_t>(2 * b)];
      out[o + 1] = mm[static_cast<std::size_t>(2 * b + 1)];
    }
  }
  return true;
}

}  // namespace ecgpipe
