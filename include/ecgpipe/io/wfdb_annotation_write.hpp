// MIT-format annotation files (WFDB's annot(5)) written, the counterpart of
// parse_wfdb_annotations (wfdb.hpp): what ecgpipe finds, opened by wfdb-python's rdann, WFDB's
// rdann/bxb, WAVE and LightWAVE.
//
// The words are those WFDB's putann (lib/annot.c) writes: per annotation a SKIP when the interval
// exceeds 1023 samples (several when it exceeds 2^31 - 1), the code and interval word, then SUB when
// the subtype is not 0, CHN and NUM when the channel or number differs from the previous
// annotation's (both start at 0), AUX with the string padded to an even length; the file ends with
// the word 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/io/wfdb.hpp"

namespace ecgpipe {

// What one annotation may hold. The code: 1..49 (WFDB's ACMAX; 0 is no annotation, 50..63 are the
// pseudo-codes above). subtype, chan and num: the ranges of WFDB_Annotation's signed char,
// unsigned char and signed char, which are also what wfdb-python reads (the low byte of the word).
// aux: at most 255 bytes (WFDB keeps its length in one byte) and no NUL (readers end it there).
// sample: at most 2^40 - 1, 35 years at 1 kHz; the bound keeps a corrupt sample number from
// asking for 2^31 SKIPs (12 GB).
inline constexpr int kMaxAnnotationCode = 49;
inline constexpr int kMinAnnotationSubtype = -128, kMaxAnnotationSubtype = 127;
inline constexpr int kMaxAnnotationChannel = 255;
inline constexpr int kMinAnnotationNum = -128, kMaxAnnotationNum = 127;
inline constexpr std::size_t kMaxAnnotationAux = 255;
inline constexpr std::int64_t kMaxAnnotationSample = (std::int64_t{1} << 40) - 1;

// The bytes of a MIT-format annotation file holding `annotations`, in their order, which must be
// by sample (ascending, equal samples allowed). Each annotation's symbol is 0 or the mnemonic of
// its code (annotation_symbol). parse_wfdb_annotations of the bytes gives `annotations` back, field
// by field (symbols filled in). InternalError naming the annotation (index and sample) and the
// field for anything outside the limits above: every caller builds them from its own results, so
// a bad one is a bug.
std::string wfdb_annotation_bytes(const std::vector<Annotation>& annotations);

}  // namespace ecgpipe
