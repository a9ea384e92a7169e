// libFuzzer harness: the EDF/BDF reader (read_edf_signal, through edflib). The first byte picks
// the file name's extension (.edf or .bdf: edflib takes BDF from the header's first bytes, the
// name only matters to is_edf_path) and the channel (signal 0, or signal 1 by index, or the label
// "ECG"); the rest is the file. Invariant: an InputError, or a signal with a finite positive rate
// and as many finite values as the header says it has.
#include <cmath>
#include <cstdint>
#include <string>

#include "ecgpipe/io/edf.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string name = (data[0] & 1) != 0 ? "rec.bdf" : "rec.edf";
  const char* const channels[] = {"", "1", "ECG", ""};
  const std::string channel = channels[(data[0] >> 1) & 3];
  const std::string path = fuzz::write_scratch(name, data + 1, size - 1);
  ecgpipe::EdfSignal signal;
  if (fuzz::rejects([&] { signal = ecgpipe::read_edf_signal(path, channel); })) return 0;
  FUZZ_CHECK(std::isfinite(signal.info.fs) && signal.info.fs > 0.0);
  FUZZ_CHECK(static_cast<long long>(signal.values.size()) == signal.info.samples);
  for (float v : signal.values) FUZZ_CHECK(std::isfinite(v));
  return 0;
}
