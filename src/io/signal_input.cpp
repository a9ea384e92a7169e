// Reading a recording whatever its format (see signal_input.hpp).
#include "ecgpipe/io/signal_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/io/wfdb.hpp"

namespace ecgpipe {
namespace {

// Rates are compared with a relative tolerance: an EDF rate is a quotient (samples per record /
// record duration) and a WFDB rate a decimal, so the same rate may differ in the last bits.
constexpr double kFsRelativeTolerance = 1e-9;

void check_fs(double declared, double fs, const std::string& file) {
  if (std::abs(declared - fs) <= kFsRelativeTolerance * declared) return;
  char buf[512];
  std::snprintf(buf, sizeof buf, "--fs %g does not match the %g Hz of %s: leave --fs out or pass --fs %g", fs, declared,
                file.c_str(), declared);
  throw UsageError(buf);
}

// An EDF signal's declared rate against fs, the signal named in the message.
void check_edf_fs(const std::string& path, const EdfSignalInfo& info, double fs) {
  check_fs(info.fs, fs, path + " (signal '" + info.label + "')");
}

}  // namespace

std::optional<double> signal_file_fs(const std::string& path, const std::string& channel) {
  if (is_wfdb_record_path(path)) return read_wfdb_header(wfdb_header_path(path)).fs;
  if (is_edf_path(path)) {
    // The header's rate is input, not an option: outside the bounds it is the file's error (exit
    // 3 naming it), not "--fs must be between ..." when no --fs was given (issue 25).
    const EdfSignalInfo s = edf_select_signal(read_edf_header(path), channel);
    if (!(s.fs >= kMinFs && s.fs <= kMaxFs)) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "sampling rate %g Hz is outside %g..%g Hz", s.fs, kMinFs, kMaxFs);
      throw InputError(path + " (signal '" + s.label + "'): " + buf);
    }
    return s.fs;
  }
  return std::nullopt;
}

std::vector<float> read_signal(const std::string& path, const CsvOptions& csv, double fs) {
  if (is_wfdb_record_path(path)) {
    WfdbSignal s = read_wfdb_signal(path, csv.column);
    check_fs(s.fs, fs, wfdb_header_path(path));
    return std::move(s.values);
  }
  if (is_edf_path(path)) {
    EdfSignal s = read_edf_signal(path, csv.column);
    check_edf_fs(path, s.info, fs);
    return std::move(s.values);
  }
  return read_csv_column(path, csv);
}

namespace {

class CsvSignalStream final : public SignalStream {
 public:
  CsvSignalStream(const std::string& path, const CsvOptions& csv) : reader_(path, csv) {}
  std::size_t read(std::vector<float>& out, std::size_t max) override { return reader_.read(out, max); }

 private:
  CsvColumnReader reader_;
};

class EdfSignalStream final : public SignalStream {
 public:
  EdfSignalStream(const std::string& path, const std::string& channel, double fs) : reader_(path, channel) {
    check_edf_fs(path, reader_.info(), fs);
  }
  std::size_t read(std::vector<float>& out, std::size_t max) override { return reader_.read(out, max); }

 private:
  EdfSignalReader reader_;
};

class MemorySignalStream final : public SignalStream {
 public:
  explicit MemorySignalStream(std::vector<float> values) : values_(std::move(values)) {}
  std::size_t read(std::vector<float>& out, std::size_t max) override {
    const std::size_t n = std::min(max, values_.size() - next_);
    out.insert(out.end(), values_.begin() + static_cast<std::ptrdiff_t>(next_),
               values_.begin() + static_cast<std::ptrdiff_t>(next_ + n));
    next_ += n;
    return n;
  }

 private:
  std::vector<float> values_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<SignalStream> open_signal_stream(const std::string& path, const CsvOptions& csv, double fs) {
  if (is_wfdb_record_path(path)) return std::make_unique<MemorySignalStream>(read_signal(path, csv, fs));
  if (is_edf_path(path)) return std::make_unique<EdfSignalStream>(path, csv.column, fs);
  return std::make_unique<CsvSignalStream>(path, csv);
}

}  // namespace ecgpipe
