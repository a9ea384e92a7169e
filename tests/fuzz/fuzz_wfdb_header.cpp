// libFuzzer harness: the WFDB header reader (parse_wfdb_header, the in-memory core of
// read_wfdb_header) on a .hea file's text. Invariant: an
// InputError, or a header with a finite positive rate, a non-negative sample count and signals of
// a known format with a finite non-zero gain; its start (wfdb_start_time) empty, as written, or in
// the report's layout "[YYYY-MM-DD ]hh:mm:ss[.fff]" with hours, minutes and seconds in range.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "ecgpipe/io/wfdb.hpp"
#include "fuzz_util.hpp"

namespace {
bool digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  for (std::size_t i = at; i < at + n; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}
int number(std::string_view s, std::size_t at) { return (s[at] - '0') * 10 + (s[at + 1] - '0'); }

// "hh:mm:ss[.fff]" in range, from `at` to the end.
bool clock_layout(std::string_view s, std::size_t at) {
  if (!digits(s, at, 2) || !digits(s, at + 3, 2) || !digits(s, at + 6, 2) || s[at + 2] != ':' || s[at + 5] != ':')
    return false;
  if (number(s, at) >= 24 || number(s, at + 3) >= 60 || number(s, at + 6) >= 60) return false;
  const std::string_view fraction = s.substr(at + 8);
  return fraction.empty() || (fraction.size() >= 2 && fraction[0] == '.' && digits(fraction, 1, fraction.size() - 1));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ecgpipe::WfdbHeader header;
  if (fuzz::rejects([&] { header = ecgpipe::parse_wfdb_header(text, "rec.hea"); })) return 0;
  FUZZ_CHECK(std::isfinite(header.fs) && header.fs > 0);
  FUZZ_CHECK(header.samples >= 0);
  for (const auto& s : header.signals) {
    FUZZ_CHECK(std::isfinite(s.gain) && s.gain != 0);
    FUZZ_CHECK(s.byte_offset >= 0);
  }
  const std::string start = ecgpipe::wfdb_start_time(header);
  const std::string as_written =
      header.base_date.empty() ? header.base_time : header.base_time.empty() ? header.base_date : header.base_time + " " + header.base_date;
  const bool iso_date = start.size() > 11 && digits(start, 0, 4) && start[4] == '-' && digits(start, 5, 2) &&
                        start[7] == '-' && digits(start, 8, 2) && start[10] == ' ';
  FUZZ_CHECK(start == as_written || clock_layout(start, 0) || (iso_date && clock_layout(start, 11)));
  return 0;
}
