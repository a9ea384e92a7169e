// AF from beat times (src/rhythm), its episodes and rhythm.csv, and EC57's AF statistics
// (src/eval/rhythm_eval.cpp) on hand-made cases whose answers are exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/eval/eval_gross.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"
#include "ecgpipe/eval/synth.hpp"
#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "ecgpipe/rhythm/ectopic_rhythm.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"

namespace {

using ecgpipe::Rhythm;
constexpr double kFs = 250.0;

// Beat times from RR intervals in seconds, starting at sample 100.
std::vector<std::int64_t> beats_of(const std::vector<double>& rr_s) {
  std::vector<std::int64_t> b{100};
  for (double r : rr_s) b.push_back(b.back() + static_cast<std::int64_t>(std::lround(r * kFs)));
  return b;
}

// Sinus: 0.8 s with a slow breathing swing of +-4 % and 1 % noise.
std::vector<double> sinus(int n, std::mt19937& rng) {
  std::normal_distribution<double> noise(0.0, 0.008);
  std::vector<double> rr;
  for (int i = 0; i < n; ++i) rr.push_back(0.8 * (1 + 0.04 * std::sin(i * 2 * M_PI / 5)) + noise(rng));
  return rr;
}

// AF: independent intervals, uniform in 0.4..1.0 s.
std::vector<double> af(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.4, 1.0);
  std::vector<double> rr;
  for (int i = 0; i < n; ++i) rr.push_back(u(rng));
  return rr;
}

// Sinus, AF, then sinus again: the RR intervals of a paroxysm, drawn in that order.
std::vector<double> paroxysm(int sinus_before, int af_beats, int sinus_after, std::mt19937& rng) {
  std::vector<double> rr = sinus(sinus_before, rng);
  const auto a = af(af_beats, rng), s = sinus(sinus_after, rng);
  rr.insert(rr.end(), a.begin(), a.end());
  rr.insert(rr.end(), s.begin(), s.end());
  return rr;
}

int count(const std::vector<Rhythm>& r, Rhythm which, std::size_t from = 0, std::size_t to = SIZE_MAX) {
  int n = 0;
  for (std::size_t i = from; i < std::min(to, r.size()); ++i) n += r[i] == which;
  return n;
}

// The irregularity of one stretch (svt_runs.hpp judges a run by it): the smallest over lags 1-3 of
// the median absolute difference over the median interval (exact on these values); NaN with fewer
// than 4 intervals.
TEST(AfDetect, IntervalIrregularityOfOneStretch) {
  // Lag 1: |d| = 2,2,2,2 -> 2; lag 2: 0,0,0 -> 0; median 11: min 0 (bigeminy is regular at lag 2).
  EXPECT_EQ(ecgpipe::interval_irregularity({10, 12, 10, 12, 10}), 0.0);
  // 8, 10, 13, 9, 12: lag 1 |d| 2,3,4,3 -> 3; lag 2 5,1,1 -> 1; lag 3 1,2 -> 1.5; median 10.
  EXPECT_EQ(ecgpipe::interval_irregularity({8, 10, 13, 9, 12}), 0.1);
  EXPECT_TRUE(std::isnan(ecgpipe::interval_irregularity({8, 10, 13})));
  EXPECT_TRUE(std::isnan(ecgpipe::interval_irregularity({})));
}

// AF is AF to the record's last few beats: there the centred windows repeat the last interval
// (the ends are clamped, af_detect.hpp), so a small last difference can pull them under the
// threshold (here the last 3 of 501: 0.053-0.061 against 0.07), and a run at the record's end is
// kept (it may be the part of an episode the record cut).
TEST(AfDetect, SinusIsNotAfAndAfIs) {
  std::mt19937 rng(1);
  const auto s = ecgpipe::af_rhythm(beats_of(sinus(500, rng)));
  EXPECT_EQ(count(s, Rhythm::AFIB), 0);
  const auto a = ecgpipe::af_rhythm(beats_of(af(500, rng)));
  EXPECT_EQ(count(a, Rhythm::N, 0, a.size() - 3), 0);
  EXPECT_LE(count(a, Rhythm::N), 3);
}

// One odd interval at either end of a sinus record is not an AF episode. The centred windows
// repeat the end value (af_detect.hpp), so a record that ends on a premature beat (no interval
// after it to show the pause) or on a missed beat's long interval gave its last beat AFIB: an
// episode of one beat and one sample in rhythm.csv (SVDB 860's beats, `ecgpipe rhythm`), a false
// AF episode for EC57's episode +P.
TEST(AfDetect, OneOddIntervalAtARecordsEdgeIsNotAnEpisode) {
  for (const double odd : {0.45, 1.6})
    for (const bool at_start : {false, true})
      for (unsigned seed = 1; seed <= 5; ++seed) {
        std::mt19937 rng(seed);
        std::vector<double> rr = sinus(300, rng);
        if (at_start) rr.insert(rr.begin(), odd); else rr.push_back(odd);
        const auto beats = beats_of(rr);
        const auto r = ecgpipe::af_rhythm(beats);
        EXPECT_EQ(count(r, Rhythm::AFIB), 0) << "interval " << odd << (at_start ? " first" : " last") << ", seed " << seed;
        const auto episodes = ecgpipe::rhythm_episodes(beats, r, kFs, beats.back() + 1);
        EXPECT_EQ(episodes.size(), 1u);
      }
}

// A paroxysm of 40-60 beats (28-42 s) inside sinus rhythm: the 16-interval scale finds it (at
// least 80 % of its beats AF, at most 3 beats beside it), the 64-interval median alone does not
// turn for 40 (on the AF database, 48 of the 54 episodes the long scale alone missed were 3-61
// beats). Shorter than the 32-beat runs, a paroxysm is absorbed whatever the scale.
TEST(AfDetect, ShortParoxysmsAreFoundAtTheShortScale) {
  ecgpipe::AfOptions long_only;
  long_only.short_window = long_only.window;
  for (const int len : {40, 50, 60})
    for (unsigned seed = 1; seed <= 5; ++seed) {
      std::mt19937 rng(seed);
      const auto beats = beats_of(paroxysm(300, len, 300, rng));
      const auto r = ecgpipe::af_rhythm(beats);
      const std::size_t from = 300, to = 300 + static_cast<std::size_t>(len);
      EXPECT_GE(count(r, Rhythm::AFIB, from, to), 4 * len / 5) << len << " beats, seed " << seed;
      EXPECT_LE(count(r, Rhythm::AFIB) - count(r, Rhythm::AFIB, from, to), 3) << len << " beats, seed " << seed;
      if (len == 40) {
        EXPECT_EQ(count(ecgpipe::af_rhythm(beats, long_only), Rhythm::AFIB), 0) << len << " beats, seed " << seed;
      }
    }
}

// The ectopy that makes RR irregular without AF: isolated premature beats (short-long), and
// bigeminy and trigeminy, which are regular at lag 2 and 3.
TEST(AfDetect, EctopyIsNotAf) {
  std::mt19937 rng(2);
  std::vector<double> pvc = sinus(600, rng);
  for (std::size_t i = 5; i + 1 < pvc.size(); i += 7) {  // a premature beat every 7th, full compensation
    pvc[i] = 0.5;
    pvc[i + 1] = 1.1;
  }
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats_of(pvc)), Rhythm::AFIB), 0);
  std::vector<double> bigeminy, trigeminy;
  for (int i = 0; i < 300; ++i) bigeminy.push_back(i % 2 ? 1.05 : 0.55);
  for (int i = 0; i < 300; ++i) trigeminy.push_back(i % 3 == 2 ? 1.05 : (i % 3 == 1 ? 0.55 : 0.8));
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats_of(bigeminy)), Rhythm::AFIB), 0);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats_of(trigeminy)), Rhythm::AFIB), 0);
}

// Paroxysmal AF: 400 sinus beats, 400 in AF, 400 sinus. Three episodes, whose edges lie within
// half the window (32 intervals) of the truth: the median over 64 intervals turns at the middle.
TEST(AfDetect, ParoxysmalAfOnsetAndOffsetWithinHalfAWindow) {
  std::mt19937 rng(3);
  const auto beats = beats_of(paroxysm(400, 400, 400, rng));
  const auto episodes = ecgpipe::rhythm_episodes(beats, ecgpipe::af_rhythm(beats), kFs, beats.back() + 1);
  ASSERT_EQ(episodes.size(), 3u);
  EXPECT_EQ(episodes[1].rhythm, Rhythm::AFIB);
  EXPECT_NEAR(static_cast<double>(episodes[1].start_sample), static_cast<double>(beats[400]), 32 * 0.8 * kFs);
  EXPECT_NEAR(static_cast<double>(episodes[1].end_sample), static_cast<double>(beats[800]), 32 * 0.8 * kFs);
  const auto burden = ecgpipe::rhythm_burden(episodes, kFs);
  EXPECT_EQ(burden.afib_episodes, 1);
  EXPECT_NEAR(burden.afib_percent(), 100.0 * (400 * 0.7) / (400 * 0.8 * 2 + 400 * 0.7), 8.0);
  EXPECT_NEAR(burden.afib_mean_hr, 60.0 / 0.7, 6.0);  // AF's mean interval: 0.7 s
}

// A VT run inside AF is named (as MIT-BIH's 203 names 21), which splits AF's rows in rhythm.csv
// as the reference splits them; but the atria fibrillate through it: the Holter summary's AF
// episodes and longest episode count AF, VT, AF as one episode (203: 35 episodes, the longest
// 5:47, where a Holter reader sees one episode of the whole record). The burden stays AF's time.
TEST(AfDetect, AVtRunInsideAfDoesNotEndTheSummarysEpisode) {
  using ecgpipe::RhythmEpisode;
  const double fs = 100.0;
  const auto ep = [fs](double start_s, double end_s, Rhythm r) {
    return RhythmEpisode{static_cast<std::int64_t>(start_s * fs), static_cast<std::int64_t>(end_s * fs), r, 10, 90.0};
  };
  const std::vector<RhythmEpisode> episodes{ep(0, 30, Rhythm::N),     ep(30, 130, Rhythm::AFIB), ep(130, 132, Rhythm::VT),
                                            ep(132, 182, Rhythm::AFIB), ep(182, 212, Rhythm::N), ep(212, 232, Rhythm::AFIB),
                                            ep(232, 234, Rhythm::VT)};
  const auto burden = ecgpipe::rhythm_burden(episodes, fs);
  EXPECT_EQ(burden.afib_episodes, 2);
  EXPECT_DOUBLE_EQ(burden.longest_afib_s, 152.0);  // 30 s .. 182 s, its VT run inside
  EXPECT_DOUBLE_EQ(burden.afib_s, 170.0);          // AF's own time
  EXPECT_DOUBLE_EQ(burden.analysed_s, 234.0);
  // ... and the report's "AF onset" strips are of those episodes' starts, not of AF after VT.
  EXPECT_EQ(ecgpipe::af_episode_starts(episodes), (std::vector<std::size_t>{1, 5}));
}

// Beats in artefact are not AF: a detector's false beats in noise make the intervals as irregular
// as AF's (30 s at 0 dB SNR: every beat AFIB before), but what noise hides cannot be called.
// Their intervals are left out, and they are N before short runs are absorbed: a recording in
// artefact throughout has no AF, a sinus recording's noisy stretch neither, while a burst inside
// an AF episode (shorter than a run) leaves the episode whole.
TEST(AfDetect, BeatsInArtefactAreNotAf) {
  std::mt19937 rng(4);
  const auto noisy = beats_of(af(60, rng));  // what a detector finds in noise: irregular
  EXPECT_EQ(count(ecgpipe::af_rhythm(noisy), Rhythm::AFIB), 61);
  const std::vector<bool> all(noisy.size(), true);
  EXPECT_EQ(count(ecgpipe::af_rhythm(noisy, {}, {}, nullptr, &all), Rhythm::AFIB), 0);

  // Sinus, 80 beats of noise, sinus: no AF.
  const auto sinus_noise = beats_of(paroxysm(300, 80, 300, rng));
  std::vector<bool> burst(sinus_noise.size(), false);
  std::fill(burst.begin() + 300, burst.begin() + 381, true);
  EXPECT_GT(count(ecgpipe::af_rhythm(sinus_noise), Rhythm::AFIB), 60);
  EXPECT_EQ(count(ecgpipe::af_rhythm(sinus_noise, {}, {}, nullptr, &burst), Rhythm::AFIB), 0);

  // AF with a 20-beat burst inside: one episode over the burst.
  const auto af_burst = beats_of(af(400, rng));
  std::vector<bool> inside(af_burst.size(), false);
  std::fill(inside.begin() + 200, inside.begin() + 220, true);
  const auto r = ecgpipe::af_rhythm(af_burst, {}, {}, nullptr, &inside);
  EXPECT_EQ(count(r, Rhythm::AFIB, 0, r.size() - 3), static_cast<int>(r.size()) - 3);

  EXPECT_THROW(ecgpipe::af_rhythm(noisy, {}, {}, nullptr, &burst), ecgpipe::InternalError);  // one flag per beat
}

TEST(AfDetect, EdgesAndBadInput) {
  for (std::size_t n : {0u, 1u, 2u}) {
    const std::vector<std::int64_t> b(n == 0 ? 0 : n, 0);
    std::vector<std::int64_t> beats;
    for (std::size_t i = 0; i < n; ++i) beats.push_back(static_cast<std::int64_t>(100 * i));
    EXPECT_EQ(ecgpipe::rr_irregularity(beats), std::vector<float>(n, 0.0f));
  }
  EXPECT_EQ(ecgpipe::rr_irregularity({0, 100, 200}).size(), 3u);
  EXPECT_THROW(ecgpipe::rr_irregularity({0, 100, 100, 200}), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::rr_irregularity({0, 100, 50}), ecgpipe::InputError);
  // The rate does not matter: the measure is a ratio of intervals.
  std::mt19937 rng(4);
  const auto rr = af(100, rng);
  std::vector<std::int64_t> b1{0}, b2{0};
  for (double r : rr) {
    b1.push_back(b1.back() + std::lround(r * 250));
    b2.push_back(b2.back() + 2 * std::lround(r * 250));
  }
  EXPECT_EQ(ecgpipe::rr_irregularity(b1), ecgpipe::rr_irregularity(b2));
}

TEST(RhythmEpisodes, TileTheRecordAndWriteRhythmCsv) {
  const std::vector<std::int64_t> beats{0, 250, 500, 625, 875, 1000};
  const std::vector<Rhythm> r{Rhythm::N, Rhythm::N, Rhythm::AFIB, Rhythm::AFIB, Rhythm::AFIB, Rhythm::N};
  const auto e = ecgpipe::rhythm_episodes(beats, r, kFs, 1250);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].start_sample, 0);
  EXPECT_EQ(e[0].end_sample, 500);
  EXPECT_EQ(e[1].start_sample, 500);
  EXPECT_EQ(e[1].end_sample, 1000);
  EXPECT_EQ(e[1].beats, 3);
  EXPECT_DOUBLE_EQ(e[1].mean_hr, 60.0 * 250 * 2 / 375);  // 2 intervals over 375 samples
  EXPECT_EQ(e[2].end_sample, 1250);
  EXPECT_TRUE(std::isnan(e[2].mean_hr));
  std::ostringstream csv;
  ecgpipe::write_rhythm_csv(csv, e, kFs);
  EXPECT_EQ(csv.str(),
            "start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr\n"
            "0,500,0.000,2.000,N,2,60.0\n"
            "500,1000,2.000,4.000,AFIB,3,80.0\n"
            "1000,1250,4.000,5.000,N,1,\n");
  const auto b = ecgpipe::rhythm_burden(e, kFs);
  EXPECT_DOUBLE_EQ(b.analysed_s, 5.0);
  EXPECT_DOUBLE_EQ(b.afib_s, 2.0);
  EXPECT_DOUBLE_EQ(b.afib_percent(), 40.0);
  EXPECT_DOUBLE_EQ(b.afib_mean_hr, 80.0);
  EXPECT_TRUE(ecgpipe::rhythm_episodes({}, {}, kFs, 10).empty());
}

// A stretch of more than kMaxBeatGapS without a beat (lead off, a gap in a record or in a beat
// file) is in no episode: AF before and after 20 minutes of flat line was one 30-minute AF episode
// at 30 bpm, AF burden 99.8 % of a recording whose analysed time was 10 minutes.
TEST(RhythmEpisodes, AStretchWithoutBeatsIsInNoEpisode) {
  const std::int64_t gap = 600 * 250;  // 10 minutes
  const std::vector<std::int64_t> beats{0, 250, 500, 750, 750 + gap, 1000 + gap, 1250 + gap, 1500 + gap, 1750 + gap};
  const std::vector<Rhythm> r{Rhythm::AFIB, Rhythm::AFIB, Rhythm::AFIB, Rhythm::AFIB, Rhythm::AFIB,
                              Rhythm::AFIB, Rhythm::VT,   Rhythm::VT,   Rhythm::AFIB};
  const auto e = ecgpipe::rhythm_episodes(beats, r, kFs, 2000 + gap);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].start_sample, 0);
  EXPECT_EQ(e[0].end_sample, 750) << "ends at its last beat: the gap is no interval of it";
  EXPECT_EQ(e[0].beats, 4);
  EXPECT_DOUBLE_EQ(e[0].mean_hr, 60.0);
  EXPECT_EQ(e[1].start_sample, 750 + gap);
  EXPECT_EQ(e[1].end_sample, 1250 + gap);
  EXPECT_EQ(e[3].end_sample, 2000 + gap);
  std::ostringstream csv;
  ecgpipe::write_rhythm_csv(csv, e, kFs);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n', csv.str().find('\n') + 1) + 1),
            "start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr\n0,750,0.000,3.000,AFIB,4,60.0\n");
  const auto b = ecgpipe::rhythm_burden(e, kFs);
  EXPECT_DOUBLE_EQ(b.analysed_s, 3.0 + 2.0 + 2.0 + 1.0);
  EXPECT_DOUBLE_EQ(b.afib_s, 3.0 + 2.0 + 1.0);
  EXPECT_EQ(b.afib_episodes, 2) << "the AF after the gap is another episode; AF on across the VT run";
  EXPECT_DOUBLE_EQ(b.longest_afib_s, 5.0);
  EXPECT_DOUBLE_EQ(b.afib_mean_hr, 60.0);
  // A beat alone between two such stretches spans no time: in no episode (an AF episode of 0 s
  // would count in the burden and as a false episode in EC57's statistics).
  const std::vector<std::int64_t> lone{0, 250, 250 + gap, 250 + 2 * gap, 500 + 2 * gap};
  const auto l = ecgpipe::rhythm_episodes(lone, std::vector<Rhythm>(5, Rhythm::AFIB), kFs, 750 + 2 * gap);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].beats + l[1].beats, 4);
  EXPECT_EQ(ecgpipe::rhythm_burden(l, kFs).afib_episodes, 2);
  // At the bound: one episode.
  const std::int64_t bound = static_cast<std::int64_t>(ecgpipe::kMaxBeatGapS * kFs);
  const std::vector<std::int64_t> near{0, 250, 250 + bound, 500 + bound};
  EXPECT_EQ(ecgpipe::rhythm_episodes(near, std::vector<Rhythm>(4, Rhythm::AFIB), kFs, 750 + bound).size(), 1u);
}

// AF time and analysed time leave the signal's artefact out alike (quality.analysed_s): 203's AF
// burden read 95.8 % of its time from the first beat with artefact, 28:49 of AF beside the report's
// 29:16 analysed (98.5 %); the AF time itself held seconds of artefact.
TEST(RhythmEpisodes, AfBurdenLeavesArtefactOut) {
  const std::vector<std::int64_t> beats{0, 2500};
  const auto e = ecgpipe::rhythm_episodes(beats, {Rhythm::AFIB, Rhythm::N}, kFs, 5000);
  const std::vector<std::pair<std::int64_t, std::int64_t>> artefact{{500, 1000}, {4000, 4250}};
  const auto b = ecgpipe::rhythm_burden(e, kFs, artefact);
  EXPECT_DOUBLE_EQ(b.analysed_s, 20.0 - 2.0 - 1.0);
  EXPECT_DOUBLE_EQ(b.afib_s, 10.0 - 2.0);
  EXPECT_DOUBLE_EQ(b.longest_afib_s, 10.0) << "an episode spans its noise";
  EXPECT_DOUBLE_EQ(ecgpipe::rhythm_burden(e, kFs).afib_s, 10.0);
}

// EC57 / epicmp -a on hand-made overlaps (samples).
TEST(AfStats, Ec57EpisodeAndDurationStatistics) {
  using ecgpipe::Episode;
  // Reference AF [100,200) and [400,500); flutter [700,800).
  const std::vector<Episode> ref{{100, 200}, {400, 500}}, afl{{700, 800}};
  // The first split in two, a false episode, a partial overlap of the second, AF called in flutter.
  const std::vector<Episode> test{{100, 140}, {160, 200}, {250, 300}, {450, 550}, {700, 800}};
  const auto s = ecgpipe::compare_af(ref, afl, test);
  EXPECT_EQ(s.reference_episodes, 2);
  EXPECT_EQ(s.detected_reference_episodes, 2);
  EXPECT_EQ(s.reference_duration, 200);
  EXPECT_EQ(s.overlap_of_reference, 80 + 50);
  EXPECT_EQ(s.test_episodes, 4) << "the episode inside flutter is left out";
  EXPECT_EQ(s.true_test_episodes, 3);
  EXPECT_EQ(s.test_duration, 40 + 40 + 50 + 100);
  EXPECT_EQ(s.overlap_of_test, 40 + 40 + 50);
  EXPECT_DOUBLE_EQ(s.duration_se(), 0.65);
  EXPECT_DOUBLE_EQ(s.episode_ppv(), 0.75);
  const auto none = ecgpipe::compare_af({}, {}, {});
  EXPECT_TRUE(std::isnan(none.episode_se()) && std::isnan(none.duration_ppv()));
  auto gross = s;
  gross += s;
  EXPECT_EQ(gross.overlap_of_test, 2 * s.overlap_of_test);
}

// VT, SVTA, B, T and IVR: the same statistics against the reference's episodes of each name, no
// flutter exclusion; from a detections file's rhythm column through evaluate_read; gross in ms.
TEST(AfStats, EctopicRhythmEpisodesAgainstTheReference) {
  using ecgpipe::RhythmChange;
  using ecgpipe::RhythmEpisode;
  // Reference: T [1000, 2000), VT [3000, 3100); sinus elsewhere, the record ends at 6000.
  const std::vector<RhythmChange> ref{{0, "N"}, {1000, "T"}, {2000, "N"}, {3000, "VT"}, {3100, "N"}};
  // Detected: T [1100, 2100) (partial overlap), a false VT [5000, 5100).
  std::vector<RhythmEpisode> det(2);
  det[0].start_sample = 1100, det[0].end_sample = 2100, det[0].rhythm = Rhythm::T;
  det[1].start_sample = 5000, det[1].end_sample = 5100, det[1].rhythm = Rhythm::VT;
  const auto stats = ecgpipe::compare_ectopic_rhythms(ref, det, 6000);
  ASSERT_EQ(stats.size(), 5u);
  EXPECT_EQ(stats[0].rhythm, "VT");
  EXPECT_EQ(stats[3].rhythm, "T");
  EXPECT_EQ(stats[4].rhythm, "IVR");
  const auto& t = stats[3].stats;
  EXPECT_EQ(t.reference_episodes, 1);
  EXPECT_EQ(t.detected_reference_episodes, 1);
  EXPECT_EQ(t.true_test_episodes, 1);
  EXPECT_EQ(t.overlap_of_reference, 900);
  EXPECT_DOUBLE_EQ(t.duration_se(), 0.9);
  EXPECT_DOUBLE_EQ(t.duration_ppv(), 0.9);
  const auto& vt = stats[0].stats;
  EXPECT_EQ(vt.reference_episodes, 1);
  EXPECT_EQ(vt.detected_reference_episodes, 0);
  EXPECT_EQ(vt.test_episodes, 1);
  EXPECT_EQ(vt.true_test_episodes, 0);
  EXPECT_EQ(stats[1].stats.reference_episodes + stats[1].stats.test_episodes, 0) << "no SVTA anywhere";
  // A VT found inside the reference's ventricular flutter is left out, as AF inside flutter is.
  std::vector<RhythmChange> with_vfl = ref;
  with_vfl.push_back({4900, "VFL"});
  with_vfl.push_back({5200, "N"});
  const auto vfl = ecgpipe::compare_ectopic_rhythms(with_vfl, det, 6000);
  EXPECT_EQ(vfl[0].stats.test_episodes, 0);
  EXPECT_EQ(vfl[0].stats.reference_episodes, 1);
  // So is a slow V run (IVR) there: 207's ventricular flutter ends in its idioventricular rhythm.
  std::vector<RhythmEpisode> slow(1);
  slow[0].start_sample = 4950, slow[0].end_sample = 5150, slow[0].rhythm = Rhythm::IVR;
  const auto ivr = ecgpipe::compare_ectopic_rhythms(with_vfl, slow, 6000);
  EXPECT_EQ(ivr[4].rhythm, "IVR");
  EXPECT_EQ(ivr[4].stats.test_episodes, 0);
  EXPECT_EQ(ivr[4].stats.test_duration, 0);

  EXPECT_EQ(ecgpipe::rhythm_named("(T"), Rhythm::T);
  EXPECT_EQ(ecgpipe::rhythm_named(std::string("(AFIB\0", 6)), Rhythm::AFIB);
  EXPECT_EQ(ecgpipe::rhythm_named("SVTA"), Rhythm::SVTA);
  EXPECT_EQ(ecgpipe::rhythm_named("(IVR"), Rhythm::IVR);
  EXPECT_EQ(ecgpipe::rhythm_named("(SBR"), Rhythm::N);
  EXPECT_EQ(ecgpipe::rhythm_named("(AFL"), Rhythm::N);

  // A beats.csv rhythm column: beats every 100 samples at 250 Hz, T over beats 10-19.
  std::string csv = "r_peak,rhythm\n";
  for (int i = 0; i < 60; ++i) csv += std::to_string(100 * i + 50) + "," + (i >= 10 && i < 20 ? "T" : "N") + "\n";
  const auto d = ecgpipe::parse_detections(csv, "b.csv");
  ASSERT_EQ(d.rhythm.size(), 60u);
  EXPECT_EQ(d.rhythm[15], Rhythm::T);
  ecgpipe::ReferenceBeats r;
  for (int i = 0; i < 60; ++i) {
    r.samples.push_back(100 * i + 50);
    r.symbols.push_back('N');
  }
  r.has_rhythm = true;
  r.rhythm = {{0, "N"}, {1050, "T"}, {2050, "N"}};
  ecgpipe::EvalOptions eo;
  const auto rep = ecgpipe::evaluate_read(r, d, eo, "ref", "b.csv");
  ASSERT_TRUE(rep.has_af);
  EXPECT_EQ(rep.rhythms[3].stats.reference_episodes, 1);
  EXPECT_EQ(rep.rhythms[3].stats.detected_reference_episodes, 1);
  EXPECT_EQ(rep.rhythms[3].stats.true_test_episodes, 1);
  // Gross over two records, one at 250 Hz and one at 500 Hz: durations in ms add up.
  std::vector<ecgpipe::RecordEvaluation> recs(2);
  recs[0].record = "a";
  recs[0].report = rep;
  recs[1].record = "b";
  recs[1].report = rep;
  recs[1].report.fs = 2 * rep.fs;
  const auto g = ecgpipe::gross_evaluation(recs);
  EXPECT_EQ(g.rhythm_records, 2u);
  const auto& gt = g.rhythms[3].stats;
  EXPECT_EQ(gt.reference_episodes, 2);
  EXPECT_EQ(gt.reference_duration, std::llround(1000.0 * static_cast<double>(rep.rhythms[3].stats.reference_duration) / rep.fs) +
                                       std::llround(1000.0 * static_cast<double>(rep.rhythms[3].stats.reference_duration) / (2 * rep.fs)));
  EXPECT_NE(ecgpipe::gross_evaluation_text(g).find("T: episode Se 100.00% (2/2)"), std::string::npos) << ecgpipe::gross_evaluation_text(g);
}

TEST(AfStats, ReferenceRhythmFromAnnotationsAndCsv) {
  std::vector<ecgpipe::Annotation> ann(4);
  ann[0] = {10, 28, '+', 0, 0, 0, "(N"};
  ann[1] = {20, 1, 'N', 0, 0, 0, ""};
  ann[2] = {50, 28, '+', 0, 0, 0, std::string("(AFIB\0", 6)};
  ann[3] = {90, 28, '+', 0, 0, 0, "(AFL"};
  const auto changes = ecgpipe::rhythm_changes(ann);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[1].rhythm, "AFIB");
  const auto af = ecgpipe::episodes_of(changes, "AFIB", 200);
  ASSERT_EQ(af.size(), 1u);
  EXPECT_EQ(af[0].start, 50);
  EXPECT_EQ(af[0].end, 90);
  const auto afl = ecgpipe::episodes_of(changes, "AFL", 200);
  ASSERT_EQ(afl.size(), 1u);
  EXPECT_EQ(afl[0].end, 200) << "open at the end: runs to the record's end";
  const auto csv = ecgpipe::parse_rhythm_csv("sample,rhythm\n30,(N\n102584,(AFIB\n", "r.csv");
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_EQ(csv[1].sample, 102584);
  EXPECT_EQ(csv[1].rhythm, "AFIB");
  const auto own = ecgpipe::parse_rhythm_csv("start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr\n0,5,0,1,AFIB,2,60\n", "o.csv");
  EXPECT_EQ(own.at(0).rhythm, "AFIB");
  EXPECT_THROW(ecgpipe::parse_rhythm_csv("sample,x\n1,2\n", "m.csv"), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::parse_rhythm_csv("sample,rhythm\n10,(N\n5,(AFIB\n", "m.csv"), ecgpipe::InputError);
  EXPECT_THROW(ecgpipe::parse_rhythm_csv("sample,rhythm\n-1,(N\n", "m.csv"), ecgpipe::InputError);
}

// A reference written as episodes (ecgpipe's rhythm.csv shape) may list only the AF: each row
// ends at its end_sample, and what no row covers is "N". Read as changes at start_sample alone,
// "100,200,AFIB" was AF from 100 to the record's end (found on a hostile tour of `rhythm
// --reference`); a row that ends before it starts, or starts inside the one before, is refused.
TEST(AfStats, AnEpisodeListEndsEachEpisodeAtItsEndSample) {
  const char* kHeader = "start_sample,end_sample,rhythm\n";
  const auto changes = ecgpipe::parse_rhythm_csv(std::string(kHeader) + "100,200,AFIB\n300,400,(AFL\n400,450,AFIB\n", "e.csv");
  ASSERT_EQ(changes.size(), 5u);
  const std::vector<std::pair<std::int64_t, std::string>> want{{100, "AFIB"}, {200, "N"}, {300, "AFL"}, {400, "AFIB"}, {450, "N"}};
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(changes[k].sample, want[k].first) << k;
    EXPECT_EQ(changes[k].rhythm, want[k].second) << k;
  }
  const auto af = ecgpipe::episodes_of(changes, "AFIB", 1000);
  ASSERT_EQ(af.size(), 2u);
  EXPECT_EQ(af[0].start, 100);
  EXPECT_EQ(af[0].end, 200);
  EXPECT_EQ(af[1].start, 400);
  EXPECT_EQ(af[1].end, 450);
  // ecgpipe's own rhythm.csv tiles the record: the same changes as before, and N at its end.
  const auto own = ecgpipe::parse_rhythm_csv(
      "start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr\n0,50,0,0.2,N,2,60\n50,90,0.2,0.36,AFIB,3,90\n", "o.csv");
  ASSERT_EQ(own.size(), 3u);
  EXPECT_EQ(own[1].sample, 50);
  EXPECT_EQ(own[2].sample, 90);
  EXPECT_EQ(own[2].rhythm, "N");
  const auto refuses = [&](const std::string& rows, const std::string& says) {
    try {
      ecgpipe::parse_rhythm_csv(kHeader + rows, "bad.csv");
      ADD_FAILURE() << rows;
    } catch (const ecgpipe::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refuses("40949,17272,AFIB\n", "bad.csv:2: it ends (17272) before it starts");
  refuses("100,200,AFIB\n150,300,AFIB\n", "bad.csv:3: it starts inside the episode before (to 200)");
  refuses("100,x,AFIB\n", "bad.csv:2: 'x' is not a sample index");
}

// Rhythm names outside MIT-BIH's and the AF databases' are listed once each, in order, so that a
// typo or another convention is said rather than counted as neither AF nor flutter.
TEST(AfStats, UnknownRhythmNamesAreListedOnce) {
  using ecgpipe::RhythmChange;
  const std::vector<RhythmChange> known{{0, "N"}, {5, "AFIB"}, {9, "AFL"}, {12, "SVTA"}, {20, "VT"}, {30, "VFL"}, {40, "B"},
                                        {50, "T"}, {60, "SBR"}, {70, "J"}, {80, "NOD"}, {90, "BII"}, {95, "IVR"},
                                        {97, "AB"}, {98, "P"}, {99, "PREX"}, {100, "VF"}};
  EXPECT_TRUE(ecgpipe::unknown_rhythm_names(known).empty());
  EXPECT_TRUE(ecgpipe::unknown_rhythm_names({}).empty());
  const std::vector<RhythmChange> odd{{0, "N"}, {5, "AF"}, {9, "afib"}, {12, "AF"}, {20, "XYZ"}};
  EXPECT_EQ(ecgpipe::unknown_rhythm_names(odd), (std::vector<std::string>{"AF", "afib", "XYZ"}));
}

}  // namespace

namespace {

// Appends `row` scaled to unit norm, as beat_features gives each beat's P part.
void push_unit_row(std::vector<float>& parts, std::vector<float> row) {
  float norm = 0.0f;
  for (const float v : row) norm += v * v;
  for (const float v : row) parts.push_back(v / std::sqrt(norm));
}

// A fibrillatory wave's P part: independent normal values (unit rows' pairs then ~N(0, 1/n)).
std::vector<float> random_row(std::size_t n, std::mt19937& rng) {
  std::normal_distribution<float> gauss;
  std::vector<float> row(n);
  for (float& v : row) v = gauss(rng);
  return row;
}

// The atria of `beats` in fibrillation: no repeated P wave, none like the median beat's, and each
// beat's P part a random unit row (pairs ~N(0, 1/16)).
ecgpipe::AtrialActivity fibrillating_atria(std::size_t beats, std::mt19937& rng) {
  ecgpipe::AtrialActivity atrial;
  atrial.p_consistency.assign(beats, 0.05f);
  atrial.p_context.assign(beats, 0.5f);
  atrial.p_length = 16;
  for (std::size_t i = 0; i < beats; ++i) push_unit_row(atrial.p_parts, random_row(atrial.p_length, rng));
  return atrial;
}

// The signal's P waves: beats whose atria are organised are not AF, whatever their intervals.
TEST(AfDetect, OrganisedPWavesVetoAf) {
  std::mt19937 rng(5);
  const auto beats = beats_of(af(300, rng));
  ecgpipe::AtrialActivity atrial = fibrillating_atria(beats.size(), rng);
  EXPECT_GE(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 290) << "no P waves: AF";
  atrial.p_consistency.assign(beats.size(), 0.8f);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 0) << "repeated P waves: not AF";
  atrial.p_consistency.assign(beats.size(), 0.05f);
  atrial.p_context.assign(beats.size(), 0.95f);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 0) << "the recording's own P wave: not AF";
  atrial.p_context.assign(beats.size(), 0.5f);
  const std::vector<float> random_parts = atrial.p_parts;
  for (std::size_t i = 0; i < atrial.p_parts.size(); ++i) atrial.p_parts[i] = i % 2 == 0 ? 0.25f : -0.25f;
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 0) << "the same P wave after the longest cycles: not AF";
  atrial.p_parts.pop_back();
  EXPECT_THROW(ecgpipe::af_rhythm(beats, {}, {}, &atrial), ecgpipe::InternalError);
  atrial.p_parts = random_parts;
  atrial.p_context.pop_back();
  EXPECT_THROW(ecgpipe::af_rhythm(beats, {}, {}, &atrial), ecgpipe::InternalError);
}

// A second lead's P waves (SVDB's ECG2 beside an ECG1 whose noise hides them) veto AF as the
// primary's do; without a second lead (empty measures) the primary alone decides; a second lead
// in fibrillation vetoes nothing.
TEST(AfDetect, ASecondLeadsPWavesVetoAfWhereThePrimaryShowsNone) {
  std::mt19937 rng(5);
  const auto beats = beats_of(af(300, rng));
  ecgpipe::AtrialActivity atrial = fibrillating_atria(beats.size(), rng);
  const int alone = count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB);
  EXPECT_GE(alone, 290) << "the primary shows no P waves: AF";
  atrial.lead2_p_consistency.assign(beats.size(), 0.05f);
  atrial.lead2_p_context.assign(beats.size(), 0.5f);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), alone) << "no P waves in either lead";
  atrial.lead2_p_consistency.assign(beats.size(), 0.8f);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 0) << "repeated P waves in the second lead";
  atrial.lead2_p_consistency.assign(beats.size(), 0.05f);
  atrial.lead2_p_context.assign(beats.size(), 0.95f);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 0) << "the second lead's own P wave";
  // The thresholds are the primary's: just under them, AF.
  atrial.lead2_p_consistency.assign(beats.size(), 0.39f);
  atrial.lead2_p_context.assign(beats.size(), 0.89f);
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), alone);
  atrial.lead2_p_context.pop_back();  // one lead's measures for every beat, or none
  EXPECT_THROW(ecgpipe::af_rhythm(beats, {}, {}, &atrial), ecgpipe::InternalError);
}

// The long-cycle check reads either lead's P parts: where the primary's are fibrillatory-like
// (noise hiding the P waves) and the second lead's repeat, the beats are not AF; a second lead in
// fibrillation too leaves them AF; a second lead's parts for some beats only are a caller's bug.
TEST(AfDetect, ASecondLeadsLongCyclePWavesVetoAf) {
  std::mt19937 rng(5);
  const auto beats = beats_of(af(300, rng));
  ecgpipe::AtrialActivity atrial = fibrillating_atria(beats.size(), rng);
  const int alone = count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB);
  EXPECT_GE(alone, 290);
  atrial.lead2_p_consistency.assign(beats.size(), 0.05f);  // its per-beat measures see nothing
  atrial.lead2_p_context.assign(beats.size(), 0.5f);
  for (std::size_t i = 0; i < beats.size(); ++i) push_unit_row(atrial.lead2_p_parts, random_row(atrial.p_length, rng));
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), alone) << "both leads fibrillating";
  for (std::size_t i = 0; i < atrial.lead2_p_parts.size(); ++i) atrial.lead2_p_parts[i] = i % 2 == 0 ? 0.25f : -0.25f;
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), 0) << "the second lead's P wave repeats";
  atrial.lead2_p_parts.pop_back();
  EXPECT_THROW(ecgpipe::af_rhythm(beats, {}, {}, &atrial), ecgpipe::InternalError);
  atrial.lead2_p_parts.clear();  // none: the primary alone
  EXPECT_EQ(count(ecgpipe::af_rhythm(beats, {}, {}, &atrial), Rhythm::AFIB), alone);
}

// A paroxysm of 60 AF beats between slow sinus stretches (48 bpm, as MIT-BIH 201's 37-s episode
// at 8 min): the longest cycles within 32 beats of the paroxysm's beats are the sinus ones, with
// their repeated P wave (the median of 12 pairs, near either end of the paroxysm most of them
// sinus: it would shrink under min_run and go), so the long-cycle measure looks only inside the
// candidate run; there the longest cycles end in fibrillatory waves.
TEST(AfDetect, ShortParoxysmBesideSlowSinusStaysAf) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> response(0.35, 0.85);
  std::vector<double> rr;
  for (int i = 0; i < 200; ++i) rr.push_back(1.25 * (1.0 + 0.02 * std::sin(i * 0.3)));
  for (int i = 0; i < 60; ++i) rr.push_back(response(rng));
  for (int i = 0; i < 200; ++i) rr.push_back(1.25 * (1.0 + 0.02 * std::sin(i * 0.3)));
  const auto beats = beats_of(rr);
  ecgpipe::AtrialActivity atrial;
  atrial.p_length = 16;
  std::vector<float> sinus_p(atrial.p_length);
  for (std::size_t k = 0; k < sinus_p.size(); ++k) sinus_p[k] = k % 2 == 0 ? 1.0f : -1.0f;
  for (std::size_t i = 0; i < beats.size(); ++i) {
    const bool in_af = i > 200 && i <= 260;
    atrial.p_consistency.push_back(in_af ? 0.05f : 0.2f);  // below the bound: only the long cycles tell sinus
    atrial.p_context.push_back(0.5f);
    push_unit_row(atrial.p_parts, in_af ? random_row(atrial.p_length, rng) : sinus_p);
  }
  const auto rhythm = ecgpipe::af_rhythm(beats, {}, {}, &atrial);
  std::size_t af_inside = 0;
  for (std::size_t i = 0; i < rhythm.size(); ++i) {
    const bool in_af = i > 200 && i <= 260;
    if (rhythm[i] == Rhythm::AFIB) {
      EXPECT_TRUE(i > 190 && i <= 270) << "AF at beat " << i;
    }
    af_inside += in_af && rhythm[i] == Rhythm::AFIB;
  }
  EXPECT_GE(af_inside, 50u);
}

// The P-wave consistency of beat_features on synth's paroxysmal AF (truth beats): fibrillatory
// waves ~0, sinus P waves well above the 0.4 bound.
TEST(AfDetect, PWaveConsistencyTellsFibrillatoryWavesFromPWaves) {
  ecgpipe::SynthOptions o;
  o.scenario = ecgpipe::SynthScenario::paroxysmal_af;
  o.samples = 250 * 900;
  o.seed = 11;
  const auto rec = ecgpipe::synthesize(o);
  std::vector<float> signal(rec.signal.begin(), rec.signal.end());
  std::vector<std::int64_t> r;
  for (const auto& b : rec.beats) r.push_back(b.sample);
  ecgpipe::AtrialActivity atrial;
  const auto features = ecgpipe::beat_features(signal, r, o.fs, 1, &atrial);
  ASSERT_EQ(atrial.p_consistency.size(), r.size());
  ASSERT_EQ(atrial.p_context.size(), r.size());
  EXPECT_EQ(atrial.p_context[7], features[7 * ecgpipe::kBeatFeatureCount + ecgpipe::kPWaveContext]);
  // Each beat's truth rhythm; the 32 beats next to a change see both rhythms in their window.
  std::vector<int> in_af(r.size(), 0);
  std::size_t c = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    while (c + 1 < rec.rhythm.size() && rec.rhythm[c + 1].sample <= r[i]) ++c;
    in_af[i] = rec.rhythm[c].rhythm == "AFIB";
  }
  std::vector<float> af_values, sinus_values;
  for (std::size_t i = 32; i + 32 < r.size(); ++i) {
    bool steady = true;
    for (std::size_t k = i - 32; k <= i + 32; ++k) steady = steady && in_af[k] == in_af[i];
    if (steady) (in_af[i] ? af_values : sinus_values).push_back(atrial.p_consistency[i]);
  }
  ASSERT_GT(af_values.size(), 50u);
  ASSERT_GT(sinus_values.size(), 50u);
  EXPECT_LT(*std::max_element(af_values.begin(), af_values.end()), 0.25f);
  EXPECT_GT(*std::min_element(sinus_values.begin(), sinus_values.end()), 0.4f);
}

// APCs in most cycles (synth apc-bradycardia, truth beats): beat-to-beat P-wave consistency is as
// low as AF's (sinus and ectopic P waves alternate, half the APCs' hidden) and the median beat's P
// wave is not the sinus one, but the beats after the pauses repeat the sinus P wave: no AF. Without
// the P parts (an AtrialActivity of the two measures alone) the whole recording was AF.
TEST(AfDetect, LongCyclePWavesTellApcDominatedRhythmFromAf) {
  for (const std::uint64_t seed : {1, 2, 3}) {
    ecgpipe::SynthOptions o;
    o.scenario = ecgpipe::SynthScenario::apc_bradycardia;
    o.heart_rate = ecgpipe::kApcBradycardiaHeartRate;
    o.samples = 250 * 600;
    o.seed = seed;
    const auto rec = ecgpipe::synthesize(o);
    const std::vector<float> signal(rec.signal.begin(), rec.signal.end());
    std::vector<std::int64_t> r;
    for (const auto& b : rec.beats) r.push_back(b.sample);
    ecgpipe::AtrialActivity atrial;
    ecgpipe::beat_features(signal, r, o.fs, 2, &atrial);
    EXPECT_LT(*std::max_element(atrial.p_consistency.begin(), atrial.p_consistency.end()), 0.2f) << "seed " << seed;
    EXPECT_EQ(count(ecgpipe::af_rhythm(r, {}, {}, &atrial), Rhythm::AFIB), 0) << "seed " << seed;
    ecgpipe::AtrialActivity two_measures = atrial;
    two_measures.p_parts.clear();
    two_measures.p_length = 0;
    EXPECT_GT(count(ecgpipe::af_rhythm(r, {}, {}, &two_measures), Rhythm::AFIB), static_cast<int>(r.size() / 2)) << "seed " << seed;
    ecgpipe::AtrialActivity one_thread;
    ecgpipe::beat_features(signal, r, o.fs, 1, &one_thread);
    EXPECT_EQ(one_thread.p_parts, atrial.p_parts) << "any thread count, the same values";
  }
}

// The P parts: R - 0.25 s .. R - 0.08 s (43 samples at 250 Hz: 63 - 20, halves rounded up), each
// of unit norm and zero mean, a flat one all zero; none for no beat; af_rhythm takes 0 to 3 beats
// with them.
TEST(AfDetect, PPartsAreUnitRowsAtAnyBeatCount) {
  std::vector<float> x(2000, 1.0f);
  for (std::size_t k = 0; k < 1000; ++k) x[k] = static_cast<float>(std::sin(0.05 * static_cast<double>(k % 250)));
  for (const std::size_t beats : {0, 1, 2, 3}) {
    std::vector<std::int64_t> r;
    for (std::size_t i = 0; i < beats; ++i) r.push_back(300 + 500 * static_cast<std::int64_t>(i));
    ecgpipe::AtrialActivity atrial;
    ecgpipe::beat_features(x, r, 250.0, 1, &atrial);
    EXPECT_EQ(atrial.p_length, beats == 0 ? 0u : 43u);
    ASSERT_EQ(atrial.p_parts.size(), beats * 43);
    for (std::size_t i = 0; i < beats; ++i) {
      double sum = 0.0, norm = 0.0;
      for (std::size_t k = 0; k < 43; ++k) sum += atrial.p_parts[i * 43 + k], norm += atrial.p_parts[i * 43 + k] * atrial.p_parts[i * 43 + k];
      EXPECT_NEAR(sum, 0.0, 1e-5) << "beat " << i;
      EXPECT_NEAR(norm, i < 2 ? 1.0 : 0.0, 1e-5) << "beat " << i << " (beat 2 at 1300: flat signal)";
    }
    const auto rhythm = ecgpipe::af_rhythm(r, {}, {}, &atrial);
    EXPECT_EQ(count(rhythm, Rhythm::N), static_cast<int>(beats));
  }
}

}  // namespace

namespace {

// Beats with classes, each `rr` samples after the one before.
struct ClassedBeats {
  std::vector<std::int64_t> peaks;
  std::vector<char> cls;
  void add(char c, std::int64_t rr) {
    peaks.push_back((peaks.empty() ? 0 : peaks.back()) + rr);
    cls.push_back(c);
  }
};

// VT, SVTA and bigeminy from the classes (the Holter summary's runs and episodes); over AF only VT.
TEST(EctopicRhythm, RunsAndBigeminyAreNamedOutsideAf) {
  // 250 Hz. Beats every 200 samples (75 bpm) except the fast runs (every 100: 150 bpm) and a slow
  // V run (every 300: 50 bpm).
  ClassedBeats beats;
  const std::vector<std::int64_t>& peaks = beats.peaks;
  const std::vector<char>& cls = beats.cls;
  const auto add = [&beats](char c, std::int64_t rr) { beats.add(c, rr); };
  for (int i = 0; i < 5; ++i) add('N', 200);
  for (int i = 0; i < 4; ++i) add('V', 100);  // beats 5-8: VT
  for (int i = 0; i < 5; ++i) add('N', 200);
  for (int i = 0; i < 3; ++i) add('S', 100);  // beats 14-16: SVTA
  for (int i = 0; i < 5; ++i) add('N', 200);
  for (int i = 0; i < 4; ++i) {  // beats 22-29: bigeminy, 4 cycles
    add('N', 200);
    add('V', 150);
  }
  for (int i = 0; i < 5; ++i) add('N', 200);
  for (int i = 0; i < 3; ++i) add('V', 300);  // beats 35-37: a slow V run: not VT
  for (int i = 0; i < 5; ++i) add('N', 200);
  for (int i = 0; i < 3; ++i) add('V', 100);  // beats 43-45: a fast V run inside AF: VT, as MIT-BIH marks it
  for (int i = 0; i < 5; ++i) add('N', 200);
  const auto h = ecgpipe::holter_summary(peaks, 250.0, cls, 0.0);
  std::vector<Rhythm> r(peaks.size(), Rhythm::N);
  for (std::size_t i = 41; i < 48; ++i) r[i] = Rhythm::AFIB;
  ecgpipe::name_ectopic_rhythms(h, r);
  auto span = [&](std::size_t a, std::size_t b) { return std::vector<Rhythm>(r.begin() + static_cast<long>(a), r.begin() + static_cast<long>(b)); };
  EXPECT_EQ(span(5, 9), std::vector<Rhythm>(4, Rhythm::VT));
  EXPECT_EQ(r[4], Rhythm::N);
  EXPECT_EQ(r[9], Rhythm::N);
  EXPECT_EQ(span(14, 17), std::vector<Rhythm>(3, Rhythm::SVTA));
  EXPECT_EQ(span(22, 30), std::vector<Rhythm>(8, Rhythm::B));
  EXPECT_EQ(span(35, 38), std::vector<Rhythm>(3, Rhythm::IVR)) << "50 bpm: idioventricular rhythm (MIT-BIH's (IVR), not VT";
  EXPECT_EQ(r[34], Rhythm::N);
  EXPECT_EQ(r[38], Rhythm::N);
  EXPECT_EQ(span(41, 43), std::vector<Rhythm>(2, Rhythm::AFIB));
  EXPECT_EQ(span(43, 46), std::vector<Rhythm>(3, Rhythm::VT)) << "VT inside AF is VT (MIT-BIH 203: 21 such episodes)";
  EXPECT_EQ(span(46, 48), std::vector<Rhythm>(2, Rhythm::AFIB));
  // An S run inside AF is AF's irregular response, and bigeminy there is not told: both stay AF.
  ClassedBeats in_af;
  for (int i = 0; i < 5; ++i) in_af.add('N', 200);
  for (int i = 0; i < 3; ++i) in_af.add('S', 100);
  for (int i = 0; i < 4; ++i) {
    in_af.add('N', 200);
    in_af.add('V', 150);
  }
  for (int i = 0; i < 5; ++i) in_af.add('N', 200);
  // ... and so does a slow V run: in AF's irregular response a slow run of wide beats is more
  // likely aberrant conduction than an idioventricular focus (docs/accuracy.md, aberrant beats).
  for (int i = 0; i < 3; ++i) in_af.add('V', 300);
  for (int i = 0; i < 5; ++i) in_af.add('N', 200);
  std::vector<Rhythm> all_af(in_af.peaks.size(), Rhythm::AFIB);
  ecgpipe::name_ectopic_rhythms(ecgpipe::holter_summary(in_af.peaks, 250.0, in_af.cls, 0.0), all_af);
  EXPECT_EQ(all_af, std::vector<Rhythm>(in_af.peaks.size(), Rhythm::AFIB));
  EXPECT_STREQ(ecgpipe::rhythm_name(Rhythm::VT), "VT");
  EXPECT_STREQ(ecgpipe::rhythm_name(Rhythm::SVTA), "SVTA");
  EXPECT_STREQ(ecgpipe::rhythm_name(Rhythm::B), "B");
  EXPECT_STREQ(ecgpipe::rhythm_name(Rhythm::IVR), "IVR");
  std::vector<Rhythm> wrong(3, Rhythm::N);
  EXPECT_THROW(ecgpipe::name_ectopic_rhythms(h, wrong), ecgpipe::InternalError);
}

TEST(EctopicRhythm, VentricularTrigeminyIsNamedT) {
  // 250 Hz, 75 bpm; V beats early (150 samples) in N N V cycles: four cycles, then sinus.
  ClassedBeats beats;
  const std::vector<std::int64_t>& peaks = beats.peaks;
  const std::vector<char>& cls = beats.cls;
  const auto add = [&beats](char c, std::int64_t rr) { beats.add(c, rr); };
  for (int i = 0; i < 5; ++i) add('N', 200);
  for (int i = 0; i < 4; ++i) {  // beats 5-16
    add('N', 200);
    add('N', 200);
    add('V', 150);
  }
  for (int i = 0; i < 5; ++i) add('N', 200);
  const auto h = ecgpipe::holter_summary(peaks, 250.0, cls, 0.0);
  std::vector<Rhythm> r(peaks.size(), Rhythm::N);
  ecgpipe::name_ectopic_rhythms(h, r);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], i >= 5 && i < 17 ? Rhythm::T : Rhythm::N) << i;
  EXPECT_STREQ(ecgpipe::rhythm_name(Rhythm::T), "T");
}

}  // namespace
