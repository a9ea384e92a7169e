// Stage 1 on the GPU: one numeric column of a CSV file -> float32 samples on the device.
//
// Streaming (host): the header (and blank lines before it) is read with getc and resolved with
// resolve_column(); then the file is read in chunks of `chunk_bytes` into two pinned host buffers
// used in turn. A chunk always starts at a line start: the bytes after its last LF (a partial
// line) are carried to the front of the next chunk; only the last chunk may end without LF.
// Every step is queued on the caller's stream; the host blocks only (a) before refilling a
// pinned buffer whose previous host->device copy may still be running (event), and (b) for the
// row count of chunk k-1 (event, already done by then because it was queued before the host read
// chunk k). So reading chunk k+1 from disk overlaps the copy and the kernels of chunk k.
//
// Per chunk (device), with the chunk's text in text[slot]:
//  1. cub::DeviceSelect::If over byte indices picks the *row starts*: the first byte of each
//     non-blank line that is not a space/tab (RowStartOp). Row starts come out in file order.
//  2. parse_rows_kernel (one thread per row) splits the row on ',', takes field `index` and
//     parses it into float32, written to out[row_base + row].
// Bad rows (too few fields, not a finite float32, too long) do atomicMin on the file offset of
// their row start; the host turns the smallest offset into a line number by re-reading the file
// and builds the message with the CPU code (csv_internal::throw_bad_line), so both paths say the
// same thing. Device->host traffic: per chunk one 16-byte status (row count, first bad offset,
// count of undecided cells), plus the undecided cells' positions at the end.
//
// Rounding: the device parser is a port of fast_float 3.9 for float (the CPU reference), same
// grammar and same arithmetic: Clinger's exact fast path (mantissa <= 2^24, |exp10| <= 10, one
// correctly rounded IEEE multiply/divide), else Eisel-Lemire with fast_float's own 128-bit
// power-of-five table (copied from the fast_float header to device memory, so the tables cannot
// differ). Where fast_float would fall back to its big-integer path (more than 19 significant
// digits and w, w+1 round differently, or Eisel-Lemire's rare "cannot decide"), the device marks
// the cell *undecided* and stores its position; the host re-parses those few cells from the file
// with fast_float and patches them (more than kHardCapacity of them: the whole file is parsed on
// the CPU instead). Text with <= 19 significant digits never takes the fallback except in the
// Eisel-Lemire corner case, so it is exact on the device.
#include <cub/device/device_select.cuh>
#include <fast_float/fast_float.h>
#include <thrust/iterator/counting_iterator.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../src/detail/parallel.hpp"
#include "csv_internal.hpp"
#include "ecgpipe/csv.hpp"
#include "ecgpipe/cuda.hpp"
#include "ecgpipe/error.hpp"

namespace ecgpipe {
namespace {

// ---------------------------------------------------------------------------------------------
// fast_float's binary32 constants (checked against the header below).
constexpr int kMantissaBits = 23;          // explicit mantissa bits of float32
constexpr int kMinimumExponent = -127;     // binary_format<float>::minimum_exponent()
constexpr int kInfinitePower = 0xFF;       // biased exponent of inf
constexpr int kSmallestPow10 = -65;        // w * 10^q with q below this is 0 for any 64-bit w
constexpr int kLargestPow10 = 38;          // ... and above this is inf
constexpr int kMinRoundToEven = -17;       // q range where an exact tie is possible
constexpr int kMaxRoundToEven = 10;
constexpr int kMinFastPath = -10;          // Clinger: 10^|q| exact in float32 for |q| <= 10
constexpr int kMaxFastPath = 10;
constexpr std::uint64_t kMaxFastMantissa = std::uint64_t{1} << 24;  // integers exact in float32
constexpr int kPow5Rows = kLargestPow10 - kSmallestPow10 + 1;       // 104 table rows of 128 bits

static_assert(fast_float::binary_format<float>::mantissa_explicit_bits() == kMantissaBits);
static_assert(fast_float::binary_format<float>::minimum_exponent() == kMinimumExponent);
static_assert(fast_float::binary_format<float>::infinite_power() == kInfinitePower);
static_assert(fast_float::binary_format<float>::smallest_power_of_ten() == kSmallestPow10);
static_assert(fast_float::binary_format<float>::largest_power_of_ten() == kLargestPow10);
static_assert(fast_float::binary_format<float>::min_exponent_round_to_even() == kMinRoundToEven);
static_assert(fast_float::binary_format<float>::max_exponent_round_to_even() == kMaxRoundToEven);
static_assert(fast_float::binary_format<float>::min_exponent_fast_path() == kMinFastPath);
static_assert(fast_float::binary_format<float>::max_exponent_fast_path() == kMaxFastPath);
static_assert(fast_float::binary_format<float>::max_mantissa_fast_path() == kMaxFastMantissa);

// 5^q for q in [kSmallestPow10, kLargestPow10], two 64-bit words per q (most significant first),
// the float32 slice of fast_float::powers::power_of_five_128. Global memory (read through L1):
// threads of a warp often look up different rows, which __constant__ memory would serialize.
__device__ std::uint64_t g_pow5[2 * kPow5Rows];

// 10^0 .. 10^10, all exact in float32 (5^10 < 2^24).
__constant__ float c_pow10f[kMaxFastPath + 1] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                                 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

enum CellResult : int { kCellOk = 0, kCellBad = 1, kCellUndecided = 2 };

__device__ __forceinline__ bool is_digit(char c) { return c >= '0' && c <= '9'; }
__device__ __forceinline__ bool is_blank(char c) { return c == ' ' || c == '\t'; }

struct AdjustedMantissa {
  std::uint64_t mantissa;
  std::int32_t power2;  // biased exponent; < 0: Eisel-Lemire could not decide
};

// fast_float::compute_float<binary_format<float>>: w * 10^q rounded to nearest, ties to even.
__device__ AdjustedMantissa compute_float(std::int64_t q, std::uint64_t w) {
  AdjustedMantissa am{0, 0};
  if (w == 0 || q < kSmallestPow10) return am;  // zero
  if (q > kLargestPow10) {
    am.power2 = kInfinitePower;
    return am;
  }
  const int lz = __clzll(static_cast<long long>(w));
  w <<= lz;
  // 128-bit product w * 5^q (truncated table entry); the second word is needed only when the
  // bits below the 26 we keep (23 + implicit + round + possible shift) are all ones.
  const int index = 2 * static_cast<int>(q - kSmallestPow10);
  const std::uint64_t p0 = g_pow5[index];
  std::uint64_t high = __umul64hi(w, p0);
  std::uint64_t low = w * p0;
  constexpr std::uint64_t kPrecisionMask = ~std::uint64_t{0} >> (kMantissaBits + 3);
  if ((high & kPrecisionMask) == kPrecisionMask) {
    const std::uint64_t second_high = __umul64hi(w, g_pow5[index + 1]);
    low += second_high;
    if (second_high > low) ++high;
  }
  if (low == ~std::uint64_t{0} && !(q >= -27 && q <= 55)) {
    am.power2 = -1;  // fast_float: compute_error -> digit_comp (big integers); here: undecided
    return am;
  }
  const int upperbit = static_cast<int>(high >> 63);
  const int shift = upperbit + 64 - kMantissaBits - 3;
  am.mantissa = high >> shift;
  // (((152170 + 65536) * q) >> 16) + 63 == floor(log2(10^q)) + 63 (fast_float detail::power)
  am.power2 = static_cast<std::int32_t>(((((152170 + 65536) * static_cast<std::int32_t>(q)) >> 16) + 63) + upperbit - lz -
                                        kMinimumExponent);
  if (am.power2 <= 0) {  // subnormal
    if (-am.power2 + 1 >= 64) {
      am.mantissa = 0;
      am.power2 = 0;
      return am;
    }
    am.mantissa >>= -am.power2 + 1;
    am.mantissa += (am.mantissa & 1);
    am.mantissa >>= 1;
    am.power2 = (am.mantissa < (std::uint64_t{1} << kMantissaBits)) ? 0 : 1;
    return am;
  }
  if (low <= 1 && q >= kMinRoundToEven && q <= kMaxRoundToEven && (am.mantissa & 3) == 1) {
    if ((am.mantissa << shift) == high) am.mantissa &= ~std::uint64_t{1};  // exact tie: round to even
  }
  am.mantissa += (am.mantissa & 1);
  am.mantissa >>= 1;
  if (am.mantissa >= (std::uint64_t{2} << kMantissaBits)) {
    am.mantissa = std::uint64_t{1} << kMantissaBits;
    ++am.power2;
  }
  am.mantissa &= ~(std::uint64_t{1} << kMantissaBits);
  if (am.power2 >= kInfinitePower) {
    am.power2 = kInfinitePower;
    am.mantissa = 0;
  }
  return am;
}

// One cell (the text between two commas) by the grammar of csv.hpp; fast_float's
// parse_number_string + from_chars_advanced for float, with a leading '+' allowed before a digit
// or '.', spaces/tabs trimmed, and non-finite results rejected.
__device__ CellResult parse_cell_device(const char* p, const char* pend, float& out) {
  while (p < pend && is_blank(*p)) ++p;
  while (pend > p && is_blank(pend[-1])) --pend;
  if (p == pend) return kCellBad;
  bool negative = false;
  if (*p == '-' || *p == '+') {
    negative = *p == '-';
    ++p;
    if (p == pend || !(is_digit(*p) || *p == '.')) return kCellBad;
  }
  const char* const start_digits = p;
  std::uint64_t i = 0;  // may overflow with > 19 digits; recomputed below then
  while (p != pend && is_digit(*p)) {
    i = 10 * i + static_cast<std::uint64_t>(*p - '0');
    ++p;
  }
  const char* const end_of_integer = p;
  std::int64_t digit_count = end_of_integer - start_digits;
  std::int64_t exponent = 0;
  const char* fraction = p;
  const char* fraction_end = p;
  if (p != pend && *p == '.') {
    ++p;
    fraction = p;
    while (p != pend && is_digit(*p)) {
      i = 10 * i + static_cast<std::uint64_t>(*p - '0');
      ++p;
    }
    fraction_end = p;
    exponent = fraction - p;
    digit_count -= exponent;
  }
  if (digit_count == 0) return kCellBad;  // no digit on either side of the '.'
  std::int64_t exp_number = 0;
  if (p != pend && (*p == 'e' || *p == 'E')) {
    const char* const location_of_e = p;
    ++p;
    bool neg_exp = false;
    if (p != pend && *p == '-') {
      neg_exp = true;
      ++p;
    } else if (p != pend && *p == '+') {
      ++p;
    }
    if (p == pend || !is_digit(*p)) {
      p = location_of_e;  // not an exponent: the cell is not fully consumed -> bad below
    } else {
      while (p != pend && is_digit(*p)) {
        if (exp_number < 0x10000000) exp_number = 10 * exp_number + (*p - '0');  // saturates like fast_float
        ++p;
      }
      if (neg_exp) exp_number = -exp_number;
      exponent += exp_number;
    }
  }
  if (p != pend) return kCellBad;  // the whole trimmed cell must be the number

  bool too_many_digits = false;
  if (digit_count > 19) {
    const char* start = start_digits;  // leading zeros are not significant
    while (start != pend && (*start == '0' || *start == '.')) {
      if (*start == '0') --digit_count;
      ++start;
    }
    if (digit_count > 19) {  // keep the first 19 significant digits: w is then truncated
      too_many_digits = true;
      constexpr std::uint64_t kMinNineteenDigits = 1000000000000000000ull;
      i = 0;
      p = start_digits;
      while (i < kMinNineteenDigits && p != end_of_integer) {
        i = i * 10 + static_cast<std::uint64_t>(*p - '0');
        ++p;
      }
      if (i >= kMinNineteenDigits) {
        exponent = (end_of_integer - p) + exp_number;
      } else {
        p = fraction;
        while (i < kMinNineteenDigits && p != fraction_end) {
          i = i * 10 + static_cast<std::uint64_t>(*p - '0');
          ++p;
        }
        exponent = (fraction - p) + exp_number;
      }
    }
  }

  if (exponent >= kMinFastPath && exponent <= kMaxFastPath && !too_many_digits && i <= kMaxFastMantissa) {
    // Clinger: i and 10^|e| are exact floats, so one IEEE round-to-nearest operation is exact.
    float v = __ull2float_rn(i);
    v = exponent < 0 ? __fdiv_rn(v, c_pow10f[-exponent]) : __fmul_rn(v, c_pow10f[exponent]);
    out = negative ? -v : v;
    return kCellOk;
  }
  const AdjustedMantissa am = compute_float(exponent, i);
  if (am.power2 < 0) return kCellUndecided;
  if (too_many_digits) {
    const AdjustedMantissa up = compute_float(exponent, i + 1);
    if (up.power2 != am.power2 || up.mantissa != am.mantissa) return kCellUndecided;
  }
  if (am.power2 == kInfinitePower) return kCellBad;  // beyond float32's range
  const std::uint32_t word = static_cast<std::uint32_t>(am.mantissa) | (static_cast<std::uint32_t>(am.power2) << kMantissaBits) |
                             (negative ? 0x80000000u : 0u);
  out = __uint_as_float(word);
  return kCellOk;
}

// ---------------------------------------------------------------------------------------------
// Kernels and their shared state.

constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};
constexpr std::uint32_t kHardCapacity = 4096;  // undecided cells handled on the host, at most
constexpr int kBlock = 256;                    // threads per block of parse_rows_kernel

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

struct ParseArgs {
  const char* text;               // the chunk
  std::uint32_t len;              // its bytes (ends with LF unless it is the file's tail)
  const std::uint32_t* row_starts;
  std::uint32_t rows;
  std::uint64_t field;            // 0-based column index
  float* out;                     // output, row_base + row
  std::uint64_t row_base;         // rows before this chunk
  std::uint64_t file_offset;      // file offset of text[0]
  bool check_length;              // the chunk is longer than kMaxLineBytes: lines may be too
  Status* status;
  UndecidedCell* undecided;
};

// One thread per row r (grid-stride): row_starts[r] is the row's first non-blank byte; the
// thread walks the row to its field, parses it and writes out[row_base + r].
__global__ void parse_rows_kernel(ParseArgs a) {
  for (std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < a.rows; r += gridDim.x * blockDim.x) {
    const std::uint32_t start = a.row_starts[r];
    std::uint32_t i = start;
    std::uint32_t field_begin = start;
    std::uint64_t field = 0;
    CellResult result = kCellBad;  // stays bad if the line has too few fields
    float value = 0.0f;
    bool nul = false;  // a NUL byte anywhere in the row makes it bad (the host names the error)
    for (;; ++i) {
      const bool end = is_text_end(a.text, i, a.len);
      if (end || a.text[i] == ',') {
        if (field == a.field) {
          result = parse_cell_device(a.text + field_begin, a.text + i, value);
          break;
        }
        if (end) break;
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
      if (line_end - line_begin > csv_internal::kMaxLineBytes) result = kCellBad;
    }
    if (result == kCellOk) {
      a.out[a.row_base + r] = value;
    } else if (result == kCellUndecided) {
      const unsigned int slot = atomicAdd(&a.status->undecided, 1u);
      if (slot < kHardCapacity) a.undecided[slot] = {a.file_offset + start, a.row_base + r};
    } else {
      atomicMin(&a.status->first_bad, static_cast<unsigned long long>(a.file_offset + start));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host side.

constexpr unsigned char kBom[3] = {0xEF, 0xBB, 0xBF};

bool starts_with_bom(std::string_view s) { return s.size() >= 3 && std::memcmp(s.data(), kBom, 3) == 0; }

// Page-locked host memory (cudaHostAlloc), so cudaMemcpyAsync from it is truly asynchronous.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) { ECGPIPE_CUDA_CHECK(cudaHostAlloc(&data_, bytes, cudaHostAllocDefault)); }
  ~PinnedBuffer() { (void)cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
};

class Event {
 public:
  Event() { ECGPIPE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() { (void)cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  operator cudaEvent_t() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Waits for the stream when it goes out of scope: declared after the pinned buffers, it runs
// before they are freed, so an exception never frees memory a queued copy still reads.
// Disarmed once the host has waited for everything queued (the usual, successful path).
struct StreamDrain {
  cudaStream_t stream;
  bool armed = true;
  ~StreamDrain() {
    if (armed) (void)cudaStreamSynchronize(stream);
  }
};

// Reads one raw line (LF removed) with getc. Keeps at most `keep` bytes in `line`, returns the
// full length in `length`; false at end of file with nothing read.
bool read_raw_line(std::FILE* file, std::string& line, std::size_t keep, std::size_t& length) {
  line.clear();
  length = 0;
  int c = 0;
  bool any = false;
  while ((c = std::getc(file)) != EOF) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < keep) line.push_back(static_cast<char>(c));
    ++length;
  }
  return any;
}

// The line holding file offset `offset`: its 1-based number and its raw text (LF removed, a BOM
// removed on line 1), at most kMaxLineBytes + 1 bytes kept; `length` is the full length.
struct LocatedLine {
  std::size_t line_no = 1;
  std::string raw;
  std::size_t length = 0;
};

LocatedLine locate_line(const std::string& path, std::uint64_t offset) {
  csv_internal::FilePtr file = csv_internal::open_csv_file(path);
  LocatedLine found;
  std::vector<char> block(std::size_t{1} << 20);
  std::uint64_t pos = 0, line_start = 0;
  while (pos < offset) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), offset - pos));
    const std::size_t got = std::fread(block.data(), 1, want, file.get());
    if (got == 0) break;
    for (const char* p = block.data(); (p = static_cast<const char*>(std::memchr(p, '\n', got - (p - block.data())))) != nullptr; ++p) {
      ++found.line_no;
      line_start = pos + static_cast<std::uint64_t>(p - block.data()) + 1;
    }
    pos += got;
  }
  if (std::fseek(file.get(), static_cast<long>(line_start), SEEK_SET) != 0) {
    throw InputError("cannot seek in " + path);
  }
  read_raw_line(file.get(), found.raw, csv_internal::kMaxLineBytes + 4, found.length);
  if (line_start == 0 && starts_with_bom(found.raw)) {
    found.raw.erase(0, 3);
    found.length -= 3;
  }
  return found;
}

// The rest of the line from `offset` (a row start), as the CPU reader sees it.
std::string row_text_at(std::FILE* file, const std::string& path, std::uint64_t offset) {
  if (std::fseek(file, static_cast<long>(offset), SEEK_SET) != 0) throw InputError("cannot seek in " + path);
  std::string raw;
  std::size_t length = 0;
  read_raw_line(file, raw, csv_internal::kMaxLineBytes + 1, length);
  return std::string(csv_internal::reader_view(raw));
}

class GpuCsvReader {
 public:
  GpuCsvReader(const std::string& path, const CsvOptions& options, cudaStream_t stream, std::size_t chunk_bytes)
      : path_(path), options_(options), stream_(stream),
        chunk_(std::clamp<std::size_t>(chunk_bytes, 16, std::size_t{1} << 30)) {}

  DeviceBuffer<float> run();

 private:
  void read_header();
  void enqueue_chunk(int slot, std::size_t bytes);
  std::size_t read_more(char* dst, std::size_t want);
  void parse_pending();
  void grow_output(std::size_t needed, std::uint64_t bytes_done);
  std::uint64_t fetch_final_status();
  std::uint64_t settle_undecided(std::uint64_t first_bad);
  [[noreturn]] void fail(std::uint64_t offset, bool chunk_overflow = false);

  const std::string path_;
  const CsvOptions options_;
  const cudaStream_t stream_;
  const std::size_t chunk_;
  csv_internal::FilePtr file_;
  std::size_t file_size_ = 0;
  CsvColumn column_;
  std::uint64_t data_start_ = 0;  // file offset of the first data byte
  std::string initial_;           // bytes read while checking for a BOM (no header): chunk 0's head
  std::int64_t read_pos_ = -1;    // pread's next offset (regular files), from ftell after the header

  // Streaming state.
  std::unique_ptr<PinnedBuffer> host_[2];
  std::unique_ptr<PinnedBuffer> host_status_;  // Status[3]: one per slot, one final
  std::unique_ptr<StreamDrain> drain_;
  DeviceBuffer<char> text_[2];
  DeviceBuffer<std::uint32_t> row_starts_[2];
  DeviceBuffer<Status> status_;
  DeviceBuffer<UndecidedCell> undecided_;
  DeviceBuffer<unsigned char> cub_temp_;
  std::size_t cub_temp_bytes_ = 0;
  Event copied_[2], status_ready_[2];
  bool slot_used_[2] = {false, false};
  DeviceBuffer<float> out_;
  std::uint64_t rows_ = 0;
  struct Pending {
    bool active = false;
    int slot = 0;
    std::uint64_t file_offset = 0;
    std::uint32_t len = 0;
  } pending_;
};

void GpuCsvReader::read_header() {
  if (!options_.has_header) {
    column_ = resolve_column({}, options_, path_);
    char head[3];
    const std::size_t got = std::fread(head, 1, 3, file_.get());
    if (got == 3 && std::memcmp(head, kBom, 3) == 0) {
      data_start_ = 3;  // the CPU reader skips a UTF-8 BOM
    } else {
      initial_.assign(head, got);
    }
    return;
  }
  std::string raw;
  std::size_t length = 0;
  std::size_t line_no = 0;
  std::uint64_t consumed = 0;
  while (read_raw_line(file_.get(), raw, csv_internal::kMaxLineBytes + 4, length)) {
    ++line_no;
    consumed += length;
    if (!std::feof(file_.get())) ++consumed;  // the LF
    std::string_view text = raw;
    if (line_no == 1 && starts_with_bom(text)) {
      text.remove_prefix(3);
      length -= 3;
    }
    if (length > csv_internal::kMaxLineBytes) csv_internal::throw_line_too_long(path_, line_no);
    text = csv_internal::reader_view(text);
    csv_internal::check_no_nul(path_, line_no, text);
    if (!is_blank_line(text)) {
      column_ = resolve_column(text, options_, path_);
      data_start_ = consumed;
      return;
    }
  }
  csv_internal::throw_empty_file(path_);
}

// Queues chunk `slot` (its `bytes` bytes are in host_[slot]): copy, row starts, status.
void GpuCsvReader::enqueue_chunk(int slot, std::size_t bytes) {
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(text_[slot].data(), host_[slot]->as<char>(), bytes, cudaMemcpyHostToDevice, stream_));
  ECGPIPE_CUDA_CHECK(cudaEventRecord(copied_[slot], stream_));
  slot_used_[slot] = true;
  std::size_t temp_bytes = cub_temp_bytes_;
  ECGPIPE_CUDA_CHECK(cub::DeviceSelect::If(cub_temp_.data(), temp_bytes, thrust::counting_iterator<std::uint32_t>(0),
                                           row_starts_[slot].data(), &status_.data()->rows,
                                           static_cast<std::int64_t>(bytes), RowStartOp{text_[slot].data(), static_cast<std::uint32_t>(bytes)},
                                           stream_));
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(host_status_->as<Status>() + slot, status_.data(), sizeof(Status),
                                     cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaEventRecord(status_ready_[slot], stream_));
}

// Launches the parse of the pending chunk, whose row count is in host status[slot].
void GpuCsvReader::parse_pending() {
  if (!pending_.active) return;
  pending_.active = false;
  const int slot = pending_.slot;
  ECGPIPE_CUDA_CHECK(cudaEventSynchronize(status_ready_[slot]));
  const Status st = host_status_->as<Status>()[slot];
  if (st.first_bad != kNoOffset) fail(st.first_bad);  // found in an earlier chunk: stop reading
  const std::uint32_t rows = st.rows;
  if (rows == 0) return;
  grow_output(rows_ + rows, pending_.file_offset + pending_.len);
  ParseArgs a;
  a.text = text_[slot].data();
  a.len = pending_.len;
  a.row_starts = row_starts_[slot].data();
  a.rows = rows;
  a.field = column_.index;
  a.out = out_.data();
  a.row_base = rows_;
  a.file_offset = pending_.file_offset;
  a.check_length = pending_.len > csv_internal::kMaxLineBytes;
  a.status = status_.data();
  a.undecided = undecided_.data();
  const unsigned int blocks = (rows + kBlock - 1) / kBlock;  // rows <= chunk/2 + 1 < 2^31 blocks
  parse_rows_kernel<<<blocks, kBlock, 0, stream_>>>(a);
  ECGPIPE_CUDA_CHECK_LAUNCH("parse_rows_kernel");
  rows_ += rows;
}

// Makes out_ hold at least `needed` rows; sizes it from the rows per byte seen so far, so a file
// of known size is usually allocated once (plus the final exact-size copy).
void GpuCsvReader::grow_output(std::size_t needed, std::uint64_t bytes_done) {
  if (needed <= out_.size()) return;
  std::size_t capacity = std::max(needed, out_.size() + out_.size() / 2);
  if (file_size_ > bytes_done && bytes_done > data_start_) {
    const double per_byte = static_cast<double>(needed) / static_cast<double>(bytes_done - data_start_);
    const double estimate = per_byte * static_cast<double>(file_size_ - data_start_) * 1.02 + 1024.0;
    capacity = std::max(capacity, static_cast<std::size_t>(estimate));
  }
  DeviceBuffer<float> bigger(capacity, stream_);
  if (rows_ > 0) {
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(bigger.data(), out_.data(), rows_ * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
  }
  out_ = std::move(bigger);
}

// Waits for everything queued and returns the final first_bad (the status lands in slot 2).
std::uint64_t GpuCsvReader::fetch_final_status() {
  Status* final_status = host_status_->as<Status>() + 2;
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(final_status, status_.data(), sizeof(Status), cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  drain_->armed = false;  // nothing queued reads pinned memory any more
  return final_status->first_bad;
}

// Parses the undecided cells on the host (fast_float's big-integer path) and patches their rows.
// Returns the smallest bad offset: first_bad, or an undecided cell that turns out bad (inf).
// Call after fetch_final_status(). Throws nothing for too many cells: the caller checks.
std::uint64_t GpuCsvReader::settle_undecided(std::uint64_t first_bad) {
  const unsigned int count = host_status_->as<Status>()[2].undecided;
  if (count == 0) return first_bad;
  std::vector<UndecidedCell> cells(std::min<unsigned int>(count, kHardCapacity));
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(cells.data(), undecided_.data(), cells.size() * sizeof(UndecidedCell),
                                     cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<float> values(cells.size());
  for (std::size_t k = 0; k < cells.size(); ++k) {
    if (cells[k].offset >= first_bad) continue;  // after the first error: irrelevant
    const std::string text = row_text_at(file_.get(), path_, cells[k].offset);
    if (!csv_internal::parse_data_line(text, column_.index, values[k])) {
      first_bad = cells[k].offset;
      continue;
    }
    if (cells[k].row < out_.size()) {
      ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(out_.data() + cells[k].row, &values[k], sizeof(float), cudaMemcpyHostToDevice, stream_));
    }
  }
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `values` is read by the copies above
  return first_bad;
}

// Reports the first bad line at or before file offset `offset`: a bad row found by the device,
// or (chunk_overflow) a line that does not fit in one chunk, starting at `offset`.
void GpuCsvReader::fail(std::uint64_t offset, bool chunk_overflow) {
  const std::uint64_t device_bad = fetch_final_status();
  if (host_status_->as<Status>()[2].undecided > kHardCapacity) {
    (void)read_csv_column(path_, options_);  // throws the CPU's error for this file
  }
  const std::uint64_t first = settle_undecided(std::min(offset, device_bad));
  if (first != offset) chunk_overflow = false;
  const LocatedLine line = locate_line(path_, first);
  if (line.length > csv_internal::kMaxLineBytes) csv_internal::throw_line_too_long(path_, line.line_no);
  if (chunk_overflow) {
    // The CPU names a NUL byte in this line before anything else (a zeroed block is a "line"
    // longer than a small chunk, and the user must hear about the NUL, as on the CPU).
    csv_internal::check_no_nul(path_, line.line_no, line.raw);
    throw InputError(path_ + ":" + std::to_string(line.line_no) + ": line longer than the GPU parser's chunk (" +
                     std::to_string(chunk_) + " bytes)");
  }
  csv_internal::throw_bad_line(path_, line.line_no, csv_internal::reader_view(line.raw), column_, options_);
}

// Up to `want` bytes of the file's next bytes into dst (fewer only at the end of the file). A
// regular file is read with pread by up to kReadThreads threads at disjoint offsets: one thread
// copies the page cache at a few GB/s, which capped the whole GPU reader at ~2.2 GB/s on an H100
// host; anything else (a pipe) with fread.
std::size_t GpuCsvReader::read_more(char* dst, std::size_t want) {
  constexpr int kReadThreads = 4;
  constexpr std::size_t kMinReadBytes = std::size_t{4} << 20;  // smaller pieces are not worth a thread
  if (file_size_ == 0) {
    const std::size_t got = std::fread(dst, 1, want, file_.get());
    if (got < want && std::ferror(file_.get())) throw InputError("cannot read " + path_ + ": read error");
    return got;
  }
  if (read_pos_ < 0) read_pos_ = ftello(file_.get());  // after what read_header took through the FILE
  const auto pos = static_cast<std::uint64_t>(read_pos_);
  const std::size_t total = pos >= file_size_ ? 0 : std::min<std::size_t>(want, file_size_ - pos);
  const int fd = fileno(file_.get());
  detail::parallel_chunks(total, kReadThreads, kMinReadBytes, [&](std::size_t at, std::size_t end) {
    while (at < end) {
      const ssize_t got = ::pread(fd, dst + at, end - at, static_cast<off_t>(pos + at));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError("cannot read " + path_ + ": " + std::strerror(errno));
      if (got == 0) throw InputError("cannot read " + path_ + ": the file shrank while it was read");
      at += static_cast<std::size_t>(got);
    }
  });
  read_pos_ += static_cast<std::int64_t>(total);
  return total;
}

DeviceBuffer<float> GpuCsvReader::run() {
  file_ = csv_internal::open_csv_file(path_);
  file_size_ = csv_internal::file_size_or_zero(file_.get());
  read_header();

  // Buffers: two pinned chunks, two device chunks with their row starts (a row takes >= 2 bytes,
  // its first byte and an LF, except the file's last row), status, undecided cells, CUB scratch.
  const std::size_t max_rows = chunk_ / 2 + 1;
  for (int s = 0; s < 2; ++s) {
    host_[s] = std::make_unique<PinnedBuffer>(chunk_);
    text_[s] = DeviceBuffer<char>(chunk_, stream_);
    row_starts_[s] = DeviceBuffer<std::uint32_t>(max_rows, stream_);
  }
  host_status_ = std::make_unique<PinnedBuffer>(3 * sizeof(Status));
  drain_ = std::make_unique<StreamDrain>(StreamDrain{stream_});
  status_ = DeviceBuffer<Status>(1, stream_);
  undecided_ = DeviceBuffer<UndecidedCell>(kHardCapacity, stream_);
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(status_.data(), 0, sizeof(Status), stream_));
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(&status_.data()->first_bad, 0xFF, sizeof(unsigned long long), stream_));  // kNoOffset
  ECGPIPE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, cub_temp_bytes_, thrust::counting_iterator<std::uint32_t>(0),
                                           row_starts_[0].data(), &status_.data()->rows,
                                           static_cast<std::int64_t>(chunk_), RowStartOp{nullptr, 0}, stream_));
  cub_temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(cub_temp_bytes_, 1), stream_);
  const std::uint64_t* pow5 = fast_float::powers::power_of_five_128 + 2 * (kSmallestPow10 - fast_float::powers::smallest_power_of_five);
  ECGPIPE_CUDA_CHECK(cudaMemcpyToSymbolAsync(g_pow5, pow5, sizeof(g_pow5), 0, cudaMemcpyHostToDevice, stream_));

  // Stream the chunks. chunk_offset: file offset of the next chunk's first byte.
  std::uint64_t chunk_offset = data_start_;
  const char* carry = initial_.data();
  std::size_t carry_len = initial_.size();
  bool eof = false;
  for (int k = 0;; ++k) {
    const int slot = k & 1;
    if (slot_used_[slot]) ECGPIPE_CUDA_CHECK(cudaEventSynchronize(copied_[slot]));  // its last copy is done
    char* h = host_[slot]->as<char>();
    if (carry_len > 0) std::memcpy(h, carry, carry_len);  // the partial line from the other buffer
    std::size_t n = carry_len;
    if (!eof) {
      n += read_more(h + n, chunk_ - n);
      if (n < chunk_) eof = true;
    }
    if (n == 0) break;
    std::size_t len = n;  // bytes of whole lines in this chunk
    if (!eof) {
      const void* last_lf = memrchr(h, '\n', n);
      if (last_lf == nullptr) {  // one line fills the chunk
        parse_pending();
        fail(chunk_offset, true);
      }
      len = static_cast<const char*>(last_lf) - h + 1;
    }
    enqueue_chunk(slot, len);
    parse_pending();  // the previous chunk: its row count is ready by now
    pending_ = {true, slot, chunk_offset, static_cast<std::uint32_t>(len)};
    carry = h + len;
    carry_len = n - len;
    chunk_offset += len;
    if (eof && carry_len == 0) break;
  }
  parse_pending();

  std::uint64_t first_bad = fetch_final_status();
  if (host_status_->as<Status>()[2].undecided > kHardCapacity) {
    // Adversarial input with thousands of undecided cells: let the CPU parse the whole file.
    const std::vector<float> cpu = read_csv_column(path_, options_);
    DeviceBuffer<float> exact(cpu.size(), stream_);
    copy_to_device(exact.span(), cpu.data(), cpu.size(), stream_);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `cpu` is freed on return
    return exact;
  }
  first_bad = settle_undecided(first_bad);
  if (first_bad != kNoOffset) fail(first_bad);
  if (rows_ == 0) csv_internal::throw_no_data_rows(path_, options_);
  if (out_.size() == rows_) return std::move(out_);
  DeviceBuffer<float> exact(rows_, stream_);
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(exact.data(), out_.data(), rows_ * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
  return exact;
}

}  // namespace

namespace csv_internal {
DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options, cudaStream_t stream,
                                         std::size_t chunk_bytes) {
  return GpuCsvReader(path, options, stream, chunk_bytes).run();
}
}  // namespace csv_internal

DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options, cudaStream_t stream) {
  return csv_internal::read_csv_column_cuda(path, options, stream, csv_internal::kDefaultChunkBytes);
}

}  // namespace ecgpipe
