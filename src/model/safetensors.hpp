// The safetensors container (https://huggingface.co/docs/safetensors): an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte range, then the tensors'
// bytes, flat and little-endian. It holds no code and no pickle, so reading one runs nothing; the
// Python `safetensors` package opens ecgpipe's model files as they are.
//
// Only what ecgpipe writes is read: F32 tensors, and a "__metadata__" map (strings to strings,
// as the format says) that carries ecgpipe.crc32, a CRC-32 of the tensor bytes and the other
// metadata, so that a truncated or altered tensor or record is refused instead of used. Every length, offset, shape and the
// coverage of the data (no gaps, no overlaps, as the format requires) is checked before any byte
// is used. LibTorch-free: the model file wraps it (model_file.cpp) and tests/fuzz fuzzes it alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ecgpipe::detail {

struct TensorF32 {
  std::vector<std::int64_t> shape;
  std::vector<float> values;  // row-major, shape's product long
};

struct SafetensorsContent {
  std::map<std::string, std::string> metadata;  // without ecgpipe.crc32, which the codec owns
  std::vector<std::pair<std::string, TensorF32>> tensors;  // in the order of their bytes in the file
};

// Bounds of what ecgpipe reads: its model files have ~25 tensors (a header of ~3 kB) and, at the
// longest beats options allow, a few hundred kB of weights.
inline constexpr std::size_t kMaxSafetensorsHeaderBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxSafetensorsFileBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxTensorRank = 8;

// The file's bytes. InternalError for a tensor whose values do not match its shape or a name
// the format reserves (the caller's bug, not input).
std::string encode_safetensors(const SafetensorsContent& content);

// The content of `bytes`; InputError naming `where` and what is wrong (which tensor, which byte)
// for anything but a well-formed file whose CRC matches.
SafetensorsContent decode_safetensors(std::string_view bytes, const std::string& where);

}  // namespace ecgpipe::detail
