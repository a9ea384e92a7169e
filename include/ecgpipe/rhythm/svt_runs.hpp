// Supraventricular tachycardia runs: the beats that continue a run which a supraventricular
// ectopic beat began, at a tachycardic rate, are S (MIT-BIH labels every beat of an (SVTA run A).
//
// Why: the classifier judges each beat's prematurity against the 21 intervals around it. Past
// its first ten beats a run of SVT *is* that neighbourhood, so its later beats come at the local
// rate and read as N: MIT-BIH 209's runs of 14-74 beats at ~160 bpm lost half their S beats to
// it (188 of 383 found under record-wise cross-validation), as do `synth --scenario svta-long`'s.
// A run is what a Holter reader marks: an abrupt onset to a rate above 100 bpm and faster than the
// rhythm before it, kept while the rate stays there, begun by a beat the classifier calls S.
// Sinus tachycardia's gradual speeding, a rate change after a pause (no S at its start),
// anything under 100 bpm and a tachycardia sustained over 100 beats (flutter's 2:1 conduction
// looks the same) are not runs. docs/accuracy.md ("Runs of supraventricular tachycardia")
// has the figures.
//
// Nor is an irregular run: a paroxysm of AF shorter than the AF detector's runs of 32 beats (SVDB
// 866: bursts of 20-40 beats at 110-180 bpm, no P wave, every beat labelled N) starts as abruptly,
// and the classifier calls many of its beats S, premature against the sinus rhythm before it. In
// AF prematurity means nothing (S beats inside detected AF are N, run_rhythm.cpp): so a run of at
// least 7 beats (each lag's median over at least 3 differences) whose own intervals are as
// irregular as AF's (interval_irregularity above the AF detector's threshold) is not continued, and
// its S beats are N. Nothing fitted: the measure and threshold are the AF detector's, 7 the fewest
// beats that measure needs. Record-wise CV of the shipped classifier: SVDB SVEB Se / +P 78.1 / 53.5
// -> 77.7 / 54.2 (95 false S and 19 true S fewer), DS1 unchanged (docs/accuracy.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "ecgpipe/rhythm/ectopic_rhythm.hpp"

namespace ecgpipe {

struct SvtRunOptions {
  double faster = 0.85;          // a run's intervals: under this x the median of the intervals before its onset ...
  double max_rr_s = 60.0 / kTachycardiaBpm;  // ... and under this, seconds (a rate above 100 bpm)
  double abrupt = 0.9;           // its first interval at most this x the one before it (not a gradual speeding)
  std::size_t rhythm_before = 8; // intervals in the median before the onset
  std::size_t min_beats = 3;     // a run's fewest beats (MIT-BIH's SVTA: three or more)
  std::size_t max_beats = 100;   // and most: a regular tachycardia sustained longer is as likely atrial
                                 // flutter with 2:1 conduction, whose beats MIT-BIH labels N (beat times
                                 // cannot tell them apart); it stays as classified
  std::size_t s_within = 3;      // an S among the run's first this many beats: it began with an ectopic beat
  std::size_t min_irregular_beats = 7;       // a run of at least this many beats is judged for irregularity ...
  double irregular = AfOptions{}.threshold;  // ... and is a burst of AF above this (interval_irregularity)
};

struct SvtRunChanges {
  std::size_t continued = 0;  // N beats of regular runs relabelled S
  std::size_t irregular = 0;  // S beats of irregular runs relabelled N
};

// Relabels N -> S in place over each regular run (as above) of `classes`, one per beat of
// `r_peaks` (sorted sample numbers at `fs`), and S -> N over each irregular one; a V beat or a beat
// whose `rhythm` is AFIB ends a run and is never part of one (`rhythm`: empty, or one per beat).
// F and Q beats stay. Returns the numbers relabelled. InternalError where `classes` or a non-empty
// `rhythm` is not one per beat.
SvtRunChanges continue_svt_runs(const std::vector<std::int64_t>& r_peaks, double fs, std::vector<BeatClass>& classes,
                                const std::vector<Rhythm>& rhythm, const SvtRunOptions& options = {});

}  // namespace ecgpipe
