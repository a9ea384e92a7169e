// Rhythm episodes: runs of beats of one rhythm, as rhythm.csv lists them (docs/formats.md).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <utility>
#include <vector>

#include "ecgpipe/rhythm/af_detect.hpp"

namespace ecgpipe {

// The longest stretch without a beat that an episode goes on across: 30 s, longer than any
// cardiac cycle a recording shows as one (a pause of asystole is seconds). A longer one is lead
// off or a gap in the record or the beat file: no rhythm is known there, and AF on either side of
// 20 minutes of flat line was one 30-minute AF episode at 30 bpm.
inline constexpr double kMaxBeatGapS = 30.0;

struct RhythmEpisode {
  std::int64_t start_sample = 0;  // the first beat's R peak
  // The next episode's first R peak, or the record's end; or, before a stretch of more than
  // kMaxBeatGapS without a beat, the episode's own last R peak.
  std::int64_t end_sample = 0;
  Rhythm rhythm = Rhythm::N;
  std::int64_t beats = 0;
  double mean_hr = 0.0;  // beats per minute over the episode's intervals (NaN for one beat)
};

// Consecutive beats of one rhythm as episodes that tile the record from the first beat to
// `end_sample` (the record's length in samples; at least the last R peak + 1), but for the
// stretches of more than kMaxBeatGapS between two beats, which are in no episode (an episode ends
// at its last beat before one and another begins after it; a beat alone between two such
// stretches spans no time and is in none). Empty without beats.
std::vector<RhythmEpisode> rhythm_episodes(const std::vector<std::int64_t>& r_peaks, const std::vector<Rhythm>& rhythm,
                                           double fs, std::int64_t end_sample);

// rhythm.csv: a header and one row per episode,
// start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr (seconds to the ms, the rate to 0.1
// bpm, empty for a one-beat episode).
void write_rhythm_csv(std::ostream& out, const std::vector<RhythmEpisode>& episodes, double fs);

// Time in each rhythm's episodes, for the Holter summary. An AF episode there goes on across a VT
// run between two AFIB rows (rhythm.csv splits AF at VT as MIT-BIH's rhythm annotations do, but
// the atria fibrillate through it): its count and the longest span it; afib_s is AF's own time.
struct RhythmBurden {
  double analysed_s = 0.0;     // the episodes' time (from the first beat to the end, but the gaps) less artefact
  double afib_s = 0.0;
  int afib_episodes = 0;
  double longest_afib_s = 0.0;
  double afib_mean_hr = 0.0;   // NaN without AF
  double afib_percent() const { return analysed_s > 0 ? 100.0 * afib_s / analysed_s : 0.0; }
};
// `artefact`: the signal's unreadable stretches (signal_quality.hpp; samples [first, second)),
// left out of the analysed and the AF time alike, as quality.analysed_s leaves them out of the
// recording; the longest episode spans its noise.
RhythmBurden rhythm_burden(const std::vector<RhythmEpisode>& episodes, double fs,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& artefact = {});
// Each rhythm's rows and their time in seconds (a rhythm without a row is absent): the report's
// rhythm table and `rhythm`'s other rhythms.
struct RhythmTotal {
  std::int64_t episodes = 0;
  double seconds = 0.0;
};
std::map<Rhythm, RhythmTotal> rhythm_totals(const std::vector<RhythmEpisode>& episodes, double fs);
// Whether row k is AF that goes on from the AF row before a VT run (AFIB, VT, AFIB): one episode.
bool continues_af(const std::vector<RhythmEpisode>& episodes, std::size_t k);
// The rows that begin an AF episode as the summary counts them (the report's "AF onset" strips).
std::vector<std::size_t> af_episode_starts(const std::vector<RhythmEpisode>& episodes);

}  // namespace ecgpipe
