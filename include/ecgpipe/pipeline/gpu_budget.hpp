// Whether a recording goes to the GPU whole or streamed through it in chunks (issue 29): decided
// from the file's size (a bound on its samples) and the device memory the run may use. Plain C++ (no CUDA),
// so the parsing and the arithmetic are tested on every build; the device's free memory is read
// in segment_cuda.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ecgpipe {

// Device memory the whole GPU path holds a sample at its peak. Measured when the band-pass was one
// FFT over the whole signal (signal 4, output 8, the plan's kernel, spectrum, widened signal and
// product 8 each, plus cuFFT's work area, which depended on the length's factors). Since issue 29
// the band-pass runs fixed blocks (kernels/signal/bandpass.cu: signal and output, 12 B a sample,
// plus ~50 MiB of batch buffers whatever the length), so the peak is now the detector's; 144 is
// kept as the bound until it is measured again (a lower one sends fewer recordings to the
// chunked path, which gives the same results). The other stages: the CSV reader ~8 (its growing output and the
// exact copy), the robust detector 36 (signal, band-pass, y, m and e or the candidates'
// positions), the beat matrix ~3 (0.7 KB a beat), a two-lead CSV's second lead 4 (held until its windows are cut at the R peaks). Measured (`ecgpipe bench`'s stream-ordered pool
// peak over the samples, H100, 2026-11-26): 54.4 B for 21.6 M samples (24 h at 250 Hz), 52.2 B for
// 241.9 M (14 days at 200 Hz), 127.5 B for 20,000,003 (a prime: cuFFT pads it for Bluestein's
// algorithm). 144 covers the worst with a margin of an eighth.
inline constexpr std::uint64_t kGpuBytesPerSample = 144;
// What is kept back from the device's free memory when no budget is given: the CUDA context's
// later needs, cuFFT's plans, LibTorch's kernels, workspaces and the training that follows.
// A tenth of the free memory, at least 1 GiB.
inline constexpr std::uint64_t kGpuMarginMinBytes = std::uint64_t{1} << 30;
std::uint64_t gpu_budget_from_free(std::uint64_t free_bytes);

// A memory size as --gpu-memory takes it: a whole number of bytes, or a number (a decimal
// fraction allowed) followed by K, M, G or T (binary: 1024, 1024^2, ...; "KB"/"KiB" etc. are also
// read); "8G", "512M", "1.5G", "1073741824". Rounds down to whole bytes. Anything else (empty, a
// sign, an exponent, another unit, more than 2^64 - 1 bytes) is a UsageError naming `what`.
std::uint64_t parse_memory_size(const std::string& text, const std::string& what);

// The decision with its numbers (logged): the whole recording fits when samples times
// bytes_per_sample (saturating, never wrapping) is at most the budget.
struct GpuMemoryPlan {
  std::uint64_t samples = 0;
  std::uint64_t need_bytes = 0;
  std::uint64_t budget_bytes = 0;
  bool whole = true;
};
GpuMemoryPlan plan_gpu_memory(std::uint64_t samples, std::uint64_t bytes_per_sample, std::uint64_t budget_bytes);

// The chunked GPU path (issue 29, segment_cuda_stream.cpp): device memory that does not grow with
// the recording. Fixed: the CSV reader's buffers (two chunks of text, their row starts and values,
// ~140 MiB) and the band-pass's block batches (~70 MiB with cuFFT's work area); per sample of a
// chunk: the detector's windows while they are regrown (samples 2 x 4, band-pass 2 x 8) and a
// scan's y, e, m and positions (4 x 8), 56 B, rounded up. The beat matrix (training's input,
// ~1 KB a beat) comes on top, as in the whole path.
inline constexpr std::uint64_t kGpuChunkFixedBytes = std::uint64_t{256} << 20;
inline constexpr std::uint64_t kGpuBytesPerChunkSample = 64;
// Chunks of 2^16 (one band-pass block; a smaller budget still gets these) to 2^25 samples (the
// CSV reader hands over at most ~8.7 M at a time anyway; larger chunks save no synchronization).
inline constexpr std::int64_t kMinGpuChunkSamples = std::int64_t{1} << 16;
inline constexpr std::int64_t kMaxGpuChunkSamples = std::int64_t{1} << 25;
struct GpuChunkSize {
  std::int64_t samples = 0;
  std::string source;  // for the log
};
// The chunk for a budget: (budget - fixed) / per-sample bytes within [min, max]; or
// ECGPIPE_GPU_CHUNK_SAMPLES when set (whole_number_env, 1 to kMaxGpuChunkSamples): a test and
// debugging hook that forces small chunks.
GpuChunkSize gpu_chunk_samples(std::uint64_t budget_bytes);

// A whole-number environment variable of the GPU paths' hooks (ECGPIPE_GPU_MEMORY_BUDGET_MB,
// ECGPIPE_GPU_CHUNK_SAMPLES): nullopt when unset; its value when it is decimal digits alone
// within [min, max]; anything else (empty, a sign, spaces, too large) is a UsageError naming the
// variable, the unit and the range, with the value quoted (cut when long).
std::optional<std::uint64_t> whole_number_env(const char* name, const char* unit, std::uint64_t min, std::uint64_t max);

// At most how many samples a CSV file holds, from its size alone: (bytes + 1) / 2, a line of one
// character and its LF a sample (its header and blank lines would count too). No pass over the
// file: counting its lines cost 2.1 s of a 14-day recording's run on an H200 host (1.78 GB, a
// memchr a line), and the chunked GPU path gives the same results as the whole one, so a bound
// decides as well as a count; a file whose lines are long goes chunked when a count would have
// let it run whole (a little slower, the same outputs). nullopt unless `path` is a regular file
// (a pipe has no size to trust; the reader reports what is wrong).
std::optional<std::uint64_t> csv_samples_bound(const std::string& path);

// At most how many samples `path` yields: an EDF/BDF file's header count of `channel` (as the
// reader selects it), else csv_samples_bound. nullopt when the file or its header cannot be
// read, or for a WFDB record (read whole on either device).
std::optional<std::uint64_t> recording_samples_bound(const std::string& path, const std::string& channel);

}  // namespace ecgpipe
