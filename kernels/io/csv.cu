// Stage 1 on the GPU, the kernels (the host streaming that feeds them is src/io/csv_cuda.cpp; the
// launchers' header is csv_kernels.hpp). Per chunk of text, which always starts at a line start:
//  1. cub::DeviceSelect::If over byte indices picks the *row starts*: the first byte of each
//     non-blank line that is not a space/tab (RowStartOp). Row starts come out in file order.
//  2. parse_rows_kernel (one thread per row) splits the row on ',', takes field `index` (and a
//     second field, a two-lead file's other lead, in the same walk) and parses it into float32
//     (csv_parse.cuh: fast_float's parser ported, tested against fast_float on the host), written
//     to out[row_base + row] (out2[row_base + row]).
// Bad rows (too few fields, not a finite float32, too long, a NUL byte) do atomicMin on the file
// offset of their row start; cells the port cannot decide are listed for the host (csv_parse.cuh).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

#include "kernels/io/csv_kernels.hpp"
#include "kernels/io/csv_parse.cuh"

namespace ecgpipe::csv_kernels {
namespace {

using csv_parse::CellResult;
using csv_parse::is_blank;
using csv_parse::kCellBad;
using csv_parse::kCellOk;
using csv_parse::kCellUndecided;

// The parser's tables in device memory. Powers of five in global memory (read through L1):
// threads of a warp often look up different rows, which __constant__ memory would serialize.
__device__ std::uint64_t g_pow5[2 * csv_parse::kPow5Rows];
__constant__ float c_pow10f[csv_parse::kMaxFastPath + 1];

// ---------------------------------------------------------------------------------------------
// Kernels and their shared state.

constexpr int kBlock = 256;  // threads per block of parse_rows_kernel

// The end of a line's text (as csv_internal::reader_view gives it): LF, end of the chunk's text,
// or a CR right before LF / at the end of the file. A NUL byte is not an end: it makes the row bad
// (parse_rows_kernel), as on the CPU.
__device__ __forceinline__ bool is_text_end(const char* text, std::uint32_t i, std::uint32_t len) {
  if (i >= len) return true;
  const char c = text[i];
  return c == '\n' || (c == '\r' && (i + 1 == len || text[i + 1] == '\n'));
}

// Select predicate over byte indices i of a chunk: is byte i the first non-blank byte of a line?
// The chunk starts at a line start, so scanning back over spaces/tabs to an LF or to byte 0 tells.
// Each byte that is not blank scans back only over the blanks directly before it: O(chunk) total.
struct RowStartOp {
  const char* text;
  std::uint32_t len;
  __device__ bool operator()(const std::uint32_t& index) const {
    std::uint32_t i = index;
    const char c = text[i];
    if (is_blank(c) || is_text_end(text, i, len)) return false;
    while (i > 0) {
      const char before = text[i - 1];
      if (before == '\n') return true;
      if (!is_blank(before)) return false;
      --i;
    }
    return true;
  }
};

// One thread per row r (grid-stride): row_starts[r] is the row's first non-blank byte; the
// thread walks the row to its field (and the second one, if any), parses it and writes
// out[row_base + r] (out2[row_base + r]).
__global__ void parse_rows_kernel(ParseArgs a) {
  const bool two = a.field2 != kNoField;
  for (std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < a.rows; r += gridDim.x * blockDim.x) {
    const std::uint32_t start = a.row_starts[r];
    std::uint32_t i = start;
    std::uint32_t field_begin = start;
    std::uint64_t field = 0;
    CellResult result = kCellBad;  // stays bad if the line has too few fields
    CellResult result2 = two ? kCellBad : kCellOk;
    bool found = false, found2 = !two;
    float value = 0.0f, value2 = 0.0f;
    bool nul = false;  // a NUL byte anywhere in the row makes it bad (the host names the error)
    for (;; ++i) {
      const bool end = is_text_end(a.text, i, a.len);
      if (end || a.text[i] == ',') {
        if (field == a.field) {
          result = csv_parse::parse_cell(a.text + field_begin, a.text + i, value, csv_parse::ParseTables{g_pow5, c_pow10f});
          found = true;
        }
        if (field == a.field2) {
          result2 = csv_parse::parse_cell(a.text + field_begin, a.text + i, value2, csv_parse::ParseTables{g_pow5, c_pow10f});
          found2 = true;
        }
        if (end || (found && found2)) break;
        ++field;
        field_begin = i + 1;
      }
      nul |= a.text[i] == '\0';
    }
    // The rest of the row (after the field read) must be free of NUL too.
    for (std::uint32_t j = i; !is_text_end(a.text, j, a.len); ++j) nul |= a.text[j] == '\0';
    if (nul) result = kCellBad;
    if (a.check_length) {  // the CPU reader's limit: the line's bytes before LF (CR included)
      std::uint32_t line_end = i;
      while (line_end < a.len && a.text[line_end] != '\n') ++line_end;
      std::uint32_t line_begin = start;
      while (line_begin > 0 && is_blank(a.text[line_begin - 1])) --line_begin;
      if (line_end - line_begin > kMaxLineBytes) result = kCellBad;
    }
    if (result == kCellBad || result2 == kCellBad) {
      result = kCellBad;
    } else if (result2 == kCellUndecided) {
      result = kCellUndecided;
    }
    if (result == kCellOk) {
      a.out[a.row_base + r] = value;
      if (two) a.out2[a.row_base + r] = value2;
    } else if (result == kCellUndecided) {
      const unsigned int slot = atomicAdd(&a.status->undecided, 1u);
      if (slot < kHardCapacity) a.undecided[slot] = {a.file_offset + start, a.row_base + r};
    } else {
      atomicMin(&a.status->first_bad, static_cast<unsigned long long>(a.file_offset + start));
    }
  }
}

}  // namespace

void upload_parse_tables(cudaStream_t stream) {
  const csv_parse::ParseTables host = csv_parse::host_tables();
  ECGPIPE_CUDA_CHECK(cudaMemcpyToSymbolAsync(g_pow5, host.pow5, sizeof(g_pow5), 0, cudaMemcpyHostToDevice, stream));
  ECGPIPE_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pow10f, host.pow10, sizeof(c_pow10f), 0, cudaMemcpyHostToDevice, stream));
}

std::size_t row_starts_scratch_bytes(std::size_t max_bytes, cudaStream_t stream) {
  std::size_t bytes = 0;
  ECGPIPE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<std::uint32_t>(0),
                                           static_cast<std::uint32_t*>(nullptr), static_cast<unsigned int*>(nullptr),
                                           static_cast<std::int64_t>(max_bytes), RowStartOp{nullptr, 0}, stream));
  return bytes;
}

void select_row_starts(const char* text, std::uint32_t len, std::uint32_t* row_starts, unsigned int* rows,
                       DeviceSpan<unsigned char> scratch, cudaStream_t stream) {
  std::size_t bytes = scratch.size;
  ECGPIPE_CUDA_CHECK(cub::DeviceSelect::If(scratch.data, bytes, thrust::counting_iterator<std::uint32_t>(0), row_starts, rows,
                                           static_cast<std::int64_t>(len), RowStartOp{text, len}, stream));
}

void parse_rows(const ParseArgs& a, cudaStream_t stream) {
  if (a.rows == 0) return;
  const unsigned int blocks = (a.rows + kBlock - 1) / kBlock;  // rows <= chunk/2 + 1 < 2^31 blocks
  parse_rows_kernel<<<blocks, kBlock, 0, stream>>>(a);
  ECGPIPE_CUDA_CHECK_LAUNCH("parse_rows_kernel");
}

}  // namespace ecgpipe::csv_kernels
