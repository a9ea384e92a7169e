// libFuzzer harness: the MIT-format annotation reader (read_wfdb_annotations on a .atr file) and
// what the evaluation derives from it (reference beats, VF episodes). Invariant: an InputError,
// or beats with a known symbol, as many samples as symbols, episodes with start <= end.
#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/evaluate.hpp"
#include "ecgpipe/wfdb.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_scratch("rec.atr", data, size);
  std::vector<ecgpipe::Annotation> annotations;
  if (fuzz::rejects([&] { annotations = ecgpipe::read_wfdb_annotations(path); })) return 0;
  FUZZ_CHECK(annotations.size() <= size / 2);  // an annotation takes at least one 16-bit word
  ecgpipe::ReferenceBeats ref;
  if (fuzz::rejects([&] { ref = ecgpipe::reference_from_annotations(annotations); })) return 0;
  FUZZ_CHECK(ref.samples.size() == ref.symbols.size());
  for (char s : ref.symbols) FUZZ_CHECK(ecgpipe::is_beat_symbol(s));
  for (const auto& e : ref.vf_episodes) FUZZ_CHECK(e.start <= e.end);
  return 0;
}
