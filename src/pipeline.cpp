// `ecgpipe run` step by step (include/ecgpipe/pipeline.hpp): each step's detail lives in the file
// named for it (segment_cpu.cpp / pipeline_cuda.cpp, score.cpp, vae.cpp, run_evaluation.cpp,
// run_outputs.cpp).
#include "ecgpipe/pipeline.hpp"

#include <spdlog/spdlog.h>

#include <optional>

#include "detail/clock.hpp"
#include "detail/run_steps.hpp"
#include "detail/segment.hpp"
#include "ecgpipe/config.hpp"
#include "output.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "detail/segment_cuda.hpp"
#endif

namespace ecgpipe {

RunResult run_pipeline(const RunOptions& o) {
  validate(o);
  const auto t_all = detail::Clock::now();
  // Read first: a bad reference file fails the run before any work.
  std::optional<ReferenceBeats> reference;
  if (!o.reference.empty()) reference = read_reference(o.reference);
  const Device device = resolve_device(o.device);
  prepare_output_dir(o.out_dir);
  spdlog::info("reading {} on {}", o.input, device_name(device));

  // Stages 1-4: the file to the beat matrix, on one device (segment_cpu.cpp, pipeline_cuda.cpp).
#ifdef ECGPIPE_WITH_CUDA
  std::shared_ptr<CudaContext> cuda;  // declared before `seg`: outlives the matrix and training
  if (device == Device::cuda) cuda = make_cuda_context();
  Segmentation seg = device == Device::cuda ? segment_cuda(o, *cuda) : segment_cpu(o);
#else
  Segmentation seg = segment_cpu(o);
#endif
  seg.matrix.normalise = o.model == Model::rr;
  spdlog::info("{} samples, {} gates, {} beats of {}..{} samples", seg.samples, seg.candidates, seg.beats.size(),
               o.limits.min_length, o.limits.max_length);

  RunResult r;
  r.device = device_name(device);
  r.samples = seg.samples;
  r.candidates = seg.candidates;
  r.beats = std::move(seg.beats);
  r.seconds = seg.seconds;

  // The rhythm term over the compact R-peak list (host), then the model's score (score.hpp).
  std::vector<std::int64_t> peaks(r.beats.start);
  for (auto& p : peaks) p += r_peak_offset(o);
  r.prematurity = prematurity(peaks);
  ScoreFunction score;
  if (o.model == Model::rr) {
    score = [&r](const TrainResult& t) { return score_rr(t.recon_error, t.template_distance, r.prematurity); };
  }
  const bool training = o.model_in.empty();
  std::optional<AtomicFile> model_file;
  if (training) {
    model_file.emplace(o.out_dir, "model.pt");
    r.model = train_and_score(std::move(seg.matrix), o.train, model_file->temp_path(), model_meta_json(o), score);
  } else {
    r.model = score_with_model(std::move(seg.matrix), o.model_in, score);
  }
  r.seconds.train = r.model.train_seconds;
  if (device == Device::cuda) {
    spdlog::debug("training steps {} a captured CUDA graph", r.model.cuda_graph ? "replayed" : "did not use");
  }
  r.seconds.score = r.model.score_seconds;

  if (reference) evaluate_run(o, *reference, peaks, r);
  write_run_outputs(o, r, model_file, std::move(seg.signal_excerpt), std::move(seg.curvature_excerpt), t_all);
  return r;
}

}  // namespace ecgpipe
