// Runs of consecutive beats of one rhythm: what the AF detector's smoothing and checks walk
// (af_detect.cpp) and what rhythm.csv lists as episodes (rhythm_episodes.cpp).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ecgpipe::detail {

// The runs of equal values (each beat's Rhythm), [first, end) each, in order; none for no beats.
// A template so that this header needs no rhythm header (af_detect.cpp includes it).
template <class T>
std::vector<std::pair<std::size_t, std::size_t>> runs_of(const std::vector<T>& rhythm) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t s = 0, i = 1; i <= rhythm.size(); ++i)
    if (i == rhythm.size() || rhythm[i] != rhythm[s]) {
      runs.push_back({s, i});
      s = i;
    }
  return runs;
}

}  // namespace ecgpipe::detail
