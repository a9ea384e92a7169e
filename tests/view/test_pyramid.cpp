// Min/max pyramid: every bin equals the extremes of the samples it covers, exactly (min and max
// only pick values, so no tolerance), for full and partial bins and tiles, and edge sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ecgpipe/view/pyramid.hpp"
#include "test_util.hpp"

using ecgpipe::Pyramid;

namespace {

using testutil::normal_noise;

// Checks every bin of every level against a brute-force min/max over its samples, through tiles.
void expect_exact(const std::vector<float>& x) {
  const Pyramid p(x);
  const auto n = static_cast<std::int64_t>(x.size());
  ASSERT_EQ(p.samples(), n);
  for (int level = 0; level < p.levels(); ++level) {
    const std::int64_t w = Pyramid::bin_width(level);
    ASSERT_EQ(p.bins(level), (n + w - 1) / w) << "level " << level;
    std::int64_t bin = 0;
    std::vector<float> tile;
    for (std::int64_t t = 0; t < p.tiles(level); ++t) {
      ASSERT_TRUE(p.tile(level, t, tile));
      ASSERT_EQ(tile.size() % 2, 0u);
      for (std::size_t k = 0; k < tile.size(); k += 2, ++bin) {
        const auto first = x.begin() + bin * w, last = x.begin() + std::min(n, (bin + 1) * w);
        ASSERT_EQ(tile[k], *std::min_element(first, last)) << "level " << level << " bin " << bin;
        ASSERT_EQ(tile[k + 1], *std::max_element(first, last)) << "level " << level << " bin " << bin;
      }
    }
    EXPECT_EQ(bin, p.bins(level)) << "tiles cover every bin of level " << level;
  }
  EXPECT_EQ(p.bins(p.levels() - 1), n == 0 ? 0 : 1) << "the top level is a single bin";
}

}  // namespace

TEST(Pyramid, BinsAreExactMinMaxAtEveryLevel) {
  for (std::size_t n : {1u, 2u, 3u, 4u, 5u, 16u, 17u, 1023u, 1024u, 1025u, 5000u, 70001u}) {
    SCOPED_TRACE(n);
    expect_exact(normal_noise(n, static_cast<unsigned>(n)));
  }
}

TEST(Pyramid, EmptySignalHasOnlyLevelZeroAndNoTiles) {
  const Pyramid p(std::vector<float>{});
  EXPECT_EQ(p.levels(), 1);
  EXPECT_EQ(p.bins(0), 0);
  std::vector<float> tile{1.f};
  EXPECT_FALSE(p.tile(0, 0, tile));
  EXPECT_EQ(tile, std::vector<float>{1.f}) << "left alone";
}

TEST(Pyramid, LevelsAndTileCounts) {
  const Pyramid p(normal_noise(4 * 4 * 4 + 1, 7));  // 65 samples: 17, 5, 2, 1 bins above level 0
  EXPECT_EQ(p.levels(), 5);
  EXPECT_EQ(p.bins(1), 17);
  EXPECT_EQ(p.bins(2), 5);
  EXPECT_EQ(p.bins(3), 2);
  EXPECT_EQ(p.bins(4), 1);
  EXPECT_EQ(Pyramid::bin_width(3), 64);
  const Pyramid big(std::vector<float>(2 * Pyramid::kTileBins + 1, 0.f));
  EXPECT_EQ(big.tiles(0), 3);
  std::vector<float> last;
  ASSERT_TRUE(big.tile(0, 2, last));
  EXPECT_EQ(last.size(), 2u) << "the last tile holds the one remaining sample";
}

TEST(Pyramid, OutOfRangeLevelsAndTilesAreRefused) {
  const Pyramid p(normal_noise(3000, 3));
  std::vector<float> tile;
  EXPECT_FALSE(p.tile(-1, 0, tile));
  EXPECT_FALSE(p.tile(p.levels(), 0, tile));
  EXPECT_FALSE(p.tile(0, -1, tile));
  EXPECT_FALSE(p.tile(0, p.tiles(0), tile));
  EXPECT_FALSE(p.tile(1, 1, tile)) << "level 1 has 750 bins: one tile";
  EXPECT_TRUE(tile.empty());
  EXPECT_EQ(p.bins(-1), 0);
  EXPECT_EQ(p.bins(99), 0);
}
