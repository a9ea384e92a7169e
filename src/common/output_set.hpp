// Output files that appear whole or not at all, as a set.
//
// A command's outputs (run: beats.csv, outliers.csv, model.safetensors, report.json, report.html; synth:
// the signal and its truth) are built in memory, then OutputSet::commit() writes each under a
// temporary name beside its target and only when every one is complete renames them into place.
// A failure at any point (disk full, a rename refused) removes the temporaries, puts back the
// files that were there before (kept as hard links until the end of the commit), and removes the
// directories it created: an earlier good set is never mixed with a new one, and a failed run
// leaves nothing behind. SIGINT/SIGTERM/SIGHUP remove the temporaries too (see
// install_output_signal_handlers), and temporaries of dead processes (the pid is in the name) are
// removed when a later commit writes beside them.
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ecgpipe {

// Checks, before minutes of work and without creating anything, that `dir` is, or could be
// created as, a directory we can write into: it exists and is a writable directory, or its
// nearest existing ancestor is. Throws OutputError naming `dir` otherwise.
void check_output_dir(const std::string& dir);

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporary files (and the
// directories created for them) of a commit under way, then end the process by the same signal,
// so a shell sees 128 + N (130 for SIGINT, 143 for SIGTERM). A signal that arrives while the
// renames of a commit run waits until the set is whole. main() calls this once.
void install_output_signal_handlers();

// For the crash report (crash_report.hpp), async-signal-safe: removes the temporaries of a commit
// under way unless its renames have begun (then the next run removes them as a dead process's).
void remove_output_temporaries_on_crash();

// Makes directory `dir` (its parent must exist; EEXIST is fine) and has the signal and crash
// handlers above remove it if it is still empty then; returns the entry for forget_output_dir.
// For directories made before an output set commits (src/common/output_lock.hpp).
int make_output_dir(const std::string& dir);
void forget_output_dir(int entry);

class OutputSet {
 public:
  // create_dirs: commit() creates missing parent directories (run's --out); else a missing
  // directory is an OutputError (a file path given by the user: synth, detect).
  explicit OutputSet(bool create_dirs = false);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // A text file of the set at `path`, built in memory until commit().
  std::ostream& text(const std::string& path);
  // A file of the set given as bytes (e.g. a serialised model).
  void bytes(const std::string& path, std::string data);
  // A file of the set given as consecutive pieces, written in order: a large text formatted in
  // pieces on threads is kept once, not also joined (beats.csv of 14 days: ~0.3 GB).
  void pieces(const std::string& path, std::vector<std::string> parts);

  // A file that is not part of the set and must not be left beside it (a truth file of an earlier
  // synth scenario): taken away with the renames of commit(), put back if the commit fails. Only a
  // regular file or a symbolic link (the link itself) is taken; a FIFO or device stays.
  void remove(const std::string& path);

  // Writes the set. A target that is a symlink is written through (its target is replaced, the
  // link stays); an existing target that is not a regular file (a FIFO, a character device such
  // as /dev/stdout) is written into directly, after the regular files are in place; a directory
  // is refused. Missing parent directories are created here (create_dirs), not before. Throws OutputError
  // naming the file and the reason; then nothing of the set is left and what was there before is
  // back.
  void commit();

 private:
  struct File {
    std::string path;
    std::stringstream text;  // in and out: commit() reads it back in pieces
    std::vector<std::string> data;  // bytes(): one piece; pieces(): many
    bool is_text = true;
  };
  std::vector<std::unique_ptr<File>> files_;
  std::vector<std::string> removals_;
  bool create_dirs_;
  bool committed_ = false;
};

}  // namespace ecgpipe
