// Rhythms that the beat classes name (MIT-BIH's rhythm annotations): ventricular tachycardia,
// idioventricular rhythm, supraventricular tachyarrhythmia, ventricular bigeminy and trigeminy,
// from the Holter summary's runs, bigeminy and trigeminy episodes (holter.hpp: the same
// definitions the report counts), so that the rhythm column and rhythm.csv say where they are.
// Inside AF only VT is named (MIT-BIH marks it there: record 203 has 21 VT episodes inside its
// AF); an S run in AF is AF's irregular response, a slow V run there more likely aberrant
// conduction than a ventricular focus, and bigeminy and trigeminy are not told in AF's irregular
// intervals: those beats stay AF.
#pragma once

#include <vector>

#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"

namespace ecgpipe {

// A run's rate from which it is a tachycardia: MIT-BIH's (VT and (SVTA are >= 3 beats above
// 100 bpm; slower V runs are idioventricular rhythm, (IVR (DS1's 124 and 207: 4 episodes, runs of
// 4 to 105 V beats at 24 to 63 bpm).
inline constexpr double kTachycardiaBpm = 100.0;

// Sets `rhythm` (one per beat of the summary, AF already marked) to VT over each V run and to
// SVTA over each S run of at least kTachycardiaBpm, to IVR over each slower V run, to B over each
// V bigeminy episode and to T over each V trigeminy episode (from its first N to its last V); each
// but VT only where no beat of the span is AF. InternalError for a summary whose beats are not those of `rhythm`.
void name_ectopic_rhythms(const HolterSummary& holter, std::vector<Rhythm>& rhythm);

}  // namespace ecgpipe
