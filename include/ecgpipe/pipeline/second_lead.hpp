// Internal: the second lead of a run (issue 24), read for the beat classifier's lead2 model
// (classify.hpp). Only its feature windows at the detected R peaks are kept (R - 0.25 s .. R +
// 0.45 s: 1 KB a beat at 360 Hz), whichever path detected them: the CPU's whole or chunked reads
// and the GPU's detect on the primary lead alone. A CSV's is parsed in the primary's pass on
// either device (csv_second_column: csv.hpp's read_csv_columns and CsvColumnReader on the CPU,
// csv_cuda.hpp's on the GPU, which cuts its windows on the device), the same values bit for bit,
// so the classes stay equal; a WFDB or EDF lead, or one given in memory, is read on its own
// (gather_feature_windows).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/pipeline/run_types.hpp"

namespace ecgpipe {

struct SecondLead {
  std::string input;  // the recording
  CsvOptions csv;     // csv.column: the second lead's (SignalSource::lead2_column)
  double fs = 0.0;
  std::string name;   // SignalSource::lead2_name, for messages
  // Given in memory (RunOptions::lead2_samples): read from here instead of `input`.
  std::shared_ptr<const std::vector<float>> samples;
  // How the caller reads the primary lead alone, in its own words (the Python package's differ).
  std::string without = "--lead2 none";
};

// What an error about the second lead ends with: which lead, and how to do without it
// (" (the second lead, NAME; --lead2 none reads the primary lead alone)").
std::string second_lead_note(const SecondLead& lead);

// The run's second lead: a file's as the source resolved it (none: none); for a signal given in
// memory, the second lead given with it, if any.
std::optional<SecondLead> second_lead_of(const RunOptions& o);
// The second lead as a column of the primary's CSV file, parsed in the primary's pass (above),
// with the note its errors end with (which lead, and how to do without it); none for no lead, a
// WFDB or EDF signal or samples in memory, which are read on their own.
std::optional<CsvSecondColumn> csv_second_column(const std::optional<SecondLead>& lead);

// The feature windows (beat_features.hpp: feature_window) at `r_peaks` (ascending) of the signal
// `stream` hands out, zero outside it: row-major beats x window length.
std::vector<float> gather_feature_windows(SignalStream& stream, const std::vector<std::int64_t>& r_peaks, double fs);

// The second lead's feature at the R peaks, and whether the classes may read it. A lead whose beats
// show no consistent QRS (the median correlation with its median beat below
// kMinLead2MedianCorrelation: a disconnected electrode, a flat line, noise) would make every beat
// look unlike the recording's to the lead2 model; it is not used, and `warning` says so. On DS1
// and the SVDB's 40 records the median is 0.74..1.00; a noise lead gives ~0.02, a flat one 0.
inline constexpr double kMinLead2MedianCorrelation = 0.5;
struct SecondLeadFeature {
  std::vector<float> correlation;  // lead2_qrs_correlation, one per R peak
  bool usable = false;
  std::string warning;  // why a second lead was not used; empty otherwise
  // Where usable, the lead's P-wave consistency, context and P parts (AtrialActivity's definitions
  // on this lead) for rhythm analysis: add_to() hands them to the primary lead's AtrialActivity.
  std::vector<float> p_consistency, p_context, p_parts;
  void add_to(AtrialActivity& atrial) {
    atrial.lead2_p_consistency = std::move(p_consistency);
    atrial.lead2_p_context = std::move(p_context);
    atrial.lead2_p_parts = std::move(p_parts);
  }
  // What classify_beats takes: the feature, or null for the primary lead alone.
  const std::vector<float>* for_classes() const { return usable ? &correlation : nullptr; }
};
// `lead`'s feature at `r_peaks` on `threads` threads; without a lead, none (not usable, no warning).
// `windows`: its feature windows already cut at `r_peaks` (row-major, as gather_feature_windows
// gives them: the GPU paths cut a CSV lead's on the device), or null: the lead is read here.
SecondLeadFeature second_lead_feature(const std::optional<SecondLead>& lead, const std::vector<std::int64_t>& r_peaks,
                                      int threads, const std::vector<float>* windows = nullptr);

}  // namespace ecgpipe
