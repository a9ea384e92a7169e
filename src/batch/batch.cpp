// Many recordings in one call: inputs, manifest, output names, the driver (see batch.hpp).
#include "ecgpipe/batch/batch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/file_read.hpp"
#include "common/paths.hpp"
#include "common/text.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/model/torch_runtime.hpp"

namespace ecgpipe {
namespace {

using text::lower;
using text::trim;
using detail::is_directory;
using detail::path_join;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string base_name(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string dir_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}


}  // namespace

namespace {
// Two paths (PATH_MAX each) and a column name fit many times over.
constexpr std::size_t kMaxManifestLine = 64 * 1024;
}  // namespace

std::vector<BatchItem> parse_manifest(const std::string& path) {
  // Whole, within the bound of every text input: /dev/zero as a manifest is one line that never
  // ends, which getline grew until std::bad_alloc.
  const std::string manifest = read_file_bounded(path, kMaxTextInputBytes, "manifest");
  const std::string base = dir_name(path);
  std::vector<BatchItem> items;
  text::for_each_line(manifest, [&](std::string_view line, std::size_t number) {
    const std::string where = path + ":" + std::to_string(number);
    // Text, one path per line: a NUL byte (a binary file, or a path no file system takes) and a
    // line longer than any path are refused with the line's number, quoting none of it; a UTF-8
    // BOM, which some editors write first, is not part of the first path (issue 25; for_each_line
    // skips it).
    if (const auto nul = line.find('\0'); nul != std::string_view::npos)
      throw InputError(where + ": a NUL byte at column " + std::to_string(nul + 1) + " (a manifest is text)");
    if (line.size() > kMaxManifestLine)
      throw InputError(where + ": a line of " + std::to_string(line.size()) + " bytes (at most " +
                       std::to_string(kMaxManifestLine) + ": path[,reference[,column]])");
    const std::string text = trim(std::string(line));
    if (text.empty() || text[0] == '#') return;
    std::vector<std::string> fields;
    for (std::size_t start = 0;;) {
      const auto comma = text.find(',', start);
      fields.push_back(trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (fields.size() > 3)
      throw InputError(where + ": " + std::to_string(fields.size()) + " fields; expected path[,reference[,column]]");
    if (fields[0].empty()) throw InputError(where + ": empty recording path; expected path[,reference[,column]]");
    const auto resolve = [&base](const std::string& p) { return p.empty() || p[0] == '/' ? p : base + p; };
    BatchItem item;
    item.path = resolve(fields[0]);
    if (fields.size() > 1) item.reference = resolve(fields[1]);
    if (fields.size() > 2) item.column = fields[2];
    item.origin = where;
    items.push_back(std::move(item));
  });
  if (items.empty()) throw InputError(path + ": the manifest lists no recordings");
  return items;
}

// A WFDB header of no signals (what `run` writes beside its annotation file for the rate): no
// recording. A header that does not parse is left to be refused, naming itself, when it is read.
static bool header_without_signals(const std::string& path) {
  try {
    return read_wfdb_header(path).signals.empty();
  } catch (const InputError&) {
    return false;
  }
}

std::vector<std::string> directory_recordings(const std::string& dir) {
  std::vector<std::string> entries, names;
  if (!detail::list_directory(dir, entries)) throw InputError("cannot list directory " + dir);
  // ecgpipe's own outputs and synth's truth files are not recordings.
  static const std::set<std::string> kOwnOutputs = {"beats.csv", "outliers.csv", "summary.csv", "rhythm.csv",
                                                    "artefact.csv"};
  for (const std::string& n : entries) {
    const std::string l = lower(n);
    const bool truth = ends_with(l, "_beats.csv") || ends_with(l, "_rhythm.csv") || ends_with(l, "_noise.csv");
    const bool record = ends_with(l, ".edf") || ends_with(l, ".bdf") || ends_with(l, ".hea") ||
                        (ends_with(l, ".csv") && !truth && kOwnOutputs.count(l) == 0);
    if (!record || is_directory(path_join(dir, n))) continue;
    if (ends_with(l, ".hea") && header_without_signals(path_join(dir, n))) continue;  // run's RECORD.hea beside RECORD.ecgpipe
    names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  if (names.empty()) throw InputError(dir + ": no recordings (*.csv, *.hea, *.edf, *.bdf) in this directory");
  for (auto& n : names) n = path_join(dir, n);
  return names;
}

std::string wfdb_reference_beside(const std::string& path) {
  if (!ends_with(lower(path), ".hea")) return "";
  const std::string atr = path.substr(0, path.size() - 4) + ".atr";
  struct stat st {};
  return ::stat(atr.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? atr : "";
}

std::vector<BatchItem> expand_inputs(const std::vector<std::string>& args, const std::string& manifest) {
  std::vector<BatchItem> items;
  for (const auto& a : args) {
    if (is_directory(a)) {
      for (auto& p : directory_recordings(a)) items.push_back(BatchItem{p, "", "", "", a});
    } else {
      items.push_back(BatchItem{a, "", "", "", a});
    }
  }
  if (!manifest.empty())
    for (auto& item : parse_manifest(manifest)) items.push_back(std::move(item));
  std::vector<std::string> paths;
  for (const auto& i : items) paths.push_back(i.path);
  const auto names = output_names(paths);
  for (std::size_t i = 0; i < items.size(); ++i) items[i].name = names[i];
  // A directory of MIT-BIH-style records carries its reference beside each record (issue 27: a
  // batch of 10 records gave no Se / +P without a manifest naming every .atr).
  for (auto& item : items) {
    if (!item.reference.empty()) continue;
    item.reference = wfdb_reference_beside(item.path);
    if (!item.reference.empty())
      spdlog::info("{}: reference {} (beside the record; a manifest line names another)", item.path, item.reference);
  }
  return items;
}

namespace {

// A non-negative integer of `text` (all of it), or -1.
long long parse_count(const char* text) {
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  return (errno != 0 || *end != '\0' || v < 0) ? -1 : v;
}

}  // namespace

Shard slurm_array_shard() {
  const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
  const char* count = std::getenv("SLURM_ARRAY_TASK_COUNT");
  if (id == nullptr || count == nullptr)
    throw UsageError("--shard slurm: not a Slurm job-array task (SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT unset)");
  const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
  const char* step = std::getenv("SLURM_ARRAY_TASK_STEP");
  const long long i = parse_count(id), n = parse_count(count);
  const long long lo = min != nullptr ? parse_count(min) : 0, st = step != nullptr ? parse_count(step) : 1;
  if (i < 0 || n < 1 || lo < 0 || st < 1 || i < lo || (i - lo) % st != 0 || (i - lo) / st >= n || n > INT_MAX)
    throw UsageError(std::string("--shard slurm: the job-array variables do not describe a task (SLURM_ARRAY_TASK_ID ") + id +
                     ", SLURM_ARRAY_TASK_COUNT " + count + ")");
  return Shard{static_cast<int>((i - lo) / st), static_cast<int>(n)};
}

Shard parse_shard(const std::string& text) {
  if (text == "slurm") return slurm_array_shard();
  const auto slash = text.find('/');
  const long long k = slash == std::string::npos ? -1 : parse_count(text.substr(0, slash).c_str());
  const long long n = slash == std::string::npos ? -1 : parse_count(text.substr(slash + 1).c_str());
  if (k < 0 || n < 1 || k >= n || n > INT_MAX)
    throw UsageError("--shard must be K/N with 0 <= K < N (e.g. 0/4), or slurm; got " + text);
  return Shard{static_cast<int>(k), static_cast<int>(n)};
}

std::vector<BatchItem> select_shard(const std::vector<BatchItem>& items, const Shard& shard) {
  std::vector<BatchItem> part;
  for (std::size_t i = static_cast<std::size_t>(shard.index); i < items.size(); i += static_cast<std::size_t>(shard.count))
    part.push_back(items[i]);
  return part;
}

bool is_batch(const std::vector<std::string>& args, const std::string& manifest) {
  return !manifest.empty() || args.size() > 1 || (args.size() == 1 && is_directory(args[0]));
}

std::vector<std::string> output_names(const std::vector<std::string>& paths) {
  const auto stem_of = [](const std::string& p) {
    std::string stem = base_name(p);
    const auto dot = stem.find_last_of('.');
    if (dot != std::string::npos && dot > 0) stem.resize(dot);
    if (stem.empty() || stem == "." || stem == "..") stem = "recording";
    return stem;
  };
  // A name may be neither one of the batch's own files in --out (a recording called index.html.csv
  // must not become the folder that stops the summary: issue 25) nor, as a numbered copy, another
  // recording's own name (rec-2.csv beside two rec.csv keeps "rec-2"; the second rec is "rec-3").
  std::set<std::string> taken(std::begin(kBatchOwnFiles), std::end(kBatchOwnFiles));
  std::set<std::string> natural;
  for (const auto& p : paths) natural.insert(stem_of(p));
  std::vector<std::string> out;
  for (const auto& p : paths) {
    const std::string stem = stem_of(p);
    std::string name = stem;
    for (int k = 2; taken.count(name) != 0; ++k) {
      name = stem + "-" + std::to_string(k);
      if (natural.count(name) != 0) name = stem;  // another recording's own name: try the next k
    }
    taken.insert(name);
    out.push_back(name);
  }
  return out;
}

std::vector<BatchOutcome> run_batch(const std::vector<BatchItem>& items, const BatchOptions& options,
                                    const std::function<void(const BatchItem&)>& work) {
  std::vector<BatchOutcome> outcomes(items.size());
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t done = 0, failed = 0;
  const auto report_progress = [&](bool ok) {
    std::lock_guard<std::mutex> lock(progress_mutex);
    ++done;
    failed += ok ? 0 : 1;
    if (!options.progress) return;
    constexpr std::size_t kBarWidth = 30;
    const std::size_t filled = kBarWidth * done / items.size();
    std::fprintf(stderr, "\rrecordings [%s%s] %zu/%zu%s%s", std::string(filled, '#').c_str(),
                 std::string(kBarWidth - filled, ' ').c_str(), done, items.size(),
                 failed ? (", " + std::to_string(failed) + " failed").c_str() : "", done == items.size() ? "\n" : "");
    std::fflush(stderr);
  };
  const auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < items.size();) {
      const BatchItem& item = items[i];
      BatchOutcome& o = outcomes[i];
      o.name = item.name;
      o.path = item.path;
      const auto t0 = std::chrono::steady_clock::now();
      try {
        work(item);
        o.ok = true;
      } catch (const Error& e) {
        o.code = e.code();
        o.error = e.what();
      } catch (const std::exception& e) {
        o.code = ExitCode::internal;
        o.error = std::string("internal error: ") + e.what();
      }
      o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!o.ok) {
        // The file once: errors name it already (a directory's argument before it read "S: S/b.csv:
        // ...", issue 25); a manifest's FILE:LINE goes first, the recording when the error lacks it.
        const bool from_manifest = !item.origin.empty() && item.origin != item.path && item.origin.find(':') != std::string::npos &&
                                   std::isdigit(static_cast<unsigned char>(item.origin.back())) != 0;
        const bool names_file = o.error.compare(0, item.path.size(), item.path) == 0;
        spdlog::error("{}{}{} (exit code {}); going on with the others", from_manifest ? item.origin + ": " : "",
                      names_file ? "" : item.path + ": ", o.error, static_cast<int>(o.code));
      }
      report_progress(o.ok);
    }
  };
  const std::size_t jobs = std::min<std::size_t>(items.size(), static_cast<std::size_t>(std::max(1, options.jobs)));
  if (jobs <= 1) {
    worker();  // on this thread: one job behaves exactly as a loop
  } else {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < jobs; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  return outcomes;
}

int threads_per_job(int threads, int jobs) {
  if (threads > 0) return threads;
  return std::max(1, default_cpu_threads() / std::max(1, jobs));
}

ExitCode batch_exit_code(const std::vector<BatchOutcome>& outcomes) {
  std::size_t failed = 0;
  for (const auto& o : outcomes) failed += o.ok ? 0 : 1;
  if (failed == 0) return ExitCode::ok;
  spdlog::error("{} of {} recordings failed:", failed, outcomes.size());
  for (const auto& o : outcomes)
    if (!o.ok) spdlog::error("  {} ({}): exit code {}: {}", o.name, o.path, static_cast<int>(o.code), o.error);
  return ExitCode::some_failed;
}

}  // namespace ecgpipe
