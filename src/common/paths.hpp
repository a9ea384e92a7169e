// Internal: the few file-system helpers several rooms need (inputs, outputs, summaries, the
// viewer, selftest). POSIX calls, not std::filesystem's directory iterator or remove_all: those
// crashed in a GCC 13 build linked with PyTorch 2.11's LibTorch (its libtorch.so carries its own
// copies of the std::filesystem symbols), which the GPU host's toolchain is.
#pragma once

#include <string>
#include <vector>

namespace ecgpipe::detail {

// `dir` + "/" + `name`; just `name` for an empty dir or ".".
std::string path_join(const std::string& dir, const std::string& name);
bool path_exists(const std::string& path);
bool is_directory(const std::string& path);  // following symlinks
// The entries of `dir` except "." and "..", in directory order; false if it cannot be opened.
bool list_directory(const std::string& dir, std::vector<std::string>& names);
// Removes `path` and everything under it (symlinks are removed, not followed); errors are
// ignored: for scratch folders.
void remove_tree(const std::string& path) noexcept;

}  // namespace ecgpipe::detail
