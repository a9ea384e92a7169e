// Stage 1, CPU reference: one numeric column of a CSV file -> float32 samples.
//
// The file is read a block at a time (CsvColumnReader: a few MiB in memory whatever the file's
// size, issue 12) and split into lines in that buffer; a text already in memory (fuzzing, tests)
// goes through the same splitter. Numbers come from fast_float (correctly rounded straight to
// float32). No heap allocation per line: cells are string_views into the buffer; reading a whole
// column sizes its vector once from the mean row length.
//
// Lines are split here rather than by fast-cpp-csv-parser's io::LineReader (used before): it
// hands out C strings, so a NUL byte silently ended a line ("1.5\0garbage" read as 1.5, a zeroed
// disk block vanished; issue 11), and it allocates 48 MiB per file, which made the reader
// impossible to fuzz. Its conventions are kept: LF or CRLF, a UTF-8 BOM skipped, a last line
// without LF counted, lines of 2^24 bytes or more refused (the GPU path shares them).
#include "ecgpipe/io/csv.hpp"

#include <fast_float/fast_float.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

#include "io/csv_internal.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}


// Cell text for an error message: control and non-ASCII bytes escaped, long text cut.
std::string quote(std::string_view text) {
  constexpr std::size_t kMaxShown = 60;
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "\"";
}

// All digits, at most 18 of them (so it fits std::size_t): a 0-based column index.
bool parse_index(std::string_view s, std::size_t& index) {
  if (s.empty() || s.size() > 18) return false;
  std::size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  index = v;
  return true;
}

std::string column_label(const CsvColumn& column, const CsvOptions& options) {
  return options.has_header ? "column " + quote(column.name) : column.name;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public building blocks (the GPU path uses them on the host too).

bool is_blank_line(std::string_view line) {
  return std::all_of(line.begin(), line.end(), is_space);
}

bool field_of_line(std::string_view line, std::size_t index, std::string_view& field) {
  const char* p = line.data();
  const char* const end = p + line.size();
  for (std::size_t k = 0; k < index; ++k) {
    const void* comma = std::memchr(p, ',', static_cast<std::size_t>(end - p));
    if (comma == nullptr) return false;
    p = static_cast<const char*>(comma) + 1;
  }
  const void* comma = std::memchr(p, ',', static_cast<std::size_t>(end - p));
  const char* field_end = comma != nullptr ? static_cast<const char*>(comma) : end;
  field = std::string_view(p, static_cast<std::size_t>(field_end - p));
  return true;
}

bool parse_cell(std::string_view cell, float& out) {
  cell = trim(cell);
  if (cell.empty()) return false;
  const char* first = cell.data();
  const char* const last = first + cell.size();
  // fast_float 3.9 follows std::from_chars and rejects a leading '+'; the grammar allows one
  // before a digit or the '.' (so "+-1" and "+inf" stay errors).
  if (*first == '+' && last - first >= 2 && ((first[1] >= '0' && first[1] <= '9') || first[1] == '.')) ++first;
  float value = 0.0f;
  const auto result = fast_float::from_chars(first, last, value);
  // The whole cell must be a number; nan/inf (which fast_float accepts) and values beyond
  // float32's range (which it rounds to inf) are not finite.
  if (result.ec != std::errc() || result.ptr != last || !std::isfinite(value)) return false;
  out = value;
  return true;
}

std::string_view header_name(std::string_view field) {
  field = trim(field);
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') field = trim(field.substr(1, field.size() - 2));
  return field;
}

std::vector<std::string_view> csv_fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t begin = 0;;) {
    const std::size_t comma = line.find(',', begin);
    out.push_back(line.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
    if (comma == std::string_view::npos) return out;
    begin = comma + 1;
  }
}

std::vector<std::string_view> header_names(std::string_view header_line) {
  std::vector<std::string_view> names = csv_fields(header_line);
  for (auto& n : names) n = header_name(n);
  return names;
}

CsvColumn resolve_column(std::string_view header_line, const CsvOptions& options, const std::string& path) {
  CsvColumn column;
  if (!options.has_header) {
    if (!options.column.empty() && !parse_index(options.column, column.index)) {
      throw InputError(path + ": --column " + quote(options.column) +
                       " is not a 0-based column index (the file has no header, so columns are chosen by index)");
    }
    column.name = "column " + std::to_string(column.index);
    return column;
  }

  if (header_line.find(';') != std::string_view::npos && header_line.find(',') == std::string_view::npos)
    csv_internal::throw_semicolon_separated(path + ": the header", header_line);
  const std::vector<std::string_view> names = header_names(header_line);  // split once: it is short
  auto list_names = [&] {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 12; ++i) s += (i ? ", " : "") + quote(names[i]);
    if (names.size() > 12) s += ", ...";
    return s;
  };

  const auto by_name = [&](std::string_view wanted) -> std::ptrdiff_t {
    const auto it = std::find(names.begin(), names.end(), wanted);
    return it == names.end() ? -1 : it - names.begin();
  };
  if (options.column.empty()) {
    const std::ptrdiff_t i = by_name("heartbeats");
    column.index = i >= 0 ? static_cast<std::size_t>(i) : 0;
  } else if (const std::ptrdiff_t i = by_name(options.column); i >= 0) {
    column.index = static_cast<std::size_t>(i);  // a name wins over an index ("0" may be a name)
  } else if (parse_index(options.column, column.index)) {
    if (column.index >= names.size()) {
      throw InputError(path + ": --column " + options.column + " is out of range: the header has " +
                       std::to_string(names.size()) + " column(s): " + list_names());
    }
  } else {
    throw InputError(path + ": no column named " + quote(options.column) + " in the header; columns: " + list_names());
  }
  column.name = std::string(names[column.index]);
  if (column.name.empty()) column.name = "column " + std::to_string(column.index);
  return column;
}

// ---------------------------------------------------------------------------------------------
// Internals shared with the GPU path.

namespace csv_internal {

FilePtr open_csv_file(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(file.get()), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw InputError("cannot open " + path + ": " + std::strerror(EISDIR));
  }
  return file;
}

std::size_t file_size_or_zero(std::FILE* file) {
  struct stat st {};
  if (fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) return static_cast<std::size_t>(st.st_size);
  return 0;
}

std::string_view reader_view(std::string_view raw_line) {
  if (!raw_line.empty() && raw_line.back() == '\r') raw_line.remove_suffix(1);
  return raw_line;
}

void check_no_nul(const std::string& path, std::size_t line_no, std::string_view line) {
  const std::size_t nul = line.find('\0');
  if (nul == std::string_view::npos) return;
  throw InputError(path + ":" + std::to_string(line_no) + ": NUL byte at byte " + std::to_string(nul + 1) +
                   " of the line (binary data in a text file, or a damaged file)");
}

bool parse_data_line(std::string_view line, std::size_t index, float& out) {
  std::string_view cell;
  return field_of_line(line, index, cell) && parse_cell(cell, out);
}

void throw_empty_file(const std::string& path) {
  throw InputError(path + ": empty file (no header and no data rows)");
}

void throw_no_data_rows(const std::string& path, const CsvOptions& options) {
  if (!options.has_header) throw_empty_file(path);
  throw InputError(path + ": no data rows after the header");
}

void throw_line_too_long(const std::string& path, std::size_t line_no) {
  throw InputError(path + ":" + std::to_string(line_no) + ": line longer than " + std::to_string(kMaxLineBytes) + " bytes");
}

void throw_bad_line(const std::string& path, std::size_t line_no, std::string_view line, const CsvColumn& column,
                    const CsvOptions& options) {
  check_no_nul(path, line_no, line);
  const std::string where = path + ":" + std::to_string(line_no) + ": ";
  std::string_view cell;
  if (!is_blank_line(line) && !field_of_line(line, column.index, cell)) {
    const std::size_t fields = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    throw InputError(where + "line has " + std::to_string(fields) + " field(s), but " + column_label(column, options) +
                     " is field " + std::to_string(column.index + 1));
  }
  float value = 0.0f;
  if (!is_blank_line(line) && !parse_cell(cell, value)) {
    const std::string_view text = trim(cell);
    if (text.empty()) throw InputError(where + "empty cell in " + column_label(column, options));
    throw InputError(where + "cannot parse " + quote(text) + " as a number in " + column_label(column, options) +
                     " (expected a finite float32 value)");
  }
  throw InternalError(where + "the GPU CSV parser rejected a line that the CPU parser accepts: " + quote(line));
}

void throw_semicolon_separated(const std::string& where, std::string_view line) {
  throw InputError(where + " " + quote(line) + " separates its fields with ';': ecgpipe reads comma-separated values with '.' decimals (a "
                   "spreadsheet where the decimal separator is a comma exports ';' and ','); save it as CSV with ',' "
                   "between fields and '.' in numbers");
}

CsvOptions second_column_options(const CsvOptions& options, const CsvSecondColumn& second) {
  CsvOptions o = options;
  o.column = second.column;
  return o;
}

void throw_bad_row(const std::string& path, std::size_t line_no, std::string_view line, const CsvColumn& column,
                   const CsvOptions& options, const CsvColumn& column2, const CsvSecondColumn& second) {
  float value = 0.0f;
  if (line.find('\0') != std::string_view::npos || !parse_data_line(line, column.index, value)) {
    throw_bad_line(path, line_no, line, column, options);
  }
  try {
    throw_bad_line(path, line_no, line, column2, second_column_options(options, second));
  } catch (const InputError& e) {
    throw InputError(e.what() + second.note);
  }
}

}  // namespace csv_internal

// ---------------------------------------------------------------------------------------------
// The CPU reader: lines split as io::LineReader did (see the top of this file), NUL refused.

CsvColumnReader::CsvColumnReader(const std::string& path, const CsvOptions& options, std::size_t block_bytes,
                                 const CsvSecondColumn* second)
    : path_(path), options_(options),
      second_(second != nullptr ? std::make_optional(*second) : std::nullopt),
      block_bytes_(std::max<std::size_t>(1, block_bytes)) {
  csv_internal::FilePtr file = csv_internal::open_csv_file(path);  // the error messages of every reader
  total_bytes_ = csv_internal::file_size_or_zero(file.get());
  fd_ = ::dup(fileno(file.get()));
  if (fd_ < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  (void)posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  // Enough for the BOM test and a few lines; grown (doubled) while one line does not fit.
  buffer_.resize(std::max<std::size_t>(block_bytes_, 64));
  data_ = buffer_.data();
  start(options);
}

CsvColumnReader::CsvColumnReader(std::string_view text, const CsvOptions& options, const std::string& path,
                                 const CsvSecondColumn* second)
    : path_(path), options_(options), second_(second != nullptr ? std::make_optional(*second) : std::nullopt),
      data_(text.data()), end_(text.size()), total_bytes_(text.size()), eof_(true) {
  start(options);
}

CsvColumnReader::~CsvColumnReader() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t CsvColumnReader::bytes_consumed() const { return consumed_before_ + pos_; }

// Reads the next block after the unsplit bytes (moved to the buffer's front); false at the end.
bool CsvColumnReader::fill() {
  if (eof_) return false;
  if (pos_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    consumed_before_ += pos_;
    end_ -= pos_, nul_ -= pos_, pos_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(2 * buffer_.size());  // one line spans the whole buffer
  data_ = buffer_.data();
  ssize_t got = 0;
  do {
    got = ::read(fd_, buffer_.data() + end_, std::min(block_bytes_, buffer_.size() - end_));
  } while (got < 0 && errno == EINTR);
  if (got < 0) throw InputError("cannot read " + path_ + ": " + std::strerror(errno));
  if (got == 0) {
    eof_ = true;
    return false;
  }
  if (nul_ == end_) {  // no NUL pending: look for one in the new bytes
    const void* nul = std::memchr(buffer_.data() + end_, '\0', static_cast<std::size_t>(got));
    nul_ = nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - buffer_.data()) : end_ + static_cast<std::size_t>(got);
  }
  end_ += static_cast<std::size_t>(got);
  return true;
}

bool CsvColumnReader::next_line(std::string_view& line) {
  for (;;) {
    const char* begin = data_ + pos_;
    const void* lf = std::memchr(begin, '\n', end_ - pos_);
    if (lf == nullptr && !eof_ && end_ - pos_ <= csv_internal::kMaxLineBytes) {
      fill();
      continue;
    }
    if (lf == nullptr && pos_ >= end_) return false;  // the end, after the last line's LF
    ++line_no_;
    const std::size_t stop = lf != nullptr ? static_cast<std::size_t>(static_cast<const char*>(lf) - data_) : end_;
    if (stop - pos_ > csv_internal::kMaxLineBytes) csv_internal::throw_line_too_long(path_, line_no_);
    const std::string_view raw(begin, stop - pos_);
    if (nul_ < stop) csv_internal::check_no_nul(path_, line_no_, raw);
    line = csv_internal::reader_view(raw);
    pos_ = stop + (lf != nullptr ? 1 : 0);
    return true;
  }
}

void CsvColumnReader::start(const CsvOptions& options) {
  if (fd_ < 0) {  // a text in memory: its first NUL, found once
    const void* nul = std::memchr(data_, '\0', end_);
    nul_ = nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - data_) : end_;
  } else {
    nul_ = end_;
    while (end_ < 3 && fill()) {
    }
  }
  if (csv_internal::starts_with_bom(std::string_view(data_, end_))) pos_ = 3;
  std::string_view line;
  if (options.has_header) {
    bool found = false;
    while ((found = next_line(line)) && is_blank_line(line)) {
    }
    if (!found) csv_internal::throw_empty_file(path_);
    column_ = resolve_column(line, options, path_);
    if (second_) column2_ = resolve_column(line, csv_internal::second_column_options(options, *second_), path_);
  } else {
    column_ = resolve_column({}, options, path_);
    if (second_) column2_ = resolve_column({}, csv_internal::second_column_options(options, *second_), path_);
  }
}

std::size_t CsvColumnReader::read(std::vector<float>& out, std::size_t max, std::vector<float>* second) {
  if (second != nullptr && !second_) throw InternalError("CsvColumnReader::read: a second column's values from a reader without one");
  std::size_t got = 0;
  std::string_view line;
  while (got < max && next_line(line)) {
    if (is_blank_line(line)) continue;
    float value = 0.0f, value2 = 0.0f;
    if (!csv_internal::parse_data_line(line, column_.index, value) ||
        (second != nullptr && !csv_internal::parse_data_line(line, column2_.index, value2))) {
      if (second == nullptr) csv_internal::throw_bad_line(path_, line_no_, line, column_, options_);
      csv_internal::throw_bad_row(path_, line_no_, line, column_, options_, column2_, *second_);
    }
    out.push_back(value);
    if (second != nullptr) second->push_back(value2);
    ++got;
  }
  values_ += got;
  if (got == 0 && max > 0 && values_ == 0) csv_internal::throw_no_data_rows(path_, options_);
  return got;
}

namespace {

// Every value of a reader (and of its second column, into `second`), the vectors sized once from
// the first rows' mean length.
std::vector<float> read_all(CsvColumnReader& reader, std::vector<float>* second = nullptr) {
  constexpr std::size_t kSampleRows = 4096;
  std::vector<float> values;
  if (reader.read(values, kSampleRows, second) == kSampleRows && reader.total_bytes() > 0) {
    const double rows = static_cast<double>(reader.total_bytes()) / static_cast<double>(reader.bytes_consumed()) * kSampleRows;
    values.reserve(static_cast<std::size_t>(rows * 1.05) + kSampleRows);
    if (second != nullptr) second->reserve(values.capacity());
  }
  while (reader.read(values, std::size_t{1} << 20, second) > 0) {
  }
  return values;
}

}  // namespace

std::vector<float> parse_csv_column(std::string_view text, const CsvOptions& options, const std::string& path) {
  CsvColumnReader reader(text, options, path);
  return read_all(reader);
}

std::vector<float> read_csv_column(const std::string& path, const CsvOptions& options) {
  CsvColumnReader reader(path, options);
  return read_all(reader);
}

CsvColumns read_csv_columns(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second) {
  CsvColumnReader reader(path, options, CsvColumnReader::kDefaultBlockBytes, &second);
  CsvColumns c;
  c.first = read_all(reader, &c.second);
  return c;
}

}  // namespace ecgpipe
