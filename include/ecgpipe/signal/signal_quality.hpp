// Signal quality: which stretches of a recording are unreadable (artefact), so that pauses, runs,
// rates and HRV are not made of noise (issue 27: in MIT-BIH 208 a stretch where the detector
// missed three beats became "longest pause 4.76 s").
//
// Method (docs/accuracy.md "Signal quality"), scaled by the median QRS amplitude A (peak to
// peak within 50 ms of the R peaks), in 2-s windows:
//  * noisy: the fast part of the signal (minus its 40-ms moving mean: muscle noise; P and T
//    waves are slower) has an RMS above 0.12 A over the window's samples farther than 100 ms
//    from every R peak;
//  * swinging: the slow part (the 0.3-s moving mean) spans more than 1.2 A (electrode motion,
//    a baseline that jumps; no ECG wave moves the mean of 0.3 s that far);
//  * flat: the signal does not change at all (a lead off);
//  such a window's span reaches 1 s beyond it on each side (noise fades in and out);
//  * a gap not known to be a pause: an RR interval longer than 1.5 s and 1.8 x the median of the
//    8 RR intervals around it whose inside, from 400 ms after the first R (past its T wave) to
//    150 ms before the second, swings by 0.5 A or more or is noisy as above: beats or noise the
//    detector did not take as beats (a true pause is a near-flat line with P waves at most).
// Artefact spans are these, merged; a beat is artefact when its R peak is in one.
// The thresholds were set by looking at MIT-BIH DS1 (its 2-s windows: fast RMS 0.04 A and slow
// span 0.6 A at their 99th percentiles outside the noisiest records; 208's two longest RR
// intervals, noise and missed beats in the reference, swing 1.8 and 1.2 A, its clean intervals
// 0.09 A at the median), the bundled sample (white noise of 0.07 A: readable) and `ecgpipe synth
// --scenario noise`; not fitted to labels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ecgpipe {

struct QualityOptions {
  double window_s = 2.0;            // window length
  double window_pad_s = 1.0;        // a flagged window's span reaches this far beyond it on each side
  double qrs_half_s = 0.05;         // half-width around R for the QRS amplitude
  double qrs_clear_s = 0.10;        // samples this close to an R peak are QRS, not noise
  double fast_mean_s = 0.04;        // fast part: the signal minus its mean over this
  double noise_fraction = 0.12;     // noisy: the fast part's RMS above this x A
  double slow_mean_s = 0.3;         // slow part: the mean over this
  double swing_fraction = 1.2;      // swinging: the slow part spans more than this x A
  double gap_min_s = 1.5;           // an RR interval is a gap from this length ...
  double gap_ratio = 1.8;           // ... and this x the local median RR on
  double gap_margin_s = 0.15;       // the inside of a gap ends this far before its second R
  double gap_t_wave_s = 0.40;       // ... and starts this far after its first
  double gap_range_fraction = 0.5;  // a gap whose inside spans this x A is not a pause
};

struct SignalQuality {
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;  // artefact, [start, end) samples, ascending, disjoint
  std::vector<bool> beat_artefact;                           // per R peak: inside a span
  double artefact_seconds(double fs) const;
};

// signal: n samples at fs; r_peaks ascending. No beats: the QRS scale is unknown and only
// flat windows are artefact.
SignalQuality assess_signal_quality(const float* signal, std::size_t n, const std::vector<std::int64_t>& r_peaks,
                                    double fs, const QualityOptions& options = {});

}  // namespace ecgpipe
