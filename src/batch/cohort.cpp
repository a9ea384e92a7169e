// One model for a cohort of recordings (see cohort.hpp).
#include "ecgpipe/batch/cohort.hpp"

#include <spdlog/spdlog.h>

#include <mutex>

#include "ecgpipe/pipeline/beat_rows.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/model/vae.hpp"
#include "common/output_set.hpp"
#include "ecgpipe/pipeline/segment.hpp"

namespace ecgpipe {

CohortTraining train_cohort_model(const std::vector<BatchItem>& items, int jobs,
                                  const std::function<RunOptions(const BatchItem&)>& options_for,
                                  const std::string& out_dir) {
  CohortTraining result;
  std::vector<std::vector<float>> rows(items.size());
  std::vector<int> cols(items.size(), 0);
  const auto outcomes = run_batch(items, BatchOptions{jobs, false}, [&](const BatchItem& item) {
    const std::size_t i = static_cast<std::size_t>(&item - items.data());
    const RunOptions o = options_for(item);
    validate(o);
    Segmentation seg = segment_cpu(o);
    cols[i] = row_length(o.rows());
    // segment_cpu's matrix holds host rows: copied out, this recording's part of the cohort.
    const float* m = seg.matrix.data();
    rows[i].assign(m, m + seg.matrix.rows() * seg.matrix.cols());
    if (o.model == Model::rr) normalise_rows_cpu(rows[i].data(), seg.matrix.rows(), cols[i]);
  });
  // The first recording with beats sets the options and the row length.
  std::size_t first = items.size();
  for (std::size_t i = 0; i < items.size(); ++i)
    if (outcomes[i].ok && first == items.size()) first = i;
  if (first == items.size()) throw InputError("--cohort-model: no recording gave beats to train on");
  std::vector<float> all;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!outcomes[i].ok) {
      result.failed[items[i].name] = std::make_exception_ptr(Error(outcomes[i].code, outcomes[i].error));
    } else if (cols[i] != cols[first]) {
      result.failed[items[i].name] = std::make_exception_ptr(UsageError(
          "--cohort-model: " + items[i].path + " gives beat rows of " + std::to_string(cols[i]) + " samples, " +
          items[first].path + " of " + std::to_string(cols[first]) + " (another sampling rate): one model needs one"));
    } else {
      all.insert(all.end(), rows[i].begin(), rows[i].end());
      ++result.recordings;
    }
    std::vector<float>().swap(rows[i]);
  }
  RunOptions o = options_for(items[first]);
  o.input = out_dir + " (cohort of " + std::to_string(result.recordings) + " recordings)";  // the model's meta record
  BeatMatrix matrix = BeatMatrix::view(all.data(), static_cast<std::int64_t>(all.size()) / cols[first], cols[first]);
  matrix.normalise = false;  // done per recording above
  result.beats = static_cast<std::size_t>(matrix.rows());
  spdlog::info("cohort model: training on {} beats of {} recordings", result.beats, result.recordings);
  TrainResult t = train_and_score(std::move(matrix), o.train, "", model_meta_json(o));
  result.model_path = out_dir + "/model.safetensors";
  OutputSet model(/*create_dirs=*/true);  // whole or not at all (output.hpp)
  model.bytes(result.model_path, std::move(t.model_file));
  model.commit();
  spdlog::info("cohort model: train loss {:.5f} -> {:.5f}, test loss {:.5f} -> {}", t.epoch_loss.front(),
               t.epoch_loss.back(), t.test_loss, result.model_path);
  return result;
}

}  // namespace ecgpipe
