// Results that cannot be an ECG read right (see plausibility.hpp).
#include "ecgpipe/pipeline/plausibility.hpp"

#include <algorithm>
#include <cstdio>

namespace ecgpipe {

std::vector<std::string> plausibility_warnings(const SignalSource& source, std::size_t samples, double fs,
                                               const std::vector<std::int64_t>& r_peaks) {
  std::vector<std::string> out = source.warnings;
  if (!(fs > 0)) return out;
  const double seconds = static_cast<double>(samples) / fs;
  char rate[160];
  std::snprintf(rate, sizeof rate, "%g Hz (%s)", fs, source.fs_source.empty() ? "given" : source.fs_source.c_str());
  const std::string which = source.signal_name.empty() ? "" : " of " + source.signal_name;
  char buf[512];
  if (seconds >= kPlausibleMinSeconds && static_cast<double>(r_peaks.size()) * kMaxSecondsPerBeat < seconds) {
    std::snprintf(buf, sizeof buf,
                  "only %zu beats in %.0f s%s read at %s: not an ECG, the wrong column or the wrong rate; "
                  "no figure of this run can be trusted",
                  r_peaks.size(), seconds, which.c_str(), rate);
    out.emplace_back(buf);
  }
  if (r_peaks.size() >= 3) {
    std::vector<std::int64_t> rr(r_peaks.size() - 1);
    for (std::size_t i = 1; i < r_peaks.size(); ++i) rr[i - 1] = r_peaks[i] - r_peaks[i - 1];
    std::nth_element(rr.begin(), rr.begin() + static_cast<std::ptrdiff_t>(rr.size() / 2), rr.end());
    const double median_rr = static_cast<double>(rr[rr.size() / 2]);
    const double bpm = median_rr > 0 ? 60.0 * fs / median_rr : 0.0;
    if (bpm < kPlausibleMinBpm || bpm > kPlausibleMaxBpm) {
      std::snprintf(buf, sizeof buf,
                    "the median heart rate is %.0f bpm, outside %.0f-%.0f bpm%s read at %s: the rate or the column "
                    "is likely wrong",
                    bpm, kPlausibleMinBpm, kPlausibleMaxBpm, which.c_str(), rate);
      out.emplace_back(buf);
    }
  }
  return out;
}

nlohmann::json input_json(const std::string& path, const SignalSource& source, std::size_t samples,
                          const CsvOptions& csv) {
  nlohmann::json j = {{"path", path},     {"format", source.format}, {"samples", samples},
                      {"column", csv.column}, {"header", csv.has_header}, {"signal", source.signal_name},
                      {"fs", source.fs},   {"fs_source", source.fs_source}};
  j["start"] = source.start_time.empty() ? nlohmann::json(nullptr) : nlohmann::json(source.start_time);
  j["units"] = source.units.empty() ? nlohmann::json(nullptr) : nlohmann::json(source.units);
  // The second lead the beat classes and AF's P-wave checks read (issue 24); null: none, the primary lead alone.
  j["lead2"] = source.lead2_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(source.lead2_name);
  return j;
}

}  // namespace ecgpipe
