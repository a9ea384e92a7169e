// EDF, EDF+ and BDF(+) input (European Data Format: what most Holter, patch and polysomnography
// systems export), read through Debian's edflib (libedf-dev, BSD-2) rather than by hand.
//
// One signal of a file is read, in physical units (the header's physical/digital min and max map
// each digital value; the unit is the header's, e.g. uV or mV), at the rate the header gives:
// samples per data record / data record duration. Only the chosen signal's rate matters, so a
// polysomnogram whose other signals run at other rates is read without complaint.
//
// EDF+D (discontinuous: data records with gaps between them) is refused: the pipeline needs one
// evenly sampled signal, and joining the records would silently put beats at the wrong times.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ecgpipe {

// True for a path ending in .edf or .bdf (any case).
bool is_edf_path(const std::string& path);

struct EdfSignalInfo {
  std::size_t index = 0;  // among the file's ordinary signals (edflib hides annotation signals)
  std::string label;      // e.g. "ECG II", trailing blanks removed
  std::string units;      // physical dimension, e.g. "uV"
  double fs = 0.0;        // samples per second of this signal
  long long samples = 0;  // of this signal in the file
};

struct EdfHeader {
  std::string path;
  std::string type;  // "EDF", "EDF+", "BDF" or "BDF+"
  std::string start;  // "YYYY-MM-DD hh:mm:ss", the header's start date and time
  std::vector<EdfSignalInfo> signals;
};

// The header and every signal's parameters. InputError naming the file and the reason (edflib's
// error code as a sentence) for a missing, unreadable, truncated or malformed file, and for EDF+D.
EdfHeader read_edf_header(const std::string& path);

// Which signal `channel` names: empty = signal 0; a 0-based index ("1"); or a label, exact, else
// ignoring case and surrounding blanks ("ECG", "II"). InputError listing the labels otherwise.
const EdfSignalInfo& edf_select_signal(const EdfHeader& header, const std::string& channel);

struct EdfSignal {
  std::vector<float> values;  // physical units (EdfSignalInfo::units)
  EdfSignalInfo info;
};

// One signal of an EDF/BDF file (see edf_select_signal for `channel`). Errors as read_edf_header,
// plus a signal without samples. Thread-safe: edflib's open and close use a process-wide table,
// so they are serialised here.
EdfSignal read_edf_signal(const std::string& path, const std::string& channel = "");

// The same signal read piece by piece (the chunked path, issue 12: a multi-day patch recording
// in a few MB): the same values and errors as read_edf_signal, which reads through it. The file
// stays open until destruction (edflib's open and close are serialised; reads use this file's
// own handle).
class EdfSignalReader {
 public:
  EdfSignalReader(const std::string& path, const std::string& channel = "");
  ~EdfSignalReader();
  EdfSignalReader(const EdfSignalReader&) = delete;
  EdfSignalReader& operator=(const EdfSignalReader&) = delete;

  const EdfSignalInfo& info() const { return info_; }
  // Appends up to `max` next samples (physical units, as float) to `out`; returns how many, 0 at the end.
  std::size_t read(std::vector<float>& out, std::size_t max);

 private:
  std::string path_;
  EdfSignalInfo info_;
  int handle_ = -1;
  int fd_ = -1;  // held while edflib has the file open (src/io/edf.cpp, OpenEdf: why)
  long long done_ = 0;
  std::vector<double> piece_;
};

}  // namespace ecgpipe
