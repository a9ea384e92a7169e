// Helpers shared by the test files: temporary directories, a tiny synthetic ECG, running the
// built executable.
#pragma once

#include <gtest/gtest.h>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/synth.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

namespace testutil {

namespace fs = std::filesystem;

// Sets an environment variable for a scope (the test and the executables it starts see it), and
// puts back what was there before (unset if nothing was: e.g. scripts/sanitize.sh's ASAN_OPTIONS
// must outlive a test that adds to it).
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) before_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (before_) ::setenv(name_, before_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  const char* name_;
  std::optional<std::string> before_;
};

// Directory helpers use POSIX calls, not std::filesystem's directory iteration: on the GPU
// machine (GCC 13 + PyTorch 2.11's LibTorch) directory_iterator/remove_all crashed in every test
// that used them, while the same code passes with Debian's GCC 12 + LibTorch 1.13.

namespace detail_scratch {
// The folders fresh_dir made for the running test.
inline std::vector<std::string>& made() {
  static std::vector<std::string> dirs;
  return dirs;
}
inline int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  ::remove(path);  // what cannot go (a file made immutable by a test, a child still writing) stays
  return 0;
}
// Removes the running test's folders when it ends, unless it failed (they are kept and named, to
// look at) or ECGPIPE_KEEP_TEST_DIRS is set: before, every run of the suite left ~1,800 of them
// under /tmp (11,155 on this machine on 2026-11-27).
class Cleanup : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    const bool keep = info.result()->Failed() || std::getenv("ECGPIPE_KEEP_TEST_DIRS") != nullptr;
    for (const std::string& dir : made()) {
      if (keep) std::cerr << "test folder kept: " << dir << "\n";
      else ::nftw(dir.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    made().clear();
  }
};
// Once per test executable (an inline variable: one instance whatever the translation units);
// GoogleTest owns the listener.
inline const bool kCleanupRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new Cleanup);
  return true;
}();
}  // namespace detail_scratch

// A new empty directory under the GoogleTest temp dir, named after the running test (unique even
// when ctest runs tests in parallel or a test asks for several); removed when the test passes.
inline fs::path fresh_dir(const std::string& tag = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name() + tag;
  for (char& c : name)
    if (c == '/') c = '_';  // parameterised suites are named Prefix/Suite
  std::string templ = (fs::path(::testing::TempDir()) / ("ecgpipe_" + name + "_XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << templ;
  else detail_scratch::made().push_back(templ);
  return templ;
}

// Names of the entries of a directory (empty if it does not exist).
inline std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  return names;
}

// The folder of the MIT-BIH DS1 records beside the checkout (../shared/data/mitdb-ds1) when every
// file in `needs` (paths relative to it) is there, else "" and the test skips with the reason. One
// check for every test that reads ../shared/data: on the GPU machine ../shared exists without
// data/ (issue 25: DS1 tests failed there instead of skipping), and a partial copy must skip too.
// POSIX stat, not std::filesystem (see the note above).
inline std::string ds1_folder(const std::vector<std::string>& needs,
                              const std::string& root = ECGPIPE_SOURCE_DIR "/../shared/data/mitdb-ds1") {
  struct stat st {};
  for (const auto& n : needs)
    if (::stat((root + "/" + n).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  return root;
}
#define SKIP_WITHOUT_DS1(dir) \
  if ((dir).empty()) GTEST_SKIP() << "no MIT-BIH DS1 beside the checkout (../shared/data/mitdb-ds1): skipped"

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `ecgpipe synth`'s signal as floats, with ectopy to detect (abnormal_rate 0.1); empty for 0
// samples (synthesize wants at least one).
inline std::vector<float> synth_signal(double fs, std::int64_t samples, std::uint64_t seed = 1,
                                       ecgpipe::SynthScenario scenario = ecgpipe::SynthScenario::none) {
  if (samples == 0) return {};
  ecgpipe::SynthOptions so;
  so.fs = fs;
  so.samples = samples;
  so.seed = seed;
  so.scenario = scenario;
  so.abnormal_rate = 0.1;
  const ecgpipe::SynthRecord rec = ecgpipe::synthesize(so);
  return std::vector<float>(rec.signal.begin(), rec.signal.end());
}

// A beat matrix for the model's tests: `rows` rows of `dims` samples, noisy copies of one smooth
// beat shape, the last `outliers` rows another shape (seeded: the same rows every time).
inline std::vector<float> beat_rows(int rows, int outliers, int dims) {
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  std::vector<float> m(static_cast<std::size_t>(rows) * dims);
  for (int r = 0; r < rows; ++r)
    for (int t = 0; t < dims; ++t) {
      const double u = (t - dims / 2.0) / 4.0;
      const double shape = r < rows - outliers ? std::exp(-0.5 * u * u) : -0.8 * std::sin(t * 0.3);
      m[static_cast<std::size_t>(r) * dims + t] = static_cast<float>(shape) + noise(rng);
    }
  return m;
}

// A clean synthetic ECG at 250 Hz: one narrow Gaussian "QRS" every `rr` samples plus a broad T
// wave, so the seed's detector finds exactly one gate per beat.
inline std::vector<float> synthetic_ecg(int beats, int rr) {
  constexpr double kQrsSigma = 4.0, kTSigma = 15.0, kTDelay = 60.0, kTAmp = 0.3;
  const int first = rr;  // leave a beat's length before the first R peak
  std::vector<float> x(static_cast<std::size_t>(first + beats * rr + rr), 0.0f);
  for (int b = 0; b < beats; ++b) {
    const double r = first + b * rr + (b % 3) * 2;  // a little RR variation
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double d = static_cast<double>(i) - r;
      x[i] += static_cast<float>(std::exp(-0.5 * d * d / (kQrsSigma * kQrsSigma)) +
                                 kTAmp * std::exp(-0.5 * (d - kTDelay) * (d - kTDelay) / (kTSigma * kTSigma)));
    }
  }
  return x;
}

// n samples of white Gaussian noise (mean 0, sd 1), the same for the same seed.
inline std::vector<float> normal_noise(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> x(n);
  for (auto& v : x) v = d(gen);
  return x;
}

inline void write_signal_csv(const fs::path& path, const std::vector<float>& x, const std::string& header = "heartbeats") {
  std::ofstream out(path);
  out << header << '\n';
  char buf[32];
  for (float v : x) {
    std::snprintf(buf, sizeof buf, "%.6f\n", static_cast<double>(v));
    out << buf;
  }
}

struct Result {
  int code = -1;
  std::string out, err;
};

// How long one child of a test may run. A child that never ends would hold its test until
// ctest's TIMEOUT (600 s, tests/CMakeLists.txt) killed it with nothing said but "Timeout". The
// bound is far above what any legitimate child needs and below ctest's
// TIMEOUT, so a hang is reported by the test, with the command. The slowest children under ASan
// (`ctest -L "cli|slow" -j2`, 2 cores at load ~7, 2026-11-26): a 30-epoch `run` 29 s, the
// 60-epoch two-recording batch BatchCli.ASecondWriterOfOneOutIsRefused ran then 76 s; a usage
// error about 1 s. ECGPIPE_TEST_CHILD_TIMEOUT (seconds) sets another bound, e.g. for valgrind.
inline int child_timeout_seconds() {
  constexpr int kDefaultSeconds = 240;
  const char* env = std::getenv("ECGPIPE_TEST_CHILD_TIMEOUT");
  const int given = env != nullptr ? std::atoi(env) : 0;
  return given > 0 ? given : kDefaultSeconds;
}

// `p` as one shell word, for the command lines run_bounded and run_ecgpipe take: in single quotes,
// a quote inside it closed, escaped and reopened (a test's path may hold one: odd names are tested).
inline std::string q(const fs::path& p) {
  std::string out = "'";
  for (const char c : p.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `program` (already shell-quoted) with `args` (a shell-quoted string) under coreutils
// timeout(1), stdout and stderr into files of `scratch`, stdin from /dev/null. Past `limit`
// seconds (child_timeout_seconds() unless given) the child gets SIGABRT -- ecgpipe's crash
// report then writes where it was stuck into its stderr -- and SIGKILL 10 s later if that did not
// end it (a process stopped by a ptrace tracer, as LeakSanitizer's exit-time check stops it, takes
// no other signal). A child that ran past the bound is a test failure naming the command, with
// its stderr. The code is as a shell reports it: the exit status, or 128 + N for a death by
// signal N.
namespace detail_bounded {
struct Bounded {
  Result result;
  bool timed_out = false;
};
inline Bounded run_once(const std::string& command, const fs::path& scratch, int limit) {
  const auto out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const std::string bounded = "timeout -s ABRT -k 10 " + std::to_string(limit) + " " + command + " >'" + out.string() +
                              "' 2>'" + err.string() + "' </dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(bounded.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Bounded b;
  Result& r = b.result;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  // timeout(1) exits 124 when the signal ended the child, 137 when SIGKILL had to; ecgpipe's own
  // codes are 0..6, and the elapsed time tells a timeout from an OOM kill (also 137).
  b.timed_out = (r.code == 124 || r.code == 137) && seconds >= limit;
  return b;
}
}  // namespace detail_bounded

// A child that hung fails the test at once, with its stderr (ecgpipe's backtrace of where it
// was). The hangs CI saw (2026-11-26, Issue11/CliBadOption..., "[ RUN ]" and then nothing for 600
// s) were never a child's: the test filled its command's placeholders in a loop that never ended
// when the random temp folder's name held one ("..._1INvHR" holds IN; fill_placeholders below).
inline Result run_bounded(const std::string& program, const std::string& args, const fs::path& scratch,
                          int limit = child_timeout_seconds()) {
  const std::string command = program + " " + args;
  detail_bounded::Bounded b = detail_bounded::run_once(command, scratch, limit);
  if (b.timed_out)
    ADD_FAILURE() << "child still running after " << limit << " s (stopped: hung, or ECGPIPE_TEST_CHILD_TIMEOUT too low"
                  << (b.result.code == 137 ? "; SIGABRT did not end it, SIGKILL did: stopped, e.g. under ptrace" : "")
                  << "): " << command << "\nits stderr:\n" << b.result.err;
  return b.result;
}

// `templ` with every placeholder (a key of `values`, e.g. IN, OUT) replaced by its value, in one
// pass from the left: what a value brings in is never searched again, so a path that happens to
// hold a placeholder (mkdtemp's random "..._1INvHR") is neither replaced again without end nor
// garbled by the next key. Keys are tried in the order given at each position.
inline std::string fill_placeholders(const std::string& templ, const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (std::size_t at = 0; at < templ.size();) {
    bool replaced = false;
    for (const auto& [key, value] : values)
      if (!key.empty() && templ.compare(at, key.size(), key) == 0) {
        out += value, at += key.size(), replaced = true;
        break;
      }
    if (!replaced) out += templ[at++];
  }
  return out;
}

// waitpid(pid, status, 0) for a child the test forked itself (e.g. to signal it), bounded as
// run_bounded bounds its children: past `limit` seconds the child gets SIGABRT (and SIGCONT, in
// case it is stopped), 10 s later SIGKILL, and the test fails naming `what`. Returns waitpid's
// result: `pid` once reaped.
inline pid_t wait_bounded(pid_t pid, int* status, const std::string& what, int limit = child_timeout_seconds()) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit);
  for (bool aborted = false;;) {
    const pid_t got = ::waitpid(pid, status, WNOHANG);
    if (got != 0) return got;  // reaped, or an error
    if (std::chrono::steady_clock::now() >= deadline) {
      if (aborted) {
        ::kill(pid, SIGKILL);
        return ::waitpid(pid, status, 0);
      }
      ADD_FAILURE() << "child still running after " << limit
                    << " s (stopped: hung, or ECGPIPE_TEST_CHILD_TIMEOUT too low): " << what;
      ::kill(pid, SIGABRT);  // ecgpipe's crash report writes where it was stuck
      ::kill(pid, SIGCONT);
      aborted = true;
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Runs the built ecgpipe with `args` (a shell-quoted string), capturing stdout and stderr; bounded
// (run_bounded).
inline Result run_ecgpipe(const std::string& args, const fs::path& scratch) {
  return run_bounded(std::string("'") + ECGPIPE_EXE + "'", args, scratch);
}

// The message of the InputError that `f` throws (a test failure and "" if it throws none).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const ecgpipe::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return {};
}

// MIT-format annotation files by hand (WFDB's annot(5)): one word is a code in the top 6 bits and
// a value (a time difference, or a count) in the low 10, little-endian.
using Bytes = std::vector<unsigned char>;
inline void put_word(Bytes& b, int code, unsigned value) {
  const unsigned w = (static_cast<unsigned>(code) << 10) | (value & 0x3FFu);
  b.push_back(static_cast<unsigned char>(w & 0xFF));
  b.push_back(static_cast<unsigned char>(w >> 8));
}
// SKIP (code 59): a 32-bit time difference in two words, high word first.
inline void put_skip(Bytes& b, std::uint32_t interval) {
  put_word(b, 59, 0);
  put_word(b, static_cast<int>(interval >> 26), (interval >> 16) & 0x3FFu);
  put_word(b, static_cast<int>((interval & 0xFFFFu) >> 10), interval & 0x3FFu);
}
// AUX (code 63): a string of the given length, padded to an even size.
inline void put_aux(Bytes& b, const std::string& s) {
  put_word(b, 63, static_cast<unsigned>(s.size()));
  b.insert(b.end(), s.begin(), s.end());
  if (s.size() % 2) b.push_back(0);
}

// The cells of a CSV text, row by row (no quoting in ecgpipe's outputs and synth's truth files).
inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    std::string cell;
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

inline std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace testutil
