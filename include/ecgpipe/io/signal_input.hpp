// The one entry point for reading an input recording on the host, whatever its format: a CSV
// column (csv.hpp), a WFDB record (.hea/.dat, wfdb.hpp) or an EDF/EDF+/BDF file (.edf/.bdf,
// edf.hpp). The format is chosen by the path's extension.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ecgpipe/io/csv.hpp"

namespace ecgpipe {

// A rate a file declares (`declared`, Hz: a WFDB or EDF header's) against the rate the windows
// are scaled for (`fs`): equal within round-off, else a UsageError telling to drop --fs or pass
// the file's rate, naming `where` (the windows are scaled by fs, so a silent mismatch would
// detect nonsense). What the file declares is read by resolve_signal_source (signal_source.hpp).
void check_declared_fs(double declared, double fs, const std::string& where);
// The test it makes: equal within a relative 1e-9 (an EDF rate is a quotient, a WFDB rate a
// decimal: the same rate may differ in the last bits).
bool same_declared_fs(double declared, double fs);

// The signal of `path`: for a WFDB record read_wfdb_signal(path, csv.column), for an EDF/BDF file
// read_edf_signal(path, csv.column), and the declared rate must equal `fs` (else a UsageError
// telling to drop --fs or pass the file's rate: the windows are scaled by fs, so a silent mismatch
// would detect nonsense); anything else is read_csv_column(path, csv).
std::vector<float> read_signal(const std::string& path, const CsvOptions& csv, double fs);

// A recording handed out in pieces (the chunked CPU path, issue 12). A CSV file is read through
// CsvColumnReader and an EDF/BDF file through EdfSignalReader (a few MiB whatever the length); a
// WFDB record is read whole by read_signal (4 bytes a sample: MIT-BIH's records are 30 minutes)
// and handed out from memory. Same values, same errors, same rate check as read_signal.
class SignalStream {
 public:
  virtual ~SignalStream() = default;
  // Appends up to `max` next samples to `out`; returns how many (0 at the end).
  virtual std::size_t read(std::vector<float>& out, std::size_t max) = 0;
};
std::unique_ptr<SignalStream> open_signal_stream(const std::string& path, const CsvOptions& csv, double fs);

}  // namespace ecgpipe
