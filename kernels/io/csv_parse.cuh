// The GPU path's CSV cell parser: fast_float 3.9's float parser ported to CUDA (kernels/io/csv.cu's
// parse_rows_kernel calls it), callable on the host too, so that it is tested against fast_float
// itself on any machine (tests/io/test_csv_parse.cpp) and not only through a GPU.
//
// Same grammar as csv.hpp and the same arithmetic as fast_float: Clinger's exact fast path
// (mantissa <= 2^24, |exp10| <= 10, one correctly rounded IEEE multiply or divide), else
// Eisel-Lemire with fast_float's own 128-bit power-of-five table (copied from the fast_float
// header to device memory, so the tables cannot differ). Where fast_float would fall back to its
// big-integer path (more than 19 significant digits and w, w+1 round differently, or
// Eisel-Lemire's rare "cannot decide"), the result is kCellUndecided and the caller re-parses the
// cell with fast_float. Text with <= 19 significant digits is never undecided except in the
// Eisel-Lemire corner case, so it is exact here.
#pragma once

#include <fast_float/fast_float.h>

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define ECGPIPE_HD __host__ __device__
#else
#define ECGPIPE_HD
#endif

namespace ecgpipe::csv_parse {

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

// The parser's two tables: where they live differs (device memory, or fast_float's own on the
// host), so they are passed in.
struct ParseTables {
  // 5^q for q in [kSmallestPow10, kLargestPow10], two 64-bit words per q (most significant
  // first): the float32 slice of fast_float::powers::power_of_five_128.
  const std::uint64_t* pow5;
  // 10^0 .. 10^10 (kPow10f), all exact in float32 (5^10 < 2^24).
  const float* pow10;
};
constexpr float kPow10f[kMaxFastPath + 1] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

// The device intrinsics the port uses, with their host equivalents (the same IEEE operations:
// one correctly rounded conversion, multiply or divide each; the high word of a 64x64 product).
ECGPIPE_HD inline int count_leading_zeros(std::uint64_t w) {
#ifdef __CUDA_ARCH__
  return __clzll(static_cast<long long>(w));
#else
  return __builtin_clzll(w);  // w != 0 here
#endif
}
ECGPIPE_HD inline std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
ECGPIPE_HD inline float to_float_rn(std::uint64_t i) {
#ifdef __CUDA_ARCH__
  return __ull2float_rn(i);
#else
  return static_cast<float>(i);  // round to nearest (the default rounding mode)
#endif
}
ECGPIPE_HD inline float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
ECGPIPE_HD inline float div_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
ECGPIPE_HD inline float float_from_bits(std::uint32_t word) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(word);
#else
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
#endif
}

enum CellResult : int { kCellOk = 0, kCellBad = 1, kCellUndecided = 2 };

ECGPIPE_HD inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
ECGPIPE_HD inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

struct AdjustedMantissa {
  std::uint64_t mantissa;
  std::int32_t power2;  // biased exponent; < 0: Eisel-Lemire could not decide
};

// fast_float::compute_float<binary_format<float>>: w * 10^q rounded to nearest, ties to even.
ECGPIPE_HD inline AdjustedMantissa compute_float(std::int64_t q, std::uint64_t w, const ParseTables& tables) {
  AdjustedMantissa am{0, 0};
  if (w == 0 || q < kSmallestPow10) return am;  // zero
  if (q > kLargestPow10) {
    am.power2 = kInfinitePower;
    return am;
  }
  const int lz = count_leading_zeros(w);
  w <<= lz;
  // 128-bit product w * 5^q (truncated table entry); the second word is needed only when the
  // bits below the 26 we keep (23 + implicit + round + possible shift) are all ones.
  const int index = 2 * static_cast<int>(q - kSmallestPow10);
  const std::uint64_t p0 = tables.pow5[index];
  std::uint64_t high = mul_high(w, p0);
  std::uint64_t low = w * p0;
  constexpr std::uint64_t kPrecisionMask = ~std::uint64_t{0} >> (kMantissaBits + 3);
  if ((high & kPrecisionMask) == kPrecisionMask) {
    const std::uint64_t second_high = mul_high(w, tables.pow5[index + 1]);
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
ECGPIPE_HD inline CellResult parse_cell(const char* p, const char* pend, float& out, const ParseTables& tables) {
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
    float v = to_float_rn(i);
    v = exponent < 0 ? div_rn(v, tables.pow10[-exponent]) : mul_rn(v, tables.pow10[exponent]);
    out = negative ? -v : v;
    return kCellOk;
  }
  const AdjustedMantissa am = compute_float(exponent, i, tables);
  if (am.power2 < 0) return kCellUndecided;
  if (too_many_digits) {
    const AdjustedMantissa up = compute_float(exponent, i + 1, tables);
    if (up.power2 != am.power2 || up.mantissa != am.mantissa) return kCellUndecided;
  }
  if (am.power2 == kInfinitePower) return kCellBad;  // beyond float32's range
  const std::uint32_t word = static_cast<std::uint32_t>(am.mantissa) | (static_cast<std::uint32_t>(am.power2) << kMantissaBits) |
                             (negative ? 0x80000000u : 0u);
  out = float_from_bits(word);
  return kCellOk;
}

// The host's tables: fast_float's own power-of-five slice and kPow10f.
inline ParseTables host_tables() {
  return ParseTables{fast_float::powers::power_of_five_128 + 2 * (kSmallestPow10 - fast_float::powers::smallest_power_of_five),
                     kPow10f};
}

}  // namespace ecgpipe::csv_parse
