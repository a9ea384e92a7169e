// The model file: the safetensors codec (src/model/safetensors.cpp) byte for byte and against
// every kind of damage, and the model's own checks on top (src/model/model_file.cpp): names,
// shapes, finite values, the old LibTorch model.pt, files that are not regular files.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "model/light_vae.hpp"
#include "model/model_weights.hpp"
#include "model/safetensors.hpp"
#include "test_util.hpp"

namespace {

using ecgpipe::detail::decode_safetensors;
using ecgpipe::detail::encode_safetensors;
using ecgpipe::detail::SafetensorsContent;
using ecgpipe::detail::TensorF32;
using testutil::input_error_of;

constexpr int kDims = 64;
const std::string kMeta = R"({"format": 1, "note": "test"})";

std::string le64(std::uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A file of `header` (padded to 8 bytes as written) and `data`, without the codec's help.
std::string raw_file(std::string header, const std::string& data) {
  header.append((8 - header.size() % 8) % 8, ' ');
  return le64(header.size()) + header + data;
}

std::string floats(std::initializer_list<float> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(float));
}

bool same(const SafetensorsContent& a, const SafetensorsContent& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) return false;
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const auto &x = a.tensors[i], &y = b.tensors[i];
    if (x.first != y.first || x.second.shape != y.second.shape) return false;
    // Bitwise: a NaN payload must survive too. (An empty vector's data() may be null: no memcmp.)
    if (x.second.values.size() != y.second.values.size()) return false;
    if (!x.second.values.empty() &&
        std::memcmp(x.second.values.data(), y.second.values.data(), x.second.values.size() * sizeof(float)) != 0)
      return false;
  }
  return true;
}

// The model file of a fresh (untrained: weights as initialised) LightVae for beats of `dims`.
std::string model_file(int dims = kDims) {
  torch::manual_seed(1);
  ecgpipe::detail::LightVae model(dims);
  return ecgpipe::detail::serialise_model(model, kMeta);
}

void load(const std::string& bytes, int dims = kDims) {
  const auto content = decode_safetensors(bytes, "m");
  ecgpipe::detail::LightVae model(dims);
  ecgpipe::detail::load_model(model, content, "m", dims);
}

// --- The codec ---

// The exact bytes: length, header (nlohmann's key order, spaces to 8 bytes), floats. The CRC
// aa56fb93 is Python's zlib.crc32 of the two floats then "format\0x\0".
TEST(Safetensors, EncodesExactlyTheFormat) {
  SafetensorsContent c;
  c.metadata = {{"format", "x"}};
  c.tensors.push_back({"a", TensorF32{{2}, {1.0f, 2.0f}}});
  const std::string header =
      R"({"__metadata__":{"ecgpipe.crc32":"aa56fb93","format":"x"},"a":{"data_offsets":[0,8],"dtype":"F32","shape":[2]}})";
  EXPECT_EQ(encode_safetensors(c), le64(112) + header + " " + floats({1.0f, 2.0f}));
  EXPECT_TRUE(same(decode_safetensors(encode_safetensors(c), "t"), c));
}

// Edges: no tensors, an empty tensor, a scalar (shape []), 31/32/33 elements, NaN bit patterns.
TEST(Safetensors, RoundTripsEdgeShapes) {
  SafetensorsContent c;
  c.metadata = {{"format", "ecgpipe-lightvae"}, {"k", std::string("with \"quotes\", \\ and \0 NUL", 26)}};
  EXPECT_TRUE(same(decode_safetensors(encode_safetensors(c), "t"), c));
  c.tensors.push_back({"empty", TensorF32{{0, 5}, {}}});
  c.tensors.push_back({"scalar", TensorF32{{}, {3.5f}}});
  for (int n : {31, 32, 33}) {
    TensorF32 t{{n}, std::vector<float>(static_cast<std::size_t>(n))};
    for (int i = 0; i < n; ++i) t.values[static_cast<std::size_t>(i)] = static_cast<float>(i) * 0.25f - 3.0f;
    c.tensors.push_back({"t" + std::to_string(n), t});
  }
  c.tensors.push_back({"nan", TensorF32{{2}, {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}}});
  const std::string bytes = encode_safetensors(c);
  EXPECT_EQ((bytes.size() - 8 - (31 + 32 + 33 + 3) * 4) % 8, 0u) << "the data starts 8-byte aligned";
  EXPECT_TRUE(same(decode_safetensors(bytes, "t"), c));
}

// A file that Python wrote (tests/fuzz/corpus/fuzz_model_file/small: struct, json and zlib, not
// this codec) is read as Python meant it.
TEST(Safetensors, ReadsWhatPythonWrote) {
  const auto c = decode_safetensors(testutil::read_text(std::string(ECGPIPE_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_model_file/small"), "small");
  ASSERT_EQ(c.tensors.size(), 3u);
  EXPECT_EQ(c.tensors[0].first, "restore.weight");
  EXPECT_EQ(c.tensors[0].second.shape, (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(c.tensors[0].second.values, (std::vector<float>{0.5f, -1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(c.tensors[1].first, "sigma.alpha");
  EXPECT_EQ(c.tensors[2].second.shape, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(c.metadata.at("format"), "ecgpipe-lightvae");
  EXPECT_EQ(c.metadata.count("ecgpipe.crc32"), 0u) << "the codec's own key is not handed out";
}

TEST(Safetensors, RefusesEveryMalformedHeader) {
  const std::string d8 = floats({1.0f, 2.0f});
  auto t = [](const std::string& shape, const std::string& offsets, const std::string& dtype = "\"F32\"") {
    return R"({"dtype":)" + dtype + R"(,"shape":)" + shape + R"(,"data_offsets":)" + offsets + "}";
  };
  struct Case {
    std::string bytes, message;
  };
  const std::vector<Case> cases = {
      {"", "not a safetensors file (0 bytes, too short)"},
      {std::string(7, '\0'), "7 bytes, too short"},
      {le64(100) + "{}", "larger than the rest of the file"},
      {le64(std::uint64_t{1} << 62) + "{}", "larger than 1048576 bytes"},
      {le64(~std::uint64_t{0}) + "{}", "larger than 1048576 bytes"},
      {raw_file("[]", ""), "not a safetensors file (its header is not a JSON object: byte 8)"},
      {raw_file("{", ""), "not valid JSON"},
      {raw_file(std::string(100, '{'), ""), "nested deeper than 64"},
      {raw_file(R"({"a":)" + t("[2]", "[0,8]", "\"F16\"") + "}", d8), "dtype \"F16\""},
      {raw_file(R"({"a":)" + t("[2]", "[0,8]", "7") + "}", d8), "dtype 7"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2]}})", d8), "exactly dtype, shape and data_offsets"},
      {raw_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", d8), "exactly dtype"},
      {raw_file(R"({"a":[1]})", d8), "exactly dtype"},
      {raw_file(R"({"a":)" + t("[-2]", "[0,8]") + "}", d8), "shape [-2] is not a list of sizes"},
      {raw_file(R"({"a":)" + t("[2.0]", "[0,8]") + "}", d8), "shape [2.0] is not a list"},
      {raw_file(R"({"a":)" + t("2", "[0,8]") + "}", d8), "not an array"},
      {raw_file(R"({"a":)" + t("[1,1,1,1,1,1,1,1,2]", "[0,8]") + "}", d8), "at most 8"},
      {raw_file(R"({"a":)" + t("[4294967296,4294967296]", "[0,8]") + "}", d8), "needs more floats than the 8 bytes"},
      {raw_file(R"({"a":)" + t("[4294967296,4294967296,0]", "[0,0]") + R"(,"b":)" + t("[2]", "[0,8]") + "}", d8), "no ecgpipe.crc32"},
      {raw_file(R"({"a":)" + t("[2,2,2,2,2,2,2,2]", "[0,8]") + "}", d8), "needs more floats than the 8 bytes"},
      {raw_file(R"({"a":)" + t("[3]", "[0,8]") + "}", d8), "needs more floats"},
      {raw_file(R"({"a":)" + t("[1]", "[0,8]") + "}", d8), "shape [1] holds 4 bytes, data_offsets [0,8] hold 8 bytes"},
      {raw_file(R"({"a":)" + t("[2]", "[0,16]") + "}", d8), "do not lie within the 8 bytes"},
      {raw_file(R"({"a":)" + t("[2]", "[8,0]") + "}", d8), "do not lie within"},
      {raw_file(R"({"a":)" + t("[2]", "[0]") + "}", d8), "do not lie within"},
      {raw_file(R"({"a":)" + t("[2]", "[-8,0]") + "}", d8), "do not lie within"},
      {raw_file(R"({"a":)" + t("[1]", "[0,4]") + R"(,"b":)" + t("[1]", "[0,4]") + "}", d8), "a gap or an overlap"},
      {raw_file(R"({"a":)" + t("[1]", "[4,8]") + "}", d8), "starts at data byte 4"},
      {raw_file(R"({"a":)" + t("[1]", "[0,4]") + "}", d8), "bytes after the last tensor"},
      {raw_file(R"({"__metadata__":[1]})", ""), "__metadata__ is not an object"},
      {raw_file(R"({"__metadata__":{"format":1}})", ""), "metadata \"format\" is not a string"},
      {raw_file(R"({"a":)" + t("[2]", "[0,8]") + "}", d8), "no ecgpipe.crc32"},
      {raw_file(R"({"__metadata__":{"ecgpipe.crc32":"00000000"},"a":)" + t("[2]", "[0,8]") + "}", d8), "damaged"},
  };
  for (const auto& c : cases) {
    const std::string m = input_error_of([&] { decode_safetensors(c.bytes, "m.st"); });
    EXPECT_NE(m.find("m.st"), std::string::npos) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << "want \"" << c.message << "\", got: " << m;
  }
}

// --- The model file ---

TEST(ModelFile, SavesAndLoadsEveryTensorExactly) {
  const std::string bytes = model_file();
  torch::manual_seed(2);  // other initial weights, overwritten by the load
  ecgpipe::detail::LightVae loaded(kDims);
  ecgpipe::detail::load_model(loaded, decode_safetensors(bytes, "m"), "m", kDims);
  torch::manual_seed(1);
  ecgpipe::detail::LightVae saved(kDims);
  const auto a = saved->named_parameters(), b = loaded->named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& p : a) EXPECT_TRUE(torch::equal(p.value(), b[p.key()])) << p.key();
  EXPECT_TRUE(torch::equal(saved->down_filter, loaded->down_filter));
  EXPECT_EQ(ecgpipe::detail::encode_safetensors(decode_safetensors(bytes, "m")), bytes) << "re-encoding changes no byte";
}

// Every prefix of a model file is refused (a truncated download), with a message, never NaN.
TEST(ModelFile, EveryTruncationIsRefused) {
  const std::string bytes = model_file();
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(load(bytes.substr(0, n)), ecgpipe::InputError) << "cut at " << n << " of " << bytes.size();
}

// Every single-bit change anywhere in the file is refused, or (in the header's layout: a space, a
// key's order) reads back exactly the same model: nothing altered is ever used.
TEST(ModelFile, EveryAlteredByteIsRefusedOrChangesNothing) {
  const std::string bytes = model_file();
  const auto original = decode_safetensors(bytes, "m");
  int accepted = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    for (const int bit : {0, 5}) {
      std::string b = bytes;
      b[i] = static_cast<char>(b[i] ^ (1 << bit));
      try {
        load(b);
      } catch (const ecgpipe::InputError&) {
        continue;
      }
      EXPECT_TRUE(same(decode_safetensors(b, "m"), original)) << "byte " << i << " bit " << bit;
      ++accepted;
    }
  EXPECT_LT(accepted, 40) << "only layout bytes may change";
}

TEST(ModelFile, RefusesAnotherModelsTensors) {
  const std::string bytes = model_file();
  auto edited = [&](auto&& f) {
    auto c = decode_safetensors(bytes, "m");
    f(c);
    return encode_safetensors(c);
  };
  auto message = [&](const std::string& b, int dims = kDims) { return input_error_of([&] { load(b, dims); }); };
  EXPECT_NE(message(bytes, 128).find("takes beats of 64 samples, not 128"), std::string::npos);
  EXPECT_NE(message(edited([](SafetensorsContent& c) { c.tensors.pop_back(); })).find("has no tensor"), std::string::npos);
  EXPECT_NE(message(edited([](SafetensorsContent& c) { c.tensors.push_back({"extra", TensorF32{{1}, {1.0f}}}); }))
                .find("a tensor this model does not: extra"),
            std::string::npos);
  EXPECT_NE(message(edited([](SafetensorsContent& c) {
              for (auto& [name, t] : c.tensors)
                if (name == "conv0.weight") t.shape = {12};
            })).find("conv0.weight has shape [12], not [4,1,3]"),
            std::string::npos);
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
    EXPECT_NE(message(edited([&](SafetensorsContent& c) { c.tensors.back().second.values.back() = bad; })).find("not finite"),
              std::string::npos);
}

TEST(ModelFile, RefusesOtherFilesWithAClearLine) {
  const auto dir = testutil::fresh_dir();
  auto meta_error = [&](const std::string& path) { return input_error_of([&] { ecgpipe::read_model_meta(path); }); };
  EXPECT_NE(meta_error((dir / "missing").string()).find("cannot open model file"), std::string::npos);
  // The LibTorch archive of earlier versions, whatever it holds: never handed to LibTorch.
  testutil::write_text(dir / "model.pt", std::string("PK\x03\x04", 4) + "archive/data.pkl junk");
  EXPECT_NE(meta_error((dir / "model.pt").string()).find("is a LibTorch archive (model.pt of an earlier ecgpipe)"), std::string::npos);
  // A FIFO is refused at once (opened without blocking), a directory too.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_NE(meta_error((dir / "fifo").string()).find("not a regular file"), std::string::npos);
  EXPECT_NE(meta_error(dir.string()).find("not a regular file"), std::string::npos);
  // Someone's safetensors weights are not an ecgpipe model.
  SafetensorsContent other;
  other.tensors.push_back({"w", TensorF32{{1}, {1.0f}}});
  testutil::write_text(dir / "other.safetensors", encode_safetensors(other));
  EXPECT_NE(meta_error((dir / "other.safetensors").string()).find("not an ecgpipe model"), std::string::npos);
  testutil::write_text(dir / "m.safetensors", model_file());
  EXPECT_EQ(ecgpipe::read_model_meta((dir / "m.safetensors").string()), kMeta);
}

// Python users open the weights with the safetensors package (docs/formats.md). Runs where
// python3 has safetensors and NumPy (pip install safetensors numpy); skips elsewhere.
TEST(ModelFile, PythonSafetensorsOpensIt) {
  if (std::system("python3 -c 'import safetensors.numpy, numpy' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 without the safetensors package";
  const auto dir = testutil::fresh_dir();
  testutil::write_text(dir / "m.safetensors", model_file());
  const std::string script =
      "import json, sys\nfrom safetensors import safe_open\n"
      "with safe_open(sys.argv[1], 'numpy') as f:\n"
      "    meta = f.metadata(); w = f.get_tensor('restore.weight')\n"
      "    assert json.loads(meta['ecgpipe.meta'])['note'] == 'test', meta\n"
      "    assert w.shape == (64, 2) and str(w.dtype) == 'float32', w.shape\n"
      "    assert len(list(f.keys())) == 20, list(f.keys())\n";
  testutil::write_text(dir / "check.py", script);
  EXPECT_EQ(std::system(("python3 " + (dir / "check.py").string() + " " + (dir / "m.safetensors").string()).c_str()), 0);
}

}  // namespace
