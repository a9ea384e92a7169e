// Results that cannot be an ECG read right are said aloud (pipeline/plausibility.hpp; issue 27).
#include "ecgpipe/pipeline/plausibility.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ecgpipe {
namespace {

std::vector<std::int64_t> every(std::int64_t step, std::int64_t n) {
  std::vector<std::int64_t> p;
  for (std::int64_t i = 0; i < n; ++i) p.push_back(step / 2 + i * step);
  return p;
}

SignalSource csv_at(double fs) {
  SignalSource s;
  s.format = "CSV";
  s.fs = fs;
  s.fs_source = "--fs";
  s.signal_name = "column 'ECG' (1)";
  return s;
}

TEST(Plausibility, SinusAt75BpmIsQuiet) {
  // 75 bpm at 360 Hz: an RR of 288 samples, 30 minutes.
  EXPECT_TRUE(plausibility_warnings(csv_at(360), 648000, 360, every(288, 2250)).empty());
}

TEST(Plausibility, AMedianRateOutsideTheHumanRangeIsSaid) {
  // 20 bpm (RR 750 samples at 250 Hz) and 400 bpm (RR 37.5 -> 38 samples: 394.7 bpm).
  auto w = plausibility_warnings(csv_at(250), 250 * 600, 250, every(750, 200));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("median heart rate is 20 bpm, outside 25-300 bpm of column 'ECG' (1) read at 250 Hz (--fs)"),
            std::string::npos)
      << w[0];
  w = plausibility_warnings(csv_at(250), 250 * 60, 250, every(38, 390));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("395 bpm"), std::string::npos) << w[0];
  // The bounds themselves pass: 25 bpm is RR 600 at 250 Hz, 300 bpm is RR 50.
  EXPECT_TRUE(plausibility_warnings(csv_at(250), 250 * 50, 250, every(50, 250)).empty());
  EXPECT_TRUE(plausibility_warnings(csv_at(250), 250 * 600, 250, every(600, 250)).empty());
}

TEST(Plausibility, AHandfulOfBeatsInMinutesIsSaid) {
  // One beat in 2600 s: the issue's `time,ECG` analysed on `time`.
  auto w = plausibility_warnings(csv_at(250), 650000, 250, {1000});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("only 1 beats in 2600 s"), std::string::npos) << w[0];
  // No beats at all in a minute: said; in 59 s: too short to tell.
  EXPECT_EQ(plausibility_warnings(csv_at(250), 250 * 60, 250, {}).size(), 1u);
  EXPECT_TRUE(plausibility_warnings(csv_at(250), 250 * 59, 250, {}).empty());
  // One beat per 10 s exactly is the bound (6 bpm would also fail the rate check: 3 beats here).
  EXPECT_EQ(plausibility_warnings(csv_at(250), 250 * 60, 250, every(2500, 6)).size(), 1u);  // only the rate
}

TEST(Plausibility, TheSourcesWarningsComeFirst) {
  SignalSource s = csv_at(250);
  s.warnings = {"read as 250 Hz"};
  const auto w = plausibility_warnings(s, 650000, 250, {});
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "read as 250 Hz");
}

}  // namespace
}  // namespace ecgpipe
