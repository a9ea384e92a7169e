// The rhythm step of `ecgpipe run`: see src/pipeline/run_steps.hpp.
#include <spdlog/spdlog.h>

#include <cstddef>

#include "common/clock.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/outlier_score.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "ecgpipe/rhythm/ectopic_rhythm.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"
#include "ecgpipe/rhythm/svt_runs.hpp"
#include "pipeline/run_steps.hpp"

namespace ecgpipe {

void analyse_rhythm(const std::vector<std::int64_t>& r_peaks, double fs, const AtrialActivity& atrial, BeatAnalysis& r) {
  const auto t0 = detail::Clock::now();
  std::vector<char> ventricular(r_peaks.size(), 0);
  for (std::size_t i = 0; i < r_peaks.size() && i < r.beat_class.size(); ++i) ventricular[i] = r.beat_class[i] == BeatClass::V;
  const std::vector<bool>& artefact = r.quality.beat_artefact;
  r.rhythm = af_rhythm(r_peaks, AfOptions{}, ventricular, &atrial, &artefact);
  // In AF every conducted beat comes at an irregular interval: prematurity, the classifier's
  // strongest evidence for S, means nothing there, and MIT-BIH labels AF's conducted beats N.
  // An S predicted inside AF is an AF beat (DS2's false S came mostly from AF and flutter).
  std::size_t relabelled = 0;
  for (std::size_t i = 0; i < r.rhythm.size() && i < r.beat_class.size(); ++i)
    if (r.rhythm[i] == Rhythm::AFIB && r.beat_class[i] == BeatClass::S) {
      r.beat_class[i] = BeatClass::N;
      ++relabelled;
    }
  // Then the rest of each run of SVT that an S beat began: past its first ten beats a run is the
  // neighbourhood the classifier measures prematurity against (svt_runs.hpp).
  // A run as irregular as AF is a burst of it, too short for the AF detector: its S beats are N.
  const SvtRunChanges runs = continue_svt_runs(r_peaks, fs, r.beat_class, r.rhythm);
  r.rhythm_seconds += detail::seconds_since(t0);
  if (relabelled > 0) spdlog::debug("rhythm: {} S beats in AF labelled N", relabelled);
  if (runs.continued > 0) spdlog::debug("rhythm: {} N beats inside runs of SVT labelled S", runs.continued);
  if (runs.irregular > 0) spdlog::debug("rhythm: {} S beats inside irregular runs labelled N", runs.irregular);
}

void finish_rhythm(const RunOptions& o, const std::vector<std::int64_t>& r_peaks, std::size_t samples, BeatAnalysis& r) {
  const auto t0 = detail::Clock::now();
  name_ectopic_rhythms(r.holter, r.rhythm);
  r.rhythm_episodes = rhythm_episodes(r_peaks, r.rhythm, o.fs, static_cast<std::int64_t>(samples));
  r.rhythm_burden = rhythm_burden(r.rhythm_episodes, o.fs, r.quality.spans);
  r.rhythm_seconds += detail::seconds_since(t0);
}

void no_rhythm_term_in_af(const RunOptions& o, RunResult& r) {
  if (o.analyze_only || o.model != Model::rr || r.model.score.empty()) return;
  if (r.prematurity.size() != r.rhythm.size() || r.model.score.size() != r.rhythm.size())
    throw InternalError("no_rhythm_term_in_af: per-beat rhythm, rhythm term and score differ in length");
  std::size_t zeroed = 0;
  for (std::size_t i = 0; i < r.rhythm.size(); ++i)
    if (r.rhythm[i] == Rhythm::AFIB && r.prematurity[i] != 0.0f) {
      r.prematurity[i] = 0.0f;
      ++zeroed;
    }
  if (zeroed == 0) return;
  // From the terms, not the old score less the term: the score stays their sum to the last bit.
  r.model.score = score_rr(r.model.recon_error, r.model.template_distance, r.prematurity);
  spdlog::debug("rhythm: the rhythm term of {} beats in AF is 0", zeroed);
}

}  // namespace ecgpipe
