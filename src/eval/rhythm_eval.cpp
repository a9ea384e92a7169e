// EC57 AF statistics and reference rhythm: see include/ecgpipe/eval/rhythm_eval.hpp.
#include "ecgpipe/eval/rhythm_eval.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include "common/text.hpp"

namespace ecgpipe {
namespace {

std::int64_t overlap(const Episode& a, const Episode& b) {
  return std::max<std::int64_t>(0, std::min(a.end, b.end) - std::max(a.start, b.start));
}

std::int64_t overlap_with(const Episode& e, const std::vector<Episode>& others) {
  std::int64_t sum = 0;
  for (const auto& o : others) sum += overlap(e, o);
  return sum;
}

double ratio(std::int64_t a, std::int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::vector<RhythmChange> rhythm_changes(const std::vector<Annotation>& annotations) {
  std::vector<RhythmChange> out;
  for (const auto& a : annotations) {
    if (a.symbol != '+' || a.aux.empty()) continue;
    std::string name = a.aux;
    if (name.front() == '(') name.erase(0, 1);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\0')) name.pop_back();
    out.push_back({a.sample, name});
  }
  return out;
}

bool is_known_rhythm_name(std::string_view name) {
  // MIT-BIH's rhythm names (its .atr aux strings without the parenthesis), the AF databases' J
  // (junctional), other databases' VF; ecgpipe's own rhythm.csv names are among them.
  static const char* const kKnown[] = {"AB", "AFIB", "AFL", "B", "BII", "IVR", "J", "N", "NOD",
                                       "P", "PREX", "SBR", "SVTA", "T", "VF", "VFL", "VT"};
  if (!name.empty() && name.front() == '(') name.remove_prefix(1);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\0')) name.remove_suffix(1);
  return std::any_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return name == k; });
}

std::vector<std::string> unknown_rhythm_names(const std::vector<RhythmChange>& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes)
    if (!is_known_rhythm_name(c.rhythm) && std::find(out.begin(), out.end(), c.rhythm) == out.end()) out.push_back(c.rhythm);
  return out;
}

namespace {
// "WHERE: WHAT: A, B" (shortened), or empty without a name.
std::string names_said(const std::vector<std::string>& names, const std::string& where, const std::string& what) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? list : where + ": " + what + ": " + text::shorten(list);
}
}  // namespace

std::string unknown_rhythm_warning(const std::vector<RhythmChange>& changes, const std::string& where) {
  return names_said(unknown_rhythm_names(changes), where, "rhythm names ecgpipe does not know, counted as neither AF nor flutter");
}

std::string unknown_detected_rhythm_warning(const std::vector<std::string>& names, const std::string& where) {
  return names_said(names, where, "rhythm names ecgpipe does not know in its rhythm column, taken as no AF");
}

std::vector<Episode> episodes_of(const std::vector<RhythmChange>& changes, const std::string& rhythm, std::int64_t end) {
  std::vector<Episode> out;
  bool open = false;
  for (const auto& c : changes) {
    const bool is = c.rhythm == rhythm;
    if (is && !open) {
      out.push_back({c.sample, end});
      open = true;
    } else if (!is && open) {
      out.back().end = c.sample;
      open = false;
    }
  }
  if (open) out.back().end = std::max(end, out.back().start);
  return out;
}

double AfStats::episode_se() const { return ratio(detected_reference_episodes, reference_episodes); }
double AfStats::episode_ppv() const { return ratio(true_test_episodes, test_episodes); }
double AfStats::duration_se() const { return ratio(overlap_of_reference, reference_duration); }
double AfStats::duration_ppv() const { return ratio(overlap_of_test, test_duration); }

AfStats& AfStats::operator+=(const AfStats& o) {
  reference_episodes += o.reference_episodes;
  detected_reference_episodes += o.detected_reference_episodes;
  test_episodes += o.test_episodes;
  true_test_episodes += o.true_test_episodes;
  reference_duration += o.reference_duration;
  overlap_of_reference += o.overlap_of_reference;
  test_duration += o.test_duration;
  overlap_of_test += o.overlap_of_test;
  return *this;
}

AfStats compare_af(const std::vector<Episode>& reference_af, const std::vector<Episode>& reference_afl,
                   const std::vector<Episode>& test_af) {
  AfStats s;
  for (const auto& r : reference_af) {
    if (r.end <= r.start) continue;
    ++s.reference_episodes;
    s.reference_duration += r.end - r.start;
    const std::int64_t o = overlap_with(r, test_af);
    s.overlap_of_reference += o;
    if (o > 0) ++s.detected_reference_episodes;
  }
  for (const auto& t : test_af) {
    // Reference flutter is excluded from the detected episode; one wholly inside it is ignored.
    const std::int64_t duration = (t.end - t.start) - overlap_with(t, reference_afl);
    if (duration <= 0) continue;
    ++s.test_episodes;
    s.test_duration += duration;
    const std::int64_t o = overlap_with(t, reference_af);
    s.overlap_of_test += o;
    if (o > 0) ++s.true_test_episodes;
  }
  return s;
}

AfStats compare_af(const std::vector<RhythmChange>& reference, const std::vector<RhythmEpisode>& detected, std::int64_t end) {
  std::vector<Episode> test;
  for (const auto& e : detected)
    if (e.rhythm == Rhythm::AFIB) test.push_back({e.start_sample, e.end_sample});
  return compare_af(episodes_of(reference, "AFIB", end), episodes_of(reference, "AFL", end), test);
}

std::vector<RhythmStats> compare_ectopic_rhythms(const std::vector<RhythmChange>& reference,
                                                 const std::vector<RhythmEpisode>& detected, std::int64_t end) {
  std::vector<RhythmStats> out;
  // As AF's statistics leave reference flutter out of the detected AF, VT's and IVR's leave out
  // reference ventricular flutter and fibrillation ("(VFL", "(VF"): ecgpipe does not name them, and
  // what it finds there is a run of V beats, fast or (where it slows, as 207's ends in its
  // idioventricular rhythm) slow (EC57 leaves VF episodes out of the beat comparison too).
  std::vector<Episode> ventricular_flutter = episodes_of(reference, "VFL", end);
  for (const Episode& e : episodes_of(reference, "VF", end)) ventricular_flutter.push_back(e);
  for (Rhythm r : kEctopicRhythms) {
    std::vector<Episode> test;
    for (const auto& e : detected)
      if (e.rhythm == r) test.push_back({e.start_sample, e.end_sample});
    const bool ventricular = r == Rhythm::VT || r == Rhythm::IVR;
    const std::vector<Episode> excluded = ventricular ? ventricular_flutter : std::vector<Episode>{};
    out.push_back({rhythm_name(r), compare_af(episodes_of(reference, rhythm_name(r), end), excluded, test)});
  }
  return out;
}

}  // namespace ecgpipe
