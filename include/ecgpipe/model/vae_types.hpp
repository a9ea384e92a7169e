// The VAE's constants and the plain types of its interface (training options, what a training or a
// scoring returns): shared by every file of the model code, below vae.hpp, which declares the calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ecgpipe {

inline constexpr int kLatentDim = 2;           // the seed's 2-D latent
inline constexpr double kKlWeight = 0.1;       // loss = MSE + 0.1 * KL (seed)
inline constexpr int kSeedBatch = 1024;        // the seed's batch size
inline constexpr int kMinAutoBatch = 64;
inline constexpr int kAutoBatchSteps = 32;     // optimiser steps per epoch the automatic batch aims at
// Local templates for template_distance: blocks of 512 beats (~7 min at 70 bpm), each compared
// with the median of the 1024 beats centred on it. Measured on MIT-BIH DS1 (AUROC abnormal/V):
// one template per file 0.923/0.951 with the 22 records in one file, 0.969/0.979 per record;
// these blocks 0.969/0.983 and 0.965/0.974. Blocks of 256 in spans of 512 let 208's bigeminy
// stretches pull the median towards its V beats (per record V 0.973).
inline constexpr std::int64_t kTemplateBlock = 512;
inline constexpr std::int64_t kTemplateSpan = 1024;
// The floor of a template's mean square, so that a flat template still gives finite distances.
inline constexpr double kMinTemplateEnergy = 1e-12;

struct TrainOptions {
  int epochs = 30;
  // 0 = automatic: n_train / kAutoBatchSteps rows, clamped to [kMinAutoBatch, kSeedBatch], so a
  // short recording still gets enough optimiser steps per epoch (the seed's 1024 gives a 30-min
  // record of ~2000 beats 2 steps an epoch) and a long one the seed's fast large batches.
  int batch_size = 0;
  std::uint64_t seed = 42;
  double learning_rate = 1e-3;   // torch.optim.Adam's default, as in the seed
  double train_fraction = 0.75;  // the seed's 75/25 split
  bool cuda = false;
  // Called after each epoch with (epoch 1-based, mean train loss per beat, training beats per
  // second over that epoch).
  std::function<void(int, double, double)> on_epoch;
};

// TrainOptions::batch_size resolved for n_train training rows.
inline int resolve_batch_size(int requested, std::int64_t n_train) {
  if (requested > 0) return requested;
  return static_cast<int>(std::clamp<std::int64_t>(n_train / kAutoBatchSteps, kMinAutoBatch, kSeedBatch));
}

struct TrainResult {
  std::vector<double> epoch_loss;    // mean train loss per beat, per epoch (seed's definition)
  double test_loss = 0.0;            // mean test loss per beat
  std::vector<std::uint8_t> in_train;  // per beat (original order): 1 train, 0 test
  std::vector<float> recon_error;    // per beat: mean squared error of decode(mu) vs the beat
  std::vector<float> neg_elbo;       // per beat: recon_error + 0.1 KL(q(z|x) || N(0, I)), z = mu
  std::vector<float> latent_mean;    // per beat: kLatentDim values, row-major
  // per beat: mean squared distance of the (normalised) row from the local template (the
  // per-sample median row of the kTemplateSpan beats around it), relative to the template's mean
  // square: how far the beat is from the dominant beat shape of its part of the recording.
  std::vector<float> template_distance;
  std::vector<float> score;          // per beat: the outlier score (ScoreFunction; default recon_error)
  int batch_size = 0;                // the batch size used (TrainOptions::batch_size resolved)
  double train_seconds = 0.0;
  double score_seconds = 0.0;
  bool cuda_graph = false;           // training steps replayed from a captured CUDA graph
  bool fused_step = false;           // forward and backward by the fused kernel (kernels/model/light_vae.cu)
  bool libtorch = true;              // trained with LibTorch (false: src/model/flat_trainer.hpp, on the GPU)
  // The model file's bytes (train_and_score): serialised in memory because LibTorch's file writer
  // throws from a destructor when the disk fills (std::terminate); the caller writes them.
  std::string model_file;

  // For the report (small; host memory). Rows have `cols` values each.
  std::vector<float> decoded_grid;   // kGridSide x kGridSide beats decoded from a latent grid
  std::vector<float> grid_latent;    // the grid's latent points, kLatentDim each (row-major)
  std::vector<std::int64_t> sample_index;  // evenly spaced beats (<= kSampleRows) ...
  std::vector<float> sample_rows;          // ... and their rows
  std::vector<std::int64_t> outlier_index; // the kTopOutliers highest scores, descending ...
  std::vector<float> outlier_rows;         // ... and their rows
  std::vector<float> median_beat;          // per-sample median over all beats (cols values)
};

inline constexpr int kGridSide = 5;        // the notebook's 5x5 "fake heartbeats"
inline constexpr int kSampleRows = 200;    // beats kept for the overlay plot
inline constexpr int kTopOutliers = 12;    // outliers kept with their rows

// Turns a result's per-beat recon_error, neg_elbo and template_distance into its outlier scores
// (one per beat; higher = more unusual). Empty function: the score is recon_error (the seed's).
using ScoreFunction = std::function<std::vector<float>(const TrainResult&)>;

}  // namespace ecgpipe
