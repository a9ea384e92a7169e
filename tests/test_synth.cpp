// The synthetic ECG generator (issue 4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "ecgpipe/error.hpp"
#include "ecgpipe/synth.hpp"

namespace {

using ecgpipe::SynthOptions;
using ecgpipe::SynthRecord;

constexpr double kFs = 250.0;
constexpr double kSecondsPerMinute = 60.0;

SynthOptions options_for(double seconds, std::uint64_t seed) {
  SynthOptions o;
  o.samples = ecgpipe::synth_samples_for_duration(seconds, kFs);
  o.seed = seed;
  return o;
}

SynthOptions noise_free(SynthOptions o) {
  o.snr_db = std::numeric_limits<double>::infinity();
  o.wander_mv = 0.0;
  o.mains_mv = 0.0;
  return o;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class SynthFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::fresh_dir();
  }
  std::filesystem::path dir_;
};

TEST_F(SynthFiles, SameSeedSameBytesOtherSeedOtherBytes) {
  constexpr double kSeconds = 60.0;
  const auto write = [&](std::uint64_t seed, const std::string& name) {
    const auto sig = (dir_ / (name + ".csv")).string();
    ecgpipe::write_synth_files(ecgpipe::synthesize(options_for(kSeconds, seed)), sig,
                               ecgpipe::default_truth_path(sig));
    return slurp(sig) + "|" + slurp(dir_ / (name + "_beats.csv"));
  };
  const std::string a = write(1, "a"), b = write(1, "b"), c = write(2, "c");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Exactly the two files, no temporaries left behind.
  EXPECT_EQ(testutil::list_dir(dir_).size(), 6u);
}

TEST_F(SynthFiles, FileFormat) {
  SynthOptions o = options_for(10.0, 3);
  const SynthRecord r = ecgpipe::synthesize(o);
  const auto sig = (dir_ / "rec.csv").string();
  ecgpipe::write_synth_files(r, sig, (dir_ / "truth.csv").string());
  std::ifstream in(sig);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "heartbeats");
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    ASSERT_NE(line, "-0.0000");
    const auto dot = line.find('.');
    ASSERT_NE(dot, std::string::npos) << line;
    ASSERT_EQ(line.size() - dot - 1, 4u) << line;  // %.4f
  }
  EXPECT_EQ(rows, r.signal.size());
  std::ifstream t(dir_ / "truth.csv");
  std::getline(t, line);
  EXPECT_EQ(line, "sample,symbol");
  std::getline(t, line);
  EXPECT_EQ(line, std::to_string(r.beats.front().sample) + "," + r.beats.front().symbol);
}

TEST_F(SynthFiles, UnwritablePathIsAnOutputErrorAndLeavesNothing) {
  const SynthRecord r = ecgpipe::synthesize(options_for(5.0, 1));
  const auto missing_dir = (dir_ / "no-such-dir" / "x.csv").string();
  EXPECT_THROW(ecgpipe::write_synth_files(r, missing_dir, ecgpipe::default_truth_path(missing_dir)),
               ecgpipe::OutputError);
  // The signal is fine but the truth path is not: neither file may appear.
  const auto sig = (dir_ / "ok.csv").string();
  EXPECT_THROW(ecgpipe::write_synth_files(r, sig, (dir_ / "no-such-dir" / "t.csv").string()),
               ecgpipe::OutputError);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  EXPECT_THROW(ecgpipe::write_synth_files(r, sig, sig), ecgpipe::UsageError);
}

TEST(Synth, DefaultTruthPath) {
  EXPECT_EQ(ecgpipe::default_truth_path("dir/rec.csv"), "dir/rec_beats.csv");
  EXPECT_EQ(ecgpipe::default_truth_path("rec.csv"), "rec_beats.csv");
  EXPECT_EQ(ecgpipe::default_truth_path("dir/rec"), "dir/rec_beats.csv");
}

TEST(Synth, ZeroOrNegativeLengthRejected) {
  EXPECT_THROW(ecgpipe::synth_samples_for_duration(0.0, kFs), ecgpipe::UsageError);
  EXPECT_THROW(ecgpipe::synth_samples_for_duration(-1.0, kFs), ecgpipe::UsageError);
  EXPECT_THROW(ecgpipe::synth_samples_for_duration(NAN, kFs), ecgpipe::UsageError);
  EXPECT_THROW(ecgpipe::synth_samples_for_duration(0.001, kFs), ecgpipe::UsageError);  // 0.25 sample
  EXPECT_EQ(ecgpipe::synth_samples_for_duration(600.0, kFs), 150000);
  SynthOptions o;
  o.samples = 0;
  EXPECT_THROW(ecgpipe::synthesize(o), ecgpipe::UsageError);
  o.samples = 1;
  EXPECT_EQ(ecgpipe::synthesize(o).signal.size(), 1u);
}

TEST(Synth, OutOfRangeOptionsRejected) {
  const auto rejects = [](auto change) {
    SynthOptions o;
    change(o);
    EXPECT_THROW(ecgpipe::validate(o), ecgpipe::UsageError);
  };
  rejects([](SynthOptions& o) { o.fs = 50; });
  rejects([](SynthOptions& o) { o.heart_rate = 0; });
  rejects([](SynthOptions& o) { o.hrv = -0.1; });
  rejects([](SynthOptions& o) { o.abnormal_rate = 1.5; });
  rejects([](SynthOptions& o) { o.snr_db = NAN; });
  rejects([](SynthOptions& o) { o.wander_mv = -1; });
  rejects([](SynthOptions& o) { o.mains_hz = 125; });  // Nyquist at 250 Hz
  rejects([](SynthOptions& o) { o.pvc_share = o.pac_share = o.dropped_share = 0; });
  SynthOptions ok;
  ok.snr_db = std::numeric_limits<double>::infinity();
  EXPECT_NO_THROW(ecgpipe::validate(ok));
}

TEST(Synth, BeatCountWithoutVariabilityIsDurationTimesRate) {
  // Constant RR and no abnormal beats: beats are exactly RR apart, so a record of D seconds
  // holds floor or ceil of D / RR of them.
  constexpr double kSeconds = 600.0;
  for (double hr : {45.0, 70.0, 150.0}) {
    SynthOptions o = options_for(kSeconds, 5);
    o.heart_rate = hr;
    o.hrv = 0.0;
    o.abnormal_rate = 0.0;
    const double expected = kSeconds * hr / kSecondsPerMinute;
    EXPECT_LE(std::fabs(static_cast<double>(ecgpipe::synthesize(o).beats.size()) - expected), 1.0) << hr;
  }
}

TEST(Synth, BeatCountWithVariabilityWithinFiveSigma) {
  // With HRV the record holds D / mean RR beats give or take the drift of the RR sum. Half the
  // RR variance is an AR(1) with coefficient phi = 0.9: the sum of N such terms has variance
  // N s^2 (1 + phi) / (1 - phi), s = hrv sqrt(1/2) in RR units. The other half, the respiratory
  // sinusoid, sums to less than one RR. Bound: 5 sigma + 1 (sinusoid) + 1 (edges).
  constexpr double kSeconds = 600.0;
  constexpr double kPhi = 0.9;
  constexpr double kSigmas = 5.0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SynthOptions o = options_for(kSeconds, seed);
    o.abnormal_rate = 0.0;
    const double expected = kSeconds * o.heart_rate / kSecondsPerMinute;
    const double sigma = o.hrv * std::sqrt(0.5) * std::sqrt(expected * (1 + kPhi) / (1 - kPhi));
    const double bound = kSigmas * sigma + 2.0;
    EXPECT_LE(std::fabs(static_cast<double>(ecgpipe::synthesize(o).beats.size()) - expected), bound)
        << "seed " << seed;
  }
}

TEST(Synth, TruthIsTheLocalMaximumOfTheNoiseFreeSignal) {
  constexpr double kWindowS = 0.010;  // +-10 ms
  for (double fs : {250.0, 360.0, 1000.0}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SynthOptions o = noise_free(options_for(300.0, seed));
      o.fs = fs;
      o.samples = ecgpipe::synth_samples_for_duration(300.0, fs);
      o.abnormal_rate = 0.2;  // plenty of V and A beats
      const SynthRecord r = ecgpipe::synthesize(o);
      ASSERT_EQ(r.signal, r.clean);
      const auto w = static_cast<std::int64_t>(std::llround(kWindowS * fs));
      const auto n = static_cast<std::int64_t>(r.signal.size());
      for (const auto& b : r.beats) {
        ASSERT_GE(b.sample, 0);
        ASSERT_LT(b.sample, n);
        for (std::int64_t i = std::max<std::int64_t>(0, b.sample - w);
             i <= std::min<std::int64_t>(n - 1, b.sample + w); ++i) {
          ASSERT_GE(r.signal[static_cast<std::size_t>(b.sample)], r.signal[static_cast<std::size_t>(i)])
              << "fs " << fs << " seed " << seed << " beat " << b.symbol << " at " << b.sample;
        }
      }
    }
  }
}

TEST(Synth, TruthIsSortedWithARefractoryGapAndKnownSymbols) {
  constexpr double kRefractoryS = 0.2;
  SynthOptions o = options_for(600.0, 9);
  o.abnormal_rate = 0.3;
  const SynthRecord r = ecgpipe::synthesize(o);
  for (std::size_t k = 0; k < r.beats.size(); ++k) {
    ASSERT_TRUE(r.beats[k].symbol == 'N' || r.beats[k].symbol == 'V' || r.beats[k].symbol == 'A');
    if (k > 0) {
      constexpr double kSlackSamples = 2.0;  // the R max may sit a sample off the R time
      ASSERT_GE(r.beats[k].sample - r.beats[k - 1].sample, kRefractoryS * kFs - kSlackSamples);
    }
  }
  EXPECT_EQ(r.normal + r.pvc + r.pac, r.beats.size());
}

TEST(Synth, AbnormalRateNearRequested) {
  // 2 hours, ~8400 beat slots; the abnormal count is binomial: allow 5 standard deviations.
  constexpr double kSeconds = 7200.0;
  constexpr double kSigmas = 5.0;
  for (double rate : {0.05, 0.2}) {
    SynthOptions o = options_for(kSeconds, 11);
    o.abnormal_rate = rate;
    const SynthRecord r = ecgpipe::synthesize(o);
    const double slots = static_cast<double>(r.beats.size() + r.dropped);
    const double measured = static_cast<double>(r.abnormal()) / slots;
    EXPECT_NEAR(measured, rate, kSigmas * std::sqrt(rate * (1 - rate) / slots)) << rate;
    // The split follows the shares (each kind binomial among the abnormal slots).
    const double ab = static_cast<double>(r.abnormal());
    const double share_sum = o.pvc_share + o.pac_share + o.dropped_share;
    for (auto [count, share] : {std::pair{r.pvc, o.pvc_share}, std::pair{r.pac, o.pac_share},
                                std::pair{r.dropped, o.dropped_share}}) {
      const double p = share / share_sum;
      EXPECT_NEAR(static_cast<double>(count) / ab, p, kSigmas * std::sqrt(p * (1 - p) / ab));
    }
  }
  SynthOptions none = options_for(600.0, 11);
  none.abnormal_rate = 0.0;
  const SynthRecord r = ecgpipe::synthesize(none);
  EXPECT_EQ(r.abnormal(), 0u);
  EXPECT_EQ(r.normal, r.beats.size());
}

TEST(Synth, PrematureBeatsTiming) {
  // Without HRV: a PVC comes at 0.6 RR and is followed by a full compensatory pause (the two
  // intervals around it sum to 2 RR); a PAC comes at 0.7 RR and resets the rhythm (RR after).
  SynthOptions o = noise_free(options_for(1200.0, 4));
  o.hrv = 0.0;
  o.abnormal_rate = 0.1;
  const SynthRecord r = ecgpipe::synthesize(o);
  const double rr = kSecondsPerMinute / o.heart_rate * kFs;
  constexpr double kSlackSamples = 3.0;  // R max of a PVC vs a normal beat, rounding
  int pvcs = 0, pacs = 0;
  for (std::size_t k = 1; k + 1 < r.beats.size(); ++k) {
    const auto& prev = r.beats[k - 1];
    const auto& cur = r.beats[k];
    const auto& next = r.beats[k + 1];
    if (prev.symbol != 'N' || next.symbol != 'N') continue;
    const double before = static_cast<double>(cur.sample - prev.sample);
    const double after = static_cast<double>(next.sample - cur.sample);
    constexpr double kPauseLimit = 1.5;  // an interval longer than 1.5 RR holds a dropped beat
    if (before > kPauseLimit * rr) continue;
    if (cur.symbol == 'V' && after - (1.0 - 0.6) * rr <= kPauseLimit * rr) {
      ++pvcs;
      EXPECT_NEAR(before, 0.6 * rr, kSlackSamples);
      EXPECT_NEAR(before + after, 2.0 * rr, kSlackSamples);
    } else if (cur.symbol == 'A' && after <= kPauseLimit * rr) {
      ++pacs;
      EXPECT_NEAR(before, 0.7 * rr, kSlackSamples);
      EXPECT_NEAR(after, rr, kSlackSamples);
    }
  }
  EXPECT_GT(pvcs, 10);
  EXPECT_GT(pacs, 10);
}

TEST(Synth, NoiseLevelFollowsSnr) {
  // SNR = 20 log10(R amplitude / noise RMS), R amplitude 1.2 mV: 20 dB -> 0.12 mV RMS.
  constexpr double kRAmplitudeMv = 1.2;
  constexpr double kSnrDb = 20.0;
  SynthOptions o = options_for(600.0, 2);
  o.snr_db = kSnrDb;
  o.wander_mv = 0.0;
  o.mains_mv = 0.0;
  const SynthRecord r = ecgpipe::synthesize(o);
  double sum2 = 0.0;
  for (std::size_t i = 0; i < r.signal.size(); ++i) sum2 += std::pow(r.signal[i] - r.clean[i], 2);
  const double rms = std::sqrt(sum2 / static_cast<double>(r.signal.size()));
  EXPECT_NEAR(rms, kRAmplitudeMv / std::pow(10.0, kSnrDb / 20.0), 0.002);
}

TEST(Synth, WanderAndHumStayWithinTheirAmplitudes) {
  SynthOptions o = options_for(120.0, 6);
  o.snr_db = std::numeric_limits<double>::infinity();
  const SynthRecord r = ecgpipe::synthesize(o);
  double worst = 0.0;
  for (std::size_t i = 0; i < r.signal.size(); ++i) worst = std::max(worst, std::fabs(r.signal[i] - r.clean[i]));
  EXPECT_LE(worst, o.wander_mv + o.mains_mv + 1e-12);
  EXPECT_GT(worst, 0.5 * o.wander_mv);
}

// The bundled sample must be what data/README.md says made it.
TEST(Synth, BundledSampleIsReproducible) {
  const std::filesystem::path data = std::filesystem::path(ECGPIPE_SOURCE_DIR) / "data";
  if (!std::filesystem::exists(data / "sample.csv")) GTEST_SKIP() << "no data/sample.csv";
  SynthOptions o;
  o.samples = ecgpipe::synth_samples_for_duration(600.0, 250.0);
  o.snr_db = 20.0;
  o.seed = 1;
  const SynthRecord r = ecgpipe::synthesize(o);
  EXPECT_EQ(slurp(data / "sample_beats.csv"), ecgpipe::format_truth_csv(r.beats));
  // Values to the printed precision (another libm could round a last digit differently).
  std::ifstream in(data / "sample.csv");
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, "heartbeats");
  std::size_t i = 0;
  constexpr double kPrintedStep = 1e-4;
  while (std::getline(in, line)) {
    ASSERT_LT(i, r.signal.size());
    ASSERT_NEAR(std::stod(line), r.signal[i], kPrintedStep) << "row " << i;
    ++i;
  }
  EXPECT_EQ(i, r.signal.size());
}

}  // namespace
