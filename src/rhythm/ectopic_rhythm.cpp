// Rhythms that the beat classes name: see include/ecgpipe/rhythm/ectopic_rhythm.hpp.
#include "ecgpipe/rhythm/ectopic_rhythm.hpp"

#include <algorithm>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// Marks beats [first, first + count) as `name` unless one of them is AF and `over_af` is false.
void mark(std::vector<Rhythm>& rhythm, std::size_t first, std::size_t count, Rhythm name, bool over_af = false) {
  if (first + count > rhythm.size()) throw InternalError("name_ectopic_rhythms: a span beyond the beats");
  const auto from = rhythm.begin() + static_cast<std::ptrdiff_t>(first), to = from + static_cast<std::ptrdiff_t>(count);
  if (!over_af && std::find(from, to, Rhythm::AFIB) != to) return;
  std::fill(from, to, name);
}

}  // namespace

void name_ectopic_rhythms(const HolterSummary& h, std::vector<Rhythm>& rhythm) {
  if (static_cast<std::size_t>(h.beats) != rhythm.size()) throw InternalError("name_ectopic_rhythms: one rhythm per beat");
  if (!h.has_classes) return;
  // Bigeminy first: a run that follows it (a couplet or run ends an episode) keeps its own name.
  for (const BigeminyEpisode& b : h.bigeminy)
    if (b.cls == 'V') mark(rhythm, b.first_beat, 2 * b.cycles, Rhythm::B);
  for (const BigeminyEpisode& b : h.trigeminy)
    if (b.cls == 'V') mark(rhythm, b.first_beat, 3 * b.cycles, Rhythm::T);
  for (const EctopicRun& run : h.runs) {
    if (run.rate_bpm >= kTachycardiaBpm)
      mark(rhythm, run.first_beat, run.beats, run.cls == 'V' ? Rhythm::VT : Rhythm::SVTA, run.cls == 'V');
    else if (run.cls == 'V')  // a slow S run is no rhythm MIT-BIH names: N
      mark(rhythm, run.first_beat, run.beats, Rhythm::IVR);
  }
}

}  // namespace ecgpipe
