// ANSI/AAMI EC57 beat-classification statistics, as WFDB's `bxb -S` (standard format with SVEB
// statistics) gives them: the confusion matrix of reference class (rows N S V F Q, plus O: a
// detection matching no reference beat) against detected class (columns n s v f q, plus o: a
// reference beat matched by no detection), and from it QRS, VEB and SVEB sensitivity (Se) and
// positive predictivity (+P).
//
// The pairs come from match_beats (beat_match.hpp, the +-150 ms one-to-one matching); this file
// only counts them. Both sides are reduced to AAMI classes by aami_class(): a detected label may
// be an AAMI class (N S V F Q, what beats.csv's `class` column holds) or any WFDB beat symbol.
//
// The rules, from bxb.c (WFDB, G. Moody, print_results()):
//   VEB:  TP = Vv;  FN = Vn + Vs + Vf + Vq + Vo;  FP = Nv + Sv + Ov.
//         A reference F (or Q) beat labelled V is neither a TP nor a FP (Fv, Qv are not counted).
//   SVEB: TP = Ss;  FN = Sn + Sv + Sf + Sq + So;  FP = Ns + Vs + Fs + Os.
//         A reference Q beat labelled S (Qs) is not a FP.
//   QRS:  TP = every matched pair;  FN = the o column;  FP = the O row.
// bxb's X row/column (beats in the other annotator's "shutdown", unreadable signal) has no
// counterpart here: ecgpipe's detections carry no shutdown marks, so X would always be zero.
// Reference beats and detections inside reference VF episodes are not counted (bxb pairs them
// with '*', which pair() ignores); evaluate_detections drops them before matching.
//
// Two deliberate differences from bxb's defaults, both documented in README "Beat classes":
//  * the comparison starts at the record's first sample (bxb -f 0), not 5 minutes in (bxb's
//    default "learning period"), as ecgpipe's detection evaluation does;
//  * the reference classes follow EC57's class table as aami_class() implements it (and de
//    Chazal 2004, the inter-patient benchmark): escape beats e and j are N. bxb's amap() puts
//    e, j (and n) in S; MIT-BIH has 16 e and 229 j beats in all 48 records.
//
// Gross statistics over several records: the matrices are summed (operator+=), then Se/+P
// computed from the sums, as bxb's companion `sumstats` does for "gross" figures.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ecgpipe {

struct MatchResult;  // beat_match.hpp

// Row / column order: the five AAMI classes, then "none" (O row / o column).
inline constexpr std::array<char, 5> kEc57Classes{'N', 'S', 'V', 'F', 'Q'};
inline constexpr std::size_t kEc57None = 5;
inline constexpr std::size_t kEc57Size = 6;

struct Ec57Matrix {
  // counts[r][c]: r = reference class index (kEc57Classes, or kEc57None: no reference beat),
  // c = detected class index (kEc57Classes, or kEc57None: no detection). counts[5][5] stays 0.
  std::array<std::array<std::int64_t, kEc57Size>, kEc57Size> counts{};

  // By letters: reference 'N' 'S' 'V' 'F' 'Q' 'O', detected 'n' 's' 'v' 'f' 'q' 'o' (either
  // case). InternalError for another letter.
  std::int64_t at(char reference, char detected) const;
  Ec57Matrix& operator+=(const Ec57Matrix& other);
  bool operator==(const Ec57Matrix& other) const { return counts == other.counts; }
};

// Index in kEc57Classes of an AAMI class letter, or kEc57None for 'O'/'o'; InternalError otherwise.
std::size_t ec57_index(char letter);

// One statistic: Se = TP / (TP + FN), +P = TP / (TP + FP); NaN when the denominator is 0.
struct Ec57Stat {
  std::int64_t tp = 0, fn = 0, fp = 0;
  double se() const;
  double ppv() const;
};
Ec57Stat ec57_qrs(const Ec57Matrix& m);
Ec57Stat ec57_veb(const Ec57Matrix& m);
Ec57Stat ec57_sveb(const Ec57Matrix& m);

// The AAMI class of a detected label (aami_class of the letter, so N S V F Q map to themselves
// and WFDB symbols like A or L to their class), or 0 if it is not a beat label.
char ec57_detected_class(char label);

// Counts the matched pairs and the unmatched events of `match` (computed on `reference_symbols`'
// beats and the detections that `detected_classes` labels, in the same order). Reference symbols
// are WFDB beat symbols, detected classes as ec57_detected_class accepts. InternalError if the
// sizes disagree with the match or a label is not a beat label.
Ec57Matrix ec57_matrix(const std::vector<char>& reference_symbols, const std::vector<char>& detected_classes,
                       const MatchResult& match);

// match_beats(reference_samples, detected_samples, tolerance_samples), then ec57_matrix.
Ec57Matrix ec57_compare(const std::vector<std::int64_t>& reference_samples, const std::vector<char>& reference_symbols,
                        const std::vector<std::int64_t>& detected_samples, const std::vector<char>& detected_classes,
                        std::int64_t tolerance_samples);

// bxb's standard table (rows N S V F Q O, columns n s v f q o) and the QRS / VEB / SVEB lines,
// each "Se: 98.50% (197/200)" or "-" when undefined, as bxb's pstat prints them.
std::string ec57_text(const Ec57Matrix& m);

// The JSON form (`eval --json` "ec57"): src/eval/ec57_json.hpp (internal, like eval_json.hpp).

}  // namespace ecgpipe
