// WFDB (PhysioNet) files: MIT-format annotations (.atr), record headers (.hea) and signal files
// (.dat, formats 212 and 16), read by hand.
//
// Why not a library: Debian has no libwfdb package for C/C++ that fits (WFDB's C library is not
// packaged, and PhysioNet's Python `wfdb` is no help to a C++ build); the formats used here are
// small and fixed, so keeping the dependencies to the chosen set costs ~300 lines.
// Format references: PhysioNet "WFDB Applications Guide" / "annot(5)", "header(5)", "signal(5)".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/io/csv.hpp"

namespace ecgpipe {

// --- Annotations (MIT format).
struct Annotation {
  std::int64_t sample = 0;  // 0-based sample number (absolute time of the annotation)
  int code = 0;             // WFDB annotation code (1 = NORMAL, 5 = PVC, 28 = RHYTHM, ...)
  char symbol = 0;          // its WFDB mnemonic ('N', 'V', '+', '[', ...); 0 if the code has none
  int subtype = 0, channel = 0, num = 0;
  std::string aux;          // e.g. "(VFL" for a rhythm change; empty if none
};

// The WFDB mnemonic of an annotation code (the standard ecgcodes table), or 0 for a code that has
// none (unused codes 15, 42..48 and user-defined codes).
char annotation_symbol(int code);

// Reads a MIT-format annotation file. InputError (naming the file and the byte offset) for a
// missing file, an odd size, a SKIP or AUX record cut short. The file may end with the
// end-of-file word 0 or without it.
std::vector<Annotation> read_wfdb_annotations(const std::string& path);
// Its in-memory core: the annotations of a file's bytes; `path` only names the file in errors.
std::vector<Annotation> parse_wfdb_annotations(std::string_view bytes, const std::string& path);

// --- Records: header and signals.
struct WfdbSignalSpec {
  std::string file_name;    // signal file, relative to the header's directory
  int format = 0;           // 212 or 16 (others are refused when read)
  std::int64_t byte_offset = 0;  // "+N" after the format: bytes to skip at the start of the file
  double gain = 200.0;      // ADC units per physical unit (WFDB's default 200 when absent or 0)
  int baseline = 0;         // ADC value of 0 physical units (defaults to adc_zero)
  int adc_zero = 0;
  std::string units = "mV";
  std::string description;  // e.g. "MLII"; may be empty
};

struct WfdbHeader {
  std::string path;         // of the .hea file
  std::string record;
  double fs = 250.0;        // WFDB's default when the header gives none
  std::int64_t samples = 0; // per signal; 0 when the header leaves it out (then: from file size)
  std::string base_time;    // "hh:mm:ss" as the record line gives it; empty when absent
  std::string base_date;    // "dd/mm/yyyy"; empty when absent
  std::vector<WfdbSignalSpec> signals;
};

// Parses a .hea file (comment lines '#' and blank lines skipped). InputError naming the file and
// line for a missing file, a malformed record line (multi-segment records are refused), fewer
// signal lines than announced, or a bad field.
WfdbHeader read_wfdb_header(const std::string& path);
// Its in-memory core: the header in `text`; `path` is the .hea file's (header.path, the signal
// files' directory, and the name in errors).
WfdbHeader parse_wfdb_header(std::string_view text, const std::string& path);

// The record's start in the layout SignalSource::start_time gives every format: "YYYY-MM-DD
// hh:mm:ss[.fff]" from header(5)'s time and "dd/mm/yyyy" date (one-digit fields as WFDB's strtim
// reads them), "hh:mm:ss[.fff]" from a time alone, "" from neither; a time or date out of range
// or of another shape is returned as written ("time date"), for the report to say it is unread.
std::string wfdb_start_time(const WfdbHeader& header);

// "rec.hea" for "rec.hea", "rec.dat" or "rec" (no extension): the header of a record path.
std::string wfdb_header_path(const std::string& path);

// True for a path ending in .hea or .dat (any case), or a record name without extension ("data/100":
// no file by that name, a regular file "data/100.hea"): a WFDB record rather than a CSV file.
bool is_wfdb_record_path(const std::string& path);

struct WfdbSignal {
  std::vector<float> values;  // physical units: (adu - baseline) / gain
  double fs = 250.0;
  std::size_t channel = 0;    // index in the header
  std::string description;
};

// One channel of a record. `path`: the .hea, the .dat or the record name without extension.
// `channel`: empty (channel 0), a 0-based index ("1") or a description ("MLII"; exact, else
// case-insensitive). InputError naming the file for an unknown channel, an unsupported format
// (only 212 and 16), a missing or truncated signal file, or a WFDB invalid-sample marker
// (-2048 in 212, -32768 in 16), which this pipeline has no way to represent.
WfdbSignal read_wfdb_signal(const std::string& path, const std::string& channel = "");

// The two halves of read_wfdb_signal around reading the signal file. wfdb_signal_path: the file
// that holds `channel` (next to header.path), after the channel checks (InputError as above).
// parse_wfdb_signal: the channel decoded from that file's bytes, `dat_bytes`; `dat_path` names it
// in errors. read_wfdb_signal(path, channel) is parse_wfdb_signal(header, channel, bytes of
// wfdb_signal_path(header, channel), that path) with header = read_wfdb_header(...).
std::string wfdb_signal_path(const WfdbHeader& header, const std::string& channel = "");
// The file that holds `signal` (one of header.signals) as every reader opens it: its name beside
// header.path, or as it is when the header names it by an absolute path. No channel checks.
std::string wfdb_signal_file(const WfdbHeader& header, const WfdbSignalSpec& signal);
WfdbSignal parse_wfdb_signal(const WfdbHeader& header, const std::string& channel, std::string_view dat_bytes,
                             const std::string& dat_path);

}  // namespace ecgpipe
