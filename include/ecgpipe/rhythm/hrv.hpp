// Heart-rate variability over NN intervals, by the definitions of the 1996 Task Force of the ESC
// and NASPE ("Heart rate variability: standards of measurement, physiological interpretation and
// clinical use", Circulation 93:1043-1065). Figures in ms (time domain) and ms^2 (power).
//
// NN intervals: an RR interval between two consecutive beats that are both class N, neither in
// artefact (`usable`), and not ending a pause or starting in one beyond `max_nn_s`; every other
// interval is left out (ectopy and artefact break the NN series, they are not interpolated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ecgpipe/rhythm/af_detect.hpp"

namespace ecgpipe {

struct HrvOptions {
  double segment_s = 300.0;      // SDANN / SDNN index / LF-HF segments: 5 minutes
  double min_nn_s = 0.3;         // an NN interval outside [min_nn_s, max_nn_s] is left out
  double max_nn_s = 2.0;
  double min_segment_coverage = 0.8;  // a segment counts when its NN intervals cover >= 80 % of it
  // CPU threads for the segments' spectra (4032 segments in 14 days: 1.5 s on one thread). The
  // result does not depend on it: each segment's powers are computed alone and summed in order.
  int threads = 1;
};

struct HrvResult {
  std::size_t nn_intervals = 0;  // NN intervals used
  std::size_t rr_intervals = 0;  // RR intervals in the record (NN / RR: how much was usable)
  double nn_seconds = 0.0;       // the NN intervals' total duration: how much time the figures rest on
  // Time domain, NaN where undefined. Segments: 5 minutes from the first beat; an interval belongs
  // to the segment of its ending beat; a segment counts when it holds >= 2 NN intervals covering
  // min_segment_coverage of it.
  double mean_nn_ms = 0.0;     // NaN without an NN interval
  double sdnn_ms = 0.0;        // SD of all NN intervals (sample SD, n - 1); NaN below 2
  double sdann_ms = 0.0;       // SD (n - 1) of the counted segments' mean NN; NaN below 2 segments
  double sdnn_index_ms = 0.0;  // mean of the counted segments' SDNN; NaN without a segment
  double rmssd_ms = 0.0;       // root mean square of successive NN differences (both intervals NN, adjacent)
  // NN50 (successive differences of more than 50 ms, exactly 50 is not) over the number of NN
  // intervals, in % (the Task Force's definition; NeuroKit2's). RMSSD and pNN50 NaN without a pair.
  double pnn50_percent = 0.0;
  std::size_t segments = 0;    // 5-minute segments that counted
  // Frequency domain, averaged over the counted segments (short-term, Task Force): power of the
  // NN series resampled at 4 Hz by a cubic spline, linear trend removed, Welch within the segment
  // (src/rhythm/hrv.cpp says why each), in ms^2. Bands [lo, hi). NaN without a segment.
  double vlf_ms2 = 0.0;  // 0.0033-0.04 Hz
  double lf_ms2 = 0.0;   // 0.04-0.15 Hz
  double hf_ms2 = 0.0;   // 0.15-0.4 Hz
  double total_ms2 = 0.0;  // below 0.4 Hz (the Task Force's total power of a 5-minute recording)
  double lf_hf = 0.0;    // lf / hf (NaN where hf is 0)
};

// The Task Force's shortest standard recording, "short-term": 5 minutes. Figures from less NN time
// (a record mostly in AF or ectopy, a 30-s recording) are defined and given, but the report and
// `ecgpipe rhythm` say they are short: SDNN and the rest grow with the length they are taken over,
// so they are not comparable with published values.
inline constexpr double kHrvShortTermS = 300.0;
inline bool hrv_under_short_term(const HrvResult& h) { return h.nn_seconds < kHrvShortTermS; }

// r_peaks: ascending samples of every beat; classes: one AAMI letter per beat (N S V F Q);
// usable: per beat, false inside artefact (empty: all usable); fs: the rate of the samples.
// UsageError for fs <= 0, InternalError for a size mismatch.
HrvResult compute_hrv(const std::vector<std::int64_t>& r_peaks, const std::vector<char>& classes,
                      const std::vector<bool>& usable, double fs, const HrvOptions& options = {});

// compute_hrv's `usable` for `run` and `rhythm` alike: the beats in neither artefact (`artefact`,
// per beat; empty: none) nor AF. AF's conducted beats are N, but their intervals say how the AV
// node filters fibrillation, not how the sinus node varies: the Task Force's HRV is of sinus rhythm.
std::vector<bool> hrv_usable_beats(const std::vector<bool>& artefact, const std::vector<Rhythm>& rhythm);

}  // namespace ecgpipe
