// libFuzzer harness: the beat classifier's JSON (parse_beat_classifier: data/beat-classifier.json
// is compiled in, and a model of the same format is what scripts/train-classifier.py writes).
// Invariants: an ecgpipe::Error, or a model (and its lead2 model) whose trees predict one of its classes for any
// features without reading past a node or a feature (ASan checks the reads).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ecgpipe::BeatClassifier model;
  if (fuzz::rejects([&] { model = ecgpipe::parse_beat_classifier(text, "classifier.json"); })) return 0;
  // The model and its lead2 model (one feature more: the second lead's), each over its own features.
  const ecgpipe::BeatClassifier* models[] = {&model, model.lead2.get()};
  for (const ecgpipe::BeatClassifier* m : models) {
    if (!m) continue;
    for (const float v : {0.0f, -1e30f, 1e30f, std::numeric_limits<float>::quiet_NaN()}) {
      const std::vector<float> x(m->features.size(), v);
      const auto c = m->predict(x.data());
      bool known = false;
      for (const auto k : m->classes) known = known || k == c;
      FUZZ_CHECK(known);
    }
  }
  return 0;
}
