// libFuzzer harness: the reference-beat CSV reader (read_reference_csv: sample,symbol) and the
// detections reader (read_detections_csv: r_peak or sample), on the same file. Invariant: an
// InputError, or as many samples as symbols, beat symbols only, non-negative detections.
#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/evaluate.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_scratch("ref.csv", data, size);
  ecgpipe::ReferenceBeats ref;
  if (!fuzz::rejects([&] { ref = ecgpipe::read_reference_csv(path); })) {
    FUZZ_CHECK(ref.samples.size() == ref.symbols.size());
    for (char s : ref.symbols) FUZZ_CHECK(ecgpipe::is_beat_symbol(s));
  }
  std::vector<std::int64_t> detections;
  if (!fuzz::rejects([&] { detections = ecgpipe::read_detections_csv(path); })) {
    for (std::int64_t d : detections) FUZZ_CHECK(d >= 0);
  }
  return 0;
}
