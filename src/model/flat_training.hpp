// Internal (model code only): the training and scoring without LibTorch (flat_trainer.hpp), its
// entry points. A `run` or `score` on the GPU takes them whenever the fused kernels take the rows,
// so that the executable never loads LibTorch for them (its load and first kernels: ~0.5-0.8 s of
// a 24-hour recording's 1.5 s; docs/performance.md "Training without LibTorch").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/model/model_device.hpp"
#include "ecgpipe/model/vae_types.hpp"
#include "ecgpipe/signal/beat_matrix.hpp"

namespace ecgpipe::detail {

// model_runs_without_torch (include/ecgpipe/model/model_device.hpp) is true for a CUDA build, a
// usable GPU whose blocks get the fused kernels' shared memory for the rows, and ECGPIPE_FUSED_VAE
// unset or other than "0" and "libtorch" (which keep LibTorch: all its kernels, or its training
// with the fused step; for comparison). This for a matrix: on the GPU, and such rows.
inline bool model_runs_without_torch(const BeatMatrix& beats) {
  return beats.on_cuda() && ecgpipe::model_runs_without_torch(beats.cols());
}

// The training and scoring on the GPU without LibTorch: the matrix must be on the GPU and
// model_runs_without_torch(beats) true. The same checks and errors as train_and_score.
TrainResult train_and_score_flat_cuda(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                                      const std::string& meta_json, const ScoreFunction& score);

// The same training on the CPU with the kernels' CPU references: the GPU's reference in the
// tests (serial: slow for more than a few thousand beats). Any host matrix.
TrainResult train_and_score_flat_cpu(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                                     const std::string& meta_json, const ScoreFunction& score);

// score_with_model on the GPU without LibTorch (the same conditions), and on the CPU with the
// kernels' CPU references: the model file's tensors checked as LibTorch's load checks them.
TrainResult score_with_model_flat_cuda(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score);
TrainResult score_with_model_flat_cpu(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score);

// The checks both make before training (and the LibTorch path too): InputError for fewer than 2
// beats after the split, UsageError for rows that are not a multiple of kModelLengthMultiple.
void check_trainable(std::int64_t rows, std::int64_t cols, const TrainOptions& options);
// Before scoring with a model (both paths): InputError for no beats.
void check_scorable(std::int64_t rows);

// The parameters of the model file at `path` for rows of `cols` samples, checked (open_model,
// flat_parameters_from); `rows` checked first (check_scorable).
std::vector<float> open_flat_model(std::int64_t rows, std::int64_t cols, const std::string& path);

// Writes the model file (when `model_path` is not empty) whole or not at all.
void write_model_file(const std::string& model_path, const std::string& bytes);

}  // namespace ecgpipe::detail
