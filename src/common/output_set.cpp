// OutputSet: see output.hpp. POSIX calls rather than std::filesystem for the writes: fsync,
// O_EXCL and hard links have no std::filesystem equivalent, and the signal handler may only use
// async-signal-safe calls (unlink, rmdir, rename).
#include "common/output_set.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "common/dir_locks.hpp"
#include "common/paths.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

namespace fs = std::filesystem;

namespace {

// --- What a signal handler must remove: a fixed table (no allocation in the handler), shared by
// every set being committed at once. A run's set takes about 12 slots (5 files, each with a
// temporary and a backup, and its directories); 64 slots made `--jobs 24` fail "too many output
// files in one set" (issue 25). 4096 hold the sets of --jobs' bound (kMaxJobs, batch.hpp) at once; the
// table is zero-initialised static memory, touched only where used.
constexpr int kSlots = 4096;
constexpr std::size_t kPathMax = 4096;
// kClaimed: taken by a thread that is still writing the path in; the handler skips it.
enum Kind : int { kFree = 0, kFile = 1, kDir = 2, kClaimed = 3 };
char g_path[kSlots][kPathMax];
std::atomic<int> g_kind[kSlots];
// The number of commits whose renames are under way (signals wait for them: `--jobs N` commits
// from several threads), plus kDying once a handler removes the temporaries and ends the process.
constexpr int kDying = 1 << 30;
std::atomic<int> g_state{0};
std::atomic<int> g_pending_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

int register_path(const std::string& path, Kind kind) {
  if (path.size() >= kPathMax) throw OutputError("output path too long: " + path);
  for (int k = 0; k < kSlots; ++k) {
    // Claimed with one atomic step: a load-then-store let two threads take one free slot at once,
    // each write its path into it and both get its number (one temporary then lost to the handler:
    // OutputSet.ConcurrentRegistrationsGetDistinctSlots).
    int free_slot = kFree;
    if (!g_kind[k].compare_exchange_strong(free_slot, kClaimed)) continue;
    std::memcpy(g_path[k], path.c_str(), path.size() + 1);
    g_kind[k].store(kind);  // published after the path is complete
    return k;
  }
  throw OutputError("too many output files being written at once (" + std::to_string(kSlots) + ")");
}

void unregister_path(int slot) {
  if (slot >= 0) g_kind[slot].store(kFree);
}

// Async-signal-safe: files first, then the directories made for them, newest first.
void remove_registered() {
  for (int k = 0; k < kSlots; ++k)
    if (g_kind[k].load() == kFile) ::unlink(g_path[k]);
  for (int k = kSlots - 1; k >= 0; --k)
    if (g_kind[k].load() == kDir) ::rmdir(g_path[k]);
}

// Claims the right to remove the temporaries and end the process: true unless renames are under
// way (then the last commit to finish them raises the pending signal) or another handler has it.
bool claim_dying(int sig) {
  int s = g_state.load();
  for (;;) {
    if (s & kDying) return false;
    if (s > 0) {  // renames under way: end once every set being renamed is whole
      g_pending_signal.store(sig);
      if ((s = g_state.load()) != 0) return false;  // the last renamer to finish raises it
      // The renames ended before the signal was recorded: take it back and claim it here,
      // unless a renamer took it already (then that one raises it).
      if (g_pending_signal.exchange(0) == 0) return false;
      continue;
    }
    if (g_state.compare_exchange_weak(s, kDying)) return true;
  }
}

extern "C" void on_terminating_signal(int sig) {
  if (claim_dying(sig)) {
    remove_registered();
  } else if (!(g_state.load() & kDying)) {
    return;  // pending: raised again when the renames end
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void remove_output_temporaries_on_crash() {
  int idle = 0;
  if (g_state.compare_exchange_strong(idle, kDying)) remove_registered();
}

namespace {

// While alive, signals wait instead of cutting the renames of a set in half.
class SignalsWait {
 public:
  SignalsWait() {
    int s = g_state.load();
    for (;;) {
      // A handler already removes the temporaries and ends the process: wait for it.
      if (s & kDying) {
        ::pause();
        s = g_state.load();
        continue;
      }
      if (g_state.compare_exchange_weak(s, s + 1)) return;
    }
  }
  ~SignalsWait() {
    if (g_state.fetch_sub(1) == 1) {
      if (const int sig = g_pending_signal.exchange(0)) on_terminating_signal(sig);
    }
  }
  SignalsWait(const SignalsWait&) = delete;
  SignalsWait& operator=(const SignalsWait&) = delete;
};

}  // namespace

int make_output_dir(const std::string& dir) {
  SignalsWait wait;  // registered and made together: a handler never misses it
  const int slot = register_path(dir, kDir);
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    unregister_path(slot);
    throw OutputError("cannot create output directory " + dir + ": " + std::strerror(errno));
  }
  return slot;
}

void forget_output_dir(int entry) { unregister_path(entry); }

namespace {

std::string errno_text() { return std::strerror(errno); }

bool process_alive(long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH; }

// Temporaries (and backups) of `name` in `dir` left by processes that no longer run: this
// version's ".NAME.ecgpipe-tmp.PID" / ".NAME.ecgpipe-bak.PID", and earlier versions'
// ".NAME.tmp.PID" (run) and "NAME.tmp.PID" (synth). A live process's are left alone.
void remove_stale_temporaries(const fs::path& dir, const std::string& name) {
  const std::string prefixes[] = {"." + name + ".ecgpipe-tmp.", "." + name + ".ecgpipe-bak.", "." + name + ".tmp.",
                                  name + ".tmp."};
  std::vector<std::string> entries, stale;
  if (!detail::list_directory(dir.string(), entries)) return;
  for (const std::string& entry : entries) {
    for (const auto& prefix : prefixes) {
      if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string digits = entry.substr(prefix.size());
      if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
      const long pid = std::strtol(digits.c_str(), nullptr, 10);
      if (pid != static_cast<long>(::getpid()) && !process_alive(pid)) stale.push_back(entry);
    }
  }
  for (const auto& entry : stale) ::unlink((dir / entry).c_str());
}

// Writes all of `data` to the open `fd` and closes it; with sync, fsyncs first, so a full disk
// shows here (some file systems only report it at fsync or close), not after the rename.
// Errors name `shown`, the file the user asked for.
// A text file's bytes go from its stream's buffer in pieces of this size, never copied whole
// (a 7-day recording's beats.csv is ~100 MB; issue 12).
constexpr std::size_t kWritePiece = std::size_t{1} << 20;

// Writes the content (the bytes, or what is left to read of the text stream) and closes fd.
void write_and_close(int fd, const std::vector<std::string>& data, std::streambuf* text, bool sync, const std::string& shown) {
  const auto fail = [fd, &shown](const std::string& why) {
    ::close(fd);
    throw OutputError("cannot write " + shown + ": " + why);
  };
  const auto write_all = [&](const char* p, std::size_t left) {
    while (left > 0) {
      const ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail(n < 0 ? errno_text() : "short write");
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  };
  if (text == nullptr) {
    for (const std::string& piece : data) write_all(piece.data(), piece.size());
  } else {
    std::vector<char> piece(kWritePiece);
    for (std::streamsize got; (got = text->sgetn(piece.data(), static_cast<std::streamsize>(piece.size()))) > 0;)
      write_all(piece.data(), static_cast<std::size_t>(got));
  }
  if (sync && ::fsync(fd) != 0 && errno != EINVAL) fail(errno_text());  // EINVAL: no fsync there
  if (::close(fd) != 0) throw OutputError("cannot write " + shown + ": " + errno_text());
}

// Writes into an existing non-regular file (FIFO, character device): it cannot be replaced.
void write_through(const std::string& path, const std::vector<std::string>& data, std::streambuf* text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw OutputError("cannot open " + path + ": " + errno_text());
  write_and_close(fd, data, text, /*sync=*/false, path);
}

// What commit() has done so far, undone in reverse unless done() is called.
class Transaction {
 public:
  Transaction() = default;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (!done_) roll_back();
    for (int slot : slots_) unregister_path(slot);
  }

  // Creates the missing directories of `dir` (outermost first), remembered for the roll-back;
  // with create false, a missing one is an error naming `file`.
  void make_dirs(const fs::path& dir, bool create, const std::string& file) {
    std::vector<fs::path> missing;
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
      struct stat st {};
      if (::stat(p.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) throw OutputError("cannot create " + dir.string() + ": " + p.string() + " is not a directory");
        break;
      }
      if (!create) throw OutputError("cannot write " + file + ": directory " + dir.string() + " does not exist");
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      // Registered, then made, with signals waiting (SignalsWait): a handler that has already
      // passed this slot must not see the directory appear after it and end the process.
      SignalsWait wait;
      const int slot = register_path(it->string(), kDir);
      if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST) {
        unregister_path(slot);
        throw OutputError("cannot create directory " + it->string() + ": " + errno_text());
      }
      slots_.push_back(slot);
      dirs_.push_back(*it);
    }
  }
  // Registers `temp` for removal by a signal and, unless `create` is false, creates it empty (the
  // descriptor is returned), both with signals waiting: a --jobs N batch's temporaries survived
  // SIGTERM when one thread created a file after the handler, running on another thread, had
  // removed the registered ones and was about to end the process (issue 25: 32 of 60 tries at
  // --jobs 12). The writing itself happens after, outside the wait: a signal then removes the
  // file while the writer still holds its descriptor.
  int add_temp(const std::string& temp, bool create, const std::string& shown) {
    SignalsWait wait;
    slots_.push_back(register_path(temp, kFile));
    temps_.push_back(temp);
    if (!create) return -1;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw OutputError("cannot create " + shown + ": " + errno_text());
    return fd;
  }
  // Renames `temp` onto `target`, keeping what was there as `backup` (a hard link) until done().
  void replace(const std::string& temp, const std::string& target, const std::string& backup) {
    bool backed_up = false;
    struct stat st {};
    if (::lstat(target.c_str(), &st) == 0) {
      ::unlink(backup.c_str());
      backed_up = ::link(target.c_str(), backup.c_str()) == 0;  // not on every file system
      if (backed_up) backups_.push_back(backup);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
      const std::string why = errno_text();
      throw OutputError("cannot rename " + temp + " to " + target + ": " + why);
    }
    renamed_.push_back({target, backed_up ? backup : std::string()});
  }
  // Takes `target` away (renamed to `backup` until done(), renamed back by a roll-back): a file
  // that must not outlive the set it belonged to. Nothing there: nothing to do.
  void remove(const std::string& target, const std::string& backup) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) return;
    ::unlink(backup.c_str());
    if (::rename(target.c_str(), backup.c_str()) != 0) throw OutputError("cannot remove " + target + ": " + errno_text());
    backups_.push_back(backup);
    renamed_.push_back({target, backup});
  }
  void done() {
    done_ = true;
    for (const auto& b : backups_) ::unlink(b.c_str());
  }

  // Undoes everything (idempotent): renamed targets back to what they were, temporaries,
  // backups and created directories removed.
  void roll_back() {
    for (auto it = renamed_.rbegin(); it != renamed_.rend(); ++it) {
      if (it->second.empty())
        ::unlink(it->first.c_str());
      else
        ::rename(it->second.c_str(), it->first.c_str());
    }
    for (const auto& t : temps_) ::unlink(t.c_str());
    for (const auto& b : backups_) ::unlink(b.c_str());
    for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it) ::rmdir(it->c_str());
    renamed_.clear();
    temps_.clear();
    backups_.clear();
    dirs_.clear();
  }

 private:
  bool done_ = false;
  std::vector<int> slots_;
  std::vector<fs::path> dirs_;
  std::vector<std::string> temps_, backups_;
  std::vector<std::pair<std::string, std::string>> renamed_;  // target, backup ("" if none)
};

// Where `path` really goes: through a symlink to its target.
fs::path resolve_target(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(path, ec);
    if (ec) throw OutputError("cannot follow the symlink " + path + ": " + ec.message());
    return target;
  }
  return path;
}

// Test seam: with ECGPIPE_TEST_STOP_BEFORE_COMMIT set, the process stops itself (SIGSTOP) when
// the set's temporaries are written and before any rename, so a test can send a signal at the
// moment the temporaries exist. Nothing else reads it. Once continued it waits up to 10 s for
// that signal: the kernel may hand a process-directed signal to another thread (LibTorch's, the
// CUDA driver's), which can run its handler after this thread has entered the renames, where the
// signal waits until the set is whole (a correct outcome, but not the one the test is about).
void test_stop_before_rename() {
  if (std::getenv("ECGPIPE_TEST_STOP_BEFORE_COMMIT") == nullptr) return;
  ::raise(SIGSTOP);
  constexpr int kWaitSteps = 1000;  // of 10 ms
  for (int i = 0; i < kWaitSteps; ++i) ::usleep(10000);
}

// Test seam: with ECGPIPE_TEST_PAUSE_AFTER_RENAME_MS=N a commit sleeps N ms after each rename,
// so that a test can run another writer's whole commit inside this one's
// (CliOutputs.TwoWritersOfOneSetLeaveOneOfThemWhole).
void test_pause_after_rename() {
  static const long ms = [] {
    const char* v = std::getenv("ECGPIPE_TEST_PAUSE_AFTER_RENAME_MS");
    return v == nullptr ? 0L : std::strtol(v, nullptr, 10);
  }();
  if (ms > 0) ::usleep(static_cast<useconds_t>(ms) * 1000);
}

// The folder a path lies in ("." for a bare name).
fs::path folder_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// The hidden file beside `target` that process `pid`'s commit keeps as `kind` ("tmp", "bak"), in
// the form remove_stale_temporaries knows.
std::string beside(const fs::path& target, const char* kind, const std::string& pid) {
  return (folder_of(target) / ("." + target.filename().string() + ".ecgpipe-" + kind + "." + pid)).string();
}

bool locked_here(const struct stat& st) {
  return output_dir_locked_here(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
}

// Two writers of one set at once (two `synth`s of one OUT) renamed their files in turn, and the
// directory was left with one's signal and the other's truth. The renames of a commit hold an
// exclusive flock(2) on each directory they rename into, so such commits run one after the other
// and the last is whole. Taken in one order (by device and inode), so two commits never wait on
// each other in a circle; held for the renames alone (microseconds: a commit of another set into
// the same folder waits that long). Not on a directory of this process's own OutputLock, and not
// where the file system takes no locks (refusing to write would be worse than the race).
class CommitLocks {
 public:
  explicit CommitLocks(const std::vector<fs::path>& dirs) {
    for (const fs::path& d : dirs) {
      const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) continue;  // the renames will say what is wrong with it
      struct stat st {};
      if (::fstat(fd, &st) != 0 || locked_here(st)) {
        ::close(fd);
        continue;
      }
      held_.push_back({{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}, fd, d.string()});
    }
    std::sort(held_.begin(), held_.end(), [](const Dir& a, const Dir& b) { return a.id < b.id; });
    std::vector<Dir> once;  // one directory named twice is locked once
    for (Dir& d : held_) {
      if (!once.empty() && once.back().id == d.id)
        ::close(d.fd);
      else
        once.push_back(std::move(d));
    }
    held_ = std::move(once);
    try {
      for (const Dir& d : held_) lock(d);
    } catch (...) {
      close_all();
      throw;
    }
  }
  ~CommitLocks() { close_all(); }
  CommitLocks(const CommitLocks&) = delete;
  CommitLocks& operator=(const CommitLocks&) = delete;

 private:
  struct Dir {
    std::pair<std::uint64_t, std::uint64_t> id;  // device and inode
    int fd;
    std::string name;
  };

  // Another commit holds a directory for microseconds; a run, batch or `rhythm` of another process
  // holds its --out for as long as it writes (OutputLock): past kWait that is what this is, and
  // the set is refused as OutputLock refuses a second writer (exit 4, the holder's pid).
  static void lock(const Dir& d) {
    constexpr auto kWait = std::chrono::seconds(10);
    const auto until = std::chrono::steady_clock::now() + kWait;
    for (;;) {
      if (::flock(d.fd, LOCK_EX | LOCK_NB) == 0) return;
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) return;  // no locks on this file system: go on without
      if (std::chrono::steady_clock::now() >= until)
        throw OutputError(written_by_another(d.name, d.fd) + ": wait for it or write elsewhere");
      ::usleep(1000);
    }
  }

  void close_all() {
    for (const Dir& d : held_) ::close(d.fd);  // releases the flock
    held_.clear();
  }

  std::vector<Dir> held_;
};

}  // namespace

void install_output_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_terminating_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void check_output_dir(const std::string& dir) {
  fs::path p = dir.empty() ? fs::path(".") : fs::path(dir);
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw OutputError("output path " + dir + " is not a directory");
  } else {
    // The nearest existing ancestor, which commit() will create the rest under.
    do {
      p = p.has_parent_path() && p.parent_path() != p ? p.parent_path() : fs::path(".");
    } while (::stat(p.c_str(), &st) != 0 && p != ".");
    if (!S_ISDIR(st.st_mode))
      throw OutputError("cannot create output directory " + dir + ": " + p.string() + " is not a directory");
  }
  if (::access(p.c_str(), W_OK | X_OK) != 0)
    throw OutputError("cannot write into output directory " + dir + ": " + errno_text());
}

OutputSet::OutputSet(bool create_dirs) : create_dirs_(create_dirs) {}
OutputSet::~OutputSet() = default;

std::ostream& OutputSet::text(const std::string& path) {
  files_.push_back(std::make_unique<File>());
  files_.back()->path = path;
  return files_.back()->text;
}

void OutputSet::bytes(const std::string& path, std::string data) {
  std::vector<std::string> one;
  one.push_back(std::move(data));
  pieces(path, std::move(one));
}

void OutputSet::pieces(const std::string& path, std::vector<std::string> parts) {
  files_.push_back(std::make_unique<File>());
  files_.back()->path = path;
  files_.back()->data = std::move(parts);
  files_.back()->is_text = false;
}

void OutputSet::remove(const std::string& path) { removals_.push_back(path); }

void OutputSet::commit() {
  if (committed_) throw InternalError("an output set is committed twice");
  const std::string pid = std::to_string(static_cast<long long>(::getpid()));
  struct Plan {
    const File* file;
    fs::path target;
    bool direct;
    std::string temp, backup;
  };
  std::vector<Plan> plans;
  for (const auto& f : files_) {
    Plan p{f.get(), resolve_target(f->path), false, {}, {}};
    struct stat st {};
    if (::stat(p.target.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) throw OutputError("cannot write " + f->path + ": it is a directory");
      p.direct = !S_ISREG(st.st_mode);
    }
    plans.push_back(std::move(p));
  }

  // Files of an earlier set that this one does not have: regular files and links only (a FIFO
  // or a device someone put there is not ours to take away).
  struct Removal {
    std::string target, backup;
  };
  std::vector<Removal> removals;
  std::vector<fs::path> dirs;  // every folder the renames touch: locked for them (CommitLocks)
  for (const std::string& path : removals_) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) continue;
    removals.push_back({path, beside(path, "bak", pid)});
    dirs.push_back(folder_of(path));
  }

  Transaction tx;
  for (const Removal& r : removals) tx.add_temp(r.backup, /*create=*/false, r.target);
  // 1. Every regular file complete under a temporary name beside its target.
  for (auto& p : plans) {
    if (p.direct) continue;
    const fs::path dir = folder_of(p.target);
    dirs.push_back(dir);
    tx.make_dirs(dir, create_dirs_, p.file->path);
    remove_stale_temporaries(dir, p.target.filename().string());
    p.temp = beside(p.target, "tmp", pid);
    p.backup = beside(p.target, "bak", pid);
    tx.add_temp(p.backup, /*create=*/false, p.file->path);  // made during the renames; a signal removes it too
    const int fd = tx.add_temp(p.temp, /*create=*/true, p.file->path);
    write_and_close(fd, p.file->data, p.file->is_text ? p.file->text.rdbuf() : nullptr, /*sync=*/true, p.file->path);
  }
  test_stop_before_rename();
  {
    const CommitLocks locks(dirs);
    // 2. All renames, or none: a failure puts every earlier file back.
    SignalsWait wait;
    try {
      for (const auto& p : plans) {
        if (p.direct) continue;
        tx.replace(p.temp, p.target.string(), p.backup);
        test_pause_after_rename();
      }
      for (const Removal& r : removals) tx.remove(r.target, r.backup);
    } catch (...) {
      tx.roll_back();  // before a waiting signal may end the process
      throw;
    }
    // 3. FIFOs and devices last: they cannot be rolled back, the regular files still can.
  }
  for (const auto& p : plans)
    if (p.direct) write_through(p.target.string(), p.file->data, p.file->is_text ? p.file->text.rdbuf() : nullptr);
  tx.done();
  committed_ = true;
}

}  // namespace ecgpipe
