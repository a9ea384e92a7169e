// Internal, model code only: LibTorch's errors (c10::Error) carry a C++ backtrace in what(), dozens
// of lines, which reached the user's terminal and error.json whole. ecgpipe reports one line: the
// model stage's entry points (vae.cpp) turn them into InternalError with the message's first line.
#pragma once

#include <c10/util/Exception.h>

#include <string>
#include <utility>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe::detail {

// f(), with a c10::Error rethrown as InternalError("WHAT: LibTorch: first line of its message").
template <class F>
decltype(auto) with_torch_errors_as_ours(const char* what, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const c10::Error& e) {
    const std::string message = e.what_without_backtrace();
    throw InternalError(std::string(what) + ": LibTorch: " + message.substr(0, message.find('\n')));
  }
}

}  // namespace ecgpipe::detail
