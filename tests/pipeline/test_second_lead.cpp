// The second lead's windows read in pieces (pipeline/second_lead.hpp; issue 24): the same rows as
// cutting them from the whole signal, whatever the pieces' boundaries.
#include "ecgpipe/pipeline/second_lead.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ecgpipe/classify/beat_features.hpp"

namespace ecgpipe {
namespace {

// Hands out `signal` `piece` samples at a time (a reader may return fewer than asked).
class PieceStream : public SignalStream {
 public:
  PieceStream(const std::vector<float>& signal, std::size_t piece) : signal_(signal), piece_(piece) {}
  std::size_t read(std::vector<float>& out, std::size_t max) override {
    const std::size_t n = std::min({max, piece_, signal_.size() - at_});
    out.insert(out.end(), signal_.begin() + static_cast<std::ptrdiff_t>(at_), signal_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += n;
    return n;
  }

 private:
  const std::vector<float>& signal_;
  std::size_t piece_, at_ = 0;
};

TEST(SecondLead, WindowsGatheredInPiecesEqualTheWholeCut) {
  constexpr double fs = 360.0;
  std::vector<float> x(5000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.013 * static_cast<double>(i)) + 1e-3 * static_cast<double>(i));
  // R peaks at the very start (their windows begin before sample 0), overlapping windows, and at
  // the very end (theirs run past it); one past the end entirely.
  const std::vector<std::int64_t> r{0, 10, 89, 90, 91, 700, 701, 1500, 4900, 4999, 5100};
  const std::vector<float> whole = feature_windows(x, r, fs);
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                                  std::size_t{252}, std::size_t{5000}, std::size_t{1} << 20}) {
    PieceStream stream(x, piece);
    EXPECT_EQ(gather_feature_windows(stream, r, fs), whole) << "pieces of " << piece;
  }
  PieceStream stream(x, 64);
  EXPECT_TRUE(gather_feature_windows(stream, {}, fs).empty());
  // An empty signal: every window zero.
  const std::vector<float> none;
  PieceStream empty(none, 64);
  const std::vector<float> zero = gather_feature_windows(empty, {5, 50}, fs);
  EXPECT_EQ(zero.size(), 2 * static_cast<std::size_t>(feature_window(fs).length));
  EXPECT_TRUE(std::all_of(zero.begin(), zero.end(), [](float v) { return v == 0.0f; }));
}

}  // namespace
}  // namespace ecgpipe
