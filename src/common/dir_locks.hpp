// What the flock(2)s on output directories share: who holds one, and which directories this
// process holds (src/common/output_lock.hpp takes them for a writer's whole run;
// src/common/output_set.hpp for the renames of a commit).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

namespace ecgpipe {

// The pid that holds an flock on the file `st` describes, from /proc/locks ("1: FLOCK  ADVISORY
// WRITE 1234 08:01:56789 0 EOF"), or "" where it cannot be told (no /proc, another namespace).
std::string lock_holder(const struct stat& st);
// "DIR is being written by another ecgpipe (pid N)", for a directory whose flock another holds
// (`fd` open on it; the pid where lock_holder can tell it).
std::string written_by_another(const std::string& dir, int fd);

// The directories this process holds an OutputLock on, by device and inode. A commit locks each
// directory it renames into for the renames' time, but not these: they are its own already, and
// an flock on another descriptor of one would wait for this process itself.
void note_output_dir_locked(std::uint64_t dev, std::uint64_t ino);
void note_output_dir_unlocked(std::uint64_t dev, std::uint64_t ino);
bool output_dir_locked_here(std::uint64_t dev, std::uint64_t ino);

}  // namespace ecgpipe
