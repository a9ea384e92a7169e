// The Holter summary: the figures a Holter report opens with, from the R peaks, the sampling
// rate and the AAMI class of every beat (N S V F Q).
//
// Definitions (README "Holter summary"):
//  * RR interval: between consecutive detected beats, whatever their class (a Holter HR counts
//    every beat). A pause ends a long RR; no RR is dropped.
//  * Mean HR: 60 x (number of RR intervals) / (sum of the RR intervals), i.e. beats per minute over
//    the analysed time.
//  * Min / max HR: over windows of `hr_window_beats` (8) consecutive RR intervals, HR = 60 x 8 /
//    (their sum), the lowest and highest such window and when it starts, as Holter systems
//    report "8-beat average" extremes (a 1-minute mean would hide a short run; a single RR would
//    make every premature beat a maximum). Fewer RR intervals than the window: one window of
//    all of them.
//  * Trend: per minute of the record, the beats whose R peak falls in it and 60 x (RR intervals
//    ending in it) / (their sum); NaN (JSON null) without an RR ending in that minute.
//  * VEB = class V, SVEB = class S; counts in total and per hour: clock hours where the start
//    time is known (`hour_phase_s`, the seconds the recording starts into a clock hour: hour k
//    covers [k h - phase, (k+1) h - phase) of the recording, so the first and last may be
//    partial), else the recording's hours (phase 0). Each hour says its span (start_s, end_s).
//  * Runs of one ectopic family (consecutive V beats, or consecutive S beats, each within
//    kMaxEctopicRunRrS of the one before): exactly 2 is a couplet, 3 or more is a run (V runs of
//    3+ are non-sustained VT on a Holter report); each run with its start, length and rate
//    (60 x (beats - 1) / (its span)).
//  * Bigeminy: N X N X ... with X all V (ventricular) or all S (supraventricular), at least
//    `min_bigeminy_cycles` (3) consecutive N-X cycles, maximal, each beat within
//    kMaxEctopicRunRrS of the one before; the ectopic beats inside it are singles (a couplet or
//    run ends it). The episode spans from its first N to its last X.
//  * Trigeminy: the same with cycles of N N X (MIT-BIH's "(T" for X = V), at least
//    `min_bigeminy_cycles` of them.
//  * Longest pause: the longest RR interval, with the time of the beat that starts it; and the
//    RR intervals of at least `pause_threshold_s` (2.0 s, the usual Holter pause limit), counted
//    and listed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ecgpipe {

// The longest interval inside a couplet or run: 3 s, 20 bpm, under the slowest idioventricular
// rhythm (MIT-BIH 207's starts at 24 bpm). Ectopic beats further apart (a stretch without beats
// between them: lead off, asystole) are not one run: three V beats ten minutes apart were a "run
// at 0.1 bpm" and, named from it, a 20-minute idioventricular rhythm.
inline constexpr double kMaxEctopicRunRrS = 3.0;

struct HolterOptions {
  std::size_t hr_window_beats = 8;       // RR intervals per min/max HR window
  std::size_t min_bigeminy_cycles = 3;   // N-X cycles that make an episode
  double pause_threshold_s = 2.0;        // RR counted as a pause from this length on
  // Seconds into a clock hour at which the recording starts (08:15:30 -> 930), so that the hours
  // are the clock's; 0 for a start on the hour or unknown (the hours are the recording's).
  double hour_phase_s = 0.0;
};

struct HolterMinute {
  std::int64_t minute = 0;
  std::int64_t beats = 0;
  double bpm = 0.0;  // NaN without an RR interval ending in this minute
};

struct HolterHour {
  std::int64_t hour = 0;
  double start_s = 0.0, end_s = 0.0;  // its span in the recording (a clock hour cut to the recording)
  std::int64_t beats = 0, veb = 0, sveb = 0;
  // Min / max: the summary's 8-beat averages over its windows that end in the hour (NaN
  // without one), so the hours' extremes are the summary's; the mean (60 x count / sum) over the
  // RR intervals clear of artefact that end in the hour, NaN without one; the pauses among them.
  double hr_min = 0.0, hr_mean = 0.0, hr_max = 0.0;
  std::int64_t pauses = 0;
};

struct HolterPause {
  double start_s = 0.0;  // the R peak that starts it
  double rr_s = 0.0;     // its length
};

struct EctopicRun {
  char cls = 'V';                // 'V' or 'S'
  std::size_t first_beat = 0;    // index into the beats
  std::size_t beats = 0;         // >= 3
  double start_s = 0.0;
  double rate_bpm = 0.0;
};

// A bigeminy episode (cycles of N X) or, in HolterSummary::trigeminy, a trigeminy one (N N X).
struct BigeminyEpisode {
  char cls = 'V';                // the ectopic class alternating with N
  std::size_t first_beat = 0;    // the first N
  std::size_t cycles = 0;
  double start_s = 0.0, end_s = 0.0;
};

struct HolterSummary {
  HolterOptions options;  // the definitions used
  double duration_s = 0.0;
  std::int64_t beats = 0;
  bool has_classes = false;  // false: only the rate figures (no class per beat was given)
  double hr_mean = 0.0, hr_min = 0.0, hr_max = 0.0;  // NaN with fewer than 2 beats
  double hr_min_time_s = 0.0, hr_max_time_s = 0.0;
  std::vector<HolterMinute> trend;
  std::array<std::int64_t, 5> class_counts{};  // N S V F Q
  std::vector<HolterHour> hours;
  std::int64_t veb = 0, sveb = 0;
  std::int64_t v_couplets = 0, s_couplets = 0;
  std::vector<EctopicRun> runs;                // V and S runs of >= 3, in time order
  std::int64_t v_runs = 0, s_runs = 0;
  std::size_t longest_v_run = 0, longest_s_run = 0;
  std::vector<BigeminyEpisode> bigeminy;       // in time order
  std::int64_t v_bigeminy = 0, s_bigeminy = 0;
  std::vector<BigeminyEpisode> trigeminy;      // in time order; each cycle N N X
  std::int64_t v_trigeminy = 0, s_trigeminy = 0;
  double longest_pause_s = 0.0;                // NaN with fewer than 2 beats
  double longest_pause_start_s = 0.0;
  std::int64_t pauses = 0;                     // RR >= pause_threshold_s
  std::vector<HolterPause> pause_list;         // each of them, in time order
};

// r_peaks: ascending samples; classes: one AAMI class (N S V F Q) per beat, or empty for no
// classes; duration_s: the record's length (<= 0: up to the last beat); artefact: per beat, true
// in unreadable signal (signal_quality.hpp; empty: none) — such a beat counts as Q (no ectopy,
// no run) and the RR intervals it bounds are left out of every rate, the trend and the pauses
// (min/max windows lie inside stretches clear of it). UsageError for fs <= 0, InternalError for
// unsorted peaks, a size mismatch, a class outside N S V F Q or an hour_phase_s outside [0, 3600).
HolterSummary holter_summary(const std::vector<std::int64_t>& r_peaks, double fs, const std::vector<char>& classes,
                             double duration_s, const HolterOptions& options = {},
                             const std::vector<bool>& artefact = {});

// The hours of a recording `end_s` long that starts `hour_phase_s` into a clock hour, as [start,
// end) spans in recording seconds: hour k is [k h - phase, (k+1) h - phase) cut to [0, end_s], so
// the first and last may be partial; at least one. What holter_summary's hours and the report's
// hourly table share. InternalError for a phase outside [0, 3600) or a negative or non-finite end.
std::vector<std::pair<double, double>> holter_hour_spans(double end_s, double hour_phase_s);

// The summary's ectopy alone (beats, has_classes, class counts, VEB / SVEB, couplets, runs,
// bigeminy, trigeminy; the rest left at its defaults): what name_ectopic_rhythms reads, without
// the rates, the per-minute trend and the per-hour table, which grow with the time the beats span
// (`ecgpipe rhythm` takes beat times from any file). Same arguments and errors.
HolterSummary holter_ectopy(const std::vector<std::int64_t>& r_peaks, double fs, const std::vector<char>& classes,
                            const HolterOptions& options = {}, const std::vector<bool>& artefact = {});

// report.json's "holter" object: include/ecgpipe/classify/holter_json.hpp (internal).

}  // namespace ecgpipe
