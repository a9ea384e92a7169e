// libFuzzer harness: the MIT-format annotation reader (parse_wfdb_annotations, the in-memory core
// of read_wfdb_annotations, on a .atr file's bytes) and
// what the evaluation derives from it (reference beats, VF episodes; another annotator's file as
// detections, detections_from_annotations), and eval's choice of what the bytes are
// (eval_file_format, parse_detections under an annotator's name). Invariant: an InputError, or
// beats with a known symbol, as many samples as symbols, episodes with start <= end; detections
// with one class (and rhythm flag, when any) per R peak; a file eval takes for annotations gives
// the detections parsed here.
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
  const ecgpipe::Detections det = ecgpipe::detections_from_annotations(annotations);
  FUZZ_CHECK(det.from_annotations && det.r_peaks == ref.samples && det.classes == ref.symbols);
  FUZZ_CHECK(det.afib.empty() || det.afib.size() == det.r_peaks.size());
  ecgpipe::EvalFileFormat format = ecgpipe::EvalFileFormat::guess;
  if (fuzz::rejects([&] { format = ecgpipe::eval_file_format(bytes, "rec.xqrs"); })) fuzz::finding("guess threw");
  if (format == ecgpipe::EvalFileFormat::annotations) {
    ecgpipe::Detections parsed;
    FUZZ_CHECK(!fuzz::rejects([&] { parsed = ecgpipe::parse_detections(bytes, "rec.xqrs"); }));
    FUZZ_CHECK(parsed.r_peaks == det.r_peaks && parsed.classes == det.classes && parsed.afib == det.afib);
  } else {
    FUZZ_CHECK(ecgpipe::first_binary_byte(bytes) == std::string_view::npos && !bytes.empty());
  }
  return 0;
}
