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

// Text inputs a user names on the command line or in a header, manifest or pairs file (reference
// and annotation files, detections, WFDB headers, manifests): a FIFO or a process substitution is
// read as `cat` would read it, but never past `max_bytes` (/dev/zero named as a reference, or a
// header naming it as its signal file, filled memory until std::bad_alloc). InputError "cannot
// open PATH" / "cannot read PATH: why" (`what`, e.g. "WFDB header", before PATH when not empty).
std::string read_file_bounded(const std::string& path, std::size_t max_bytes, const std::string& what);
// The first `limit` bytes of `path`, fewer when it ends first; errors as read_file_bounded. For a
// WFDB signal file, of which the header says how much is read.
std::string read_file_prefix(const std::string& path, std::size_t limit, const std::string& what);

// The bound of read_file_bounded for text inputs: a month of one patient's beats.csv (~3 M beats,
// ~150 bytes a row) is ~0.5 GB; a MIT annotation file holds the same beats in 2-6 bytes each.
inline constexpr std::size_t kMaxTextInputBytes = std::size_t{1} << 30;

}  // namespace ecgpipe
