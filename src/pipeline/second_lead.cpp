// The second lead of a run: see include/ecgpipe/pipeline/second_lead.hpp.
#include "ecgpipe/pipeline/second_lead.hpp"

#include <algorithm>
#include <cstdio>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "pipeline/window_gather.hpp"

namespace ecgpipe {

std::optional<SecondLead> second_lead_of(const RunOptions& o) {
  if (o.samples) {
    if (!o.lead2_samples) return std::nullopt;
    if (o.lead2_samples->size() != o.samples->size())
      throw UsageError("lead2: " + std::to_string(o.lead2_samples->size()) + " samples, the signal has " +
                       std::to_string(o.samples->size()) + " (two leads of one recording)");
    return SecondLead{o.input, o.csv, o.fs, o.source.lead2_name.empty() ? "given" : o.source.lead2_name, o.lead2_samples};
  }
  if (o.source.lead2_column.empty()) return std::nullopt;
  SecondLead lead{o.input, o.csv, o.fs, o.source.lead2_name, nullptr};
  lead.csv.column = o.source.lead2_column;
  return lead;
}

std::string second_lead_note(const SecondLead& lead) {
  return " (the second lead, " + lead.name + "; " + lead.without + " reads the primary lead alone)";
}

std::optional<CsvSecondColumn> csv_second_column(const std::optional<SecondLead>& lead) {
  if (!lead || lead->samples || is_wfdb_record_path(lead->input) || is_edf_path(lead->input)) return std::nullopt;
  return CsvSecondColumn{lead->csv.column, second_lead_note(*lead)};
}

std::vector<float> gather_feature_windows(SignalStream& stream, const std::vector<std::int64_t>& r_peaks, double fs) {
  const FeatureWindow fw = feature_window(fs);
  std::vector<float> windows(r_peaks.size() * static_cast<std::size_t>(fw.length), 0.0f);
  if (r_peaks.empty()) return windows;
  const std::vector<std::int64_t> starts = feature_window_starts(r_peaks, fw);
  WindowGather gather(starts, std::vector<std::int32_t>(starts.size(), fw.length), static_cast<std::size_t>(fw.length),
                      windows.data());
  constexpr std::size_t kPiece = std::size_t{1} << 20;  // a few MB at a time, as the readers' own pieces
  std::vector<float> piece;
  for (std::int64_t at = 0;; at += static_cast<std::int64_t>(piece.size())) {
    piece.clear();
    if (stream.read(piece, kPiece) == 0) break;
    gather.push(piece.data(), at, static_cast<std::int64_t>(piece.size()));
  }
  return windows;
}

SecondLeadFeature second_lead_feature(const std::optional<SecondLead>& lead, const std::vector<std::int64_t>& r_peaks,
                                      int threads, const std::vector<float>* windows) {
  SecondLeadFeature f;
  if (!lead) return f;
  const auto length = static_cast<std::size_t>(feature_window(lead->fs).length);
  std::vector<float> read;
  if (windows == nullptr && lead->samples) {
    read = feature_windows(*lead->samples, r_peaks, lead->fs, threads);
  } else if (windows == nullptr) {
    try {
      const std::unique_ptr<SignalStream> stream = open_signal_stream(lead->input, lead->csv, lead->fs);
      read = gather_feature_windows(*stream, r_peaks, lead->fs);
    } catch (const InputError& e) {
      // The primary lead was read: say that this is the other one, and how to do without it.
      throw InputError(std::string(e.what()) + second_lead_note(*lead));
    }
  }
  if (windows == nullptr) windows = &read;
  if (windows->size() != r_peaks.size() * length) throw InternalError("second_lead_feature: not one window per R peak");
  AtrialActivity atrial;  // its P waves, for rhythm analysis: kept below where the lead is usable
  f.correlation = lead2_qrs_correlation(windows->data(), length, r_peaks.size(), lead->fs, threads, &atrial);
  if (f.correlation.empty()) return f;  // no beats: nothing to classify either way
  std::vector<float> sorted = f.correlation;
  const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), mid, sorted.end());
  f.usable = *mid >= kMinLead2MedianCorrelation;
  if (f.usable) {
    f.p_consistency = std::move(atrial.p_consistency);
    f.p_context = std::move(atrial.p_context);
    f.p_parts = std::move(atrial.p_parts);
  }
  if (!f.usable) {
    char median[32];
    std::snprintf(median, sizeof median, "%.2f", static_cast<double>(*mid));
    f.warning = lead->input + ": the second lead, " + lead->name + ", shows no consistent QRS (median correlation " +
                median + " with its median beat): the beat classes and AF read the primary lead alone";
  }
  return f;
}

}  // namespace ecgpipe
