// Internal: a loop over [0, n) on several CPU threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace ecgpipe::detail {

// Calls body(begin, end) on contiguous chunks covering [0, n), one chunk per thread, on up to
// `threads` threads (the calling thread takes the first chunk; fewer threads for small n). Every
// index is in exactly one chunk, so a body that writes only its own indices gives the same result
// for every thread count. The first exception a chunk throws is rethrown after all have ended.
template <class Body>
void parallel_chunks(std::size_t n, int threads, std::size_t min_chunk, Body&& body) {
  if (n == 0) return;
  const std::size_t by_size = (n + std::max<std::size_t>(min_chunk, 1) - 1) / std::max<std::size_t>(min_chunk, 1);
  const std::size_t parts = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), by_size));
  if (parts == 1) {
    body(std::size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  const auto run = [&](std::size_t part) {
    try {
      body(part * n / parts, (part + 1) * n / parts);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(parts - 1);
  for (std::size_t part = 1; part < parts; ++part) pool.emplace_back(run, part);
  run(0);
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ecgpipe::detail
