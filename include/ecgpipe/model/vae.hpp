// Stage 5: the seed's LightVAE, trained on the beat matrix, then used to score every beat.
// LibTorch stays inside the model code (src/model/vae.cpp and the files it names): this header exposes
// plain types only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ecgpipe/model/vae_types.hpp"
#include "ecgpipe/signal/beat_matrix.hpp"

namespace ecgpipe {

// Shuffles (seeded), splits, trains with Adam, then scores every beat in eval mode. The trained
// model, a safetensors file of the parameters and buffers plus `meta_json` (the caller's
// description of how its beats were made, read back by read_model_meta, model_file.hpp), is
// serialised in memory into TrainResult::model_file, and also written to `model_path` unless it
// is empty (whole or not at all; OutputError on a full disk). Throws InputError if the split
// leaves a set empty.
// Takes the matrix over: LibTorch's tensor frees it, or, on an error before that, `beats` does.
TrainResult train_and_score(BeatMatrix beats, const TrainOptions& options,
                            const std::string& model_path, const std::string& meta_json,
                            const ScoreFunction& score = {});

// BeatMatrix::normalise applied to rows on the host, in place (what train_and_score does to a
// matrix with `normalise` set): a cohort model normalises each recording's rows on their own
// before they are put together, as scoring will.
void normalise_rows_cpu(float* rows, std::int64_t n, std::int64_t cols);

// Scores beats (rows of beats.cols samples) with a saved model, without training: recon_error,
// neg_elbo, latent means and the report extras; in_train all 0. InputError if the model's layers
// do not fit that beat length or there are no beats.
TrainResult score_with_model(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score = {});

}  // namespace ecgpipe
