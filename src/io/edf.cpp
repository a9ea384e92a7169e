// EDF / EDF+ / BDF input through edflib (see edf.hpp).
#include "ecgpipe/io/edf.hpp"

#include <edflib.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <charconv>
#include <cctype>
#include <cmath>
#include <mutex>

#include "ecgpipe/common/error.hpp"
#include "common/text.hpp"

namespace ecgpipe {
namespace {

// edflib keeps its open files in a process-wide table that edfopen_file_readonly and
// edfclose_file change without a lock (edflib.h: "MT-unsafe"); `--jobs N` reads files from
// several threads, so every use of edflib goes through this lock. Reading is a small part of a
// run, so holding it for the whole read costs little.
std::mutex& edflib_mutex() {
  static std::mutex m;
  return m;
}

// edflib's error codes (edfopen_file_readonly's edf_hdr_struct::filetype) as the reason shown.
std::string edflib_reason(int code) {
  switch (code) {
    case EDFLIB_MALLOC_ERROR: return "out of memory while opening it";
    case EDFLIB_NO_SUCH_FILE_OR_DIRECTORY: return "no such file, or it cannot be opened";
    case EDFLIB_FILE_CONTAINS_FORMAT_ERRORS:
      return "not a valid EDF/EDF+/BDF file: a malformed header field, or a size that does not match the header's "
             "data records (truncated?)";
    case EDFLIB_MAXFILES_REACHED: return "too many EDF files open at once";
    case EDFLIB_FILE_READ_ERROR: return "read error";
    case EDFLIB_FILE_ALREADY_OPENED: return "the file is already open";
    case EDFLIB_FILETYPE_ERROR: return "unknown file type (neither EDF nor BDF)";
    case EDFLIB_NUMBER_OF_SIGNALS_INVALID: return "invalid number of signals in the header";
    case EDFLIB_FILE_IS_DISCONTINUOUS: return "EDF+D/BDF+D (discontinuous)";
    case EDFLIB_ARCH_ERROR: return "edflib does not support this platform";
    default: return "edflib error " + std::to_string(code);
  }
}

const char* type_name(int filetype) {
  switch (filetype) {
    case EDFLIB_FILETYPE_EDF: return "EDF";
    case EDFLIB_FILETYPE_EDFPLUS: return "EDF+";
    case EDFLIB_FILETYPE_BDF: return "BDF";
    case EDFLIB_FILETYPE_BDFPLUS: return "BDF+";
    default: return "unknown";
  }
}

using text::lower;
using text::trim;

// EDF+D is checked here, by the header's "reserved" field (bytes 192..235, "EDF+D"/"BDF+D"),
// not left to edflib: its versions differ (some refuse EDF+D, newer ones read the records back to
// back as if there were no gaps, which would put every beat after a gap at the wrong time).
// open + pread: no stream (an std::ifstream with its buffer per file was a large part of the fuzz
// harness's time per input).
void refuse_discontinuous(const std::string& path) {
  constexpr off_t kReservedAt = 192;
  char reserved[5] = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // edflib says why
  const ssize_t got = ::pread(fd, reserved, sizeof reserved, kReservedAt);
  ::close(fd);
  if (got != static_cast<ssize_t>(sizeof reserved)) return;  // too short (or a directory): edflib says why
  const std::string r(reserved, sizeof reserved);
  if (r == "EDF+D" || r == "BDF+D")
    throw InputError(path + ": " + r + " (discontinuous) recordings are not supported: ecgpipe needs one evenly "
                     "sampled signal; export the recording as " + r.substr(0, 4) + "C (continuous) or split it at the gaps");
}

// edfopen_file_readonly's header struct: ~200 KB, so neither on the stack nor allocated per file
// (an allocation that size is an mmap and munmap each time, in glibc and in ASan alike), and not
// value-initialised (edfopen_file_readonly fills what is read, including filetype on failure).
// One for the process: it is only used under edflib_mutex(), which every caller holds.
edf_hdr_struct* shared_header() {
  static edf_hdr_struct* const h = new edf_hdr_struct;  // never freed: reachable, no leak report
  return h;
}

// An open file; closed (under the lock the caller holds) when it goes out of scope.
//
// edflib refuses a path it has open already (EDFLIB_FILE_ALREADY_OPENED: it compares the names),
// so two jobs of a batch reading one file failed (issue 25: the same EDF twice with --jobs 2). It is
// given /proc/self/fd/N of a descriptor held while edflib has the file open: a name no other open
// file has, for the same file. Where /proc is missing, the path itself.
struct OpenEdf {
  edf_hdr_struct* const hdr = shared_header();
  bool open = false;
  int fd = -1;
  explicit OpenEdf(const std::string& path) {
    refuse_discontinuous(path);
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string name = fd >= 0 && ::access("/proc/self/fd", X_OK) == 0 ? "/proc/self/fd/" + std::to_string(fd) : path;
    if (edfopen_file_readonly(name.c_str(), hdr, EDFLIB_DO_NOT_READ_ANNOTATIONS) != 0) {
      if (fd >= 0) ::close(fd);
      throw InputError(path + ": cannot read as EDF/BDF: " + edflib_reason(hdr->filetype));
    }
    open = true;
  }
  ~OpenEdf() {
    if (open) edfclose_file(hdr->handle);
    if (fd >= 0) ::close(fd);
  }
  OpenEdf(const OpenEdf&) = delete;
  OpenEdf& operator=(const OpenEdf&) = delete;
};

EdfHeader header_of(const std::string& path, const edf_hdr_struct& h) {
  EdfHeader out;
  out.path = path;
  out.type = type_name(h.filetype);
  for (int i = 0; i < h.edfsignals; ++i) {
    const edf_param_struct& p = h.signalparam[i];
    EdfSignalInfo s;
    s.index = static_cast<std::size_t>(i);
    s.label = trim(p.label);
    s.units = trim(p.physdimension);
    // edflib.h: sf = smp_in_datarecord * EDFLIB_TIME_DIMENSION / datarecord_duration.
    s.fs = h.datarecord_duration > 0
               ? static_cast<double>(p.smp_in_datarecord) * EDFLIB_TIME_DIMENSION / static_cast<double>(h.datarecord_duration)
               : 0.0;
    s.samples = p.smp_in_file;
    out.signals.push_back(std::move(s));
  }
  if (out.signals.empty()) throw InputError(path + ": the file has no signals (only annotations)");
  // edflib has validated the header's date and time fields (digits, ranges) on open.
  char start[32];
  std::snprintf(start, sizeof start, "%04d-%02d-%02d %02d:%02d:%02d", h.startdate_year, h.startdate_month,
                h.startdate_day, h.starttime_hour, h.starttime_minute, h.starttime_second);
  out.start = start;
  return out;
}

}  // namespace

bool is_edf_path(const std::string& path) {
  if (path.size() < 4) return false;
  const std::string ext = lower(path.substr(path.size() - 4));
  return ext == ".edf" || ext == ".bdf";
}

EdfHeader read_edf_header(const std::string& path) {
  std::lock_guard<std::mutex> lock(edflib_mutex());
  OpenEdf f(path);
  return header_of(path, *f.hdr);
}

const EdfSignalInfo& edf_select_signal(const EdfHeader& header, const std::string& channel) {
  if (channel.empty()) return header.signals.front();
  if (std::all_of(channel.begin(), channel.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    // from_chars, not stoul: a 23-digit index is just a signal the file does not have (stoul threw
    // out_of_range: "internal error: stoul", issue 25).
    unsigned long i = 0;
    const auto [end, ec] = std::from_chars(channel.data(), channel.data() + channel.size(), i);
    if (ec == std::errc() && end == channel.data() + channel.size() && i < header.signals.size()) return header.signals[i];
    throw InputError(header.path + ": no signal " + text::shorten(channel, 40) + " (the file has " +
                     std::to_string(header.signals.size()) + ", numbered from 0)");
  }
  for (const auto& s : header.signals)
    if (s.label == channel) return s;
  const std::string want = lower(trim(channel));
  for (const auto& s : header.signals)
    if (lower(s.label) == want) return s;
  std::string labels;
  for (const auto& s : header.signals) labels += (labels.empty() ? "" : ", ") + ("'" + s.label + "'");
  throw InputError(header.path + ": no signal labelled '" + text::shorten(channel, 80) + "' (signals: " + labels + ")");
}

EdfSignalReader::EdfSignalReader(const std::string& path, const std::string& channel) : path_(path) {
  std::lock_guard<std::mutex> lock(edflib_mutex());
  OpenEdf f(path);
  const EdfHeader header = header_of(path, *f.hdr);
  info_ = edf_select_signal(header, channel);
  if (info_.samples <= 0 || !(info_.fs > 0)) throw InputError(path + ": signal '" + info_.label + "' has no samples");
  handle_ = f.hdr->handle;
  fd_ = f.fd;
  f.open = false;  // this reader closes both
  f.fd = -1;
}

EdfSignalReader::~EdfSignalReader() {
  std::lock_guard<std::mutex> lock(edflib_mutex());
  edfclose_file(handle_);
  if (fd_ >= 0) ::close(fd_);
}

std::size_t EdfSignalReader::read(std::vector<float>& out, std::size_t max) {
  // edfread_physical_samples takes an int count and gives doubles: read in pieces (also for
  // recordings over 2^31 samples), each converted to float, so no whole double copy is held.
  constexpr long long kPiece = 1 << 20;
  const long long want = std::min({kPiece, info_.samples - done_, static_cast<long long>(std::min<std::size_t>(max, kPiece))});
  if (want <= 0) return 0;
  piece_.resize(static_cast<std::size_t>(want));
  const int got = edfread_physical_samples(handle_, static_cast<int>(info_.index), static_cast<int>(want), piece_.data());
  if (got <= 0) throw InputError(path_ + ": read error in signal '" + info_.label + "' at sample " + std::to_string(done_));
  const std::size_t first = out.size();
  out.insert(out.end(), piece_.begin(), piece_.begin() + got);
  // The header's physical/digital ranges scale the samples; a range edflib reads as infinite
  // (e.g. "-3.E768"), or one beyond float, gives non-finite samples: refused, as the CSV and
  // WFDB readers refuse them (found by fuzz_edf).
  const auto bad = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [](float v) { return !std::isfinite(v); });
  if (bad != out.end())
    throw InputError(path_ + ": signal '" + info_.label + "' has a non-finite value at sample " +
                     std::to_string(done_ + (bad - (out.begin() + static_cast<std::ptrdiff_t>(first)))) +
                     " (the header's physical or digital minimum/maximum is unusable)");
  done_ += got;
  return static_cast<std::size_t>(got);
}

EdfSignal read_edf_signal(const std::string& path, const std::string& channel) {
  EdfSignalReader reader(path, channel);
  EdfSignal out;
  out.info = reader.info();
  out.values.reserve(static_cast<std::size_t>(out.info.samples));
  while (reader.read(out.values, std::size_t{1} << 20) > 0) {
  }
  return out;
}

}  // namespace ecgpipe
