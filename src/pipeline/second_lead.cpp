// The second lead of a run: see include/ecgpipe/pipeline/second_lead.hpp.
#include "ecgpipe/pipeline/second_lead.hpp"

#include <algorithm>
#include <cstdio>

#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/common/error.hpp"

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

std::vector<float> gather_feature_windows(SignalStream& stream, const std::vector<std::int64_t>& r_peaks, double fs) {
  const FeatureWindow fw = feature_window(fs);
  const auto L = static_cast<std::int64_t>(fw.length);
  std::vector<float> windows(r_peaks.size() * static_cast<std::size_t>(L), 0.0f);
  // A few MB at a time (the readers' own pieces); the windows are ascending, so the first not yet
  // complete only moves forward.
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  std::vector<float> piece;
  std::int64_t at = 0;  // the piece's first sample
  std::size_t first = 0;
  while (first < r_peaks.size()) {
    piece.clear();
    const std::size_t got = stream.read(piece, kPiece);
    if (got == 0) break;
    const std::int64_t end = at + static_cast<std::int64_t>(got);
    for (std::size_t i = first; i < r_peaks.size(); ++i) {
      const std::int64_t lo = r_peaks[i] - fw.before;
      if (lo >= end) break;
      const std::int64_t from = std::max(lo, at), to = std::min(lo + L, end);
      for (std::int64_t s = from; s < to; ++s)
        windows[i * static_cast<std::size_t>(L) + static_cast<std::size_t>(s - lo)] = piece[static_cast<std::size_t>(s - at)];
    }
    while (first < r_peaks.size() && r_peaks[first] - fw.before + L <= end) ++first;
    at = end;
  }
  return windows;
}

SecondLeadFeature second_lead_feature(const std::optional<SecondLead>& lead, const std::vector<std::int64_t>& r_peaks,
                                      int threads) {
  SecondLeadFeature f;
  if (!lead) return f;
  std::vector<float> windows;
  if (lead->samples) {
    windows = feature_windows(*lead->samples, r_peaks, lead->fs, threads);
  } else {
    try {
      const std::unique_ptr<SignalStream> stream = open_signal_stream(lead->input, lead->csv, lead->fs);
      windows = gather_feature_windows(*stream, r_peaks, lead->fs);
    } catch (const InputError& e) {
      // The primary lead was read: say that this is the other one, and how to do without it.
      throw InputError(std::string(e.what()) + " (the second lead, " + lead->name + "; --lead2 none reads the primary lead alone)");
    }
  }
  f.correlation = lead2_qrs_correlation(windows.data(), static_cast<std::size_t>(feature_window(lead->fs).length),
                                        r_peaks.size(), lead->fs, threads);
  if (f.correlation.empty()) return f;  // no beats: nothing to classify either way
  std::vector<float> sorted = f.correlation;
  const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), mid, sorted.end());
  f.usable = *mid >= kMinLead2MedianCorrelation;
  if (!f.usable) {
    char median[32];
    std::snprintf(median, sizeof median, "%.2f", static_cast<double>(*mid));
    f.warning = lead->input + ": the second lead, " + lead->name + ", shows no consistent QRS (median correlation " +
                median + " with its median beat): the beat classes read the primary lead alone";
  }
  return f;
}

}  // namespace ecgpipe
