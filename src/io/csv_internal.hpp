// Internals of the CSV stage shared by the CPU reference (src/io/csv.cpp), the GPU host side
// (src/io/csv_cuda.cpp) and tests/io/test_csv.cpp. Not part of the public interface.
//
// Both paths throw the same messages because every message is built here, in src/io/csv.cpp: the
// GPU path only finds *where* the first bad line is, re-reads that line from the file and hands
// it to throw_bad_line(), which re-checks it with the CPU functions.
#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "common/text.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/io/csv_cuda.hpp"
#include "kernels/io/csv_kernels.hpp"

namespace ecgpipe::csv_internal {

// (kernels/io/csv_kernels.hpp, for the GPU parser too) A line whose text (a final CR included, the LF excluded) is 2^24 bytes or longer is refused
// (io::LineReader's limit, which the CPU reader used to use); both paths apply it.
inline constexpr std::size_t kMaxLineBytes = csv_kernels::kMaxLineBytes;

// A UTF-8 byte-order mark at the start of `s`: both readers skip one at the start of the file.
using text::starts_with_bom;

struct FileCloser {
  void operator()(std::FILE* f) const noexcept {
    if (f != nullptr) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// fopen(path, "rb"); InputError "cannot open PATH: reason" on failure (a directory included).
FilePtr open_csv_file(const std::string& path);
// Size of a regular file in bytes, 0 if unknown.
std::size_t file_size_or_zero(std::FILE* file);

// A raw line (LF removed) as the line splitter hands it out: one final CR dropped. NUL bytes are
// kept (check_no_nul refuses them).
std::string_view reader_view(std::string_view raw_line);

// InputError "PATH:LINE: NUL byte at byte N of the line ..." if `line` holds a NUL byte (issue 11:
// a NUL used to cut the line silently).
void check_no_nul(const std::string& path, std::size_t line_no, std::string_view line);

// Parses field `column.index` of a non-blank data line; false if it is missing or not a number.
bool parse_data_line(std::string_view line, std::size_t index, float& out);

[[noreturn]] void throw_empty_file(const std::string& path);
// No data row: "no data rows after the header" with a header, else the file counts as empty.
[[noreturn]] void throw_no_data_rows(const std::string& path, const CsvOptions& options);
[[noreturn]] void throw_line_too_long(const std::string& path, std::size_t line_no);
// The error for a data line (as reader_view returns it) that parse_data_line rejected: a NUL
// byte, too few fields or a cell that is not a finite float32. Throws InternalError if the line is fine after
// all (a GPU/CPU disagreement is a bug, not bad input).
[[noreturn]] void throw_bad_line(const std::string& path, std::size_t line_no, std::string_view line,
                                 const CsvColumn& column, const CsvOptions& options);

// The options a second column (CsvSecondColumn) is resolved and named with: the first column's,
// naming it.
CsvOptions second_column_options(const CsvOptions& options, const CsvSecondColumn& second);

// A spreadsheet's export where the decimal separator is a comma ("MLII;V1", "0,1602;-0,0961"):
// split at its commas, a column holds each sample's integer part, which parses. Refused instead:
// `where` ("PATH: the header" or "PATH:LINE:") and the line, then what to do.
[[noreturn]] void throw_semicolon_separated(const std::string& where, std::string_view line);
// The error for a data row of a two-column read that did not parse: the first column's
// (throw_bad_line) where its cell is bad or the row holds a NUL byte, else the second column's
// (`column2`, resolved from `second`) followed by second.note.
[[noreturn]] void throw_bad_row(const std::string& path, std::size_t line_no, std::string_view line, const CsvColumn& column,
                                const CsvOptions& options, const CsvColumn& column2, const CsvSecondColumn& second);

#ifdef ECGPIPE_WITH_CUDA
// Default size of one streamed chunk (one pinned host buffer, one device buffer). It must stay
// above kMaxLineBytes + 1 so that every line the CPU accepts fits in a chunk; beyond that, small:
// pinning host memory costs ~0.5 ms a MiB (cudaHostAlloc, H100 host), and the two 32 MiB chunks
// of before took 33 ms of a 467 MB file's 92 ms. Measured there (bench, median of 5, 4 read
// threads): chunks of 8 / 16 / 32 MiB 6.2 / 7.8 / 5.0 GB/s (2026-11-24).
inline constexpr std::size_t kDefaultChunkBytes = kMaxLineBytes + 1 + (std::size_t{1} << 20);

// read_csv_column_cuda with the chunk size as a parameter (test hook: a tiny chunk makes lines
// straddle chunk boundaries many times). chunk_bytes is clamped to at least 16.
DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options,
                                         cudaStream_t stream, std::size_t chunk_bytes);
DeviceColumns read_csv_columns_cuda(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second,
                                    cudaStream_t stream, std::size_t chunk_bytes);
#endif

}  // namespace ecgpipe::csv_internal
