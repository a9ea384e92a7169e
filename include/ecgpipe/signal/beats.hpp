// Stage 4: beat segments between consecutive gates, zero-padded into a beats x max_length matrix.
//
// Candidate c spans [gate[c], gate[c+1]) of the raw signal; it is kept when
// min_length <= length <= max_length. Kept beats keep their order (row r is the r-th kept
// candidate), so the matrix is the same on every run and device.
#pragma once

#include <cstdint>
#include <vector>

#include "ecgpipe/config.hpp"

namespace ecgpipe {

struct BeatLimits {
  int min_length = 100;
  int max_length = 256;
};

// The kept beats: start sample and length of each row.
struct BeatTable {
  std::vector<std::int64_t> start;
  std::vector<std::int32_t> length;
  std::size_t size() const { return start.size(); }
};

BeatTable select_beats(const std::vector<std::int64_t>& gates, const BeatLimits& limits);

// CPU reference: row-major rows x max_length, zero-padded past each beat's length.
std::vector<float> pad_beats_cpu(const std::vector<float>& signal, const BeatTable& beats,
                                 int max_length);

}  // namespace ecgpipe
