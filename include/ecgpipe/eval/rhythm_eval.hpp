// EC57's atrial fibrillation statistics (ANSI/AAMI EC57, as WFDB's `epicmp -a` computes them)
// and the reference rhythm they compare with: docs/accuracy.md, "Rhythm".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"

namespace ecgpipe {

// The rhythm changes of an annotation file: its '+' annotations' aux strings ("(AFIB").
std::vector<RhythmChange> rhythm_changes(const std::vector<Annotation>& annotations);
// A CSV of rhythm changes: columns `sample` and `rhythm` (the AF database's NNNNN_rhythm.csv), or
// of episodes, `start_sample`, `end_sample` and `rhythm` (ecgpipe's rhythm.csv, or a list of the AF
// episodes alone): a change at each start, and an "N" at each end that the next row does not
// start at. InputError naming the line for a bad sample, a missing column, an episode that ends
// before it starts or starts inside the one before.
std::vector<RhythmChange> parse_rhythm_csv(std::string_view text, const std::string& path);
// By the name: a .csv file is parse_rhythm_csv, anything else a WFDB annotation file.
std::vector<RhythmChange> read_rhythm_reference(const std::string& path);
// The rhythm names of `changes` that are not MIT-BIH's, the AF databases' or ecgpipe's (AB, AFIB,
// AFL, B, BII, IVR, J, N, NOD, P, PREX, SBR, SVTA, T, VF, VFL, VT), each once, in order of first
// appearance: a misspelt AF or another database's convention counts as neither AF nor flutter,
// which a caller should say.
std::vector<std::string> unknown_rhythm_names(const std::vector<RhythmChange>& changes);
// Whether `name` (a leading '(' and trailing spaces aside) is one of those names.
bool is_known_rhythm_name(std::string_view name);
// What `rhythm`, `eval` and `run --reference` say of them: "WHERE: rhythm names ecgpipe does not
// know, counted as neither AF nor flutter: AF, BOGUS" (shortened); empty when there are none.
std::string unknown_rhythm_warning(const std::vector<RhythmChange>& changes, const std::string& where);
// The same of a detections file's `rhythm` column (Detections::unknown_rhythms): "WHERE: rhythm
// names ecgpipe does not know in its rhythm column, taken as no AF: afib, foo"; empty without one.
std::string unknown_detected_rhythm_warning(const std::vector<std::string>& names, const std::string& where);

// The episodes of `rhythm` in `changes` (sorted by sample), each until the next change to another
// rhythm; one still open at the end runs to `end`.
std::vector<Episode> episodes_of(const std::vector<RhythmChange>& changes, const std::string& rhythm, std::int64_t end);

// EC57's AF statistics (AfStats, evaluate.hpp) of detected AF episodes against the reference's AF
// and atrial flutter.
AfStats compare_af(const std::vector<Episode>& reference_af, const std::vector<Episode>& reference_afl,
                   const std::vector<Episode>& test_af);
// The same for ecgpipe's rhythm episodes (their AFIB ones) against a reference's rhythm changes,
// the reference's last rhythm running to `end`: what `rhythm --reference`, `run --reference` and
// `eval` report.
AfStats compare_af(const std::vector<RhythmChange>& reference, const std::vector<RhythmEpisode>& detected, std::int64_t end);
// RhythmStats (evaluate.hpp) of kEctopicRhythms (VT, SVTA, B, T, IVR), in that order, of
// `detected` against the reference's episodes of each, as compare_af counts (any overlap;
// durations in samples); the reference's ventricular flutter and fibrillation are left out of the
// detected VT and IVR as compare_af leaves flutter out of the detected AF.
std::vector<RhythmStats> compare_ectopic_rhythms(const std::vector<RhythmChange>& reference,
                                                 const std::vector<RhythmEpisode>& detected, std::int64_t end);

}  // namespace ecgpipe
