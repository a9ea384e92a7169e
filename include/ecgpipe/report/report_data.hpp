// What report.html is drawn from (include/ecgpipe/report/report.hpp draws it): plain types only
// (no LibTorch). The pipeline fills ReportData (src/pipeline/report_from_run.cpp), tests build it
// by hand. Its own header so that the page's parts (src/report/report_holter.cpp,
// report_strip.cpp) take the data without including the page.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/rhythm/hrv.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"

namespace ecgpipe {

// Used when ReportData's sample rate is not a positive number (the seed's recordings are 250 Hz).
inline constexpr double kDefaultSampleRateHz = 250.0;

// One beat drawn on its own (an outlier): its row of the beat matrix and where it is.
struct ReportBeat {
  std::int64_t index = 0;    // row of beats.csv
  double time_s = 0.0;       // R-peak time in the recording
  double score = 0.0;        // outlier score (ReportData::score_name)
  std::int32_t length = 0;   // samples of `row` that are the beat (the rest is zero padding); 0 = all
  std::vector<float> row;
};

// A 10-s ECG strip around an event (issue 27): drawn at 25 mm/s on a 1 mm / 5 mm grid with a
// 1 mV calibration, each beat labelled by its class.
struct EventStrip {
  std::string title;               // e.g. "Longest pause 2.31 s", "Fastest V run (5 beats, 160 bpm)";
                                   // the page adds the event's time (clock or elapsed)
  double event_s = 0.0;            // the event's time in the recording (s)
  std::int64_t start_sample = 0;   // first sample of `signal`
  std::vector<float> signal;       // the samples, in the recording's units
  double units_per_mv = 1.0;       // signal units per mV (a WFDB/EDF gain; 1: the values are mV)
  bool units_known = false;        // false: a CSV's unknown units, drawn as if mV and said so
  std::vector<std::int64_t> beat_samples;  // R peaks inside the strip (absolute samples; others are skipped)
  std::string beat_classes;                // their classes, one letter each (N S V F Q; missing: '?')
  std::vector<std::pair<std::int64_t, std::int64_t>> artefact;  // artefact spans inside it (samples)
};

// One hour of the hourly table (a clock hour where the start is known, cut to the recording).
struct ReportHour {
  std::int64_t hour = 0;
  double analysed_s = 0.0;  // seconds of the hour analysed (excluding artefact)
  std::int64_t beats = 0, veb = 0, sveb = 0;
  double hr_min = 0.0, hr_mean = 0.0, hr_max = 0.0;  // NaN without an RR interval
  std::int64_t pauses = 0;
  double af_s = 0.0;  // seconds of AF in the hour
  double start_s = 0.0, end_s = 0.0;  // its span in the recording (the Holter summary's clock hour)
};

// One pause (an RR interval of at least the Holter summary's pause threshold) for the pauses list.
struct ReportPause {
  double start_s = 0.0;  // the R peak that starts it
  double rr_s = 0.0;     // its length
};

struct ReportData {
  std::string file_name;
  std::string device;                      // "cpu" / "cuda"
  double sample_rate_hz = kDefaultSampleRateHz;
  std::vector<std::pair<std::string, std::string>> settings;  // extra rows of the counts table
  std::string score_name = "reconstruction error";            // what `scores` are, for captions

  // Counts and timings (the tables).
  std::size_t samples = 0, candidates = 0, beats = 0, train_beats = 0, test_beats = 0;
  int epochs = 0;
  std::vector<std::pair<std::string, double>> stage_seconds;  // stage name, seconds (in order)

  // Signal excerpt (~10 s) from sample `excerpt_start`, its band-passed curve (same start, may be
  // empty) and the R peaks inside it (absolute sample positions). The band-passed curve's peaks
  // lag the R peaks by `curve_delay` samples (the causal wavelet).
  std::int64_t excerpt_start = 0;
  std::vector<float> excerpt_signal;
  std::vector<double> excerpt_bandpassed;
  std::vector<std::int64_t> excerpt_peaks;
  std::int64_t curve_delay = 0;

  std::vector<std::int32_t> beat_lengths;  // every kept beat, samples
  // beat_lengths are RR intervals (each kept beat's R peak to the next one's, samples): with rows
  // of one fixed length around the R peak (the rr model) the row length says nothing, and the
  // spread of RR intervals is what the rhythm looks like (two humps: bigeminy, a long tail: pauses).
  bool lengths_are_rr = false;

  // Beat rows have `beat_cols` samples each (the zero-padded beat matrix).
  int beat_cols = 0;
  std::vector<float> overlay_rows;            // a subset of the beat matrix, row-major
  std::vector<std::int32_t> overlay_lengths;  // their lengths (optional: empty = whole rows)
  std::vector<float> median_beat;             // per-sample median beat (beat_cols values)

  // Training.
  std::vector<double> train_loss;  // per epoch
  double test_loss = std::numeric_limits<double>::quiet_NaN();

  // Every beat: the 2-D latent mean (2 values per beat, row-major), its score and, optionally,
  // its reference class (one char per beat, e.g. 'N', 'V', 'A'; empty = none).
  std::vector<float> latent;
  std::vector<float> scores;
  std::string classes;

  // grid_side x grid_side beats decoded from a latent grid (row-major; grid row 0 = the lowest
  // second latent coordinate, column 0 = the lowest first one) and the grid points (2 each).
  int grid_side = 0;
  std::vector<float> decoded_grid;
  std::vector<float> grid_latent;

  std::vector<ReportBeat> outliers;  // highest score first

  // The Holter summary (holter.hpp), shown at the top of the page: HR trend and ectopy table.
  std::optional<HolterSummary> holter;
  // Its rhythm episodes (rhythm_episodes.hpp): AF shaded on the HR trend, the rhythm table.
  std::optional<std::vector<RhythmEpisode>> rhythm_episodes;

  // --- The clinical report (issue 27) ---
  // Recording start as the header gives it: "YYYY-MM-DD HH:MM:SS" or "HH:MM:SS" (seconds may have
  // a fraction). Empty or anything else: unknown, and every time on the page is elapsed from the
  // start. Then the recording's, analysed and artefact time (0: not known; the page then takes
  // the Holter summary's duration as both recording and analysed time).
  std::string recording_start;
  double recording_s = 0.0, analysed_s = 0.0, artefact_s = 0.0;
  std::vector<std::pair<std::int64_t, std::int64_t>> artefact_spans;  // [start, end) samples
  std::vector<ReportHour> hourly;        // the hourly table (empty: the Holter summary's hours, counts only)
  std::vector<ReportPause> pauses;       // every pause, in time order (the pauses list; empty: none listed)
  std::vector<EventStrip> strips;        // the event strips, in report order
  std::optional<HrvResult> hrv;          // heart-rate variability
  // Input warnings (a guessed rate, an implausible result): shown in a banner at the top.
  std::vector<std::string> warnings;
  // The input as read: the rate and where it came from, the column/signal used.
  std::string input_description;         // e.g. "360 Hz (WFDB header), signal 'MLII' (0)"
  // EC57 figures against a reference (--reference): rows of (measure, value) already formatted,
  // e.g. ("QRS Se", "99.87 %"); empty without a reference.
  std::vector<std::pair<std::string, std::string>> ec57;
  bool model_trained = true;             // false: Holter analysis only (no VAE panels)
};

// The data's sample rate, or kDefaultSampleRateHz where it is not a positive number.
inline double sample_rate(const ReportData& d) {
  return std::isfinite(d.sample_rate_hz) && d.sample_rate_hz > 0 ? d.sample_rate_hz : kDefaultSampleRateHz;
}

}  // namespace ecgpipe
