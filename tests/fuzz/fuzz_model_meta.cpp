// libFuzzer harness: the model meta record (apply_model_meta: the JSON that model.safetensors carries, read
// by `score`; linked without the core and LibTorch: tests/fuzz/CMakeLists.txt). Invariant: an
// ecgpipe::Error, or options with the record's model path set.
//
// Not asserted yet: that the options then pass validate(). A record with min_length 703 >
// max_length 256 is accepted here and refused later by validate() as a *usage* error (exit 2,
// blaming options the user never gave): issue 11 row 15, fixed elsewhere. Once apply_model_meta
// validates what it reads, add FUZZ_CHECK(!fuzz::rejects([&] { ecgpipe::validate(options); })).
#include <cstdint>
#include <string>

#include "ecgpipe/pipeline/pipeline.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  ecgpipe::RunOptions options;
  options.input = "in.csv";
  if (fuzz::rejects([&] { ecgpipe::apply_model_meta(json, "model.safetensors", options); })) return 0;
  FUZZ_CHECK(options.model_in == "model.safetensors");
  return 0;
}
