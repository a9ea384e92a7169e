// Stage 1: one numeric column of a CSV file -> float32 samples.
//
// Grammar (identical on the CPU and the GPU path):
//  * lines end in LF or CRLF; a last line without a newline counts; lines that are empty or hold
//    only spaces/tabs are skipped anywhere in the file (like pandas' skip_blank_lines);
//  * fields are separated by ',', the first non-blank line is the header unless has_header=false;
//  * a cell is [spaces] [+|-] digits [. digits] [(e|E) [+|-] digits] [spaces], with digits on at
//    least one side of the '.'; the value is the float32 nearest to the decimal number (correctly
//    rounded, ties to even: fast_float on the CPU);
//  * anything else (empty cell, text, nan, inf, a value beyond float32's range) is an InputError
//    naming the file, the 1-based line number and the cell's text;
//  * a NUL byte anywhere (header, blank or data line, any field) is an InputError naming the line.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/config.hpp"

namespace ecgpipe {

struct CsvOptions {
  // Column to read: a header name or a 0-based index. Empty: the column named "heartbeats" if the
  // header has one (the seed's file), else column 0.
  std::string column;
  bool has_header = true;
  // The second lead (--lead2; resolve_signal_source, signal_source.hpp): "auto", "none", or a
  // name or 0-based index as for `column`. The readers ignore it: a second lead is read as a
  // CsvSecondColumn (below).
  std::string lead2 = "auto";
};

// The column chosen, and where the data starts.
struct CsvColumn {
  std::size_t index = 0;
  std::string name;  // header text, or "column N" without a header
};

// The fields of a line, split on ',' (the grammar has no quoting): views into `line`.
std::vector<std::string_view> csv_fields(std::string_view line);
// A header field as a name: without surrounding spaces and tabs and one pair of double quotes
// (` "ECG" ` is ECG), as resolve_column matches --column against it; header_names: every field's.
std::string_view header_name(std::string_view field);
std::vector<std::string_view> header_names(std::string_view header_line);

// Resolves `options.column` against a header line (without its line end). `header_line` is
// ignored when options.has_header is false. Throws InputError for an unknown name or an index
// past the last field.
CsvColumn resolve_column(std::string_view header_line, const CsvOptions& options,
                         const std::string& path);

// Parses one cell by the grammar above. Returns false (and leaves `out` alone) if the cell is
// not a finite float32 number.
bool parse_cell(std::string_view cell, float& out);

// Returns the text of field `index` of a line (split on ','), or false if it has fewer fields.
bool field_of_line(std::string_view line, std::size_t index, std::string_view& field);

// True if the line is empty or holds only spaces and tabs (such lines are skipped).
bool is_blank_line(std::string_view line);

// A second column read in the same pass as the first (the second lead of a two-lead CSV, issue
// 24: the file is split into lines and fields once): `column` as CsvOptions::column names one,
// resolved against the same header. Errors: the first bad row of either column; a row whose first
// cell is bad (or that holds a NUL byte) gets the first column's message, else the second
// column's, as read_csv_column of that column words it, followed by `note` (which column this is,
// and how to do without it).
struct CsvSecondColumn {
  std::string column;
  std::string note;
};

// The column read piece by piece (issue 12: memory that does not grow with the file): the same
// grammar, values and errors (file, line, byte) as read_csv_column, which reads through it. The
// file is read `block_bytes` at a time into a buffer that holds the current line (a line may
// span any number of blocks; lines of 2^24 bytes or more are refused as before).
class CsvColumnReader {
 public:
  static constexpr std::size_t kDefaultBlockBytes = std::size_t{4} << 20;
  // Opens `path` and reads up to the header: InputError for a missing file or an empty one.
  // `second`: a second column read beside it (CsvSecondColumn), or null.
  CsvColumnReader(const std::string& path, const CsvOptions& options, std::size_t block_bytes = kDefaultBlockBytes,
                  const CsvSecondColumn* second = nullptr);
  // A text already in memory; `path` only names it in errors.
  CsvColumnReader(std::string_view text, const CsvOptions& options, const std::string& path,
                  const CsvSecondColumn* second = nullptr);
  ~CsvColumnReader();
  CsvColumnReader(const CsvColumnReader&) = delete;
  CsvColumnReader& operator=(const CsvColumnReader&) = delete;

  // Appends up to `max` next values to `out` and returns how many: 0 at the end. InputError on a
  // bad line, and at the end when the file had no data row. `second` (a reader with a second
  // column): that column's values of the same rows appended to it; null: its cells are not parsed
  // (a pass that does not keep them).
  std::size_t read(std::vector<float>& out, std::size_t max, std::vector<float>* second = nullptr);
  const CsvColumn& column() const { return column_; }
  // Bytes of the input consumed so far, and its size (0 when unknown: a pipe).
  std::size_t bytes_consumed() const;
  std::size_t total_bytes() const { return total_bytes_; }

 private:
  bool next_line(std::string_view& line);
  bool fill();
  void start(const CsvOptions& options);

  std::string path_;
  CsvOptions options_;
  CsvColumn column_;
  std::optional<CsvSecondColumn> second_;  // a second column, if any, and its index once resolved
  CsvColumn column2_;
  int fd_ = -1;
  std::size_t block_bytes_ = kDefaultBlockBytes;
  std::vector<char> buffer_;   // file input: bytes [0, end_) read, [pos_, end_) not yet split
  const char* data_ = nullptr;  // the bytes being split: buffer_.data() or the text in memory
  std::size_t pos_ = 0, end_ = 0, nul_ = 0;  // nul_: the first NUL at or after pos_ (end_ if none)
  std::size_t consumed_before_ = 0;  // bytes dropped from the buffer's front
  std::size_t total_bytes_ = 0;
  bool eof_ = false;
  std::size_t line_no_ = 0, values_ = 0;
};

// CPU reference: reads the whole column. Throws InputError on a missing/unreadable file, a file
// with no header, no data rows, a NUL byte, or a bad cell. A thin wrapper of parse_csv_column.
std::vector<float> read_csv_column(const std::string& path, const CsvOptions& options);

// Both columns of a file read whole in one pass (CsvSecondColumn).
struct CsvColumns {
  std::vector<float> first, second;
};
CsvColumns read_csv_columns(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second);

// The same over a whole file's bytes in memory; `path` only names the file in errors.
std::vector<float> parse_csv_column(std::string_view text, const CsvOptions& options, const std::string& path);

}  // namespace ecgpipe
