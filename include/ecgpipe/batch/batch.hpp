// Many recordings in one call (`ecgpipe run|detect|score A B DIR --manifest FILE --jobs N`): the
// list of recordings, their output folders and the driver that runs a per-recording function over
// them, `jobs` at a time, recording each one's outcome instead of stopping at the first failure.
// The per-recording work itself (run_pipeline, detect_file) is the callers'.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

struct BatchItem {
  std::string path;       // the recording (CSV, WFDB .hea/.dat, EDF/BDF)
  std::string reference;  // per-recording reference beats (manifest), empty = none
  std::string column;     // per-recording column/channel/signal (manifest), empty = the command's --column
  std::string name;       // its output folder under --out (output_names)
  std::string origin;     // where it came from, for messages: "FILE:LINE" of a manifest, or the argument
};

// A manifest: one recording per line, `path[,reference[,column]]` (fields trimmed; an empty
// field = none, e.g. `rec.edf,,ECG`); blank lines and lines starting with '#' are skipped.
// Relative paths are taken relative to the manifest's directory. InputError "FILE:LINE: ..." for
// more than three fields or an empty path; InputError for an unreadable or empty manifest.
std::vector<BatchItem> parse_manifest(const std::string& path);

// The recordings of a directory, sorted by name, not recursing: *.edf, *.bdf, *.hea (a WFDB
// record; its .dat is not listed again) and *.csv except reference files (*_beats.csv) and
// ecgpipe's own outputs (beats.csv, outliers.csv, summary.csv). InputError if there is none.
std::vector<std::string> directory_recordings(const std::string& dir);

// The reference annotations of a WFDB record: REC.atr beside REC.hea (a regular file), as WFDB
// tools read annotator `atr`; empty when `path` is not a .hea or there is no such file.
std::string wfdb_reference_beside(const std::string& path);

// Arguments (files or directories, in order) then the manifest's lines, as one list. A WFDB record
// (.hea) given without a reference gets wfdb_reference_beside's .atr when there is one (logged).
std::vector<BatchItem> expand_inputs(const std::vector<std::string>& args, const std::string& manifest);

// One part of the recordings for a job array (`--shard K/N`): every `count`-th recording from the
// `index`-th (0-based), in input order. The output names stay those of the whole list, so the
// parts of one manifest write the same folders as one call would.
struct Shard {
  int index = 0;
  int count = 1;
};
// "K/N" with 0 <= K < N, or "slurm": the shard of this Slurm job-array task (slurm_array_shard).
// UsageError otherwise.
Shard parse_shard(const std::string& text);
// From Slurm's job-array variables: index (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
// SLURM_ARRAY_TASK_STEP of SLURM_ARRAY_TASK_COUNT (MIN 0 and STEP 1 when unset). UsageError outside
// a job array or for values that do not fit.
Shard slurm_array_shard();
// The items of `shard`.
std::vector<BatchItem> select_shard(const std::vector<BatchItem>& items, const Shard& shard);

// Whether a command line means "many recordings": more than one argument, a directory or a manifest.
bool is_batch(const std::vector<std::string>& args, const std::string& manifest);

// --jobs' bound: far more recordings at a time than cores or GPUs serve well, and what the output
// sets' signal table holds at once (src/common/output_set.cpp).
inline constexpr int kMaxJobs = 256;

// What a batch writes into --out beside the recordings' folders (the summary: batch_summary.hpp;
// the cohort model: cohort.hpp). No folder is given one of these names.
inline constexpr const char* kBatchOwnFiles[] = {"index.html", "summary.csv", "summary.json", "model.pt",
                                                 "model.safetensors"};

// The output folder name of each path: the file name without its extension ("100" for 100.csv,
// 100.hea and 100.edf). Repeated names get "-2", "-3", ... in input order ("100", "100-2"), skipping
// any name already taken, any other path's own name (100-2.csv keeps "100-2") and the batch's own
// files (kBatchOwnFiles), so the result is deterministic and unique.
std::vector<std::string> output_names(const std::vector<std::string>& paths);

struct BatchOutcome {
  std::string name;
  std::string path;
  bool ok = false;
  ExitCode code = ExitCode::ok;  // of the failure
  std::string error;             // its message
  double seconds = 0.0;
};

struct BatchOptions {
  int jobs = 1;           // recordings at a time (threads of this process)
  bool progress = false;  // a progress bar over recordings on stderr
};

// Calls `work(item)` for every item, `jobs` at a time. An ecgpipe::Error (or any exception) of
// one item is caught and recorded in its outcome; the others go on. Outcomes in item order.
std::vector<BatchOutcome> run_batch(const std::vector<BatchItem>& items, const BatchOptions& options,
                                    const std::function<void(const BatchItem&)>& work);

// LibTorch threads for each of `jobs` concurrent recordings: `threads` if given (> 0), else
// max(1, available / jobs) where available is OMP_NUM_THREADS or else the cores.
int threads_per_job(int threads, int jobs);

// The exit code of a finished batch: ok when every recording succeeded, else
// ExitCode::some_failed. Also logs one line per failed recording.
ExitCode batch_exit_code(const std::vector<BatchOutcome>& outcomes);

}  // namespace ecgpipe
