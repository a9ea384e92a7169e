// A run against its reference annotations (src/pipeline/run_steps.hpp, evaluate_run).
#include <spdlog/spdlog.h>

#include "ecgpipe/eval/rhythm_eval.hpp"
#include "pipeline/run_steps.hpp"

namespace ecgpipe {

void evaluate_run(const RunOptions& o, const ReferenceBeats& ref, const std::vector<std::int64_t>& peaks,
                  const std::vector<char>& predicted, RunResult& r) {
  EvalOptions eo;
  eo.fs = o.fs;
  r.evaluation = evaluate_detections(ref, peaks, r.model.score, eo, predicted);
  r.evaluation.reference_path = o.reference;
  r.evaluation.detections_path = o.input;
  r.evaluation.score_column = "score";
  r.evaluated = true;
  const MatchResult m = match_beats(ref.samples, peaks, tolerance_samples(eo.tolerance_ms, o.fs));
  r.classes.assign(peaks.size(), '-');
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    const std::int64_t k = m.matched_reference[i];
    if (k >= 0) r.classes[i] = aami_class(ref.symbols[static_cast<std::size_t>(k)]);
  }
  const MatchResult& e = r.evaluation.match;
  spdlog::info("against {}: Se {:.2f} %, +P {:.2f} % (TP {}, FN {}, FP {})", o.reference, 100 * e.sensitivity(),
               100 * e.positive_predictivity(), e.tp, e.fn, e.fp);
  if (ref.has_rhythm) {
    // A misspelt name counts as no AF: said, and in report.json's warnings (run_pipeline logs them).
    if (std::string unknown = unknown_rhythm_warning(ref.rhythm, o.reference); !unknown.empty())
      r.warnings.push_back(std::move(unknown));
    // The reference's rhythm ends with the record, as the detected episodes do.
    r.evaluation.af = compare_af(ref.rhythm, r.rhythm_episodes, static_cast<std::int64_t>(r.samples));
    r.evaluation.rhythms = compare_ectopic_rhythms(ref.rhythm, r.rhythm_episodes, static_cast<std::int64_t>(r.samples));
    r.evaluation.has_af = true;
    const AfStats& af = r.evaluation.af;
    spdlog::info("AF against {}: episodes Se {}/{} +P {}/{}, duration Se {:.1f} % +P {:.1f} %", o.reference,
                 af.detected_reference_episodes, af.reference_episodes, af.true_test_episodes, af.test_episodes,
                 100 * af.duration_se(), 100 * af.duration_ppv());
  }
  for (const auto& a : r.evaluation.aurocs) {
    spdlog::info("AUROC {} vs N: {:.4f} ({} vs {} beats)", a.positive, a.auroc, a.positives, a.negatives);
  }
}

}  // namespace ecgpipe
