// `ecgpipe selftest`: the smoke test a GPU runner's CI calls. Runs the whole pipeline on the
// bundled sample (embedded in the binary) on the CPU and, where usable, on the GPU, and checks
// what must hold on any machine:
//  - cpu: detection equals the sample's ground truth (Se = +P = 100 %, exact), and the ectopic
//    beats rank on top (AUROC abnormal vs N >= kMinAuroc);
//  - cuda: the same, plus the GPU's R peaks, beat rows and beat classes equal the CPU's exactly (the detector
//    is bit-exact across devices, detect.hpp), and the CPU-trained model scores every beat on the
//    GPU as on the CPU within kScoreTolerance.
// Internal to the executable (src/cli/cmd_selftest.cpp is its command line).
#pragma once

#include <string>
#include <vector>

#include "cli/junit.hpp"

namespace ecgpipe {

// The sample's PVCs and PACs score far above its normal beats (docs/accuracy.md: AUROC 0.9999 after 30
// epochs). A short training (kSelftestEpochs) on another LibTorch build still ranks them on top;
// 0.98 leaves room for that and still fails a broken scorer (a random one gives 0.5).
inline constexpr double kMinAuroc = 0.98;
inline constexpr int kSelftestEpochs = 5;
// GPU vs CPU scores of one model: float32 convolutions (cuDNN vs CPU) differ in summation order,
// ~1e-6 relative per layer; the score adds logs of ratios of such values. 1e-3 (absolute + relative)
// is far below the score's spread between normal and ectopic beats (several units).
inline constexpr double kScoreTolerance = 1e-3;

struct SelftestOptions {
  std::string work_dir;  // scratch folder for the runs' outputs (created; removed by the caller)
  int epochs = kSelftestEpochs;
  bool want_cuda = true;  // false: test the CPU only (--device cpu)
};

// Facts printed before the checks: versions, device, compiled architectures.
std::vector<std::string> selftest_environment();

// Every check, in order; a check that cannot run says why (skipped).
std::vector<TestCaseResult> run_selftest(const SelftestOptions& options);

}  // namespace ecgpipe
