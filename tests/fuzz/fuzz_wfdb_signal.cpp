// libFuzzer harness: the WFDB signal reader (parse_wfdb_signal, the in-memory core of
// read_wfdb_signal) on a signal file in format 212 or 16 (first byte: the format, the channel
// count and whether the header gives a sample count); the rest of the input is the .dat file.
// Invariant: an InputError, or finite values, as many as the header's sample count when it gives
// one.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "ecgpipe/io/wfdb.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int format = (data[0] & 1) != 0 ? 16 : 212;
  const int channels = (data[0] & 2) != 0 ? 2 : 1;
  const bool with_count = (data[0] & 4) != 0;
  const long long count = with_count ? static_cast<long long>((size - 1) * 8 / (format == 16 ? 16 : 12) / channels) : 0;
  std::string hea = "rec " + std::to_string(channels) + " 360" + (with_count ? " " + std::to_string(count) : "") + "\n";
  for (int c = 0; c < channels; ++c) {
    hea += "rec.dat " + std::to_string(format) + " 200 11 1024 " + std::to_string(c * 7) + " 0 0 " + (c == 0 ? "MLII" : "V1") + "\n";
  }
  // The header is made here, not fuzzed (fuzz_wfdb_header does that): parsed again only when it
  // changes.
  static std::string parsed_text;
  static ecgpipe::WfdbHeader header;
  if (hea != parsed_text) {
    header = ecgpipe::parse_wfdb_header(hea, "rec.hea");
    parsed_text = hea;
  }
  const std::string channel = (data[0] & 8) != 0 ? "V1" : "";
  const std::string_view dat(reinterpret_cast<const char*>(data + 1), size - 1);
  ecgpipe::WfdbSignal signal;
  if (fuzz::rejects([&] {
        FUZZ_CHECK(ecgpipe::wfdb_signal_path(header, channel) == "rec.dat");
        signal = ecgpipe::parse_wfdb_signal(header, channel, dat, "rec.dat");
      }))
    return 0;
  FUZZ_CHECK(signal.fs == 360.0);
  if (with_count) FUZZ_CHECK(static_cast<long long>(signal.values.size()) == count);
  for (float v : signal.values) FUZZ_CHECK(std::isfinite(v));
  return 0;
}
