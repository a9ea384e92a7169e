// Stage 1 on the GPU, the kernels' side (kernels/io/csv.cu) as the host streaming code
// (src/io/csv_cuda.cpp) calls it: the launchers take device pointers and the stream, last. No device
// code here, so plain C++ includes it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe::csv_kernels {

// A line whose text (a final CR included, the LF excluded) is 2^24 bytes or longer is refused,
// by the CPU reader and the GPU parser alike (src/io/csv_internal.hpp).
inline constexpr std::size_t kMaxLineBytes = (std::size_t{1} << 24) - 1;

constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};
constexpr std::uint64_t kNoField = ~std::uint64_t{0};
constexpr std::uint32_t kHardCapacity = 4096;  // undecided cells handled on the host, at most

// Written by the kernels; copied to the host as a whole (16 bytes) once per chunk.
struct Status {
  unsigned long long first_bad;  // smallest file offset of a bad row start, kNoOffset if none
  unsigned int undecided;        // cells left to the host (may exceed kHardCapacity)
  unsigned int rows;             // row starts found in the chunk last selected
};
static_assert(sizeof(Status) == 16);

struct UndecidedCell {
  unsigned long long offset;  // file offset of the row start
  unsigned long long row;     // output index
};

struct ParseArgs {
  const char* text;               // the chunk
  std::uint32_t len;              // its bytes (ends with LF unless it is the file's tail)
  const std::uint32_t* row_starts;
  std::uint32_t rows;
  std::uint64_t field;            // 0-based column index
  float* out;                     // output, row_base + row
  // A second column parsed in the same walk of the row (the second lead, issue 24), or kNoField.
  // A row is bad when either cell is, undecided when either is (the host settles both).
  std::uint64_t field2;
  float* out2;                    // its output, row_base + row; null with kNoField
  std::uint64_t row_base;         // rows before this chunk
  std::uint64_t file_offset;      // file offset of text[0]
  bool check_length;              // the chunk is longer than kMaxLineBytes: lines may be too
  Status* status;
  UndecidedCell* undecided;
};

// Copies the cell parser's tables (fast_float's powers of five, the powers of ten) to the device.
void upload_parse_tables(cudaStream_t stream);
// Scratch bytes select_row_starts needs for chunks of up to `max_bytes` bytes.
std::size_t row_starts_scratch_bytes(std::size_t max_bytes, cudaStream_t stream);
// The row starts of text[0, len) (the first non-blank byte of each non-blank line, in order) into
// row_starts, their count into *rows (device memory).
void select_row_starts(const char* text, std::uint32_t len, std::uint32_t* row_starts, unsigned int* rows,
                       DeviceSpan<unsigned char> scratch, cudaStream_t stream);
// Parses field a.field (and a.field2) of every row into a.out (a.out2) (see parse_rows_kernel).
void parse_rows(const ParseArgs& a, cudaStream_t stream);

}  // namespace ecgpipe::csv_kernels
