// The safetensors codec: see src/model/safetensors.hpp.
#include "model/safetensors.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/json_file.hpp"
#include "ecgpipe/common/error.hpp"

// The format stores little-endian bytes; the values are copied as they lie in memory.
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.cpp copies float32 bytes as they are: a little-endian host is assumed"
#endif

namespace ecgpipe::detail {
namespace {

constexpr const char* kMetadataKey = "__metadata__";
constexpr const char* kCrcKey = "ecgpipe.crc32";
constexpr std::size_t kLengthBytes = 8;

uLong crc_add(uLong crc, std::string_view bytes) {
  // zlib's crc32_z takes a size_t length (crc32 a 32-bit one).
  return ::crc32_z(crc, reinterpret_cast<const Bytef*>(bytes.data()), bytes.size());
}

// What the CRC guards: the tensor bytes, then every other metadata key and value (sorted by key,
// each followed by a NUL). So a changed value anywhere is refused; only the JSON's layout (spaces,
// key order) may differ without changing what is read.
std::uint32_t content_crc(std::string_view data, const std::map<std::string, std::string>& metadata) {
  uLong crc = crc_add(::crc32_z(0L, Z_NULL, 0), data);
  for (const auto& [k, v] : metadata) {
    crc = crc_add(crc_add(crc, k), std::string_view("\0", 1));
    crc = crc_add(crc_add(crc, v), std::string_view("\0", 1));
  }
  return static_cast<std::uint32_t>(crc);
}

std::string hex8(std::uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// A non-negative JSON integer that fits `limit`; nullopt-like false otherwise.
bool as_count(const nlohmann::json& v, std::uint64_t limit, std::uint64_t& out) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0)) return false;
  out = v.get<std::uint64_t>();
  return out <= limit;
}

struct Entry {
  std::string name;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;
};

Entry parse_entry(const std::string& name, const nlohmann::json& e, std::uint64_t data_bytes, const std::string& where) {
  const std::string at = where + ": tensor \"" + name + "\"";
  if (!e.is_object() || e.size() != 3 || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
    throw InputError(at + ": not an object of exactly dtype, shape and data_offsets");
  const auto& dtype = e["dtype"];
  if (!dtype.is_string() || dtype.get_ref<const std::string&>() != "F32")
    throw InputError(at + ": dtype " + dtype.dump() + ", ecgpipe reads only F32");
  Entry out{name, {}, 0, 0};
  const auto& shape = e["shape"];
  if (!shape.is_array() || shape.size() > kMaxTensorRank)
    throw InputError(at + ": shape is not an array of at most " + std::to_string(kMaxTensorRank) + " sizes");
  // The product is checked against the data's size as it grows, so it cannot overflow; a zero
  // dimension makes it 0 whatever the others are.
  const std::uint64_t limit = data_bytes / sizeof(float);
  std::uint64_t elements = 1;
  bool too_many = false, zero = false;
  for (const auto& d : shape) {
    std::uint64_t n = 0;
    if (!as_count(d, std::numeric_limits<std::int64_t>::max(), n))
      throw InputError(at + ": shape " + shape.dump() + " is not a list of sizes (integers from 0)");
    zero = zero || n == 0;
    if (n != 0 && elements > limit / n) too_many = true;
    else elements *= n;
    out.shape.push_back(static_cast<std::int64_t>(n));
  }
  if (zero) elements = 0;
  else if (too_many)
    throw InputError(at + ": shape " + shape.dump() + " needs more floats than the " + std::to_string(data_bytes) +
                     " bytes of data hold");
  const auto& offsets = e["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !as_count(offsets[0], data_bytes, out.begin) ||
      !as_count(offsets[1], data_bytes, out.end) || out.begin > out.end)
    throw InputError(at + ": data_offsets " + offsets.dump() + " do not lie within the " + std::to_string(data_bytes) +
                     " bytes of data");
  if (out.end - out.begin != elements * sizeof(float))
    throw InputError(at + ": shape " + shape.dump() + " holds " + std::to_string(elements * sizeof(float)) + " bytes, data_offsets " +
                     offsets.dump() + " hold " + std::to_string(out.end - out.begin) + " bytes");
  return out;
}

}  // namespace

std::string encode_safetensors(const SafetensorsContent& content) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& [name, t] : content.tensors) {
    std::uint64_t elements = 1;
    for (const auto d : t.shape) elements *= static_cast<std::uint64_t>(d);
    if (name == kMetadataKey || elements != t.values.size())
      throw InternalError("cannot write tensor " + name + ": a reserved name or values unlike its shape");
    const std::uint64_t begin = data.size();
    if (!t.values.empty()) data.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(float));
    header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  nlohmann::json meta = nlohmann::json::object();
  for (const auto& [k, v] : content.metadata) {
    if (k == kCrcKey) throw InternalError(std::string("metadata key ") + kCrcKey + " is the codec's own");
    meta[k] = v;
  }
  meta[kCrcKey] = hex8(content_crc(data, content.metadata));
  header[kMetadataKey] = meta;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as safetensors writes it
  std::string out(kLengthBytes, '\0');
  for (std::size_t i = 0; i < kLengthBytes; ++i) out[i] = static_cast<char>((std::uint64_t{text.size()} >> (8 * i)) & 0xff);
  return out + text + data;
}

SafetensorsContent decode_safetensors(std::string_view bytes, const std::string& where) {
  if (bytes.size() < kLengthBytes) throw InputError(where + ": not a safetensors file (" + std::to_string(bytes.size()) + " bytes, too short)");
  std::uint64_t header_bytes = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i) header_bytes |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  if (header_bytes > kMaxSafetensorsHeaderBytes || header_bytes > bytes.size() - kLengthBytes)
    throw InputError(where + ": not a safetensors file (its header length " + std::to_string(header_bytes) + " is larger than " +
                     (header_bytes > kMaxSafetensorsHeaderBytes ? std::to_string(kMaxSafetensorsHeaderBytes) + " bytes"
                                                                : "the rest of the file") + ")");
  const std::string_view text = bytes.substr(kLengthBytes, header_bytes);
  if (text.empty() || text.front() != '{') throw InputError(where + ": not a safetensors file (its header is not a JSON object: byte 8)");
  const nlohmann::json header = parse_json_bounded(text, where + " (header)");
  if (!header.is_object()) throw InputError(where + ": the header is not a JSON object");
  const std::string_view data = bytes.substr(kLengthBytes + header_bytes);

  SafetensorsContent out;
  std::string crc;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key != kMetadataKey) {
      entries.push_back(parse_entry(key, value, data.size(), where));
      continue;
    }
    if (!value.is_object()) throw InputError(where + ": " + kMetadataKey + " is not an object");
    for (const auto& [k, v] : value.items()) {
      if (!v.is_string()) throw InputError(where + ": metadata \"" + k + "\" is not a string");
      if (k == kCrcKey) crc = v.get<std::string>();
      else out.metadata[k] = v.get<std::string>();
    }
  }
  // The tensors tile the data exactly: no byte unaccounted for, none shared (the format's rule).
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  std::uint64_t next = 0;
  for (const auto& e : entries) {
    if (e.begin != next)
      throw InputError(where + ": tensor \"" + e.name + "\" starts at data byte " + std::to_string(e.begin) +
                       ", the tensors before end at " + std::to_string(next) + " (a gap or an overlap)");
    next = e.end;
  }
  if (next != data.size())
    throw InputError(where + ": the tensors end at data byte " + std::to_string(next) + " of " + std::to_string(data.size()) +
                     (next > data.size() ? "" : " (bytes after the last tensor)"));
  if (crc.empty()) throw InputError(where + ": no " + std::string(kCrcKey) + " in its metadata (not written by ecgpipe)");
  const std::string actual = hex8(content_crc(data, out.metadata));
  if (crc != actual)
    throw InputError(where + ": damaged: its tensors and metadata have CRC-32 " + actual + ", the file says " + crc.substr(0, 16) + ")");
  for (auto& e : entries) {
    TensorF32 t;
    t.shape = std::move(e.shape);
    t.values.resize((e.end - e.begin) / sizeof(float));
    if (!t.values.empty()) std::memcpy(t.values.data(), data.data() + e.begin, e.end - e.begin);
    out.tensors.emplace_back(std::move(e.name), std::move(t));
  }
  return out;
}

}  // namespace ecgpipe::detail
