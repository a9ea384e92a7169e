// `ecgpipe eval`'s report: text for people, JSON for machines (and report.json's "evaluation").
#include <cmath>
#include <cstdio>
#include <string>

#include "eval/ec57_json.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "common/json_number.hpp"

namespace ecgpipe {
namespace {

// A ratio as a percentage with two decimals, "n/a" where undefined.
std::string pct(double v) {
  constexpr double kPercent = 100.0;
  if (std::isnan(v)) return std::string("n/a");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", kPercent * v);
  return std::string(buf);
}

}  // namespace

std::string eval_report_text(const EvalReport& r) {
  const MatchResult& m = r.match;
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf, "reference:  %s (%lld beats, %zu non-beat annotations skipped)\n",
                r.reference_path.c_str(), static_cast<long long>(m.tp + m.fn), r.skipped_non_beats);
  out += buf;
  std::snprintf(buf, sizeof buf, "detections: %s (%lld)\n", r.detections_path.c_str(),
                static_cast<long long>(m.tp + m.fp));
  out += buf;
  std::snprintf(buf, sizeof buf, "tolerance:  %g ms = %lld samples at %g Hz\n", r.tolerance_ms,
                static_cast<long long>(r.tolerance_samples), r.fs);
  out += buf;
  if (!r.vf_exclusion) {
    out += "VF episodes: not excluded (--no-vf-exclusion)\n";
  } else if (!r.reference_has_rhythm) {
    out += "VF episodes: not excluded (a sample,symbol CSV reference has no rhythm annotations; use the .atr)\n";
  } else {
    std::snprintf(buf, sizeof buf,
                  "VF episodes: %zu excluded (%.1f s): %lld reference beats and %lld detections not counted\n",
                  r.excluded_episodes.size(), r.excluded_seconds, static_cast<long long>(r.excluded_reference_beats),
                  static_cast<long long>(r.excluded_detections));
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "TP %lld  FN %lld  FP %lld\n", static_cast<long long>(m.tp),
                static_cast<long long>(m.fn), static_cast<long long>(m.fp));
  out += buf;
  out += "Se " + pct(m.sensitivity()) + "  +P " + pct(m.positive_predictivity()) + "  F1 " +
         pct(m.f1()) + "\n";
  for (const ClassCounts& c : r.classes) {
    if (c.reference == 0) continue;
    std::snprintf(buf, sizeof buf, "class %c: %lld of %lld detected (Se %s)\n", c.aami,
                  static_cast<long long>(c.detected), static_cast<long long>(c.reference),
                  pct(c.sensitivity()).c_str());
    out += buf;
  }
  if (r.aurocs.empty()) {
    out += "AUROC: n/a (no score column in the detections)\n";
  } else {
    for (const AurocResult& a : r.aurocs) {
      const std::string value = std::isnan(a.auroc) ? std::string("n/a") : [&] {
        char v[32];
        std::snprintf(v, sizeof v, "%.4f", a.auroc);
        return std::string(v);
      }();
      std::snprintf(buf, sizeof buf, "AUROC of %s, %s vs N: %s (%lld vs %lld matched beats)\n",
                    r.score_column.empty() ? "the score" : r.score_column.c_str(), a.positive.c_str(), value.c_str(),
                    static_cast<long long>(a.positives), static_cast<long long>(a.negatives));
      out += buf;
    }
  }
  out += r.has_classes ? ec57_text(r.ec57) : "beat classes: n/a (no class column in the detections)\n";
  if (r.has_af) out += episode_stats_text(r.af, r.rhythms);
  return out;
}

nlohmann::json eval_report_json(const EvalReport& r) {
  const MatchResult& m = r.match;
  nlohmann::json classes = nlohmann::json::object();
  for (const ClassCounts& c : r.classes)
    classes[std::string(1, c.aami)] = {{"reference", c.reference},
                                       {"detected", c.detected},
                                       {"se", json_number(c.sensitivity())}};
  nlohmann::json episodes = nlohmann::json::array();
  for (const Episode& e : r.excluded_episodes)
    episodes.push_back({{"start", e.start}, {"end", e.end == kEpisodeToEnd ? nlohmann::json(nullptr) : nlohmann::json(e.end)}});
  nlohmann::json aurocs = nlohmann::json::object();
  for (const AurocResult& a : r.aurocs)
    aurocs[a.positive] = {{"auroc", json_number(a.auroc)}, {"positives", a.positives}, {"negatives", a.negatives}};
  return {{"reference", r.reference_path},
          {"detections", r.detections_path},
          {"fs", r.fs},
          {"tolerance_ms", r.tolerance_ms},
          {"tolerance_samples", r.tolerance_samples},
          {"reference_beats", m.tp + m.fn},
          {"detected_beats", m.tp + m.fp},
          {"skipped_non_beats", r.skipped_non_beats},
          {"tp", m.tp},
          {"fn", m.fn},
          {"fp", m.fp},
          {"se", json_number(m.sensitivity())},
          {"ppv", json_number(m.positive_predictivity())},
          {"f1", json_number(m.f1())},
          {"classes", classes},
          {"vf_exclusion",
           {{"enabled", r.vf_exclusion},
            {"reference_has_rhythm", r.reference_has_rhythm},
            {"episodes", episodes.size()},
            {"seconds", r.excluded_seconds},
            {"episode_samples", episodes},
            {"excluded_reference_beats", r.excluded_reference_beats},
            {"excluded_detections", r.excluded_detections}}},
          {"score_column", r.score_column.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.score_column)},
          {"auroc", r.aurocs.empty() ? nlohmann::json(nullptr) : aurocs},
          {"ec57", r.has_classes ? ec57_json(r.ec57) : nlohmann::json(nullptr)},
          {"af", r.has_af ? af_stats_json(r.af, r.fs) : nlohmann::json(nullptr)},
          {"rhythms", r.has_af ? rhythm_stats_json(r.rhythms, r.fs) : nlohmann::json(nullptr)}};
}

std::string episode_stats_text(const AfStats& af, const std::vector<RhythmStats>& rhythms) {
  std::string out;
  char buf[256];
  const auto line = [&](const std::string& name, const AfStats& a) {
    std::snprintf(buf, sizeof buf, "%s: episode Se %s (%lld/%lld) +P %s (%lld/%lld); duration Se %s +P %s\n", name.c_str(),
                  pct(a.episode_se()).c_str(), static_cast<long long>(a.detected_reference_episodes),
                  static_cast<long long>(a.reference_episodes), pct(a.episode_ppv()).c_str(),
                  static_cast<long long>(a.true_test_episodes), static_cast<long long>(a.test_episodes),
                  pct(a.duration_se()).c_str(), pct(a.duration_ppv()).c_str());
    out += buf;
  };
  line("AF (EC57, epicmp -a)", af);
  // The other rhythms only where either side has an episode: most records have none.
  for (const RhythmStats& x : rhythms)
    if (x.stats.reference_episodes > 0 || x.stats.test_episodes > 0) line(x.rhythm, x.stats);
  return out;
}

nlohmann::json rhythm_stats_json(const std::vector<RhythmStats>& stats, double fs) {
  nlohmann::json j = nlohmann::json::object();
  for (const RhythmStats& x : stats) j[x.rhythm] = af_stats_json(x.stats, fs);
  return j;
}

nlohmann::json af_stats_json(const AfStats& s, double fs) {
  return {{"reference_episodes", s.reference_episodes},
          {"detected_reference_episodes", s.detected_reference_episodes},
          {"test_episodes", s.test_episodes},
          {"true_test_episodes", s.true_test_episodes},
          {"reference_af_s", static_cast<double>(s.reference_duration) / fs},
          {"test_af_s", static_cast<double>(s.test_duration) / fs},
          {"overlap_of_reference_s", static_cast<double>(s.overlap_of_reference) / fs},
          {"overlap_of_test_s", static_cast<double>(s.overlap_of_test) / fs},
          {"episode_se", json_number(s.episode_se())},
          {"episode_ppv", json_number(s.episode_ppv())},
          {"duration_se", json_number(s.duration_se())},
          {"duration_ppv", json_number(s.duration_ppv())}};
}

}  // namespace ecgpipe
