// Errors and the process exit codes they map to.
//
// Every failure is an exception derived from ecgpipe::Error that carries the exit code main()
// returns and a one-line message with context (which file, which line, which option). Only
// main() catches. The codes are documented in README.md ("Exit codes").
#pragma once

#include <stdexcept>
#include <string>

namespace ecgpipe {

enum class ExitCode : int {
  ok = 0,
  internal = 1,  // a bug or an unexpected runtime failure (CUDA, LibTorch)
  usage = 2,     // bad command line: unknown option, value out of range
  input = 3,     // bad input data: missing/empty file, non-numeric cell, too few beats
  output = 4,    // the output directory or a file in it cannot be written
  device = 5,    // --device cuda asked for, but no usable GPU / CUDA build
  some_failed = 6,  // many recordings in one call: at least one failed (the others completed; summary.csv)
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

struct UsageError : Error {
  explicit UsageError(const std::string& what) : Error(ExitCode::usage, what) {}
};
struct InputError : Error {
  explicit InputError(const std::string& what) : Error(ExitCode::input, what) {}
};
struct OutputError : Error {
  explicit OutputError(const std::string& what) : Error(ExitCode::output, what) {}
};
struct DeviceError : Error {
  explicit DeviceError(const std::string& what) : Error(ExitCode::device, what) {}
};
struct InternalError : Error {
  explicit InternalError(const std::string& what) : Error(ExitCode::internal, what) {}
};

}  // namespace ecgpipe
