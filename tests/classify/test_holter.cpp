// The Holter summary: rate, ectopy counts, couplets vs runs vs bigeminy, pauses (issue 10).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/classify/holter_json.hpp"  // internal: holter_json
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/report/report.hpp"

namespace {

using ecgpipe::holter_summary;
using ecgpipe::HolterSummary;

constexpr double kFs = 100.0;

// Beats every `rr_samples` at kFs, with the given classes (a string, one letter per beat).
std::vector<std::int64_t> regular(std::size_t n, std::int64_t rr_samples = 100, std::int64_t first = 50) {
  std::vector<std::int64_t> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(first + rr_samples * static_cast<std::int64_t>(i));
  return v;
}
std::vector<char> cls(const std::string& s) { return {s.begin(), s.end()}; }

TEST(Holter, RegularRhythmRates) {
  // 60 bpm (RR 1 s) for 3 minutes.
  const HolterSummary s = holter_summary(regular(180), kFs, {}, 180.0);
  EXPECT_FALSE(s.has_classes);
  EXPECT_DOUBLE_EQ(s.hr_mean, 60.0);
  EXPECT_DOUBLE_EQ(s.hr_min, 60.0);
  EXPECT_DOUBLE_EQ(s.hr_max, 60.0);
  ASSERT_EQ(s.trend.size(), 3u);  // exactly 3 minutes: no 4th
  for (const auto& m : s.trend) {
    EXPECT_EQ(m.beats, 60);
    EXPECT_DOUBLE_EQ(m.bpm, 60.0);
  }
  EXPECT_DOUBLE_EQ(s.longest_pause_s, 1.0);
  EXPECT_EQ(s.pauses, 0);
}

// Min/max over 8 RR intervals: one premature beat moves them only by a fraction (a single RR
// would give 100 bpm), a run of 8 fast beats makes the maximum.
TEST(Holter, MinMaxAreEightBeatAverages) {
  std::vector<std::int64_t> p = regular(40);
  p[20] -= 40;  // one premature beat: RR 0.6 s then 1.4 s
  HolterSummary s = holter_summary(p, kFs, {}, 0.0);
  EXPECT_DOUBLE_EQ(s.hr_max, 60.0 * 8 / 7.6);  // the window ending at the 0.6 s RR
  EXPECT_DOUBLE_EQ(s.hr_min, 60.0 * 8 / 8.4);  // the window starting at the 1.4 s RR
  // Nine beats at RR 0.5 s (120 bpm) in the middle.
  std::vector<std::int64_t> q = regular(20);
  for (int i = 1; i <= 8; ++i) q.push_back(q.back() + 50);
  const std::int64_t fast_start = q[19];
  for (int i = 1; i <= 20; ++i) q.push_back(q.back() + 100);
  s = holter_summary(q, kFs, {}, 0.0);
  EXPECT_DOUBLE_EQ(s.hr_max, 120.0);
  EXPECT_DOUBLE_EQ(s.hr_max_time_s, static_cast<double>(fast_start) / kFs);
  EXPECT_DOUBLE_EQ(s.hr_min, 60.0);
  EXPECT_DOUBLE_EQ(s.duration_s, static_cast<double>(q.back()) / kFs);  // duration 0: up to the last beat
}

TEST(Holter, CoupletRunAndBigeminyAreTold) {
  //                                  couplet    run of 3        run of 5       bigeminy (3 cycles)   single
  const std::string c = "NNNNN" "VV" "NNN" "VVV" "NNN" "SSSSS" "NNN" "NVNVNV" "NNN" "V" "NNNN";
  const HolterSummary s = holter_summary(regular(c.size()), kFs, cls(c), 0.0);
  ASSERT_TRUE(s.has_classes);
  EXPECT_EQ(s.veb, 2 + 3 + 3 + 1);
  EXPECT_EQ(s.sveb, 5);
  EXPECT_EQ(s.v_couplets, 1);
  EXPECT_EQ(s.s_couplets, 0);
  EXPECT_EQ(s.v_runs, 1);
  EXPECT_EQ(s.s_runs, 1);
  EXPECT_EQ(s.longest_v_run, 3u);
  EXPECT_EQ(s.longest_s_run, 5u);
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].cls, 'V');
  EXPECT_EQ(s.runs[0].first_beat, 10u);
  EXPECT_EQ(s.runs[0].beats, 3u);
  EXPECT_DOUBLE_EQ(s.runs[0].rate_bpm, 60.0);
  EXPECT_EQ(s.runs[1].cls, 'S');
  ASSERT_EQ(s.bigeminy.size(), 1u);
  EXPECT_EQ(s.v_bigeminy, 1);
  EXPECT_EQ(s.bigeminy[0].cls, 'V');
  EXPECT_EQ(s.bigeminy[0].first_beat, 24u);
  EXPECT_EQ(s.bigeminy[0].cycles, 3u);
  EXPECT_DOUBLE_EQ(s.bigeminy[0].end_s - s.bigeminy[0].start_s, 5.0);  // N at 0 s .. last V at 5 s
  EXPECT_EQ(s.class_counts[0], static_cast<std::int64_t>(c.size()) - 14);
  ASSERT_EQ(s.hours.size(), 1u);
  EXPECT_EQ(s.hours[0].veb, 9);
  EXPECT_EQ(s.hours[0].sveb, 5);
  // The ectopy alone is the summary's, with a beat in artefact Q in both; and it makes no table of
  // the time the beats span (a beat a million years on).
  std::vector<bool> artefact(c.size(), false);
  artefact[11] = true;  // inside the run of 3: a couplet and a Q
  const HolterSummary whole = holter_summary(regular(c.size()), kFs, cls(c), 0.0, {}, artefact);
  const HolterSummary e = ecgpipe::holter_ectopy(regular(c.size()), kFs, cls(c), {}, artefact);
  EXPECT_EQ(e.beats, whole.beats);
  EXPECT_EQ(e.class_counts, whole.class_counts);
  EXPECT_EQ(e.veb, whole.veb);
  EXPECT_EQ(e.v_couplets, whole.v_couplets);
  EXPECT_EQ(e.v_couplets, 1);  // VV; V (Q) V is none
  EXPECT_EQ(e.runs.size(), whole.runs.size());
  EXPECT_EQ(e.bigeminy.size(), whole.bigeminy.size());
  EXPECT_TRUE(e.hours.empty());
  EXPECT_TRUE(e.trend.empty());
  std::vector<std::int64_t> far = regular(c.size());
  far.back() = 9'000'000'000'000'000;
  EXPECT_EQ(ecgpipe::holter_ectopy(far, kFs, cls(c)).runs.size(), 2u);
}

// Ectopic beats are one couplet or run only while they follow each other within
// kMaxEctopicRunRrS (3 s, 20 bpm, under the slowest idioventricular rhythm): V beats minutes apart
// (a lead-off stretch without beats between them, asystole) were a "run of 3 at 0.1 bpm", which
// `rhythm` then named a 20-minute IVR episode. 207's idioventricular rhythm starts at 24 bpm.
TEST(Holter, EctopicBeatsAGapApartAreNoRun) {
  std::vector<std::int64_t> peaks = regular(10);
  const auto then = [&peaks](std::int64_t rr) { peaks.push_back(peaks.back() + rr); };
  for (int i = 0; i < 3; ++i) then(600 * 100);  // 3 V, 10 minutes apart
  for (int i = 0; i < 5; ++i) then(100);
  for (int i = 0; i < 3; ++i) then(250);        // 3 V at 24 bpm (2.5 s)
  for (int i = 0; i < 5; ++i) then(100);
  then(400);                                     // 2 V, 4 s apart: no couplet
  then(400);
  for (int i = 0; i < 5; ++i) then(100);
  then(300);                                     // 3 V at exactly 3 s: a run (20 bpm)
  then(300);
  then(300);
  for (int i = 0; i < 5; ++i) then(100);
  const std::string c = std::string(10, 'N') + "VVV" + "NNNNN" + "VVV" + "NNNNN" + "VV" + "NNNNN" + "VVV" + "NNNNN";
  ASSERT_EQ(c.size(), peaks.size());
  const HolterSummary s = holter_summary(peaks, kFs, cls(c), 0.0);
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_EQ(s.runs[0].first_beat, 18u);
  EXPECT_EQ(s.runs[0].beats, 3u);
  EXPECT_DOUBLE_EQ(s.runs[0].rate_bpm, 24.0);
  EXPECT_EQ(s.runs[1].first_beat, 33u);
  EXPECT_DOUBLE_EQ(s.runs[1].rate_bpm, 20.0);
  EXPECT_EQ(s.v_runs, 2);
  EXPECT_EQ(s.v_couplets, 0);
  EXPECT_EQ(s.longest_v_run, 3u);
  EXPECT_EQ(s.veb, 11);
}

// So are bigeminy and trigeminy: cycles minutes apart are no episode (four N-V pairs five minutes
// apart were "bigeminy, 903 s at 0.5 bpm"); a gap inside a stretch ends its episode there.
TEST(Holter, CyclesAGapApartAreNoBigeminy) {
  std::vector<std::int64_t> peaks = regular(10);
  const auto then = [&peaks](std::int64_t rr) { peaks.push_back(peaks.back() + rr); };
  std::string c(10, 'N');
  for (int i = 0; i < 4; ++i) {  // N V pairs, 5 minutes apart
    then(300 * 100);
    then(70);
    c += "NV";
  }
  for (int i = 0; i < 5; ++i) then(100), c += 'N';
  for (int i = 0; i < 4; ++i) {  // N N V cycles, 5 minutes apart
    then(300 * 100);
    then(100);
    then(70);
    c += "NNV";
  }
  for (int i = 0; i < 5; ++i) then(100), c += 'N';
  const std::size_t close_start = peaks.size();
  for (int i = 0; i < 4; ++i) {  // 4 close N V cycles, then a gap, then 2 more: one episode of 4
    then(100);
    then(70);
    c += "NV";
  }
  then(400);  // 4 s
  c += 'N';
  then(70);
  c += 'V';
  then(100);
  then(70);
  c += "NV";
  for (int i = 0; i < 5; ++i) then(100), c += 'N';
  ASSERT_EQ(c.size(), peaks.size());
  const HolterSummary s = holter_summary(peaks, kFs, cls(c), 0.0);
  ASSERT_EQ(s.bigeminy.size(), 1u);
  EXPECT_EQ(s.bigeminy[0].first_beat, close_start);
  EXPECT_EQ(s.bigeminy[0].cycles, 4u);
  EXPECT_TRUE(s.trigeminy.empty());
  EXPECT_EQ(s.v_couplets + s.v_runs, 0);
}

TEST(Holter, BigeminyNeedsThreeCyclesAndEndsAtACouplet) {
  // Two cycles only: not bigeminy (two single V).
  HolterSummary s = holter_summary(regular(7), kFs, cls("NVNVNNN"), 0.0);
  EXPECT_TRUE(s.bigeminy.empty());
  // N V N V N V V: the last V is part of a couplet, so only 2 clean cycles: no episode, 1 couplet.
  s = holter_summary(regular(8), kFs, cls("NVNVNVVN"), 0.0);
  EXPECT_TRUE(s.bigeminy.empty());
  EXPECT_EQ(s.v_couplets, 1);
  // Four cycles then a couplet: an episode of 3 cycles.
  s = holter_summary(regular(10), kFs, cls("NVNVNVNVVN"), 0.0);
  ASSERT_EQ(s.bigeminy.size(), 1u);
  EXPECT_EQ(s.bigeminy[0].cycles, 3u);
  // Supraventricular bigeminy, and a mixed N V N S N V is neither.
  s = holter_summary(regular(8), kFs, cls("NSNSNSNS"), 0.0);
  ASSERT_EQ(s.bigeminy.size(), 1u);
  EXPECT_EQ(s.bigeminy[0].cls, 'S');
  EXPECT_EQ(s.bigeminy[0].cycles, 4u);
  EXPECT_EQ(s.s_bigeminy, 1);
  s = holter_summary(regular(8), kFs, cls("NVNSNVNS"), 0.0);
  EXPECT_TRUE(s.bigeminy.empty());
}

TEST(Holter, TrigeminyIsToldLikeBigeminy) {
  // N N V three times: ventricular trigeminy (MIT-BIH's "(T"), from its first N to its last V.
  HolterSummary s = holter_summary(regular(12), kFs, cls("NNVNNVNNVNNN"), 0.0);
  ASSERT_EQ(s.trigeminy.size(), 1u);
  EXPECT_EQ(s.trigeminy[0].cls, 'V');
  EXPECT_EQ(s.trigeminy[0].first_beat, 0u);
  EXPECT_EQ(s.trigeminy[0].cycles, 3u);
  EXPECT_DOUBLE_EQ(s.trigeminy[0].end_s - s.trigeminy[0].start_s, 8.0);  // N at 0 s .. last V at 8 s
  EXPECT_EQ(s.v_trigeminy, 1);
  EXPECT_TRUE(s.bigeminy.empty());
  // Two cycles: not trigeminy; a couplet after the last V ends it a cycle earlier.
  s = holter_summary(regular(8), kFs, cls("NNVNNVNN"), 0.0);
  EXPECT_TRUE(s.trigeminy.empty());
  s = holter_summary(regular(14), kFs, cls("NNVNNVNNVNNVVN"), 0.0);
  ASSERT_EQ(s.trigeminy.size(), 1u);
  EXPECT_EQ(s.trigeminy[0].cycles, 3u);
  // Supraventricular trigeminy; bigeminy is not trigeminy, nor trigeminy bigeminy; mixed X is neither.
  s = holter_summary(regular(9), kFs, cls("NNSNNSNNS"), 0.0);
  ASSERT_EQ(s.trigeminy.size(), 1u);
  EXPECT_EQ(s.s_trigeminy, 1);
  s = holter_summary(regular(8), kFs, cls("NVNVNVNV"), 0.0);
  EXPECT_TRUE(s.trigeminy.empty());
  EXPECT_EQ(s.bigeminy.size(), 1u);
  s = holter_summary(regular(9), kFs, cls("NNVNNSNNV"), 0.0);
  EXPECT_TRUE(s.trigeminy.empty());
  // The JSON counts and lists them.
  const auto j = holter_json(holter_summary(regular(12), kFs, cls("NNVNNVNNVNNN"), 0.0));
  EXPECT_EQ(j.at("veb").at("trigeminy_episodes"), 1);
  ASSERT_EQ(j.at("trigeminy").size(), 1u);
  EXPECT_EQ(j.at("trigeminy")[0].at("cycles"), 3);
}

TEST(Holter, LongestPauseAndPauseCount) {
  std::vector<std::int64_t> p = regular(10);
  for (auto& v : p) v += 0;
  // Insert pauses: 2.5 s after beat 3, 3.2 s after beat 7.
  for (std::size_t i = 4; i < p.size(); ++i) p[i] += 150;
  for (std::size_t i = 8; i < p.size(); ++i) p[i] += 220;
  const HolterSummary s = holter_summary(p, kFs, {}, 0.0);
  EXPECT_DOUBLE_EQ(s.longest_pause_s, 3.2);
  EXPECT_DOUBLE_EQ(s.longest_pause_start_s, static_cast<double>(p[7]) / kFs);
  EXPECT_EQ(s.pauses, 2);
  // Listed, in time order, with the beat that starts each.
  ASSERT_EQ(s.pause_list.size(), 2u);
  EXPECT_DOUBLE_EQ(s.pause_list[0].start_s, static_cast<double>(p[3]) / kFs);
  EXPECT_DOUBLE_EQ(s.pause_list[0].rr_s, 2.5);
  EXPECT_DOUBLE_EQ(s.pause_list[1].rr_s, 3.2);
  const auto j = ecgpipe::holter_json(s);
  EXPECT_DOUBLE_EQ(j["longest_pause"]["rr_s"].get<double>(), 3.2);
  EXPECT_EQ(j["pauses"]["count"], 2);
  EXPECT_FALSE(j.contains("veb"));  // no classes, no ectopy figures
}

// Artefact (issue 27): a beat in noise is no ectopic beat and the intervals it bounds are no
// pause and no rate; windows of the rate extremes stay inside stretches clear of it.
TEST(Holter, ArtefactIsNoPauseNoRunNoRate) {
  std::vector<std::int64_t> p = regular(30);
  for (std::size_t i = 11; i < p.size(); ++i) p[i] += 300;  // a 4-s "pause" after beat 10 ...
  std::vector<char> c = cls("NNNNNNNNNNNVVVVNNNNNNNNNNNNNNN");  // ... and a V run of 4 (beats 11-14)
  const HolterSummary plain = holter_summary(p, kFs, c, 0.0);
  EXPECT_DOUBLE_EQ(plain.longest_pause_s, 4.0);
  EXPECT_EQ(plain.pauses, 1);
  ASSERT_EQ(plain.runs.size(), 1u);
  // ... both in noise: beats 10 to 12 in artefact.
  std::vector<bool> artefact(p.size(), false);
  for (std::size_t i = 10; i <= 12; ++i) artefact[i] = true;
  const HolterSummary s = holter_summary(p, kFs, c, 0.0, {}, artefact);
  EXPECT_DOUBLE_EQ(s.longest_pause_s, 1.0);  // every clear interval is 1 s
  EXPECT_EQ(s.pauses, 0);
  EXPECT_TRUE(s.pause_list.empty());
  ASSERT_EQ(plain.hours.size(), 1u);
  EXPECT_EQ(plain.hours[0].pauses, 1);
  EXPECT_DOUBLE_EQ(plain.hours[0].hr_min, 60.0 * 8 / 11);  // the 8-beat window holding the 4-s interval
  EXPECT_DOUBLE_EQ(plain.hours[0].hr_min, plain.hr_min);
  EXPECT_EQ(s.hours[0].pauses, 0);
  EXPECT_DOUBLE_EQ(s.hours[0].hr_min, 60.0);
  EXPECT_TRUE(s.runs.empty());  // V V (13, 14) after two beats counted Q: a couplet
  EXPECT_EQ(s.v_couplets, 1);
  EXPECT_EQ(s.veb, 2);
  EXPECT_EQ(s.class_counts[4], 3);  // Q: the three artefact beats
  EXPECT_DOUBLE_EQ(s.hr_mean, 60.0);
  EXPECT_DOUBLE_EQ(s.hr_min, 60.0);
  EXPECT_DOUBLE_EQ(s.hr_max, 60.0);
  // Windows: 9 intervals before the noise (beats 0-9), 16 after (12-29 minus the 2 touching 12);
  // an 8-interval window fits in each. A stretch shorter than the window does not hold one.
  std::vector<bool> most(p.size(), true);
  most[0] = most[1] = most[2] = false;  // two clear intervals only
  const HolterSummary t = holter_summary(p, kFs, c, 0.0, {}, most);
  EXPECT_DOUBLE_EQ(t.hr_min, 60.0);  // a 2-interval window: the longest stretch
  EXPECT_EQ(t.pauses, 0);
  EXPECT_THROW(holter_summary(p, kFs, c, 0.0, {}, std::vector<bool>(3, false)), ecgpipe::InternalError);
}

TEST(Holter, EmptyAndOneBeat) {
  HolterSummary s = holter_summary({}, kFs, {}, 0.0);
  EXPECT_EQ(s.beats, 0);
  EXPECT_TRUE(std::isnan(s.hr_mean));
  EXPECT_TRUE(std::isnan(s.longest_pause_s));
  ASSERT_EQ(s.trend.size(), 1u);
  EXPECT_TRUE(std::isnan(s.trend[0].bpm));
  auto j = ecgpipe::holter_json(s);
  EXPECT_TRUE(j["heart_rate"]["mean_bpm"].is_null());
  EXPECT_TRUE(j["longest_pause"]["rr_s"].is_null());
  s = holter_summary({500}, kFs, cls("V"), 90.0);
  EXPECT_EQ(s.beats, 1);
  EXPECT_EQ(s.veb, 1);
  EXPECT_EQ(s.v_couplets, 0);
  EXPECT_TRUE(std::isnan(s.hr_max));
  ASSERT_EQ(s.trend.size(), 2u);  // 90 s: minutes 0 and 1
  EXPECT_EQ(s.trend[0].beats, 1);
  j = ecgpipe::holter_json(s);
  EXPECT_EQ(j["veb"]["total"], 1);
  EXPECT_EQ(j["classes"]["V"], 1);
}

TEST(Holter, PerHourCounts) {
  // One V every 10 minutes for 2.5 hours at 60 bpm.
  std::vector<std::int64_t> p = regular(9000);
  std::string c(9000, 'N');
  for (std::size_t i = 300; i < c.size(); i += 600) c[i] = 'V';
  const HolterSummary s = holter_summary(p, kFs, cls(c), 9000.0);
  ASSERT_EQ(s.hours.size(), 3u);
  // Each hour's rate over the intervals ending in it: 60 bpm throughout (RR 1 s), no pauses.
  for (const auto& h : s.hours) {
    EXPECT_DOUBLE_EQ(h.hr_min, 60.0);
    EXPECT_DOUBLE_EQ(h.hr_mean, 60.0);
    EXPECT_DOUBLE_EQ(h.hr_max, 60.0);
    EXPECT_EQ(h.pauses, 0);
  }
  EXPECT_EQ(s.hours[0].veb, 6);
  EXPECT_EQ(s.hours[1].veb, 6);
  EXPECT_EQ(s.hours[2].veb, 3);
  EXPECT_EQ(s.hours[2].beats, 1800);
  EXPECT_EQ(s.trend.size(), 150u);
}

// Each hour's min / max HR are the summary's 8-beat averages over the windows that end in the
// hour, not single intervals: an APC's coupling interval is no hourly maximum (SVDB 826's hourly
// table said 163 bpm beside the summary's 111), so the hours' extremes are the summary's.
TEST(Holter, HourlyMinMaxAreTheSummarysEightBeatAverages) {
  // Beat times are seconds in doubles: an interval an hour in carries ~1e-13 s of rounding.
  constexpr double kTimeRounding = 1e-9;
  // Two hours at 60 bpm: a premature beat in the first (RR 0.6 s then 1.4 s), nine beats at
  // 120 bpm in the second.
  std::vector<std::int64_t> p = regular(3000);
  p[1000] -= 40;
  while (p.back() < 3600 * static_cast<std::int64_t>(kFs) + 1000) p.push_back(p.back() + 100);
  for (int i = 1; i <= 8; ++i) p.push_back(p.back() + 50);
  while (p.back() < 7000 * static_cast<std::int64_t>(kFs)) p.push_back(p.back() + 100);
  const HolterSummary s = holter_summary(p, kFs, std::vector<char>(p.size(), 'N'), 0.0);
  ASSERT_EQ(s.hours.size(), 2u);
  EXPECT_NEAR(s.hours[0].hr_max, 60.0 * 8 / 7.6, kTimeRounding);  // not 100 (the 0.6-s interval)
  EXPECT_NEAR(s.hours[0].hr_min, 60.0 * 8 / 8.4, kTimeRounding);  // not 42.9 (the 1.4-s interval)
  EXPECT_NEAR(s.hours[1].hr_max, 120.0, kTimeRounding);
  EXPECT_NEAR(s.hours[1].hr_min, 60.0, kTimeRounding);
  EXPECT_DOUBLE_EQ(s.hr_max, std::max(s.hours[0].hr_max, s.hours[1].hr_max));
  EXPECT_DOUBLE_EQ(s.hr_min, std::min(s.hours[0].hr_min, s.hours[1].hr_min));
  // A window is the hour's where its last interval ends: a premature beat 2 beats after the hour
  // starts makes hour 1's maximum through windows that began in hour 0.
  std::vector<std::int64_t> q = regular(3700);
  const auto first_of_hour1 = static_cast<std::size_t>(std::upper_bound(q.begin(), q.end(), 360000) - q.begin());
  q[first_of_hour1 + 2] -= 40;
  const HolterSummary t = holter_summary(q, kFs, std::vector<char>(q.size(), 'N'), 0.0);
  ASSERT_EQ(t.hours.size(), 2u);
  EXPECT_NEAR(t.hours[0].hr_max, 60.0, kTimeRounding);
  EXPECT_NEAR(t.hours[1].hr_max, 60.0 * 8 / 7.6, kTimeRounding);
  // An hour in artefact but for three intervals holds no whole window: no min / max (the report
  // shows a dash), its mean over those intervals stays.
  std::vector<bool> artefact(q.size(), false);
  for (std::size_t i = first_of_hour1 - 1; i < q.size(); ++i) artefact[i] = i < first_of_hour1 + 50 || i > first_of_hour1 + 53;
  const HolterSummary u = holter_summary(q, kFs, std::vector<char>(q.size(), 'N'), 0.0, {}, artefact);
  ASSERT_EQ(u.hours.size(), 2u);
  EXPECT_NEAR(u.hours[0].hr_max, 60.0, kTimeRounding);
  EXPECT_TRUE(std::isnan(u.hours[1].hr_min));
  EXPECT_TRUE(std::isnan(u.hours[1].hr_max));
  EXPECT_NEAR(u.hours[1].hr_mean, 60.0, kTimeRounding);
  // report.json's per_hour has them as the hourly table shows them (0.1 bpm; null without one).
  const auto j = ecgpipe::holter_json(u);
  ASSERT_EQ(j["per_hour"].size(), 2u);
  EXPECT_EQ(j["per_hour"][0]["hr_max_bpm"], 60.0);
  EXPECT_EQ(j["per_hour"][0]["hr_mean_bpm"], 60.0);
  EXPECT_EQ(j["per_hour"][0]["pauses"], 0);
  EXPECT_TRUE(j["per_hour"][1]["hr_min_bpm"].is_null());
  EXPECT_TRUE(j["per_hour"][1]["hr_max_bpm"].is_null());
  EXPECT_EQ(j["per_hour"][1]["hr_mean_bpm"], 60.0);
}

// A Holter report's hours are the clock's (08:30 - 09:00, 09:00 - 10:00, ...): a recording that
// starts `hour_phase_s` into a clock hour has a first hour of the rest of that clock hour, whole
// clock hours after it, and a last one up to its end. Each hour says its span in recording seconds.
TEST(Holter, HoursAreClockHoursFromTheStartsPhase) {
  // A beat every second from 0.5 s to 7199.5 s: 2 h, started at hh:30:00.
  const std::vector<std::int64_t> peaks = regular(7200, 100, 50);
  std::string classes(7200, 'N');
  classes[1799] = 'V';  // 1799.5 s: the first hour's last beat
  classes[1800] = 'S';  // 1800.5 s: the second's first
  classes[7199] = 'V';  // 7199.5 s: the last hour's
  ecgpipe::HolterOptions o;
  o.hour_phase_s = 1800.0;
  const HolterSummary s = holter_summary(peaks, kFs, cls(classes), 7200.0, o);
  ASSERT_EQ(s.hours.size(), 3u);
  const double spans[3][2] = {{0.0, 1800.0}, {1800.0, 5400.0}, {5400.0, 7200.0}};
  const std::int64_t beats[3] = {1800, 3600, 1800}, veb[3] = {1, 0, 1}, sveb[3] = {0, 1, 0};
  for (std::size_t h = 0; h < 3; ++h) {
    EXPECT_EQ(s.hours[h].hour, static_cast<std::int64_t>(h));
    EXPECT_EQ(s.hours[h].start_s, spans[h][0]) << h;
    EXPECT_EQ(s.hours[h].end_s, spans[h][1]) << h;
    EXPECT_EQ(s.hours[h].beats, beats[h]) << h;
    EXPECT_EQ(s.hours[h].veb, veb[h]) << h;
    EXPECT_EQ(s.hours[h].sveb, sveb[h]) << h;
    EXPECT_NEAR(s.hours[h].hr_mean, 60.0, 1e-9) << h;
  }
  const auto j = ecgpipe::holter_json(s);
  ASSERT_EQ(j["per_hour"].size(), 3u);
  EXPECT_EQ(j["per_hour"][1]["start_s"], 1800.0);
  EXPECT_EQ(j["per_hour"][1]["end_s"], 5400.0);
  EXPECT_EQ(j["hour_phase_s"], 1800.0);
  // Started on the hour (phase 0, and what an unknown start gets): the recording's hours.
  const HolterSummary whole = holter_summary(peaks, kFs, cls(classes), 7200.0);
  ASSERT_EQ(whole.hours.size(), 2u);
  EXPECT_EQ(whole.hours[1].start_s, 3600.0);
  EXPECT_EQ(whole.hours[1].end_s, 7200.0);
  EXPECT_EQ(whole.hours[0].beats, 3600);
  // Ending on a clock hour (1.5 h from hh:30): no empty hour after it.
  const std::vector<std::int64_t> first(peaks.begin(), peaks.begin() + 5400);
  const HolterSummary ends = holter_summary(first, kFs, std::vector<char>(first.size(), 'N'), 5400.0, o);
  ASSERT_EQ(ends.hours.size(), 2u);
  EXPECT_EQ(ends.hours[1].end_s, 5400.0);
  // Started at hh:59:59.5: a first row of half a second; the beat at 0.5 s opens the next hour
  // (each hour is [start, end), the last one closed at the recording's end).
  const std::vector<std::int64_t> few(peaks.begin(), peaks.begin() + 60);
  o.hour_phase_s = 3599.5;
  const HolterSummary short_one = holter_summary(few, kFs, std::vector<char>(few.size(), 'N'), 60.0, o);
  ASSERT_EQ(short_one.hours.size(), 2u);
  EXPECT_EQ(short_one.hours[0].end_s, 0.5);
  EXPECT_EQ(short_one.hours[0].beats, 0);
  EXPECT_EQ(short_one.hours[1].beats, 60);
  EXPECT_EQ(short_one.hours[1].end_s, 60.0);
  // Inside one clock hour: one row, the recording's length.
  o.hour_phase_s = 600.0;
  const HolterSummary inside = holter_summary(few, kFs, std::vector<char>(few.size(), 'N'), 60.0, o);
  ASSERT_EQ(inside.hours.size(), 1u);
  EXPECT_EQ(inside.hours[0].end_s, 60.0);
  // A phase that is no offset into an hour is a caller's bug.
  for (double bad : {-1.0, 3600.0, std::nan("")}) {
    o.hour_phase_s = bad;
    EXPECT_THROW(holter_summary(few, kFs, std::vector<char>(few.size(), 'N'), 60.0, o), ecgpipe::InternalError) << bad;
  }
}

TEST(Holter, RejectsBadInput) {
  EXPECT_THROW(holter_summary({1, 2}, 0.0, {}, 0.0), ecgpipe::UsageError);
  EXPECT_THROW(holter_summary({2, 1}, kFs, {}, 0.0), ecgpipe::InternalError);
  EXPECT_THROW(holter_summary({1, 2}, kFs, cls("N"), 0.0), ecgpipe::InternalError);
  EXPECT_THROW(holter_summary({1, 2}, kFs, cls("NA"), 0.0), ecgpipe::InternalError);
}

// report.html opens with the summary: the HR-trend figure and the ectopy table.
TEST(Holter, ReportPageOpensWithTrendAndEctopyTable) {
  const std::string c = "NNNNN" "VV" "NNN" "VVV" "NNN" "SSSSS" "NNN" "NVNVNV" "NNN" "V" "NNNN";
  ecgpipe::ReportData d;
  d.holter = holter_summary(regular(c.size()), kFs, cls(c), 0.0);
  const std::string html = ecgpipe::render_report_html(d);
  const auto trend = html.find("<title>Heart rate per minute</title>");
  ASSERT_NE(trend, std::string::npos);
  EXPECT_LT(trend, html.find("<caption>Counts</caption>"));  // above the counts table
  EXPECT_NE(html.find("<tr><th>couplets</th><td>1</td><td>0</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>runs (≥ 3)</th><td>1</td><td>1</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>bigeminy episodes (≥ 3 cycles)</th><td>1</td><td>0</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>mean</th><td>60 bpm</td></tr>"), std::string::npos);
  // Without classes the ectopy rows say so.
  d.holter = holter_summary(regular(10), kFs, {}, 0.0);
  EXPECT_NE(ecgpipe::render_report_html(d).find("n/a (no beat classes)"), std::string::npos);
}

}  // namespace
