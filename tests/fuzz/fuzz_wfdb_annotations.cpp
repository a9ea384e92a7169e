// libFuzzer harness: the MIT-format annotation reader (parse_wfdb_annotations, the in-memory core
// of read_wfdb_annotations, on a .atr file's bytes) and
// what the evaluation derives from it (reference beats, VF episodes). Invariant: an InputError,
// or beats with a known symbol, as many samples as symbols, episodes with start <= end.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<ecgpipe::Annotation> annotations;
  if (fuzz::rejects([&] { annotations = ecgpipe::parse_wfdb_annotations(bytes, "rec.atr"); })) return 0;
  FUZZ_CHECK(annotations.size() <= size / 2);  // an annotation takes at least one 16-bit word
  ecgpipe::ReferenceBeats ref;
  if (fuzz::rejects([&] { ref = ecgpipe::reference_from_annotations(annotations); })) return 0;
  FUZZ_CHECK(ref.samples.size() == ref.symbols.size());
  for (char s : ref.symbols) FUZZ_CHECK(ecgpipe::is_beat_symbol(s));
  for (const auto& e : ref.vf_episodes) FUZZ_CHECK(e.start <= e.end);
  return 0;
}
