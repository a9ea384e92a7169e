// libFuzzer harness: the CSV column reader (parse_csv_column, the in-memory core of
// read_csv_column). The first byte picks the options (header or not, which column); the rest is
// the file. Invariant: an InputError, or at least one value and every value finite.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/io/csv.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ecgpipe::CsvOptions options;
  options.has_header = (data[0] & 1) == 0;
  static const char* const kColumns[] = {"", "", "0", "1", "heartbeats", "a", "2", "x"};
  options.column = kColumns[(data[0] >> 1) & 7];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<float> values;
  if (fuzz::rejects([&] { values = ecgpipe::parse_csv_column(text, options, "fuzz.csv"); })) return 0;
  FUZZ_CHECK(!values.empty());
  FUZZ_CHECK(values.size() <= text.size() / 1 + 1);  // a row takes at least one byte
  for (float v : values) FUZZ_CHECK(std::isfinite(v));
  return 0;
}
