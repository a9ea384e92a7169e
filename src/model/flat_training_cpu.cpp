// The training and scoring without LibTorch on the CPU (src/model/flat_training.hpp):
// flat_trainer.hpp over the CPU references of the GPU's kernels, and the checks and the model file
// both devices share (the LibTorch path's too).
// The reference runs serially, one beat after another: it is the GPU's yardstick in the tests.
#include <algorithm>
#include <string>
#include <vector>

#include "common/output_set.hpp"
#include "ecgpipe/common/error.hpp"
#include "kernels/model/light_vae_math.cuh"
#include "model/beat_medians_cpu.hpp"
#include "model/flat_trainer.hpp"
#include "model/flat_training.hpp"
#include "model/model_file_format.hpp"
#include "model/normal_draws.hpp"

namespace ecgpipe::detail {
namespace {

struct CpuOps {
  using Floats = std::vector<float>;
  using Indices = std::vector<std::int64_t>;
  const float* rows;
  std::int64_t n;
  int dims;

  Floats floats(std::size_t k) const { return Floats(k, 0.0f); }
  Floats partials(int, std::int64_t) const { return {}; }
  Indices indices(std::size_t k) const { return Indices(k); }
  void put(Floats& dst, const std::vector<float>& src) const { dst = src; }
  void put(Indices& dst, const std::vector<std::int64_t>& src) const { dst = src; }
  void zero(Floats& dst) const { std::fill(dst.begin(), dst.end(), 0.0f); }
  std::vector<float> get(const Floats& src) const { return src; }
  void draws(std::uint64_t seed, std::uint32_t stream, std::uint64_t first, Floats& out, std::size_t count) const {
    normal_draws_cpu(seed, stream, first, out.data(), count);
  }
  void step(const Floats& params, const Indices& idx, std::int64_t at, std::int64_t count, const Floats& eps, Floats&,
            Floats& grad, Floats& loss) const {
    light_vae_step_cpu(params.data(), dims, rows, idx.data() + at, count, eps.data(), grad.data(), loss.data());
  }
  void adam(Floats& params, const Floats& grad, Floats& m, Floats& v, adam::Scalars s) const {
    adam_update_cpu(params.data(), grad.data(), m.data(), v.data(), params.size(), s);
  }
  void score(const Floats& params, const Floats* eps, Floats& out) const {
    light_vae_score_cpu(params.data(), dims, rows, n, eps != nullptr ? eps->data() : nullptr, out.data());
  }
  std::vector<float> decode(const Floats& params, const std::vector<float>& z) const {
    const auto count = static_cast<std::int64_t>(z.size() / kLatentDim);
    std::vector<float> out(static_cast<std::size_t>(count * dims));
    light_vae_decode_cpu(params.data(), dims, z.data(), count, out.data());
    return out;
  }
  std::vector<float> template_distance() const { return template_distance_reference(rows, n, dims); }
  std::vector<float> column_median() const { return column_median_reference(rows, 0, n, dims); }
  std::vector<float> rows_at(const std::vector<std::int64_t>& index) const { return rows_to_host(rows, dims, index, nullptr); }
};

}  // namespace

void check_trainable(std::int64_t rows, std::int64_t cols, const TrainOptions& options) {
  const auto n_train = static_cast<std::int64_t>(options.train_fraction * static_cast<double>(rows));
  if (n_train < 1 || rows - n_train < 1) {
    throw InputError("too few beats for a train/test split: found " + std::to_string(rows) +
                     " beats, need at least 2 (check --min-length/--max-length and the sampling rate)");
  }
  if (cols % kModelLengthMultiple != 0) throw UsageError("--max-length must be a multiple of 8");
}

void check_scorable(std::int64_t rows) {
  if (rows < 1) throw InputError("no beats to score (check the recording and the model's sampling rate)");
}

namespace {

// The rows the fused kernels' model takes (what model_runs_without_torch asks of a GPU matrix).
void check_flat_rows(std::int64_t cols) {
  if (cols > light_vae::kMaxFusedDims || cols % kModelLengthMultiple != 0)
    throw UsageError("the model code without LibTorch takes rows of a multiple of 8 samples, at most " +
                     std::to_string(light_vae::kMaxFusedDims));
}

}  // namespace

std::vector<float> open_flat_model(std::int64_t rows, std::int64_t cols, const std::string& path) {
  check_scorable(rows);
  check_flat_rows(cols);
  return flat_parameters_from(open_model(path), path, static_cast<int>(cols));
}

void write_model_file(const std::string& model_path, const std::string& bytes) {
  if (model_path.empty()) return;
  OutputSet file;
  file.bytes(model_path, bytes);
  file.commit();
}

TrainResult score_with_model_flat_cpu(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score) {
  if (beats.on_cuda()) throw InternalError("score_with_model_flat_cpu: the matrix is on the GPU");
  const std::vector<float> flat = open_flat_model(beats.rows(), beats.cols(), model_path);
  const int dims = static_cast<int>(beats.cols());
  if (beats.normalise) normalise_rows_reference(beats.data(), beats.rows(), dims);
  CpuOps ops{beats.data(), beats.rows(), dims};
  return score_flat_model(ops, flat, beats.rows(), score);
}

TrainResult train_and_score_flat_cpu(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                                     const std::string& meta_json, const ScoreFunction& score) {
  if (beats.on_cuda()) throw InternalError("train_and_score_flat_cpu: the matrix is on the GPU");
  check_trainable(beats.rows(), beats.cols(), options);
  check_flat_rows(beats.cols());
  const int dims = static_cast<int>(beats.cols());
  if (beats.normalise) normalise_rows_reference(beats.data(), beats.rows(), dims);
  CpuOps ops{beats.data(), beats.rows(), dims};
  TrainResult result = train_flat(ops, beats.rows(), dims, options, meta_json, score);
  write_model_file(model_path, result.model_file);
  return result;
}

}  // namespace ecgpipe::detail
