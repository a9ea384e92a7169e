// The robust R-peak detector (detect.hpp) over a recording handed over in pieces, with memory that
// does not grow with the recording (issue 12): the band-pass, the envelope and the candidates are
// computed as the samples arrive and only their margins are kept; what grows is the compact
// candidate list (a few entries per beat).
//
// The result equals detect_beats_cpu(x, bandpass_cpu(x, width), options) exactly, whatever the
// pieces' sizes:
//  * the band-pass is computed by bandpass_cpu's own overlap-save blocks (bandpass.hpp), each
//    once its whole input has arrived;
//  * candidates are scanned (scan_candidates) only where their envelope sums and neighbourhoods
//    are complete, so every sum has the whole record's indices and order;
//  * each candidate is refined (refine_peak) as it is found, while its samples are at hand; the
//    floor (a fraction of the whole record's largest envelope) and the sequential threshold logic
//    (classify_candidates) run at the end on the compact list, then the accepted candidates take
//    their refined positions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/signal/detect.hpp"

namespace ecgpipe {

class StreamingDetector {
 public:
  // `excerpt` leading band-pass outputs are kept for the report (curvature_excerpt()).
  explicit StreamingDetector(const DetectOptions& options, std::size_t excerpt = 0);

  // The next `count` samples of the recording.
  void push(const float* x, std::size_t count);
  // The end of the recording: the detections (same as detect_beats_cpu). Once.
  Detection finish();

  std::int64_t samples() const { return n_; }
  // bandpass_cpu(x)'s first min(excerpt, samples) values; complete after finish().
  const std::vector<double>& curvature_excerpt() const { return excerpt_; }
  // Seconds spent in the band-pass blocks (the rest of push/finish is detection).
  double bandpass_seconds() const { return bandpass_seconds_; }

 private:
  void advance(bool end);
  void run_blocks(bool end);
  void scan(bool end);
  void trim();

  DetectOptions options_;
  DetectWindows w_;
  BandpassBlocks blocks_;
  std::int64_t n_ = 0;
  bool finished_ = false;
  std::vector<float> x_;   // samples [x_begin_, n_)
  std::int64_t x_begin_ = 0;
  std::vector<float> head_;  // the first width-1 samples (the band-pass's wrap-around, at the end)
  std::int64_t next_block_ = 0;
  std::vector<double> bp_;   // band-pass outputs [bp_begin_, bp_begin_ + size) (from width-1 on)
  std::int64_t bp_begin_ = 0;
  std::int64_t scanned_ = 0;  // candidates found for positions < scanned_
  std::vector<ScannedCandidate> found_;
  std::vector<std::int64_t> refined_;  // per found_ entry
  double max_envelope_ = 0.0;
  double max_abs_ = 0.0;  // the largest |sample| pushed (above_round_off)
  std::size_t excerpt_wanted_ = 0;
  std::vector<double> excerpt_;
  double bandpass_seconds_ = 0.0;
};

}  // namespace ecgpipe
