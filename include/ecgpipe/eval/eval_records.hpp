// Which files `ecgpipe eval` compares, and at what rate, as WFDB's bxb and sumstats find them: a
// record and an annotator name (REC.NAME), the rate from the record's header beside the files,
// and the records of a gross evaluation (two directories paired by record name, or a pairs file).
// Reading the files themselves: evaluate.hpp (read_reference, read_detections).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/eval/evaluate.hpp"

namespace ecgpipe {

// A file to read and what to read it as.
struct EvalFile {
  std::string path;
  EvalFileFormat format = EvalFileFormat::guess;
};

// REC.NAME, WFDB's annotation file of `record` (a path without extension, e.g. data/100) by
// annotator `annotator` (atr, qrs, xqrs, ecgpipe, ...): an annotation file, or a CSV when the name
// is csv or txt (any case). UsageError for an empty name, one holding '/' or a NUL byte, or one
// that starts with '.'.
EvalFile annotator_file(const std::string& record, const std::string& annotator);

// The record header beside a file, as WFDB finds the rate of an annotation file: REC.hea for
// REC.xxx (the last extension replaced) and for REC (none).
std::string header_beside(const std::string& path);

// The rate a comparison is made at, and where it came from (for the log line and --json).
struct EvalRate {
  double fs = 0.0;
  std::string source;      // "--fs", a header's path, or "default"
  bool defaulted = false;  // 250 Hz with no header and no --fs (both files CSV): say so
};
inline constexpr double kEvalDefaultFs = 250.0;  // ecgpipe's CSV default (run, detect)

// The rate of `reference` against `detections` (each flagged when it is a WFDB annotation file):
//  * the headers beside them (header_beside; one when both name the same) that exist are read;
//    two that disagree are an InputError naming both;
//  * `fs` (--fs) when given: a UsageError if it contradicts a header found ("--fs 250 contradicts
//    the 360 Hz of data/100.hea"), else it is used;
//  * else the header's rate;
//  * else, when either file is an annotation file, a UsageError: "no data/100.hea beside
//    data/100.atr: pass --fs" (sample numbers without their record's rate mean nothing);
//  * else (two CSVs) kEvalDefaultFs, defaulted.
EvalRate eval_rate(const std::string& reference, bool reference_is_annotations, const std::string& detections,
                   bool detections_is_annotations, std::optional<double> fs);

// --- Many records (gross statistics).
struct RecordPair {
  std::string record;  // the name the tables show
  EvalFile reference, detections;
};
// A record found on one side only.
struct UnpairedRecord {
  std::string record;
  std::string missing;  // "detections" or "reference"
  std::string expected; // the path looked for, absent ("A or B" where two places would do)
};
struct RecordPairs {
  // Directories: sorted by record name (byte order); a pairs file: in its order.
  std::vector<RecordPair> pairs;
  std::vector<UnpairedRecord> unpaired;
};

// The records of two directories, paired by name (not recursing):
//  * reference_dir: every REC.ANNOTATOR (`annotator`, annotator_file's rule for its format);
//  * detections_dir: with `test_annotator`, every REC.TEST and every REC/REC.TEST (a batch's folder:
//    `run` writes RECORD.ecgpipe there; both for one record is an InputError); without one, every
//    REC/beats.csv (the folders of a batch's --out: `ecgpipe detect DIR --out DIR2`).
// A name on one side only is unpaired (with the path looked for). InputError for a directory that
// cannot be listed, and for an entry named like a file of the set that is a directory
// (DIR/x.atr/), naming it. No record on either side is fine here (the caller refuses to compare
// nothing).
RecordPairs pair_directories(const std::string& reference_dir, const std::string& annotator,
                             const std::string& detections_dir, const std::string& test_annotator);

// A pairs file: one record per line, `reference,detections` (fields trimmed; paths relative to the
// pairs file's directory unless absolute; blank lines and lines starting with '#' skipped; an
// optional first line `reference,detections` is a header). Each file's format is guessed
// (EvalFileFormat::guess). The record is the reference path as written without its extension.
// InputError "FILE:LINE: ..." for a line without exactly two non-empty fields or a record given
// twice (two references that differ only in their extension are one record), and for an unreadable or binary file. read_record_pairs then moves a line whose reference
// or detections file does not exist to unpaired (the reference first);
// parse_record_pairs is the pure core on the file's text (`path` names it and gives the
// directory), every line a pair.
RecordPairs read_record_pairs(const std::string& path);
RecordPairs parse_record_pairs(std::string_view text, const std::string& path);

}  // namespace ecgpipe
