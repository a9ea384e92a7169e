// The GPU memory decision's facts and arithmetic (ecgpipe/pipeline/gpu_budget.hpp): sizes as the
// user writes them, the file's sample count, the fit.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <sys/stat.h>

#include "common/text.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/pipeline/gpu_budget.hpp"

namespace ecgpipe {

namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kShownChars = 40;  // of a bad value quoted in a message

[[noreturn]] void bad_size(const std::string& text, const std::string& what) {
  // Quoted and cut: the text is the user's and may be anything.
  throw UsageError(what + " must be a size such as 8G, 512M or a number of bytes (K, M, G, T: powers of 1024), not '" +
                   text::shorten(text, kShownChars) + "'");
}

// The multiplier of a unit suffix ("", "B", "K", "KB", "KiB", ... any case); 0 if not one.
std::uint64_t unit_multiplier(std::string unit) {
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.empty() || unit == "B") return 1;
  static const char kUnits[] = "KMGT";
  const char* at = std::strchr(kUnits, unit[0]);
  if (at == nullptr) return 0;
  const std::string rest = unit.substr(1);
  if (!(rest.empty() || rest == "B" || rest == "IB")) return 0;
  return std::uint64_t{1} << (10 * (at - kUnits + 1));
}

}  // namespace

std::uint64_t gpu_budget_from_free(std::uint64_t free_bytes) {
  const std::uint64_t margin = std::max(kGpuMarginMinBytes, free_bytes / 10);
  return free_bytes > margin ? free_bytes - margin : 0;
}

std::uint64_t parse_memory_size(const std::string& text, const std::string& what) {
  std::size_t i = 0;
  std::uint64_t whole = 0;
  const std::size_t digits_start = i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const auto d = static_cast<std::uint64_t>(text[i] - '0');
    if (whole > (kMaxU64 - d) / 10) bad_size(text, what);
    whole = whole * 10 + d;
  }
  if (i == digits_start) bad_size(text, what);  // empty, a sign, a leading '.', a word
  std::string fraction;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) fraction += text[i];
    if (fraction.empty()) bad_size(text, what);
  }
  const std::uint64_t multiplier = unit_multiplier(text.substr(i));
  if (multiplier == 0) bad_size(text, what);
  if (!fraction.empty() && multiplier == 1) bad_size(text, what);  // bytes are whole
  if (whole > kMaxU64 / multiplier) bad_size(text, what);
  std::uint64_t bytes = whole * multiplier;
  if (!fraction.empty()) {
    // The fraction's bytes, rounded down. Its first 15 digits count: a long double holds them, and
    // later ones add less than a thousandth of a byte even to a T.
    long double part = 0.0L, scale = 1.0L;
    for (std::size_t k = 0; k < fraction.size() && k < 15; ++k) {
      scale /= 10.0L;
      part += static_cast<long double>(fraction[k] - '0') * scale;
    }
    const auto extra = static_cast<std::uint64_t>(part * static_cast<long double>(multiplier));
    if (bytes > kMaxU64 - extra) bad_size(text, what);
    bytes += extra;
  }
  return bytes;
}

GpuMemoryPlan plan_gpu_memory(std::uint64_t samples, std::uint64_t bytes_per_sample, std::uint64_t budget_bytes) {
  GpuMemoryPlan plan;
  plan.samples = samples;
  plan.budget_bytes = budget_bytes;
  plan.need_bytes = (bytes_per_sample != 0 && samples > kMaxU64 / bytes_per_sample) ? kMaxU64 : samples * bytes_per_sample;
  plan.whole = plan.need_bytes <= budget_bytes;
  return plan;
}

std::optional<std::uint64_t> whole_number_env(const char* name, const char* unit, std::uint64_t min, std::uint64_t max) {
  const char* env = std::getenv(name);
  if (env == nullptr) return std::nullopt;
  const std::string text = env;
  // Digits alone, accumulated with an overflow check: strtoull would also take spaces, a sign
  // ("-1" wraps to 2^64 - 1) and stop quietly at the first other character.
  std::uint64_t value = 0;
  bool ok = !text.empty();
  for (const char c : text) {
    if (c < '0' || c > '9' || value > (kMaxU64 - static_cast<std::uint64_t>(c - '0')) / 10) {
      ok = false;
      break;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (!ok || value < min || value > max)
    throw UsageError(std::string(name) + " must be a whole number of " + unit + " from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", not '" + text::shorten(text, kShownChars) + "'");
  return value;
}

GpuChunkSize gpu_chunk_samples(std::uint64_t budget_bytes) {
  if (const auto forced = whole_number_env("ECGPIPE_GPU_CHUNK_SAMPLES", "samples", 1,
                                           static_cast<std::uint64_t>(kMaxGpuChunkSamples)))
    return {static_cast<std::int64_t>(*forced), "ECGPIPE_GPU_CHUNK_SAMPLES"};
  const std::uint64_t room = budget_bytes > kGpuChunkFixedBytes ? budget_bytes - kGpuChunkFixedBytes : 0;
  const std::uint64_t fit = room / kGpuBytesPerChunkSample;
  const auto samples = static_cast<std::int64_t>(
      std::clamp<std::uint64_t>(fit, static_cast<std::uint64_t>(kMinGpuChunkSamples), static_cast<std::uint64_t>(kMaxGpuChunkSamples)));
  return {samples, fit < static_cast<std::uint64_t>(kMinGpuChunkSamples) ? "the smallest chunk: the budget is below the fixed buffers"
                                                                          : "from the budget"};
}

std::optional<std::uint64_t> csv_samples_bound(const std::string& path) {
  struct stat st {};
  // Only a regular file's size says anything (a pipe's is 0, and reading it here would eat it).
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return std::nullopt;
  // A sample takes a line of at least one character and its LF (the last line may lack the LF):
  // L lines need at least 2 L - 1 bytes.
  return (static_cast<std::uint64_t>(st.st_size) + 1) / 2;
}

std::optional<std::uint64_t> recording_samples_bound(const std::string& path, const std::string& channel) {
  if (is_wfdb_record_path(path)) return std::nullopt;
  if (is_edf_path(path)) {
    try {
      const EdfHeader header = read_edf_header(path);
      const long long samples = edf_select_signal(header, channel).samples;
      return samples < 0 ? 0 : static_cast<std::uint64_t>(samples);
    } catch (const Error&) {
      return std::nullopt;  // the reader says why, with its own message
    }
  }
  return csv_samples_bound(path);
}

}  // namespace ecgpipe
