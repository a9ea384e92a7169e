// Whole small files that ecgpipe reads back from places a user controls (JSON outputs, model
// files): opened without blocking (a FIFO or a device would hang open() or read()), read only when
// they are regular files, and never past a bound that the caller states for that kind of file.
#pragma once

#include <cstddef>
#include <string>

namespace ecgpipe {

// The bytes of the regular file `path`; InputError naming it (with `what`, e.g. "model file") when
// it is missing, not a regular file, larger than `max_bytes` or grows past it while being read.
std::string read_regular_file(const std::string& path, std::size_t max_bytes, const std::string& what);

}  // namespace ecgpipe
