// The process's memory from /proc/self/status: a large touched buffer shows in both numbers.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>

#include "common/memory_use.hpp"

TEST(MemoryUse, ATouchedBufferRaisesResidentAndPeak) {
  const ecgpipe::detail::MemoryUse before = ecgpipe::detail::memory_use();
  if (before.resident_mib < 0) GTEST_SKIP() << "no /proc/self/status here";
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  const std::unique_ptr<char[]> buffer(new char[kBytes]);
  std::memset(buffer.get(), 1, kBytes);  // resident only once touched
  const ecgpipe::detail::MemoryUse during = ecgpipe::detail::memory_use();
  // 256 MiB touched; allow 16 MiB for what the allocator and the test runner do meanwhile.
  EXPECT_GE(during.resident_mib, before.resident_mib + 240);
  EXPECT_GE(during.peak_mib, during.resident_mib);
  EXPECT_GE(during.peak_mib, before.peak_mib);
  EXPECT_NE(buffer[kBytes - 1], 0);
}
