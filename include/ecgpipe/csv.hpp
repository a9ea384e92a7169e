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
//    naming the file, the 1-based line number and the cell's text.
#pragma once

#include <cstddef>
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
};

// The column chosen, and where the data starts.
struct CsvColumn {
  std::size_t index = 0;
  std::string name;  // header text, or "column N" without a header
};

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

// CPU reference: reads the whole column. Throws InputError on a missing/unreadable file, a file
// with no header, no data rows, or a bad cell.
std::vector<float> read_csv_column(const std::string& path, const CsvOptions& options);

}  // namespace ecgpipe
