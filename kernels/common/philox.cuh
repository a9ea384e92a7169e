// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3",
// SC 2011), the counter-based generator of cuRAND and of LibTorch's CUDA generator, and normal
// draws from it, for host and device alike. Written here because cuRAND's device functions are
// device-only: the GPU's draws and their CPU reference must be the same numbers, and a counter-based
// generator gives the k-th draw without the k - 1 before it (any launch shape, any chunking).
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define ECGPIPE_PHILOX_HD __host__ __device__
#else
#define ECGPIPE_PHILOX_HD
#endif

namespace ecgpipe::philox {

struct Block {
  std::uint32_t v[4];
};

// The generator's multipliers and Weyl key increments (the paper's, as in Random123 and cuRAND).
constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
constexpr int kRounds = 10;

ECGPIPE_PHILOX_HD inline Block philox4x32_10(Block ctr, std::uint32_t k0, std::uint32_t k1) {
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * ctr.v[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * ctr.v[2];
    ctr = Block{{static_cast<std::uint32_t>(p1 >> 32) ^ ctr.v[1] ^ k0, static_cast<std::uint32_t>(p1),
                 static_cast<std::uint32_t>(p0 >> 32) ^ ctr.v[3] ^ k1, static_cast<std::uint32_t>(p0)}};
  }
  return ctr;
}

// The k-th standard normal draw of stream `stream` under `seed`: Box-Muller on the 32-bit words
// of block k / 4 (counter {k/4 low, k/4 high, stream, 0}, key = the seed's halves), the cosine
// for even k, the sine for odd k. In double, rounded once to float, so that the host's and the
// device's maths libraries (each within an ulp or two in double) give the same float.
ECGPIPE_PHILOX_HD inline float normal(std::uint64_t seed, std::uint32_t stream, std::uint64_t k) {
  const std::uint64_t b = k / 4;
  const Block r = philox4x32_10(Block{{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), stream, 0u}},
                                static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  const int pair = static_cast<int>(k % 4) / 2;
  // u1 in (0, 1], so that the logarithm is finite; u2 in [0, 1). Both exact in double.
  const double u1 = (static_cast<double>(r.v[2 * pair]) + 1.0) * 0x1p-32;
  const double u2 = static_cast<double>(r.v[2 * pair + 1]) * 0x1p-32;
  const double radius = sqrt(-2.0 * log(u1));
  const double angle = 6.283185307179586476925 * u2;
  return static_cast<float>(k % 2 == 0 ? radius * cos(angle) : radius * sin(angle));
}

}  // namespace ecgpipe::philox
