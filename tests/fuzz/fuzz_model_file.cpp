// libFuzzer harness: the model file (decode_safetensors: the bytes `score --model` reads, then the
// ecgpipe.meta record they carry, apply_model_meta). Linked without LibTorch: the codec checks
// every length, offset, dtype, shape and the CRC before a tensor is copied; the model's own
// name/shape/finite checks (model_file.cpp) are tested in tests/model/test_model_file.cpp.
// Invariants: an ecgpipe::Error, or content that encodes and decodes back to itself, whose
// tensors hold exactly their shapes' element counts.
#include <cstdint>
#include <string>
#include <string_view>

#include "ecgpipe/pipeline/pipeline.hpp"
#include "fuzz_util.hpp"
#include "model/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ecgpipe::detail::SafetensorsContent content;
  if (fuzz::rejects([&] { content = ecgpipe::detail::decode_safetensors(bytes, "model.safetensors"); })) return 0;
  for (const auto& [name, t] : content.tensors) {
    std::uint64_t n = 1;
    for (const auto d : t.shape) {
      FUZZ_CHECK(d >= 0);
      n *= static_cast<std::uint64_t>(d);
    }
    FUZZ_CHECK(n == t.values.size());
  }
  const std::string again = ecgpipe::detail::encode_safetensors(content);
  const auto back = ecgpipe::detail::decode_safetensors(again, "re-encoded");
  FUZZ_CHECK(back.metadata == content.metadata);
  FUZZ_CHECK(back.tensors.size() == content.tensors.size());
  const auto meta = content.metadata.find("ecgpipe.meta");
  if (meta != content.metadata.end()) {
    ecgpipe::RunOptions options;
    options.input = "in.csv";
    if (!fuzz::rejects([&] { ecgpipe::apply_model_meta(meta->second, "model.safetensors", options); }))
      FUZZ_CHECK(options.model_in == "model.safetensors");
  }
  return 0;
}
