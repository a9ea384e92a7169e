// The robust R-peak detector on the GPU (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/signal/detect.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ecgpipe/signal/bandpass_cuda.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

// --- GPU path (kernels/signal/detect.cu). Same results as the CPU functions above, bit for bit, on the
// same inputs; each synchronizes `stream` only where the host needs a value.

// Steps 1-5 from the device band-pass: shift, energy, moving average (a thread per sample), the
// floor from an exact max reduction (CUB), the candidate test inside a CUB DeviceSelect over the
// positions, then the features (a thread per candidate). Returns the compact list on the host,
// equal to find_candidates(bandpass copied to the host, options).
std::vector<Candidate> find_candidates_cuda(DeviceSpan<const double> bandpass, const DetectWindows& windows,
                                            cudaStream_t stream);

// max_abs_sample on the device (two CUB reductions; the host waits for the value).
double max_abs_cuda(DeviceSpan<const float> x, cudaStream_t stream);

// Step 7 for host positions (a thread per peak): equal to refine_peaks(signal on the host,
// positions, fs), sorted and unique. InternalError for a position outside the signal.
std::vector<std::int64_t> refine_peaks_cuda(DeviceSpan<const float> signal, const std::vector<std::int64_t>& positions,
                                            const DetectWindows& windows, cudaStream_t stream);

// Steps 1-7: find_candidates_cuda, classify_candidates on the host (the compact list only),
// refine_peaks_cuda. Equal to detect_beats_cpu on the same signal and band-pass.
Detection detect_beats_cuda(DeviceSpan<const float> signal, DeviceSpan<const double> bandpass,
                            const DetectOptions& options, cudaStream_t stream);

// The detector over a recording handed over in device chunks, with device memory that does not
// grow with it (issue 29): StreamingDetector's plan (detect_stream.hpp) with the same kernels as
// the whole-record functions above. The band-pass by BandpassBlocksCuda's blocks, each once its
// input has arrived; steps 1-5 only over positions whose sums and neighbourhoods are complete,
// without the floor; step 7 for every candidate while its samples are on the device. What grows
// is the compact candidate list on the host. The caller ends with detection_from_scan(found(),
// refined(), max_envelope(), max_abs_sample()): the floors, classify_candidates and the accepted
// candidates' refined() positions, the R peaks of detect_beats_cuda on the whole signal and
// BandpassPlan's band-pass, bit for bit.
// Everything runs on the construction's stream; the host waits once per scanned chunk and once per
// pushed chunk (its largest |sample|).
class StreamingDetectorCuda {
 public:
  // `excerpt` leading band-pass outputs are kept for the report (curvature_excerpt()).
  StreamingDetectorCuda(const DetectOptions& options, std::size_t excerpt, cudaStream_t stream);

  // The next samples of the recording, on the device (read before push returns to the host's
  // next chunk: the caller may reuse the memory once `stream` has passed this point).
  void push(DeviceSpan<const float> x);
  // The end of the recording. Once.
  void finish();

  std::int64_t samples() const { return n_; }
  const std::vector<ScannedCandidate>& found() const { return found_; }  // ascending positions
  const std::vector<std::int64_t>& refined() const { return refined_; }  // per found() entry
  double max_envelope() const { return max_envelope_; }
  double max_abs_sample() const { return max_abs_; }  // the largest |sample| pushed (above_round_off)
  // BandpassPlan's first min(excerpt, samples) values; complete after finish().
  const std::vector<double>& curvature_excerpt() const { return excerpt_; }
  // The most device memory the detector's windows held at once (bytes), and its band-pass's
  // fixed buffers: what a chunk costs beyond the chunk itself.
  std::size_t peak_window_bytes() const { return held_peak_; }
  std::size_t bandpass_bytes() const { return blocks_.device_bytes(); }

 private:
  void advance(bool end);
  void run_blocks(bool end);
  void scan(bool end);
  void trim();
  void note_held();

  DetectWindows w_;
  BandpassBlocksCuda blocks_;
  cudaStream_t stream_;
  DeviceBuffer<float> head_;  // the first width-1 samples (the wrap-around, at the end)
  std::int64_t bp_begin_;
  std::size_t excerpt_wanted_;
  std::int64_t head_size_ = 0;
  std::int64_t n_ = 0;
  bool finished_ = false;
  DeviceBuffer<float> x_;  // samples [x_begin_, n_)
  std::int64_t x_begin_ = 0;
  std::int64_t next_block_ = 0;
  DeviceBuffer<double> bp_;  // band-pass outputs [bp_begin_, bp_begin_ + size) (from width-1 on)
  std::int64_t scanned_ = 0;
  std::vector<ScannedCandidate> found_;
  std::vector<std::int64_t> refined_;
  double max_envelope_ = 0.0;
  double max_abs_ = 0.0;
  std::vector<double> excerpt_;
  std::size_t held_peak_ = 0;
};

}  // namespace ecgpipe
