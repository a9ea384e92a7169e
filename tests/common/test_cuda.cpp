// CUDA plumbing (include/ecgpipe/common/cuda.hpp): the architectures embedded in the built executable,
// read from its fat-binary headers (this toolkit has no cuobjdump), and the "no kernel image for
// this GPU" error. Both run without a GPU; without a CUDA build they skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace {

#ifdef ECGPIPE_WITH_CUDA
template <class T>
T load(const std::string& bytes, std::size_t at) {
  T v{};
  if (at + sizeof v <= bytes.size()) std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

// One fat binary (one per .cu file): the SASS (ELF) and PTX architectures it holds.
struct FatBinary {
  std::set<int> sass, ptx;
};

// Every fat binary in an ELF file. Layout (CUDA's fatbinary_section.h and the entries nvcc
// writes; checked against this toolkit's output): a 16-byte header {u32 magic 0xBA55ED50,
// u16 version, u16 header size, u64 size of the entries}, 8-byte aligned in .nv_fatbin; then
// entries {u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64 payload size, ...,
// u32 architecture at byte 28 (e.g. 90)}, each followed by its payload.
std::vector<FatBinary> fat_binaries(const std::string& bytes) {
  constexpr std::uint32_t kMagic = 0xBA55ED50;
  constexpr std::uint16_t kPtx = 1, kElf = 2;
  std::vector<FatBinary> found;
  for (std::size_t at = 0; at + 16 <= bytes.size(); at += 8) {
    if (load<std::uint32_t>(bytes, at) != kMagic) continue;
    const auto header_size = load<std::uint16_t>(bytes, at + 6);
    const auto size = load<std::uint64_t>(bytes, at + 8);
    if (header_size < 16 || size > bytes.size() - at - header_size) continue;  // not a header after all
    FatBinary fb;
    const std::size_t end = at + header_size + size;
    for (std::size_t e = at + header_size; e + 32 <= end;) {
      const auto kind = load<std::uint16_t>(bytes, e);
      const auto entry_header = load<std::uint32_t>(bytes, e + 4);
      const auto payload = load<std::uint64_t>(bytes, e + 8);
      const auto arch = static_cast<int>(load<std::uint32_t>(bytes, e + 28));
      if (kind == kElf) fb.sass.insert(arch);
      if (kind == kPtx) fb.ptx.insert(arch);
      if (entry_header == 0) break;
      e += entry_header + payload;
    }
    found.push_back(fb);
    at = (end + 7) / 8 * 8 - 8;
  }
  return found;
}

std::string join(const std::set<int>& s) {
  std::string out;
  for (int v : s) out += (out.empty() ? "" : " ") + std::to_string(v);
  return out;
}

TEST(CudaBuild, ExecutableEmbedsEveryConfiguredArchitecture) {
  // CMAKE_CUDA_ARCHITECTURES as built: "75-real 90" -> SASS 75 and 90, PTX 90.
  std::set<int> sass, ptx;
  std::istringstream list(ecgpipe::built_cuda_architectures());
  for (std::string item; list >> item;) {
    const std::size_t dash = item.find('-');
    const std::string number = item.substr(0, dash), suffix = dash == std::string::npos ? "" : item.substr(dash + 1);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) {
      GTEST_SKIP() << "CMAKE_CUDA_ARCHITECTURES is " << ecgpipe::built_cuda_architectures() << ": not a list of numbers";
    }
    if (suffix != "virtual") sass.insert(std::stoi(number));
    if (suffix != "real") ptx.insert(std::stoi(number));
  }
  std::ifstream in(ECGPIPE_EXE, std::ios::binary);
  ASSERT_TRUE(in) << ECGPIPE_EXE;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto found = fat_binaries(bytes);
  // One per kernel file (csv, bandpass, peaks, beats, detect); CUB/Thrust add none of their own.
  ASSERT_GE(found.size(), 5u);
  for (const auto& fb : found) {
    EXPECT_EQ(join(fb.sass), join(sass)) << "SASS architectures of a fat binary";
    EXPECT_EQ(join(fb.ptx), join(ptx)) << "PTX architectures of a fat binary";
  }
}

TEST(CudaErrors, NoKernelImageIsADeviceErrorNamingTheArchitectures) {
  for (const cudaError_t status : {cudaErrorNoKernelImageForDevice, cudaErrorUnsupportedPtxVersion}) {
    try {
      ecgpipe::check_status(status, "launch of some_kernel", __FILE__, __LINE__);
      FAIL() << "no exception";
    } catch (const ecgpipe::DeviceError& e) {
      EXPECT_EQ(e.code(), ecgpipe::ExitCode::device);
      const std::string what = e.what();
      EXPECT_NE(what.find("no CUDA kernel image for "), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("CUDA architectures ") + ecgpipe::built_cuda_architectures()), std::string::npos) << what;
      EXPECT_NE(what.find("--device cpu"), std::string::npos) << what;
      EXPECT_NE(what.find("launch of some_kernel"), std::string::npos) << what;
    }
  }
  // Any other failure stays an internal error (exit 1).
  try {
    ecgpipe::check_status(cudaErrorInvalidValue, "cudaMemcpy", __FILE__, __LINE__);
    FAIL() << "no exception";
  } catch (const ecgpipe::Error& e) {
    EXPECT_EQ(e.code(), ecgpipe::ExitCode::internal);
  }
}
#else
TEST(CudaBuild, ExecutableEmbedsEveryConfiguredArchitecture) { GTEST_SKIP() << "built without CUDA"; }
#endif

}  // namespace
