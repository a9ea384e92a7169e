// One-to-one matching of detected beats to reference beats, as WFDB's bxb / ANSI/AAMI EC57 do.
//
// Matching (as WFDB's bxb / ANSI/AAMI EC57, with a match window of +-tolerance):
// a detection d may match a reference beat r iff |d - r| <= tolerance (in samples; a distance of
// exactly the tolerance matches). Each reference beat matches at most one detection and vice
// versa. Among all such one-to-one matchings, match_beats returns one with the most matches
// (TP), and among those the smallest total |d - r|: it is exact, not greedy. Since an optimal
// matching never needs crossing pairs, it runs a dynamic program over the time-sorted events,
// split into independent clusters wherever two consecutive events are more than `tolerance`
// apart (in ECG a cluster is one beat and its nearby detections, so the cost is linear). A
// pathological cluster larger than kMaxMatchDpCells falls back to the greedy "each reference,
// in time order, takes the earliest free detection in its window", which still maximizes TP.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ecgpipe {

struct MatchResult {
  std::int64_t tp = 0;  // matched reference beats
  std::int64_t fn = 0;  // reference beats with no detection
  std::int64_t fp = 0;  // detections matching no reference beat
  // Per reference beat (in the order given): index of its detection in the input vector, or -1.
  std::vector<std::int64_t> matched_detection;
  // Per detection (in the order given): index of its reference beat, or -1.
  std::vector<std::int64_t> matched_reference;

  double sensitivity() const;            // Se = TP / (TP + FN); NaN without reference beats
  double positive_predictivity() const;  // +P = TP / (TP + FP); NaN without detections
  double f1() const;                     // 2 TP / (2 TP + FP + FN); NaN if both are empty
};

inline constexpr std::size_t kMaxMatchDpCells = std::size_t{1} << 24;

// Inputs need not be sorted; duplicates are allowed (each copy is a separate event).
// tolerance_samples must be >= 0.
MatchResult match_beats(const std::vector<std::int64_t>& reference,
                        const std::vector<std::int64_t>& detections,
                        std::int64_t tolerance_samples);

// floor(tolerance_ms * fs / 1000), with a little slack so that an exact product (150 ms at
// 360 Hz = 54 samples) is not lost to rounding. UsageError if not finite and >= 0 / > 0.
std::int64_t tolerance_samples(double tolerance_ms, double fs);

}  // namespace ecgpipe
