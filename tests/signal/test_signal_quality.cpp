// Signal quality: artefact spans (signal/signal_quality.hpp; issue 27).
#include "ecgpipe/signal/signal_quality.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "test_util.hpp"

namespace ecgpipe {
namespace {

constexpr double kFs = 250.0;
constexpr int kRr = 200;  // 75 bpm

struct Ecg {
  std::vector<float> x;
  std::vector<std::int64_t> peaks;
};

// testutil::synthetic_ecg's beats (a QRS of amplitude ~1, a T wave of 0.3) and their R peaks.
Ecg clean(int beats) {
  Ecg e;
  e.x = testutil::synthetic_ecg(beats, kRr);
  for (int b = 0; b < beats; ++b) e.peaks.push_back(kRr + b * kRr + (b % 3) * 2);
  return e;
}

SignalQuality assess(const Ecg& e) { return assess_signal_quality(e.x.data(), e.x.size(), e.peaks, kFs); }

TEST(SignalQuality, CleanEcgAndMildWhiteNoiseAreReadable) {
  Ecg e = clean(60);
  EXPECT_TRUE(assess(e).spans.empty());
  // White noise of 0.06 (the bundled sample's level relative to its QRS): still readable.
  const std::vector<float> noise = testutil::normal_noise(e.x.size(), 7);
  for (std::size_t i = 0; i < e.x.size(); ++i) e.x[i] += 0.06f * noise[i];
  const SignalQuality q = assess(e);
  EXPECT_TRUE(q.spans.empty());
  EXPECT_EQ(q.beat_artefact, std::vector<bool>(e.peaks.size(), false));
}

TEST(SignalQuality, MuscleNoiseIsArtefactWithItsBeats) {
  Ecg e = clean(60);
  // 4 s of noise with an RMS of 0.35 x the QRS amplitude from 20 s on (samples 5000-6000).
  const std::vector<float> noise = testutil::normal_noise(1000, 3);
  for (int i = 0; i < 1000; ++i) e.x[static_cast<std::size_t>(5000 + i)] += 0.35f * noise[static_cast<std::size_t>(i)];
  const SignalQuality q = assess(e);
  ASSERT_EQ(q.spans.size(), 1u);
  // Windows of 500 samples: 5000-5500 and 5500-6000 are noisy, each padded by 1 s (250 samples).
  EXPECT_EQ(q.spans[0], (std::pair<std::int64_t, std::int64_t>{4750, 6250}));
  EXPECT_DOUBLE_EQ(q.artefact_seconds(kFs), 6.0);
  for (std::size_t b = 0; b < e.peaks.size(); ++b)
    EXPECT_EQ(q.beat_artefact[b], e.peaks[b] >= 4750 && e.peaks[b] < 6250) << b;
}

TEST(SignalQuality, BaselineSwingAndFlatLineAreArtefact) {
  Ecg e = clean(60);
  // A swing of 2 x the QRS amplitude at 1 Hz over samples 2500-3000 (one window).
  for (int i = 2500; i < 3000; ++i) e.x[static_cast<std::size_t>(i)] += static_cast<float>(1.0 * std::sin(2.0 * M_PI * (i - 2500) / kFs));
  // A lead off: exactly constant over samples 10000-10500.
  for (int i = 10000; i < 10500; ++i) e.x[static_cast<std::size_t>(i)] = 0.25f;
  const SignalQuality q = assess(e);
  ASSERT_EQ(q.spans.size(), 2u);
  EXPECT_EQ(q.spans[0], (std::pair<std::int64_t, std::int64_t>{2250, 3250}));
  EXPECT_EQ(q.spans[1], (std::pair<std::int64_t, std::int64_t>{9750, 10750}));
}

TEST(SignalQuality, APauseIsAPauseButAGapWithBeatsInItIsNot) {
  // A sinus pause: two beats missing (a 2.4-s RR, 3 x the local RR), the line flat in between.
  Ecg e = clean(60);
  std::vector<std::int64_t> paused;
  for (std::size_t b = 0; b < e.peaks.size(); ++b) {
    if (b == 30 || b == 31) {
      for (std::int64_t i = e.peaks[b] - 40; i < e.peaks[b] + 120; ++i) e.x[static_cast<std::size_t>(i)] = 0.0f;
      continue;
    }
    paused.push_back(e.peaks[b]);
  }
  Ecg p{e.x, paused};
  EXPECT_TRUE(assess(p).spans.empty());
  // The same gap where the beats are still in the signal (the detector missed them): not a pause.
  Ecg missed = clean(60);
  missed.peaks.erase(missed.peaks.begin() + 30, missed.peaks.begin() + 32);
  const SignalQuality q = assess(missed);
  ASSERT_EQ(q.spans.size(), 1u);
  EXPECT_EQ(q.spans[0].first, missed.peaks[29]);
  EXPECT_EQ(q.spans[0].second, missed.peaks[30] + 1);
  EXPECT_TRUE(q.beat_artefact[29]);
  EXPECT_TRUE(q.beat_artefact[30]);
  EXPECT_FALSE(q.beat_artefact[28]);
}

TEST(SignalQuality, Edges) {
  EXPECT_TRUE(assess_signal_quality(nullptr, 0, {}, kFs).spans.empty());
  // No beats: no QRS scale, only a flat line is artefact.
  const std::vector<float> flat(1000, 1.0f);
  const SignalQuality q = assess_signal_quality(flat.data(), flat.size(), {}, kFs);
  ASSERT_EQ(q.spans.size(), 1u);
  EXPECT_EQ(q.spans[0], (std::pair<std::int64_t, std::int64_t>{0, 1000}));
  // One beat, one sample, a last window shorter than half a window (not called flat).
  const std::vector<float> one = {0.5f};
  EXPECT_TRUE(assess_signal_quality(one.data(), one.size(), {0}, kFs).spans.empty());
  const Ecg e = clean(10);
  EXPECT_EQ(assess_signal_quality(e.x.data(), e.x.size(), {e.peaks[0]}, kFs).beat_artefact.size(), 1u);
}

}  // namespace
}  // namespace ecgpipe
