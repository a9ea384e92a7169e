// LibTorch's process-wide settings and facts (threads, version, CUDA), for the command line and the
// report: here, apart from the VAE's interface, so that asking them needs no model header.
#pragma once

#include <string>

namespace ecgpipe {

// CPU threads for ecgpipe's own parallel work (beat classes, HRV, outputs) and, when given, for
// LibTorch's (CPU training and scoring, the CPU band-pass); 0 keeps the defaults (below). Several
// ecgpipe processes on one host (a batch over many recordings) should share the cores out: each
// one taking every core oversubscribes them, and LibTorch's spinning OpenMP threads then slow
// everything down many times.
void set_cpu_threads(int threads);
// The count set, else default_cpu_threads().
int cpu_threads();
// OMP_NUM_THREADS when it is a positive number, else the CPUs this process may run on (its
// affinity mask: a Slurm job's cores, not the node's).
int default_cpu_threads();
// The count LibTorch uses (report.json: training.cpu_threads): the one set, else LibTorch's own
// default (OMP_NUM_THREADS, else one per core). Loads LibTorch.
int torch_threads();

// Whether LibTorch is loaded in this process (a GPU run that trains without it never loads it).
bool torch_loaded();

// "x.y.z", the LibTorch this build uses (without loading it).
std::string torch_version();
// Whether LibTorch was built with CUDA and sees a device. Loads LibTorch.
bool torch_cuda_available();

// The command line loads LibTorch (the model code, with the CPU band-pass's FFT: one shared
// library, libecgpipe_torch.so beside the executable) when first needed, so that the commands
// without a model start in milliseconds instead of a third to half a second. A run calls this as
// soon as it knows it will train or score: the loading (0.3-0.5 s) then overlaps making the CUDA
// context and reading the recording. Returns at once; no-op where LibTorch is linked in (the tests, the
// Python module) or already loaded; a failure is thrown where LibTorch is first needed.
void load_torch_in_background();

}  // namespace ecgpipe
