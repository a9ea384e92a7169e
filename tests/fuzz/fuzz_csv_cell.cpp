// libFuzzer harness: the CSV cell parser (parse_cell) and the line helpers. Invariant: a cell
// that parses is finite and equal, bit for bit, to glibc's strtof of the same text (both are
// correctly rounded, so any difference is a parser bug); field_of_line returns a piece of the line.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "ecgpipe/io/csv.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  float value = 0.0f;
  if (ecgpipe::parse_cell(text, value)) {
    FUZZ_CHECK(std::isfinite(value));
    FUZZ_CHECK(text.find('\0') == std::string_view::npos);  // the grammar has no NUL
    const std::string copy(text);
    char* end = nullptr;
    const float expected = std::strtof(copy.c_str(), &end);
    FUZZ_CHECK(std::memcmp(&value, &expected, sizeof value) == 0);
    while (*end == ' ' || *end == '\t') ++end;
    FUZZ_CHECK(*end == '\0');  // strtof took the whole cell too
  }
  std::string_view field;
  const std::size_t index = size > 0 ? data[0] % 4 : 0;
  if (ecgpipe::field_of_line(text, index, field)) {
    FUZZ_CHECK(field.data() >= text.data() && field.data() + field.size() <= text.data() + text.size());
    FUZZ_CHECK(field.find(',') == std::string_view::npos);
  }
  (void)ecgpipe::is_blank_line(text);
  return 0;
}
