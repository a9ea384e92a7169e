// Rhythm episodes and burden: see include/ecgpipe/rhythm/rhythm_episodes.hpp.
#include "ecgpipe/rhythm/rhythm_episodes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ecgpipe/common/error.hpp"
#include "rhythm/rhythm_runs.hpp"

namespace ecgpipe {

std::vector<RhythmEpisode> rhythm_episodes(const std::vector<std::int64_t>& r_peaks, const std::vector<Rhythm>& rhythm,
                                           double fs, std::int64_t end_sample) {
  if (r_peaks.size() != rhythm.size()) throw InternalError("rhythm_episodes: one rhythm per beat");
  std::vector<RhythmEpisode> out;
  if (r_peaks.empty()) return out;
  end_sample = std::max(end_sample, r_peaks.back() + 1);
  const auto gap_after = [&](std::size_t i) {  // beat i is followed by a stretch without beats
    return i + 1 < r_peaks.size() && static_cast<double>(r_peaks[i + 1] - r_peaks[i]) > kMaxBeatGapS * fs;
  };
  const auto add = [&](std::size_t first, std::size_t end) {
    RhythmEpisode e;
    e.start_sample = r_peaks[first];
    e.end_sample = end == r_peaks.size() ? end_sample : gap_after(end - 1) ? r_peaks[end - 1] : r_peaks[end];
    if (e.end_sample == e.start_sample) return;  // a beat alone between two gaps: no time, no episode
    e.rhythm = rhythm[first];
    e.beats = static_cast<std::int64_t>(end - first);
    // The intervals between the episode's beats (the last beat's own interval belongs to the
    // next episode's first beat).
    e.mean_hr = end - first >= 2 ? 60.0 * fs * static_cast<double>(end - first - 1) / static_cast<double>(r_peaks[end - 1] - r_peaks[first])
                                 : std::numeric_limits<double>::quiet_NaN();
    out.push_back(e);
  };
  for (const auto& [first, end] : detail::runs_of(rhythm)) {
    std::size_t from = first;
    for (std::size_t i = first; i + 1 < end; ++i)
      if (gap_after(i)) add(from, i + 1), from = i + 1;
    add(from, end);
  }
  return out;
}

void write_rhythm_csv(std::ostream& out, const std::vector<RhythmEpisode>& episodes, double fs) {
  out << "start_sample,end_sample,start_s,end_s,rhythm,beats,mean_hr\n";
  char buf[160];
  for (const auto& e : episodes) {
    std::snprintf(buf, sizeof buf, "%lld,%lld,%.3f,%.3f,%s,%lld,", static_cast<long long>(e.start_sample),
                  static_cast<long long>(e.end_sample), static_cast<double>(e.start_sample) / fs,
                  static_cast<double>(e.end_sample) / fs, rhythm_name(e.rhythm), static_cast<long long>(e.beats));
    out << buf;
    if (std::isfinite(e.mean_hr)) {
      std::snprintf(buf, sizeof buf, "%.1f", e.mean_hr);
      out << buf;
    }
    out << '\n';
  }
}

std::map<Rhythm, RhythmTotal> rhythm_totals(const std::vector<RhythmEpisode>& episodes, double fs) {
  std::map<Rhythm, RhythmTotal> totals;
  for (const RhythmEpisode& e : episodes) {
    RhythmTotal& t = totals[e.rhythm];
    ++t.episodes;
    t.seconds += static_cast<double>(e.end_sample - e.start_sample) / fs;
  }
  return totals;
}

bool continues_af(const std::vector<RhythmEpisode>& episodes, std::size_t k) {
  return k >= 2 && episodes[k].rhythm == Rhythm::AFIB && episodes[k - 1].rhythm == Rhythm::VT &&
         episodes[k - 2].rhythm == Rhythm::AFIB && episodes[k - 2].end_sample == episodes[k - 1].start_sample &&
         episodes[k - 1].end_sample == episodes[k].start_sample;  // no gap between them
}

std::vector<std::size_t> af_episode_starts(const std::vector<RhythmEpisode>& episodes) {
  std::vector<std::size_t> starts;
  for (std::size_t k = 0; k < episodes.size(); ++k)
    if (episodes[k].rhythm == Rhythm::AFIB && !continues_af(episodes, k)) starts.push_back(k);
  return starts;
}

RhythmBurden rhythm_burden(const std::vector<RhythmEpisode>& episodes, double fs,
                           const std::vector<std::pair<std::int64_t, std::int64_t>>& artefact) {
  RhythmBurden b;
  double af_beats = 0, af_time = 0;
  std::int64_t af_start = 0;  // where the summary's episode that holds this row began
  // Episodes and stretches in time order, neither overlapping its kind: one pass over both (a
  // 14-day recording has thousands of each).
  std::vector<std::pair<std::int64_t, std::int64_t>> noise_spans = artefact;
  std::sort(noise_spans.begin(), noise_spans.end());
  std::size_t next_noise = 0;
  for (std::size_t k = 0; k < episodes.size(); ++k) {
    const RhythmEpisode& e = episodes[k];
    while (next_noise < noise_spans.size() && noise_spans[next_noise].second <= e.start_sample) ++next_noise;
    std::int64_t noise = 0;  // the artefact inside the episode
    for (std::size_t j = next_noise; j < noise_spans.size() && noise_spans[j].first < e.end_sample; ++j)
      noise += std::max<std::int64_t>(0, std::min(noise_spans[j].second, e.end_sample) - std::max(noise_spans[j].first, e.start_sample));
    const double s = static_cast<double>(e.end_sample - e.start_sample - noise) / fs;
    b.analysed_s += s;
    if (e.rhythm != Rhythm::AFIB) continue;
    b.afib_s += s;
    if (!continues_af(episodes, k)) {
      ++b.afib_episodes;
      af_start = e.start_sample;
    }
    b.longest_afib_s = std::max(b.longest_afib_s, static_cast<double>(e.end_sample - af_start) / fs);
    if (e.beats >= 2 && std::isfinite(e.mean_hr)) {
      af_beats += static_cast<double>(e.beats - 1);
      af_time += static_cast<double>(e.beats - 1) * 60.0 / e.mean_hr;
    }
  }
  b.afib_mean_hr = af_time > 0 ? 60.0 * af_beats / af_time : std::numeric_limits<double>::quiet_NaN();
  return b;
}

}  // namespace ecgpipe
