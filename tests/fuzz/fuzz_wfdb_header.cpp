// libFuzzer harness: the WFDB header reader (parse_wfdb_header, the in-memory core of
// read_wfdb_header) on a .hea file's text. Invariant: an
// InputError, or a header with a finite positive rate, a non-negative sample count and signals of
// a known format with a finite non-zero gain.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "ecgpipe/io/wfdb.hpp"
#include "fuzz_util.hpp"

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
  return 0;
}
