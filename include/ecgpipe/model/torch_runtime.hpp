// LibTorch's process-wide settings and facts (threads, version, CUDA), for the command line and the
// report: here, apart from the VAE's interface, so that asking them needs no model header.
#pragma once

#include <string>

namespace ecgpipe {

// CPU threads for LibTorch's work (CPU training and scoring, the CPU band-pass); 0 keeps its
// default (OMP_NUM_THREADS, else one per core). Several ecgpipe processes on one host (a batch
// over many recordings) should share the cores out: each one taking every core oversubscribes
// them, and LibTorch's spinning OpenMP threads then slow everything down many times.
void set_cpu_threads(int threads);
// The number LibTorch uses now (report.json: training.cpu_threads).
int cpu_threads();

// "LibTorch x.y.z" and whether it was built with CUDA and sees a device.
std::string torch_version();
bool torch_cuda_available();

}  // namespace ecgpipe
