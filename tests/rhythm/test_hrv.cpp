// Heart-rate variability (src/rhythm/hrv.cpp): the Task Force's time-domain figures on hand-made
// series whose answers are worked out below, what breaks the NN series (ectopy, artefact,
// pauses), the edges, and the spectrum of known modulations. NeuroKit2's figures on the same
// series: tests/rhythm/hrv_neurokit_test.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/rhythm/hrv.hpp"
#include "rhythm/hrv_json.hpp"

namespace {

using ecgpipe::compute_hrv;
using ecgpipe::HrvResult;

// Beat samples at 1000 Hz (1 sample = 1 ms) from RR intervals in ms, the first beat at 500.
std::vector<std::int64_t> beats_ms(const std::vector<std::int64_t>& rr) {
  std::vector<std::int64_t> b{500};
  for (auto r : rr) b.push_back(b.back() + r);
  return b;
}

// Beats at 1000 Hz whose RR interval follows rr_s(t) (seconds, t the interval's start), for
// `duration_s`.
template <typename Rr>
std::vector<std::int64_t> modulated_beats(Rr rr_s, double duration_s) {
  std::vector<std::int64_t> b{0};
  double t = 0.0;
  while (t < duration_s) {
    t += rr_s(t);
    b.push_back(std::llround(t * 1000.0));
  }
  return b;
}

void expect_time_domain_undefined(const HrvResult& h) {
  EXPECT_TRUE(std::isnan(h.sdann_ms));
  EXPECT_TRUE(std::isnan(h.sdnn_index_ms));
  EXPECT_EQ(h.segments, 0u);
  EXPECT_TRUE(std::isnan(h.vlf_ms2) && std::isnan(h.lf_ms2) && std::isnan(h.hf_ms2) && std::isnan(h.total_ms2) &&
              std::isnan(h.lf_hf));
}

TEST(Hrv, TimeDomainOfAHandMadeSeries) {
  // RR 800 850 750 900 800 ms, all N. Mean 4100 / 5 = 820. Deviations -20 30 -70 80 -20, squares
  // 400 900 4900 6400 400 = 13000: SDNN = sqrt(13000 / 4) = sqrt(3250). Successive differences
  // 50 -100 150 -100, squares 2500 10000 22500 10000 = 45000: RMSSD = sqrt(45000 / 4) =
  // sqrt(11250). NN50: 100, 150, 100 (50 is not more than 50) = 3, over 5 NN intervals: 60 %.
  const auto b = beats_ms({800, 850, 750, 900, 800});
  const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 1000.0);
  EXPECT_EQ(h.rr_intervals, 5u);
  EXPECT_EQ(h.nn_intervals, 5u);
  EXPECT_DOUBLE_EQ(h.mean_nn_ms, 820.0);
  EXPECT_DOUBLE_EQ(h.sdnn_ms, std::sqrt(3250.0));
  EXPECT_DOUBLE_EQ(h.rmssd_ms, std::sqrt(11250.0));
  EXPECT_DOUBLE_EQ(h.pnn50_percent, 60.0);
  EXPECT_DOUBLE_EQ(h.nn_seconds, 4.1);  // what the figures rest on: 4.1 s, far under the Task Force's 5 min
  EXPECT_TRUE(ecgpipe::hrv_under_short_term(h));
  // 4.1 s of beats: no 5-minute segment, so no SDANN, SDNN index or spectrum.
  expect_time_domain_undefined(h);
}

// RR 800 900 | 600 1100 | 700 760 ms around beat 3 (the one ending the 600-ms interval). Whatever
// breaks beat 3 (an S or V beat, artefact) leaves out the two intervals that touch it, and the
// successive difference 900 -> 700 across the gap is not one (the intervals are not adjacent).
// NN 800 900 700 760: mean 3160 / 4 = 790; deviations 10 110 -90 -30, squares 100 12100 8100 900
// = 21200: SDNN = sqrt(21200 / 3). Pairs (800, 900) and (700, 760): differences 100 and 60, RMSSD
// = sqrt((10000 + 3600) / 2) = sqrt(6800); both over 50 ms: pNN50 = 2 / 4 = 50 %.
void expect_beat_3_left_out(const HrvResult& h) {
  EXPECT_EQ(h.rr_intervals, 6u);
  EXPECT_EQ(h.nn_intervals, 4u);
  EXPECT_DOUBLE_EQ(h.mean_nn_ms, 790.0);
  EXPECT_DOUBLE_EQ(h.sdnn_ms, std::sqrt(21200.0 / 3.0));
  EXPECT_DOUBLE_EQ(h.rmssd_ms, std::sqrt(6800.0));
  EXPECT_DOUBLE_EQ(h.pnn50_percent, 50.0);
  EXPECT_DOUBLE_EQ(h.nn_seconds, 3.16);  // the NN intervals' own time: not the 4.86 s the beats span
}

TEST(Hrv, AnEctopicBeatRemovesItsTwoIntervalsAndTheDifferencesThatTouchThem) {
  const auto b = beats_ms({800, 900, 600, 1100, 700, 760});
  for (const char ectopic : {'S', 'V', 'F', 'Q'}) {
    std::vector<char> classes(b.size(), 'N');
    classes[3] = ectopic;
    SCOPED_TRACE(std::string(1, ectopic));
    expect_beat_3_left_out(compute_hrv(b, classes, {}, 1000.0));
  }
}

TEST(Hrv, ArtefactRemovesItsIntervalsAsEctopyDoes) {
  const auto b = beats_ms({800, 900, 600, 1100, 700, 760});
  std::vector<bool> usable(b.size(), true);
  usable[3] = false;
  expect_beat_3_left_out(compute_hrv(b, std::vector<char>(b.size(), 'N'), usable, 1000.0));
}

TEST(Hrv, IntervalsOutsideTheNnBoundsAreLeftOut) {
  // 2000 ms (max_nn_s, kept), 2001 ms (a pause, out), 299 ms (out), 300 ms (min_nn_s, kept).
  const auto b = beats_ms({2000, 2001, 299, 300});
  const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 1000.0);
  EXPECT_EQ(h.nn_intervals, 2u);
  EXPECT_DOUBLE_EQ(h.mean_nn_ms, 1150.0);
  EXPECT_TRUE(std::isnan(h.rmssd_ms));  // no two adjacent NN intervals
  EXPECT_TRUE(std::isnan(h.pnn50_percent));
}

// The Task Force's shortest standard recording is 5 minutes: figures from less NN time are given
// but said to be short. The edge is exact: 300 one-second NN intervals are 5 minutes, 299 are not.
TEST(Hrv, UnderFiveMinutesOfNnIntervalsIsShorterThanTheShortTermStandard) {
  for (const std::size_t intervals : {299u, 300u, 301u}) {
    const auto b = beats_ms(std::vector<std::int64_t>(intervals, 1000));
    std::vector<char> classes(b.size(), 'N');
    const HrvResult h = compute_hrv(b, classes, {}, 1000.0);
    EXPECT_DOUBLE_EQ(h.nn_seconds, static_cast<double>(intervals));
    EXPECT_EQ(ecgpipe::hrv_under_short_term(h), intervals < 300) << intervals;
  }
  // A V beat in 301 intervals takes two of them: 299 s of NN in 301 s of beats is short.
  const auto b = beats_ms(std::vector<std::int64_t>(301, 1000));
  std::vector<char> classes(b.size(), 'N');
  classes[150] = 'V';
  const HrvResult h = compute_hrv(b, classes, {}, 1000.0);
  EXPECT_DOUBLE_EQ(h.nn_seconds, 299.0);
  EXPECT_TRUE(ecgpipe::hrv_under_short_term(h));
  EXPECT_TRUE(ecgpipe::hrv_under_short_term(compute_hrv({}, {}, {}, 250.0)));  // nothing at all: short too
}

TEST(Hrv, ExactlyFiftyMsIsNotMoreThanFifty) {
  // At 360 Hz 18 samples are exactly 50 ms (a conversion to ms and a subtraction in floating point
  // can land either side); 19 samples are 52.8 ms. RR 360, 378, 360, 379 samples: differences 18,
  // -18, 19: one of three over 50 ms, over 4 NN intervals: 25 %.
  const std::vector<std::int64_t> b{0, 360, 738, 1098, 1477};
  const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 360.0);
  EXPECT_DOUBLE_EQ(h.pnn50_percent, 25.0);
}

TEST(Hrv, NoBeatsOneBeatTwoBeatsAreNaNWhereUndefined) {
  const HrvResult none = compute_hrv({}, {}, {}, 250.0);
  EXPECT_EQ(none.rr_intervals, 0u);
  EXPECT_EQ(none.nn_intervals, 0u);
  EXPECT_TRUE(std::isnan(none.mean_nn_ms) && std::isnan(none.sdnn_ms) && std::isnan(none.rmssd_ms) &&
              std::isnan(none.pnn50_percent));
  expect_time_domain_undefined(none);

  const HrvResult one = compute_hrv({100}, {'N'}, {}, 250.0);
  EXPECT_EQ(one.rr_intervals, 0u);
  EXPECT_TRUE(std::isnan(one.mean_nn_ms));
  expect_time_domain_undefined(one);

  // Two N beats 200 samples apart at 250 Hz: one NN interval of 800 ms, nothing to take an SD of.
  const HrvResult two = compute_hrv({100, 300}, {'N', 'N'}, {}, 250.0);
  EXPECT_EQ(two.rr_intervals, 1u);
  EXPECT_EQ(two.nn_intervals, 1u);
  EXPECT_DOUBLE_EQ(two.mean_nn_ms, 800.0);
  EXPECT_TRUE(std::isnan(two.sdnn_ms) && std::isnan(two.rmssd_ms) && std::isnan(two.pnn50_percent));
  expect_time_domain_undefined(two);

  const HrvResult ectopic = compute_hrv({100, 300}, {'N', 'V'}, {}, 250.0);
  EXPECT_EQ(ectopic.rr_intervals, 1u);
  EXPECT_EQ(ectopic.nn_intervals, 0u);
  EXPECT_TRUE(std::isnan(ectopic.mean_nn_ms));
}

TEST(Hrv, BadArgumentsAreErrorsNotCrashes) {
  EXPECT_THROW(compute_hrv({1, 2}, {'N'}, {}, 250.0), ecgpipe::InternalError);
  EXPECT_THROW(compute_hrv({1, 2}, {'N', 'N'}, {true}, 250.0), ecgpipe::InternalError);
  EXPECT_THROW(compute_hrv({2, 1}, {'N', 'N'}, {}, 250.0), ecgpipe::InternalError);
  EXPECT_THROW(compute_hrv({1, 2}, {'N', 'N'}, {}, 0.0), ecgpipe::UsageError);
  EXPECT_THROW(compute_hrv({1, 2}, {'N', 'N'}, {}, std::nan("")), ecgpipe::UsageError);
  ecgpipe::HrvOptions o;
  o.max_nn_s = 0.2;  // below min_nn_s
  EXPECT_THROW(compute_hrv({1, 2}, {'N', 'N'}, {}, 250.0, o), ecgpipe::UsageError);
  // Beats days apart at a low rate allocate nothing per empty segment.
  const HrvResult far = compute_hrv({0, 400, std::int64_t{1} << 50}, {'N', 'N', 'N'}, {}, 1.0);
  EXPECT_EQ(far.nn_intervals, 0u);
}

TEST(Hrv, SdannAndSdnnIndexOverFiveMinuteSegments) {
  // Segments start at the first beat; an interval belongs to the segment of its ending beat.
  // 374 x 800 ms end at 0.8 .. 299.2 s (segment 0), 300 x 1000 ms at 300.2 .. 599.2 s (segment 1),
  // then 900 ms: 334 end at 600.1 .. 899.8 s (segment 2), 111 at 900.7 .. 999.7 s (99.9 s of
  // segment 3: less than 80 % of it, not counted). Segment means 800, 1000, 900: SDANN = SD(800,
  // 1000, 900) = 100; each segment is constant: SDNN index 0.
  std::vector<std::int64_t> rr(374, 800);
  rr.insert(rr.end(), 300, 1000);
  rr.insert(rr.end(), 445, 900);
  const auto b = beats_ms(rr);
  const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 1000.0);
  EXPECT_EQ(h.segments, 3u);
  EXPECT_DOUBLE_EQ(h.sdann_ms, 100.0);
  EXPECT_DOUBLE_EQ(h.sdnn_index_ms, 0.0);
}

TEST(Hrv, ConstantRhythmHasNoPowerAndNoRatio) {
  const auto b = beats_ms(std::vector<std::int64_t>(800, 750));  // 600 s: two segments
  const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 1000.0);
  EXPECT_EQ(h.segments, 2u);
  EXPECT_NEAR(h.total_ms2, 0.0, 1e-12);  // the spline through equal values is that value
  EXPECT_TRUE(std::isnan(h.lf_hf));
}

// A sinusoidal RR modulation of amplitude A ms carries A^2 / 2 ms^2, all in the band of its
// frequency. 0.1 Hz and 0.25 Hz make whole cycles in a 150-s Welch window (15 and 37.5: the
// latter a half cycle over, whose leakage stays inside HF). Tolerances: beat times are rounded to
// 1 ms (noise of 1/12 ms^2 per interval, spread over 0-0.6 Hz), the cubic spline between beats
// 0.8 s apart loses some of a fast modulation (measured at 30 ms: 0.0 % at 0.1 Hz, 0.3 % at
// 0.2 Hz, 1.0 % at 0.25 Hz, 2.3 % at 0.3 Hz, 4.8 % at 0.35 Hz), and the linear trend removed per
// segment takes a sliver of a whole number of cycles. 2 % covers these up to 0.25 Hz; a scaling or
// band-edge error would be far larger (a missed bin of a sinusoid, a factor 2 in the density).
TEST(Hrv, ModulationAtPointOneHzIsLfAndAtPointTwoFiveHzIsHf) {
  constexpr double kA = 30.0;  // ms
  for (const double f : {0.1, 0.25}) {
    SCOPED_TRACE(f);
    const auto b = modulated_beats([&](double t) { return 0.8 + kA / 1000.0 * std::sin(2 * M_PI * f * t); }, 1205.0);
    const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 1000.0);
    EXPECT_EQ(h.segments, 4u);
    const double in_band = f < 0.15 ? h.lf_ms2 : h.hf_ms2, other = f < 0.15 ? h.hf_ms2 : h.lf_ms2;
    EXPECT_NEAR(in_band, kA * kA / 2, 0.02 * kA * kA / 2);
    EXPECT_LT(other + h.vlf_ms2, 0.01 * in_band);
    if (f < 0.15) EXPECT_GT(h.lf_hf, 100.0);
    else EXPECT_LT(h.lf_hf, 0.01);
  }
}

TEST(Hrv, TotalPowerIsTheVarianceOfTheModulation) {
  // 0.05 Hz at 20 ms, 0.1 Hz at 30 ms and 0.25 Hz at 15 ms (phases apart): variance 200 + 450 +
  // 112.5 = 762.5 ms^2, split VLF 0, LF 650, HF 112.5. Tolerance 2 %, as above (0.25 Hz is the
  // fastest: the spline loses 1.0 % of it, 1.1 ms^2 of the total).
  const auto b = modulated_beats(
      [](double t) {
        return 0.8 + 0.020 * std::sin(2 * M_PI * 0.05 * t) + 0.030 * std::sin(2 * M_PI * 0.1 * t + 1.0) +
               0.015 * std::sin(2 * M_PI * 0.25 * t + 2.0);
      },
      1205.0);
  const HrvResult h = compute_hrv(b, std::vector<char>(b.size(), 'N'), {}, 1000.0);
  EXPECT_NEAR(h.total_ms2, 762.5, 0.02 * 762.5);
  EXPECT_NEAR(h.lf_ms2, 650.0, 0.02 * 650.0);
  EXPECT_NEAR(h.hf_ms2, 112.5, 0.02 * 112.5);
  EXPECT_LT(h.vlf_ms2, 0.01 * 762.5);
}

TEST(Hrv, AnEctopicBeatInAModulatedSeriesIsBridgedNotCounted) {
  // A premature beat every 50 beats (S: 70 % of the interval, then a compensatory pause) leaves
  // out two intervals each time; the spline bridges the gaps, so LF stays the modulation's power
  // (tolerance 3 %: the bridged stretches are 4 % of the series, interpolated, not measured).
  std::vector<std::int64_t> b{0};
  std::vector<char> classes{'N'};
  double t = 0.0;
  while (t < 1205.0) {
    const double rr = 0.8 + 0.030 * std::sin(2 * M_PI * 0.1 * t);
    if (classes.size() % 50 == 0) {
      t += 0.7 * rr;
      b.push_back(std::llround(t * 1000.0));
      classes.push_back('S');
      t += 1.3 * rr;
    } else {
      t += rr;
    }
    b.push_back(std::llround(t * 1000.0));
    classes.push_back('N');
  }
  const HrvResult h = compute_hrv(b, classes, {}, 1000.0);
  EXPECT_EQ(h.rr_intervals - h.nn_intervals, 2 * static_cast<std::size_t>(std::count(classes.begin(), classes.end(), 'S')));
  EXPECT_NEAR(h.lf_ms2, 450.0, 0.03 * 450.0);
}

TEST(Hrv, ThreadsGiveTheSameNumbersBitForBit) {
  // 3 h of a modulated rhythm with ectopic beats: 36 segments, more than the 16 that one thread
  // keeps; 1, 2, 3 and 8 threads split them differently and must sum the same powers in order.
  const auto b = modulated_beats(
      [](double t) { return 0.8 + 0.03 * std::sin(2 * M_PI * 0.1 * t) + 0.01 * std::sin(2 * M_PI * 0.27 * t + 1.0); },
      3.0 * 3600.0);
  std::vector<char> classes(b.size(), 'N');
  for (std::size_t i = 50; i < classes.size(); i += 97) classes[i] = 'V';
  ecgpipe::HrvOptions one;
  const HrvResult want = compute_hrv(b, classes, {}, 1000.0, one);
  ASSERT_EQ(want.segments, 36u);
  for (const int threads : {2, 3, 8}) {
    SCOPED_TRACE(threads);
    ecgpipe::HrvOptions o;
    o.threads = threads;
    const HrvResult got = compute_hrv(b, classes, {}, 1000.0, o);
    EXPECT_EQ(got.segments, want.segments);
    EXPECT_EQ(got.vlf_ms2, want.vlf_ms2);
    EXPECT_EQ(got.lf_ms2, want.lf_ms2);
    EXPECT_EQ(got.hf_ms2, want.hf_ms2);
    EXPECT_EQ(got.total_ms2, want.total_ms2);
    EXPECT_EQ(got.lf_hf, want.lf_hf);
    EXPECT_EQ(got.sdann_ms, want.sdann_ms);
  }
}

TEST(HrvJson, NumbersRoundedToWhatTheyMeanAndNaNIsNull) {
  HrvResult h;
  h.rr_intervals = 4235;
  h.nn_intervals = 4100;
  h.nn_seconds = 3477.14431;
  h.mean_nn_ms = 848.08398;
  h.sdnn_ms = std::nan("");
  h.sdann_ms = 29.2963;
  h.sdnn_index_ms = 30.44;
  h.rmssd_ms = 25.66508;
  h.pnn50_percent = 2.2348;
  h.segments = 12;
  h.vlf_ms2 = 116.4999;
  h.lf_ms2 = 456.77;
  h.hf_ms2 = 321.08;
  h.total_ms2 = 894.3;
  h.lf_hf = 1.42259;
  const nlohmann::json j = ecgpipe::hrv_json(h);
  EXPECT_EQ(j.dump(),
            R"({"hf_ms2":321,"lf_hf":1.42,"lf_ms2":457,"mean_nn_ms":848.1,"nn_intervals":4100,"nn_seconds":3477.1,"pnn50_percent":2.2,)"
            R"("rmssd_ms":25.7,"rr_intervals":4235,"sdann_ms":29.3,"sdnn_index_ms":30.4,"sdnn_ms":null,"segments":12,)"
            R"("total_ms2":894,"vlf_ms2":116})");
}

}  // namespace
