// Runs of supraventricular tachycardia (src/rhythm/svt_runs.cpp) on hand-made beat sequences whose
// answers are exact.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "ecgpipe/rhythm/svt_runs.hpp"

namespace {

using ecgpipe::BeatClass;
using ecgpipe::Rhythm;

// Beats from (interval before in seconds, class letter) pairs at `fs`, the first at sample 100.
struct Beats {
  std::vector<std::int64_t> peaks;
  std::vector<BeatClass> classes;
};
Beats beats_of(const std::vector<double>& rr_s, const std::string& letters, double fs = 250.0) {
  Beats b;
  double t = 100.0;
  for (std::size_t i = 0; i < letters.size(); ++i) {
    if (i > 0) t += rr_s[i - 1] * fs;
    b.peaks.push_back(static_cast<std::int64_t>(std::lround(t)));
    const char c = letters[i];
    b.classes.push_back(c == 'S' ? BeatClass::S : c == 'V' ? BeatClass::V : c == 'F' ? BeatClass::F
                                                : c == 'Q' ? BeatClass::Q : BeatClass::N);
  }
  return b;
}
std::string letters_of(const std::vector<BeatClass>& c) {
  std::string s;
  for (BeatClass k : c) s += "NSVFQ"[static_cast<int>(k)];
  return s;
}
std::vector<double> repeat(double rr, std::size_t n) { return std::vector<double>(n, rr); }
std::vector<double> operator+(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Sinus at 0.8 s, then an APC at 0.4 s that starts a run at 0.38 s (158 bpm), then sinus again
// after a pause: the classifier found the run's first two beats; the rest of it becomes S, the
// sinus beats on either side stay N.
TEST(SvtRuns, TheRestOfARunBegunByAnSBeatIsS) {
  const auto rr = repeat(0.8, 12) + std::vector<double>{0.4} + repeat(0.38, 20) + std::vector<double>{1.0} + repeat(0.8, 10);
  const std::string given = std::string(13, 'N') + "SS" + std::string(19, 'N') + std::string(11, 'N');
  Beats b = beats_of(rr, given);
  ASSERT_EQ(b.peaks.size(), rr.size() + 1);
  const ecgpipe::SvtRunChanges changed = ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, {});
  EXPECT_EQ(letters_of(b.classes), std::string(13, 'N') + std::string(21, 'S') + std::string(11, 'N'));
  EXPECT_EQ(changed.continued, 19u);
  EXPECT_EQ(changed.irregular, 0u);
  // The same beats at 128 Hz and 1000 Hz: the rule is in seconds and ratios.
  for (const double fs : {128.0, 1000.0}) {
    Beats c = beats_of(rr, given, fs);
    EXPECT_EQ(ecgpipe::continue_svt_runs(c.peaks, fs, c.classes, {}).continued, 19u) << fs;
  }
}

// What is not a run: the S must be among its first three beats, it needs three beats, a rate above
// 100 bpm, faster than the rhythm before it by 15 %, and an abrupt start.
TEST(SvtRuns, WhatIsNotARunStaysAsItWas) {
  const auto expect_unchanged = [](const std::vector<double>& rr, const std::string& letters, const char* what) {
    Beats b = beats_of(rr, letters);
    EXPECT_EQ(ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, {}).continued, 0u) << what;
    EXPECT_EQ(letters_of(b.classes), letters) << what;
  };
  // A rate change after a pause, with an S late in it (SVDB 800: sinus from 1.2 to 0.85 s).
  expect_unchanged(repeat(0.5, 10) + repeat(0.4, 12), std::string(14, 'N') + "S" + std::string(8, 'N'), "S 4th");
  // Two beats at the fast rate, then sinus: an APC couplet, not a run.
  expect_unchanged(repeat(0.8, 10) + repeat(0.38, 2) + repeat(0.8, 5), std::string(11, 'N') + "SN" + std::string(5, 'N'),
                   "two beats");
  // Under 100 bpm: 0.7 s after 1.2 s is 40 % faster, but not a tachycardia.
  expect_unchanged(repeat(1.2, 10) + repeat(0.7, 10), std::string(11, 'N') + "S" + std::string(9, 'N'), "slow");
  // 10 % faster only (0.55 s after 0.6 s).
  expect_unchanged(repeat(0.6, 10) + repeat(0.55, 10), std::string(11, 'N') + "S" + std::string(9, 'N'), "10 %");
  // Sinus tachycardia: 0.8 s down to 0.45 s by 3 % a beat, an S called on the way.
  std::vector<double> speeding = repeat(0.8, 10);
  while (speeding.back() > 0.45) speeding.push_back(speeding.back() * 0.97);
  speeding = speeding + repeat(0.45, 10);
  std::string letters(speeding.size() + 1, 'N');
  letters[letters.size() - 12] = 'S';
  expect_unchanged(speeding, letters, "gradual");
}

// A regular tachycardia sustained over 100 beats begun by an S stays as classified: atrial flutter
// with 2:1 conduction starts as abruptly and looks the same in beat times (the AF database's
// 08378: 1 069 and 2 462 beats at 0.43 s), and MIT-BIH labels its beats N. 100 beats are a run.
TEST(SvtRuns, ATachycardiaSustainedOverAHundredBeatsIsNotARun) {
  for (const std::size_t beats : {std::size_t{100}, std::size_t{101}, std::size_t{1000}}) {
    const auto rr = repeat(0.8, 10) + repeat(0.4, beats) + repeat(0.8, 5);
    Beats b = beats_of(rr, std::string(11, 'N') + "S" + std::string(beats - 1, 'N') + std::string(5, 'N'));
    EXPECT_EQ(ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, {}).continued, beats <= 100 ? beats - 1 : 0u) << beats;
  }
}

// A V beat ends a run (the beats after it are judged afresh, against the run's fast rate, so
// they stay N); beats in AF are never part of one; F and Q keep their class.
TEST(SvtRuns, VBeatsAfAndOtherClassesBoundARun) {
  const auto rr = repeat(0.8, 10) + repeat(0.38, 12) + repeat(0.8, 5);
  // Beats 0-10 sinus, 11-22 the run (11 the APC), 23-27 sinus.
  Beats b = beats_of(rr, std::string(11, 'N') + "SNNFNVNNNQNN" + std::string(5, 'N'));
  EXPECT_EQ(ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, {}).continued, 3u);
  EXPECT_EQ(letters_of(b.classes), std::string(11, 'N') + "SSSFSVNNNQNN" + std::string(5, 'N'));
  Beats af = beats_of(rr, std::string(11, 'N') + "SNNNNNNNNNNN" + std::string(5, 'N'));
  std::vector<Rhythm> rhythm(af.peaks.size(), Rhythm::N);
  for (std::size_t i = 14; i < 17; ++i) rhythm[i] = Rhythm::AFIB;
  EXPECT_EQ(ecgpipe::continue_svt_runs(af.peaks, 250.0, af.classes, rhythm).continued, 2u);
  EXPECT_EQ(letters_of(af.classes), std::string(11, 'N') + "SSS" + std::string(14, 'N'));
}

// A short paroxysm of AF (SVDB 866 at 945 s: 20-40 beats at 110-180 bpm, irregular, no P wave,
// labelled N) starts as abruptly as a run of SVT and the classifier calls many of its beats S
// (premature against the sinus rhythm before it). Irregularity is no prematurity: a tachycardic run
// of at least 7 beats whose own intervals are as irregular as AF's (interval_irregularity over the
// AF detector's threshold) is not continued, and its S beats are N, as S beats inside detected AF
// are. A regular run (above) and an irregular run of 6 beats (too few to judge by lag-3
// differences) are continued as before.
const std::vector<double> kIrregular = {0.33, 0.47, 0.38, 0.52, 0.35, 0.44, 0.50, 0.36, 0.41, 0.55,
                                        0.34, 0.46, 0.39, 0.53, 0.37, 0.49, 0.42, 0.33, 0.51, 0.40};
TEST(SvtRuns, TheSBeatsOfAnIrregularRunAreN) {
  EXPECT_GT(ecgpipe::interval_irregularity(std::vector<double>(kIrregular.begin() + 1, kIrregular.begin() + 6)),
            ecgpipe::AfOptions{}.threshold);
  for (const std::size_t beats : {std::size_t{6}, std::size_t{7}, std::size_t{20}}) {
    const auto rr = repeat(0.8, 10) + std::vector<double>(kIrregular.begin(), kIrregular.begin() + beats) +
                    std::vector<double>{1.0} + repeat(0.8, 5);
    // The classifier's S: the run's first beat and every third after it.
    std::string given = std::string(11, 'N');
    for (std::size_t k = 0; k < beats; ++k) given += k % 3 == 0 ? 'S' : 'N';
    given += std::string(6, 'N');
    Beats b = beats_of(rr, given);
    const ecgpipe::SvtRunChanges changed = ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, {});
    const std::size_t s_given = (beats + 2) / 3;
    if (beats < 7) {
      EXPECT_EQ(letters_of(b.classes), std::string(11, 'N') + std::string(beats, 'S') + std::string(6, 'N')) << beats;
      EXPECT_EQ(changed.continued, beats - s_given) << beats;
      EXPECT_EQ(changed.irregular, 0u) << beats;
    } else {
      EXPECT_EQ(letters_of(b.classes), std::string(b.peaks.size(), 'N')) << beats;
      EXPECT_EQ(changed.continued, 0u) << beats;
      EXPECT_EQ(changed.irregular, s_given) << beats;
    }
  }
}

TEST(SvtRuns, FewBeatsAndMismatchedLengths) {
  for (std::size_t n = 0; n <= 3; ++n) {
    Beats b = beats_of(repeat(0.3, n ? n - 1 : 0), std::string(n, 'S'));
    EXPECT_EQ(ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, {}).continued, 0u) << n;
  }
  Beats b = beats_of(repeat(0.8, 4), "NNNNN");
  std::vector<BeatClass> four(4, BeatClass::N);
  EXPECT_THROW(ecgpipe::continue_svt_runs(b.peaks, 250.0, four, {}), ecgpipe::InternalError);
  EXPECT_THROW(ecgpipe::continue_svt_runs(b.peaks, 250.0, b.classes, std::vector<Rhythm>(3, Rhythm::N)),
               ecgpipe::InternalError);
}

}  // namespace
