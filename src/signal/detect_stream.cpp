// The robust detector over a recording in pieces (include/ecgpipe/signal/detect_stream.hpp).
//
// Three frontiers move forward as samples arrive: the band-pass blocks (block k needs
// x[k*hop, k*hop + L)), the candidate scan (positions whose envelope sums and +-h neighbourhoods
// lie within the band-pass computed so far), and the trimming of what no later step reads.
#include "ecgpipe/signal/detect_stream.hpp"

#include <algorithm>
#include <string>

#include "common/clock.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// Removes v's first `count` elements (the part before the kept margin).
template <typename T>
void drop_front(std::vector<T>& v, std::int64_t count) {
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace

StreamingDetector::StreamingDetector(const DetectOptions& options, std::size_t excerpt)
    : options_(options), w_(detect_windows(options)), blocks_(options.ricker_width, ricker_taps(Preset::robust)), bp_begin_(options.ricker_width - 1),
      excerpt_wanted_(excerpt) {}

void StreamingDetector::push(const float* x, std::size_t count) {
  if (finished_) throw InternalError("StreamingDetector::push after finish");
  if (count == 0) return;
  const auto wanted_head = static_cast<std::size_t>(blocks_.width() - 1);
  for (std::size_t i = 0; i < count && head_.size() < wanted_head; ++i) head_.push_back(x[i]);
  x_.insert(x_.end(), x, x + count);
  n_ += static_cast<std::int64_t>(count);
  max_abs_ = std::max(max_abs_, max_abs_sample(x, count));
  advance(false);
}

void StreamingDetector::advance(bool end) {
  run_blocks(end);
  scan(end);
  trim();
}

void StreamingDetector::run_blocks(bool end) {
  const std::int64_t L = blocks_.fft_length(), hop = blocks_.hop(), w1 = blocks_.width() - 1;
  const auto t0 = detail::Clock::now();
  for (;; ++next_block_) {
    const std::int64_t begin = next_block_ * hop, first = begin + w1;
    if (first >= n_) break;                 // no output of this block lies in the recording (yet)
    if (begin + L > n_ && !end) break;      // its input is not complete: wait for more samples
    const std::int64_t count = std::min(hop, n_ - first);
    if (bp_begin_ + static_cast<std::int64_t>(bp_.size()) != first) throw InternalError("StreamingDetector: band-pass blocks out of step");
    const std::size_t old = bp_.size();
    bp_.resize(old + static_cast<std::size_t>(count));
    blocks_.block(x_.data() + (begin - x_begin_), std::min(L, n_ - begin), bp_.data() + old, count);
    const auto wanted = static_cast<std::int64_t>(excerpt_wanted_);
    if (first < wanted) {
      const std::int64_t last = std::min(wanted, first + count);
      excerpt_.resize(static_cast<std::size_t>(last), 0.0);
      std::copy_n(bp_.begin() + static_cast<std::ptrdiff_t>(old), last - first, excerpt_.begin() + first);
    }
  }
  bandpass_seconds_ += detail::seconds_since(t0);
}

void StreamingDetector::scan(bool end) {
  const std::int64_t half = w_.half, h = w_.candidate_half, reach = refine_reach(w_);
  const std::int64_t bp_end = bp_begin_ + static_cast<std::int64_t>(bp_.size());
  // The scan may reach the positions whose sums need only computed band-pass (y(i) = bp[i + delay])
  // and whose refinement needs only samples already pushed.
  const std::int64_t frontier = end ? n_ : std::min(bp_end - w_.delay - h - half, n_ - reach - 1);
  if (frontier <= scanned_) return;
  const std::int64_t lo = std::max<std::int64_t>(0, scanned_ - h - half), hi = end ? n_ : frontier + h + half;
  const std::vector<double> y = aligned_bandpass(bp_.data(), bp_begin_, bp_end, lo, hi, w_);
  const std::int64_t n = end ? n_ : kUnknownLength;
  CandidateScan found = scan_candidates(y.data(), lo, hi, n, scanned_, frontier, w_);
  max_envelope_ = std::max(max_envelope_, found.max_envelope);
  for (const ScannedCandidate& c : found.found) {
    refined_.push_back(refine_peak(x_.data(), x_begin_, n, c.candidate.position, w_));
    found_.push_back(c);
  }
  scanned_ = frontier;
}

void StreamingDetector::trim() {
  const std::int64_t half = w_.half, h = w_.candidate_half, reach = refine_reach(w_);
  // Samples: the next block's input, the next refinements' windows, the last width-1 (the
  // band-pass's wrap-around reads them at the end).
  const std::int64_t keep_x = std::max<std::int64_t>(
      0, std::min({next_block_ * blocks_.hop(), scanned_ - reach, n_ - (blocks_.width() - 1)}));
  if (keep_x > x_begin_) {  // x_ holds [x_begin_, n_) and keep_x <= n_
    drop_front(x_, keep_x - x_begin_);
    x_begin_ = keep_x;
  }
  // Band-pass: what the next scan's lines-up y reads.
  const std::int64_t keep_bp = scanned_ - h - half + w_.delay;
  const std::int64_t drop_bp = std::min(keep_bp - bp_begin_, static_cast<std::int64_t>(bp_.size()));
  if (drop_bp > 0) {
    drop_front(bp_, drop_bp);
    bp_begin_ += drop_bp;
  }
}

Detection StreamingDetector::finish() {
  if (finished_) throw InternalError("StreamingDetector::finish called twice");
  advance(true);
  finished_ = true;
  // The band-pass's wrap-around, now that the recording's end is known (the report's excerpt only:
  // the detector zeroes these outputs).
  const std::int64_t m = std::min<std::int64_t>(n_, blocks_.width() - 1);
  const std::int64_t wrapped_wanted = std::min<std::int64_t>(m, static_cast<std::int64_t>(excerpt_wanted_));
  if (wrapped_wanted > 0) {
    excerpt_.resize(std::max(excerpt_.size(), static_cast<std::size_t>(std::min<std::int64_t>(n_, static_cast<std::int64_t>(excerpt_wanted_)))), 0.0);
    const float* tail = x_.data() + (n_ - m - x_begin_);
    for (std::int64_t i = 0; i < wrapped_wanted; ++i) excerpt_[static_cast<std::size_t>(i)] = blocks_.wrapped_output(head_.data(), tail, n_, i);
  }

  Detection d = detection_from_scan(found_, refined_, max_envelope_, max_abs_, options_);
  found_.clear();
  refined_.clear();
  return d;
}

}  // namespace ecgpipe
