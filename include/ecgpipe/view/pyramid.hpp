// A min/max pyramid of a signal, so a viewer can draw any span of a long recording (20 hours =
// 18 M samples at 250 Hz) from a few thousand values: level 0 is the samples themselves, level k
// holds for every bin of 4^k consecutive samples its minimum and maximum. A viewer drawing W
// pixels picks the level whose bins are at most one pixel wide and fetches the tiles (fixed runs
// of kTileBins bins) that cover the visible range, never the whole signal.
//
// Memory: the levels above 0 hold n/3 bins (n/4 + n/16 + ...), two floats each: 2.7 bytes per
// sample, beside the 4 of the signal. Built in one pass per level from the level below (O(n)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ecgpipe {

class Pyramid {
 public:
  // Each level's bins are kFactor times wider than the level below: a factor 4 keeps 1..4 bins
  // per pixel at the chosen level (smooth enough to draw), with log4(n) levels.
  static constexpr int kFactor = 4;
  // Bins per tile: 1024 bins = 8 KiB of min/max pairs; a 1500-pixel view needs at most 7.
  static constexpr std::int64_t kTileBins = 1024;

  Pyramid() = default;
  // Builds every level above 0 until one has a single bin (an empty signal has only level 0).
  explicit Pyramid(std::vector<float> signal);

  std::int64_t samples() const { return static_cast<std::int64_t>(signal_.size()); }
  const std::vector<float>& signal() const { return signal_; }
  // Levels 0 .. levels() - 1.
  int levels() const { return static_cast<int>(levels_.size()) + 1; }
  // Samples per bin at `level`: 4^level.
  static std::int64_t bin_width(int level);
  // Bins at `level` (the last one may cover fewer samples); 0 for an empty signal.
  std::int64_t bins(int level) const;
  std::int64_t tiles(int level) const { return (bins(level) + kTileBins - 1) / kTileBins; }

  // The bins of tile `tile` at `level` as (min, max) pairs, interleaved: bins
  // [tile * kTileBins, min((tile + 1) * kTileBins, bins(level))). At level 0, min = max = the
  // sample. Returns false (and leaves `out` alone) for a level or tile outside the pyramid.
  bool tile(int level, std::int64_t tile, std::vector<float>& out) const;

 private:
  std::vector<float> signal_;
  std::vector<std::vector<float>> levels_;  // levels_[k - 1]: level k, interleaved (min, max)
};

}  // namespace ecgpipe
