// libFuzzer harness: the model meta record (apply_model_meta: the JSON that model.pt carries, read
// by `score`). Invariant: an ecgpipe::Error, or options that validate() accepts (a damaged record
// must not slip through into the pipeline as nonsense parameters).
#include <cstdint>
#include <string>

#include "ecgpipe/pipeline.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  ecgpipe::RunOptions options;
  options.input = "in.csv";
  if (fuzz::rejects([&] { ecgpipe::apply_model_meta(json, "model.pt", options); })) return 0;
  FUZZ_CHECK(!fuzz::rejects([&] { ecgpipe::validate(options); }));
  return 0;
}
