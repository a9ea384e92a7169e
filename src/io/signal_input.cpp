// Reading a recording whatever its format (see signal_input.hpp).
#include "ecgpipe/io/signal_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/wfdb.hpp"

namespace ecgpipe {
namespace {

constexpr double kFsRelativeTolerance = 1e-9;  // same_declared_fs (signal_input.hpp)

// An EDF signal's declared rate against fs, the signal named in the message.
void check_edf_fs(const std::string& path, const EdfSignalInfo& info, double fs) {
  check_declared_fs(info.fs, fs, path + " (signal '" + info.label + "')");
}

}  // namespace

bool same_declared_fs(double declared, double fs) { return std::abs(declared - fs) <= kFsRelativeTolerance * declared; }

void check_declared_fs(double declared, double fs, const std::string& where) {
  if (same_declared_fs(declared, fs)) return;
  char buf[512];
  std::snprintf(buf, sizeof buf, "--fs %g does not match the %g Hz of %s: leave --fs out or pass --fs %g", fs, declared,
                where.c_str(), declared);
  throw UsageError(buf);
}

std::vector<float> read_signal(const std::string& path, const CsvOptions& csv, double fs) {
  if (is_wfdb_record_path(path)) {
    WfdbSignal s = read_wfdb_signal(path, csv.column);
    check_declared_fs(s.fs, fs, wfdb_header_path(path));
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
