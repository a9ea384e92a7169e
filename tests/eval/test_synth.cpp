// The synthetic ECG generator (issue 4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/eval/synth.hpp"

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
  EXPECT_EQ(line, "sample,symbol,class");
  std::getline(t, line);
  EXPECT_EQ(line, std::to_string(r.beats.front().sample) + "," + r.beats.front().symbol + "," +
                      ecgpipe::aami_class(r.beats.front().symbol));
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

// The allowed ranges are printed as the numbers they are ("[100, 20000] Hz", not
// "[100.000000, 20000.000000]"), from the same constants the check uses.
TEST(Synth, RangeErrorsPrintTheirBounds) {
  // The UsageError's message for `o`, or "" when synthesize accepts it.
  const auto error_of = [](const SynthOptions& o) -> std::string {
    try {
      ecgpipe::synthesize(o);
    } catch (const ecgpipe::UsageError& e) {
      return e.what();
    }
    return "";
  };
  SynthOptions fs;
  fs.fs = 50.0;
  EXPECT_EQ(error_of(fs), "--fs must be within [100, 20000] Hz");
  SynthOptions rate;
  rate.heart_rate = 300.0;
  EXPECT_EQ(error_of(rate), "--heart-rate must be within [20, 220] bpm");
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
  // An infinite or out-of-range rate is said as validate() says it (before: "--fs inf" was "not positive").
  for (const double fs : {double{INFINITY}, double{NAN}, -1.0, 50.0})
    try {
      ecgpipe::synth_samples_for_duration(600.0, fs);
      ADD_FAILURE() << fs;
    } catch (const ecgpipe::UsageError& e) {
      EXPECT_STREQ(e.what(), "--fs must be within [100, 20000] Hz") << fs;
    }
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
  // Amplitudes past what any ECG input takes: 1e300 mV of wander or hum, or noise 1e300 dB
  // above the R wave, overflowed to inf or to %.4f text past the line buffer.
  rejects([](SynthOptions& o) { o.wander_mv = 1e300; });
  rejects([](SynthOptions& o) { o.mains_mv = 1e300; });
  rejects([](SynthOptions& o) { o.wander_mv = ecgpipe::kSynthMaxArtefactMv * 1.01; });
  rejects([](SynthOptions& o) { o.snr_db = -1e300; });
  rejects([](SynthOptions& o) { o.snr_db = ecgpipe::kSynthMinSnrDb - 1.0; });
  SynthOptions edge;
  edge.wander_mv = edge.mains_mv = ecgpipe::kSynthMaxArtefactMv;
  edge.snr_db = ecgpipe::kSynthMinSnrDb;
  EXPECT_NO_THROW(ecgpipe::validate(edge));
  SynthOptions ok;
  ok.snr_db = std::numeric_limits<double>::infinity();
  EXPECT_NO_THROW(ecgpipe::validate(ok));
}

// --fs 100 is within synth's range, but the default 50-Hz hum is its Nyquist frequency: the error
// named an option that was never given ("--mains-hz must be positive and below fs/2") and no way out.
TEST(Synth, HumAtOrPastNyquistSaysTheValuesAndTheWayOut) {
  SynthOptions o;
  o.fs = 100;
  try {
    ecgpipe::validate(o);
    ADD_FAILURE() << "50 Hz hum at 100 Hz accepted";
  } catch (const ecgpipe::UsageError& e) {
    EXPECT_STREQ(e.what(), "--mains-hz 50 is not below fs/2 = 50 Hz (--fs 100): give a lower --mains-hz, or --mains-mv 0 "
                           "for no hum");
  }
  o.mains_mv = 0.0;  // no hum: its frequency does not matter
  EXPECT_NO_THROW(ecgpipe::validate(o));
  o.mains_mv = 0.02;
  o.mains_hz = 49.9;
  EXPECT_NO_THROW(ecgpipe::validate(o));
}

TEST(Synth, SignalCsvHoldsTheWholeTextOfAnyFiniteValue) {
  // %.4f of 1e300 is 306 characters; the line buffer was 64 and the length snprintf would have
  // written was appended, so the file got the stack beyond the buffer (found with --wander-mv 1e300).
  const std::vector<double> values{1e300, -std::numeric_limits<double>::max(), 0.5, -1e-9};
  for (int digits : {0, 1, 17}) {
    std::string want = "heartbeats\n";
    for (double v : values) {
      std::vector<char> buf(1024);
      if (digits == 0) std::snprintf(buf.data(), buf.size(), "%.4f\n", v);
      else std::snprintf(buf.data(), buf.size(), "%.*e\n", digits - 1, v);
      want += std::string(buf.data()) == "-0.0000\n" ? "0.0000\n" : std::string(buf.data());
    }
    EXPECT_EQ(ecgpipe::format_signal_csv(values, digits), want) << digits;
  }
  // Not a number is not a sample: a reader would refuse the file.
  EXPECT_THROW(ecgpipe::format_signal_csv({0.0, std::numeric_limits<double>::infinity()}), ecgpipe::InternalError);
  EXPECT_THROW(ecgpipe::format_signal_csv({NAN}), ecgpipe::InternalError);
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

// --- Scenarios: the failure modes of beat classification, with their labels.

SynthRecord scenario_record(ecgpipe::SynthScenario scenario, double heart_rate = 70.0, std::uint64_t seed = 5) {
  SynthOptions o = noise_free(options_for(600.0, seed));
  o.scenario = scenario;
  o.heart_rate = heart_rate;
  return ecgpipe::synthesize(o);
}

std::vector<double> rr_before(const SynthRecord& r) {
  std::vector<double> rr(r.beats.size(), std::nan(""));
  for (std::size_t i = 1; i < r.beats.size(); ++i)
    rr[i] = static_cast<double>(r.beats[i].sample - r.beats[i - 1].sample) / kFs;
  return rr;
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

ecgpipe::HolterSummary holter_of(const SynthRecord& r) {
  std::vector<std::int64_t> peaks;
  std::vector<char> classes;
  for (const auto& b : r.beats) {
    peaks.push_back(b.sample);
    classes.push_back(ecgpipe::aami_class(b.symbol));
  }
  return ecgpipe::holter_summary(peaks, kFs, classes, 600.0);
}

TEST(SynthScenario, NamesParseAndUnknownIsAUsageError) {
  using ecgpipe::SynthScenario;
  for (auto s : {SynthScenario::none, SynthScenario::apc_bradycardia, SynthScenario::bigeminy, SynthScenario::vt_runs,
                 SynthScenario::fusion, SynthScenario::junctional_escape})
    EXPECT_EQ(ecgpipe::parse_synth_scenario(ecgpipe::synth_scenario_name(s)), s);
  EXPECT_EQ(ecgpipe::parse_synth_scenario("vt-runs"), SynthScenario::vt_runs);
  EXPECT_THROW(ecgpipe::parse_synth_scenario("afib"), ecgpipe::UsageError);
}

// APCs outnumber the sinus beats, arrive at the record's median RR, and the sinus beats end the
// long pauses: the pattern that inverts a neighbourhood-relative score.
TEST(SynthScenario, ApcBradycardiaApcsOutnumberSinusBeatsAtTheMedianRr) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::apc_bradycardia, ecgpipe::kApcBradycardiaHeartRate);
  EXPECT_GT(r.pac, r.normal);
  EXPECT_EQ(r.pac + r.normal, r.beats.size());
  const auto rr = rr_before(r);
  const double med = median(rr);
  std::size_t apc_near_median = 0, apcs = 0, sinus_after_pause = 0, sinus = 0;
  for (std::size_t i = 1; i < r.beats.size(); ++i) {
    if (r.beats[i].symbol == 'A') {
      ++apcs;
      EXPECT_EQ(ecgpipe::aami_class('A'), 'S');
      // Not premature against the neighbourhood: ln(median / RR) < ln(1 / 0.8) = 0.22, where a
      // default-scenario PAC (0.7 RR) has 0.36. (The APCs are ~58 % of the RR intervals, so the
      // median sits in the upper part of their spread, ~0.82 s against their 0.74 s.)
      if (rr[i] >= 0.8 * med) ++apc_near_median;
    } else {
      ++sinus;
      if (rr[i] >= 1.5 * med) ++sinus_after_pause;
    }
  }
  EXPECT_GE(apc_near_median, apcs * 95 / 100);
  EXPECT_GE(sinus_after_pause, sinus * 3 / 4);  // 85 % of sinus beats follow an APC's pause
  EXPECT_GT(med, 0.6);                          // 0.55 x 1.33 s
  EXPECT_LT(med, 0.9);
}

TEST(SynthScenario, BigeminyHasEpisodesAndNoCoupletsOrRuns) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::bigeminy);
  const auto h = holter_of(r);
  EXPECT_GE(h.v_bigeminy, 3);  // 600 s at 70 bpm: several sinus/bigeminy stretches
  EXPECT_EQ(h.v_couplets, 0);
  EXPECT_EQ(h.v_runs, 0);
  std::size_t in_episodes = 0;
  for (const auto& e : h.bigeminy) {
    EXPECT_EQ(e.cls, 'V');
    in_episodes += e.cycles;
  }
  // Every V is in an episode except those of a stretch cut short by the record's ends.
  EXPECT_GE(in_episodes + 2 * 30, r.pvc);
  EXPECT_EQ(r.pac + r.fusion + r.escape + r.dropped, 0u);
}

TEST(SynthScenario, VtRunsAreThreeToTenBeatsAt160Bpm) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::vt_runs);
  const auto h = holter_of(r);
  EXPECT_GE(h.v_runs, 10);
  EXPECT_LE(h.longest_v_run, 10u);
  std::size_t run_beats = 0;
  for (const auto& run : h.runs) {
    EXPECT_EQ(run.cls, 'V');
    EXPECT_GE(run.beats, 3u);
    run_beats += run.beats;
    // The first V comes at 0.6 RR, the rest at 160 bpm +-3 %: the run's mean rate is near 160.
    EXPECT_NEAR(run.rate_bpm, 160.0, 0.1 * 160.0) << "run at " << run.start_s << " s";
  }
  // Singles and couplets only where the record's ends cut a run.
  EXPECT_LE(r.pvc - run_beats, 2u * 2u);
  EXPECT_LE(h.v_couplets, 2);
}

// F: the sinus P and the average of the normal and the ventricular QRS: its R is between theirs.
TEST(SynthScenario, FusionBeatsAreLabelledFAndLieBetweenNormalAndVentricular) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::fusion);
  EXPECT_GT(r.fusion, 30u);  // 10 % of ~700 slots
  EXPECT_GT(r.pvc, 10u);
  EXPECT_EQ(ecgpipe::aami_class('F'), 'F');
  double sum[3] = {0, 0, 0};
  std::size_t count[3] = {0, 0, 0};
  for (const auto& b : r.beats) {
    const int k = b.symbol == 'N' ? 0 : b.symbol == 'F' ? 1 : b.symbol == 'V' ? 2 : -1;
    ASSERT_GE(k, 0) << b.symbol;
    sum[k] += r.clean[static_cast<std::size_t>(b.sample)];
    ++count[k];
  }
  const double n = sum[0] / count[0], f = sum[1] / count[1], v = sum[2] / count[2];
  EXPECT_GT(f, n + 0.1);  // R 1.2 (N), 1.4 (F), 1.6 (V) mV, less the neighbouring waves
  EXPECT_LT(f, v - 0.1);
  const std::string csv = ecgpipe::format_truth_csv(r.beats);
  EXPECT_NE(csv.find(",F,F\n"), std::string::npos);
}

// j: after a pause longer than the sinus RR, no P wave, narrow QRS; AAMI class N.
TEST(SynthScenario, JunctionalEscapeBeatsFollowAPauseWithoutAPWave) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::junctional_escape);
  EXPECT_GT(r.escape, 20u);  // 8 % of ~700 slots
  const auto rr = rr_before(r);
  const double med = median(rr);
  const auto p_at = [&](std::int64_t sample) {  // the clean ECG 165 ms before R: the P wave's peak
    const std::int64_t i = sample - static_cast<std::int64_t>(0.165 * kFs);
    return i >= 0 ? r.clean[static_cast<std::size_t>(i)] : std::nan("");
  };
  for (std::size_t i = 1; i < r.beats.size(); ++i) {
    const double p = p_at(r.beats[i].sample);
    if (std::isnan(p)) continue;
    if (r.beats[i].symbol == 'j') {
      EXPECT_GE(rr[i], 1.3 * med) << "j at " << r.beats[i].sample;
      EXPECT_LT(std::fabs(p), 0.05) << "j at " << r.beats[i].sample;  // the T of the beat before is long over
    } else {
      EXPECT_EQ(r.beats[i].symbol, 'N');
    }
  }
  EXPECT_EQ(ecgpipe::aami_class('j'), 'N');
  EXPECT_NE(ecgpipe::format_truth_csv(r.beats).find(",j,N\n"), std::string::npos);
}

// paroxysmal-af: the rhythm truth starts at sample 0 and alternates N / AFIB at beats; in AF the
// RR intervals are independent (0.39..0.91 s) and every beat is N; its file is written beside the
// signal, and a --truth that would overwrite it is a usage error.
TEST(SynthScenario, ParoxysmalAfHasRhythmTruthAndIrregularRrInAf) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::paroxysmal_af);
  ASSERT_GE(r.rhythm.size(), 3u);
  EXPECT_EQ(r.rhythm[0].sample, 0);
  for (std::size_t k = 1; k < r.rhythm.size(); ++k) {
    EXPECT_GT(r.rhythm[k].sample, r.rhythm[k - 1].sample);
    EXPECT_NE(r.rhythm[k].rhythm, r.rhythm[k - 1].rhythm);
    EXPECT_TRUE(r.rhythm[k].rhythm == "AFIB" || r.rhythm[k].rhythm == "N");
    bool at_a_beat = false;
    for (const auto& b : r.beats) at_a_beat = at_a_beat || b.sample == r.rhythm[k].sample;
    EXPECT_TRUE(at_a_beat) << r.rhythm[k].sample;
  }
  for (const auto& b : r.beats) EXPECT_EQ(b.symbol, 'N');
  const auto rr = rr_before(r);
  std::size_t c = 0;
  for (std::size_t i = 1; i < r.beats.size(); ++i) {
    while (c + 1 < r.rhythm.size() && r.rhythm[c + 1].sample <= r.beats[i].sample) ++c;
    const bool af_pair = r.rhythm[c].rhythm == "AFIB" && (c == 0 || r.beats[i - 1].sample >= r.rhythm[c].sample);
    if (af_pair) {
      EXPECT_GE(rr[i], 0.38) << r.beats[i].sample;
      EXPECT_LE(rr[i], 0.92) << r.beats[i].sample;
    }
  }
  EXPECT_EQ(ecgpipe::format_rhythm_truth_csv({{0, "N"}, {500, "AFIB"}}), "sample,rhythm\n0,(N\n500,(AFIB\n");
  EXPECT_EQ(ecgpipe::rhythm_truth_path("d/rec.csv"), "d/rec_rhythm.csv");
  const auto dir = testutil::fresh_dir();
  EXPECT_THROW(ecgpipe::write_synth_files(r, (dir / "s.csv").string(), (dir / "s_rhythm.csv").string()), ecgpipe::UsageError);
  EXPECT_TRUE(testutil::list_dir(dir).empty());
  ecgpipe::write_synth_files(r, (dir / "s.csv").string(), (dir / "s_beats.csv").string());
  EXPECT_EQ(testutil::read_text(dir / "s_rhythm.csv"), ecgpipe::format_rhythm_truth_csv(r.rhythm));
  // A scenario without rhythm truth written over it: the AF truth does not stay beside a sinus
  // recording it does not describe (it did: `rhythm --reference s_rhythm.csv` then scored the
  // new recording against the old one's AF). Nor a noise truth; a --truth named as the rhythm
  // truth's path is the beats' truth now, and stays.
  const auto files = [&dir] {
    std::vector<std::string> names = testutil::list_dir(dir);
    std::sort(names.begin(), names.end());
    return names;
  };
  SynthOptions sinus = options_for(60.0, 2);
  ecgpipe::write_synth_files(ecgpipe::synthesize(sinus), (dir / "s.csv").string(), (dir / "s_beats.csv").string());
  EXPECT_EQ(files(), (std::vector<std::string>{"s.csv", "s_beats.csv"}));
  sinus.scenario = ecgpipe::SynthScenario::noise;
  ecgpipe::write_synth_files(ecgpipe::synthesize(sinus), (dir / "s.csv").string(), (dir / "s_beats.csv").string());
  EXPECT_EQ(files(), (std::vector<std::string>{"s.csv", "s_beats.csv", "s_noise.csv"}));
  sinus.scenario = ecgpipe::SynthScenario::none;
  ecgpipe::write_synth_files(ecgpipe::synthesize(sinus), (dir / "s.csv").string(), (dir / "s_rhythm.csv").string());
  EXPECT_EQ(files(), (std::vector<std::string>{"s.csv", "s_beats.csv", "s_rhythm.csv"}));
  EXPECT_EQ(testutil::read_text(dir / "s_rhythm.csv").rfind("sample,symbol,class\n", 0), 0u);
}

// flutter: the rhythm truth alternates N / AFL at beats, every beat is N; within an episode the
// RR intervals are 2 or 4 atrial cycles (0.19-0.24 s, the QRS 0.24 s +- 15 ms after its wave), so
// they fall in two groups a factor 2 apart, and both conduction ratios occur; between the T wave
// and the next QRS of a 4:1 interval the sawtooth (0.25 mV peak to peak, >= 0.15 over any 0.15 s)
// runs where sinus rhythm is flat (0.45-0.6 s after a beat with RR > 0.9 s: after the T, before the P).
TEST(SynthScenario, FlutterHasRhythmTruthAndRrAtTwoAndFourAtrialCycles) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::flutter);
  ASSERT_GE(r.rhythm.size(), 3u);
  EXPECT_EQ(r.rhythm[0].sample, 0);
  EXPECT_EQ(r.rhythm[1].rhythm, "AFL");
  for (std::size_t k = 1; k < r.rhythm.size(); ++k) EXPECT_NE(r.rhythm[k].rhythm, r.rhythm[k - 1].rhythm);
  for (const auto& b : r.beats) EXPECT_EQ(b.symbol, 'N');
  const auto rr = rr_before(r);
  std::size_t c = 0, two = 0, four = 0, flat = 0, sinus_gaps = 0;
  for (std::size_t i = 1; i < r.beats.size(); ++i) {
    while (c + 1 < r.rhythm.size() && r.rhythm[c + 1].sample <= r.beats[i].sample) ++c;
    const bool in_flutter = r.rhythm[c].rhythm == "AFL" && r.beats[i - 1].sample >= r.rhythm[c].sample;
    // The clean ECG from 0.45 s after the beat before to 0.6 s after it (before the next P or QRS).
    double lo = 1e9, hi = -1e9;
    const auto from = r.beats[i - 1].sample + static_cast<std::int64_t>(0.45 * kFs);
    const auto to = r.beats[i - 1].sample + static_cast<std::int64_t>(0.6 * kFs);
    for (auto k = from; k < to; ++k) {
      lo = std::min(lo, r.clean[static_cast<std::size_t>(k)]);
      hi = std::max(hi, r.clean[static_cast<std::size_t>(k)]);
    }
    if (in_flutter) {
      const bool is_two = rr[i] >= 2 * 0.19 - 0.03 && rr[i] <= 2 * 0.24 + 0.03;
      const bool is_four = rr[i] >= 4 * 0.19 - 0.03 && rr[i] <= 4 * 0.24 + 0.03;
      EXPECT_TRUE(is_two || is_four) << r.beats[i].sample << ": RR " << rr[i];
      two += is_two;
      four += is_four;
      if (is_four) {
        EXPECT_GE(hi - lo, 0.15) << r.beats[i].sample;
      }
    } else if (r.rhythm[c].rhythm == "N" && rr[i] > 0.9 && r.beats[i - 1].sample > r.rhythm[c].sample) {
      ++sinus_gaps;
      flat += hi - lo < 0.05;
    }
  }
  EXPECT_GT(two, 50u);
  EXPECT_GT(four, 50u);
  EXPECT_GT(sinus_gaps, 20u);
  EXPECT_EQ(flat, sinus_gaps);
}

// svta-runs: the rhythm truth alternates N / SVTA at beats; every beat of an SVTA stretch is an A,
// 3-15 of them, at the run's rate (150-200 bpm: RR 0.3-0.4 s, +- 3 x 3 % jitter), the first
// premature against the sinus RR before it; outside the runs every beat is N.
TEST(SynthScenario, SvtaRunsHaveRhythmTruthAndRunsAtTheFocusRate) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::svta_runs);
  ASSERT_GE(r.rhythm.size(), 10u);
  EXPECT_EQ(r.rhythm[0].sample, 0);
  EXPECT_EQ(r.rhythm[1].rhythm, "SVTA");
  const auto rr = rr_before(r);
  std::size_t c = 0, run = 0, runs = 0;
  for (std::size_t i = 1; i < r.beats.size(); ++i) {
    while (c + 1 < r.rhythm.size() && r.rhythm[c + 1].sample <= r.beats[i].sample) {
      ++c;
      if (r.rhythm[c].rhythm == "N" && run > 0) {
        EXPECT_GE(run, 3u) << r.rhythm[c].sample;
        EXPECT_LE(run, 15u) << r.rhythm[c].sample;
        ++runs;
      }
      run = 0;
    }
    const bool in_svta = r.rhythm[c].rhythm == "SVTA" && c > 0;
    EXPECT_EQ(r.beats[i].symbol, in_svta ? 'A' : 'N') << r.beats[i].sample;
    if (!in_svta) continue;
    if (run++ == 0) {
      EXPECT_EQ(r.beats[i].sample, r.rhythm[c].sample);
      EXPECT_LT(rr[i], 0.8 * rr[i - 1]) << "the first APC is premature, at " << r.beats[i].sample;
    } else {
      EXPECT_GE(rr[i], 0.3 * 0.91) << r.beats[i].sample;
      EXPECT_LE(rr[i], 0.4 * 1.09) << r.beats[i].sample;
    }
  }
  EXPECT_GE(runs, 20u);
  // Over a fast sinus rhythm the runs are still faster (they were at 150-200 bpm under 200 bpm).
  const SynthRecord fast = scenario_record(ecgpipe::SynthScenario::svta_runs, 200.0);
  const auto fast_rr = rr_before(fast);
  for (std::size_t i = 2; i < fast.beats.size(); ++i) {
    if (fast.beats[i].symbol == 'A' && fast.beats[i - 1].symbol == 'A') {
      EXPECT_LE(fast_rr[i], 0.75 * 0.3 * 1.09 + 1.0 / kFs) << fast.beats[i].sample;
    }
  }
}

// svta-long: svta-runs with long runs: 20-80 APCs each (the last may be cut by the record's end),
// 20-60 sinus beats between them (the first stretch, from the record's start, may be shorter by
// the beat that starts it), the first APC premature, the rest at 150-200 bpm.
TEST(SynthScenario, SvtaLongHasRunsOfTwentyToEightyApcs) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::svta_long);
  const auto rr = rr_before(r);
  std::vector<std::size_t> runs, stretches;
  for (std::size_t i = 0; i < r.beats.size(); ++i) {
    std::vector<std::size_t>& lengths = r.beats[i].symbol == 'A' ? runs : stretches;
    if (i == 0 || r.beats[i].symbol != r.beats[i - 1].symbol) {
      lengths.push_back(0);
      if (i > 0 && r.beats[i].symbol == 'A') {
        EXPECT_LT(rr[i], 0.8 * rr[i - 1]) << r.beats[i].sample;
      }
    } else if (r.beats[i].symbol == 'A') {
      EXPECT_GE(rr[i], 0.3 * 0.91) << r.beats[i].sample;
      EXPECT_LE(rr[i], 0.4 * 1.09) << r.beats[i].sample;
    }
    ++lengths.back();
    EXPECT_TRUE(r.beats[i].symbol == 'A' || r.beats[i].symbol == 'N') << r.beats[i].symbol;
  }
  ASSERT_GE(runs.size(), 5u);
  for (std::size_t k = 0; k + 1 < runs.size(); ++k) {
    EXPECT_GE(runs[k], 20u);
    EXPECT_LE(runs[k], 80u);
  }
  // Each stretch is 20-60 sinus beats plus the one that ends the run before it (sinus resumes
  // after the run's pause: that beat is the stretch's first).
  for (std::size_t k = 1; k + 1 < stretches.size(); ++k) {
    EXPECT_GE(stretches[k], 21u);
    EXPECT_LE(stretches[k], 61u);
  }
  EXPECT_EQ(std::count_if(r.rhythm.begin(), r.rhythm.end(), [](const auto& c) { return c.rhythm == "SVTA"; }),
            static_cast<std::ptrdiff_t>(runs.size()));
}

// af-aberrant: paroxysmal-af's rhythm with Ashman beats: every `a` lies in AF after a long-short
// cycle (RR before under 0.85 x 0.65 s, the one before it over 1.15 x 0.65 s; +-1 sample of
// R-peak rounding each) and has the broad S of right bundle branch block (the clean ECG below
// -0.2 mV from 35 to 60 ms after R); paroxysmal-af itself has none (the Ashman draws are
// af-aberrant's only, so paroxysmal-af's files are byte for byte what they were).
TEST(SynthScenario, AfAberrantHasAshmanBeatsAfterLongShortCycles) {
  const SynthRecord r = scenario_record(ecgpipe::SynthScenario::af_aberrant);
  const SynthRecord plain = scenario_record(ecgpipe::SynthScenario::paroxysmal_af);
  const auto rr = rr_before(r);
  const double slack = 2.0 / kFs;
  std::size_t c = 0, aberrant = 0;
  for (std::size_t i = 2; i < r.beats.size(); ++i) {
    while (c + 1 < r.rhythm.size() && r.rhythm[c + 1].sample <= r.beats[i].sample) ++c;
    if (r.beats[i].symbol != 'a') {
      EXPECT_EQ(r.beats[i].symbol, 'N');
      continue;
    }
    ++aberrant;
    EXPECT_EQ(r.rhythm[c].rhythm, "AFIB") << r.beats[i].sample;
    EXPECT_LT(rr[i], 0.85 * 0.65 + slack) << r.beats[i].sample;
    EXPECT_GT(rr[i - 1], 1.15 * 0.65 - slack) << r.beats[i].sample;
    double lowest = 0.0;
    const std::int64_t from = r.beats[i].sample + static_cast<std::int64_t>(0.035 * kFs);
    const std::int64_t to = r.beats[i].sample + static_cast<std::int64_t>(0.06 * kFs);
    for (auto k = from; k <= to; ++k) lowest = std::min(lowest, r.clean[static_cast<std::size_t>(k)]);
    EXPECT_LT(lowest, -0.2) << r.beats[i].sample;
  }
  EXPECT_GE(aberrant, 20u);
  EXPECT_EQ(r.aberrant, aberrant);
  std::size_t plain_a = 0;
  for (const auto& b : plain.beats) plain_a += b.symbol == 'a';
  EXPECT_EQ(plain_a, 0u);
}

TEST(SynthScenario, SameSeedSameBeats) {
  const auto a = scenario_record(ecgpipe::SynthScenario::vt_runs, 70.0, 9);
  const auto b = scenario_record(ecgpipe::SynthScenario::vt_runs, 70.0, 9);
  EXPECT_EQ(ecgpipe::format_truth_csv(a.beats), ecgpipe::format_truth_csv(b.beats));
  EXPECT_EQ(a.clean, b.clean);
}

}  // namespace
