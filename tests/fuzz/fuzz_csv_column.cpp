// libFuzzer harness: the CSV column reader (parse_csv_column, the in-memory core of
// read_csv_column) and what a CSV is read as (resolve_csv_source: the column and a time
// column's rate). The first byte picks the options (header or not, which column); the rest is
// the file, and bits 4-6 a second column read in the same pass. Invariant: an InputError, or at
// least one value and every value finite.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "fuzz_util.hpp"

// And what the file is read as (signal_source.hpp): the column and the rate from a time column.
// Invariant: an InputError, or a column, and a rate (when a time column gives one) in bounds.
static void fuzz_source(const ecgpipe::CsvOptions& options, std::string_view text) {
  ecgpipe::SignalSource s;
  if (fuzz::rejects([&] { ecgpipe::resolve_csv_source(text, "fuzz.csv", options, std::nullopt, s); })) return;
  FUZZ_CHECK(s.format == "CSV");
  // A column chosen here is a 0-based index; a given one is passed on as given.
  if (options.column.empty()) {
    FUZZ_CHECK(!s.column.empty() && s.column.find_first_not_of("0123456789") == std::string::npos);
  } else {
    FUZZ_CHECK(s.column == options.column);
  }
  if (!s.fs_source.empty()) FUZZ_CHECK(s.fs >= ecgpipe::kMinFs && s.fs <= ecgpipe::kMaxFs);
}

// And two columns in one pass (a two-lead CSV's second lead, csv.hpp: CsvSecondColumn).
// Invariant: it is read exactly when each column read alone is, with the same values, bit for bit.
static void fuzz_two_columns(const ecgpipe::CsvOptions& options, const char* second, std::string_view text,
                             const std::vector<float>* first) {
  if (*second == '\0') return;
  ecgpipe::CsvOptions options2 = options;
  options2.column = second;
  std::vector<float> alone2;
  const bool rejected2 = fuzz::rejects([&] { alone2 = ecgpipe::parse_csv_column(text, options2, "fuzz.csv"); });
  const ecgpipe::CsvSecondColumn column{second, " (second)"};
  std::vector<float> a, b;
  const bool rejected = fuzz::rejects([&] {
    ecgpipe::CsvColumnReader reader(text, options, "fuzz.csv", &column);
    while (reader.read(a, 64, &b) > 0) {
    }
  });
  FUZZ_CHECK(rejected == (first == nullptr || rejected2));
  if (rejected) return;
  FUZZ_CHECK(a.size() == first->size() && b.size() == alone2.size());
  FUZZ_CHECK(std::memcmp(a.data(), first->data(), a.size() * sizeof(float)) == 0);
  FUZZ_CHECK(std::memcmp(b.data(), alone2.data(), b.size() * sizeof(float)) == 0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  ecgpipe::CsvOptions options;
  options.has_header = (data[0] & 1) == 0;
  static const char* const kColumns[] = {"", "", "0", "1", "heartbeats", "a", "2", "x"};
  options.column = kColumns[(data[0] >> 1) & 7];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz_source(options, text);
  std::vector<float> values;
  const bool rejected = fuzz::rejects([&] { values = ecgpipe::parse_csv_column(text, options, "fuzz.csv"); });
  fuzz_two_columns(options, kColumns[(data[0] >> 4) & 7], text, rejected ? nullptr : &values);
  if (rejected) return 0;
  FUZZ_CHECK(!values.empty());
  FUZZ_CHECK(values.size() <= text.size() / 1 + 1);  // a row takes at least one byte
  for (float v : values) FUZZ_CHECK(std::isfinite(v));
  return 0;
}
