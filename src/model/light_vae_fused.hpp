// Internal (model code only): the LightVAE's training step as one fused kernel per batch
// (kernels/model/light_vae.cu) and its CPU reference (src/model/light_vae_fused.cpp), both running the
// hand-written forward and backward pass of kernels/model/light_vae_math.cuh. No LibTorch here: the
// model code passes the flat parameter and gradient buffers of GraphAdam (src/model/graph_adam.cpp).
#pragma once

#include <cstdint>

#include "ecgpipe/config.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/common/cuda.hpp"
#endif

namespace ecgpipe::detail {

// Floats in the flat parameter (and gradient) buffer for rows of `dims` samples.
int light_vae_fused_parameters(int dims);

// The parameter offsets the fused step assumes, by LibTorch name ("sigma.alpha", "conv0.weight",
// ...), for checking against the flat buffer the model's parameters live in; -1 for other names.
// From the table of src/model/flat_parameters.hpp (defined there).
int light_vae_fused_offset(int dims, const char* name);

// CPU reference of one training step's gradient: for each of the `batch` rows idx[b] of `rows`
// (each `dims` floats) with its two normal draws eps[2b], eps[2b+1], the gradient of the beat's
// loss; `grad` (parameters floats) receives their sum over the batch in row order, and the
// batch's summed loss is added to *loss_sum.
void light_vae_step_cpu(const float* params, int dims, const float* rows, const std::int64_t* idx, std::int64_t batch,
                        const float* eps, float* grad, float* loss_sum);

// Values per scored row: mean squared reconstruction error, the KL term of the loss, mu[2].
inline constexpr int kFusedScoreValues = 4;
// A scored row's loss, the seed's (error + KL term): the test loss's term with sampled z, the
// negative ELBO with z = mu. The same float sum as LibTorch's add of the two columns.
inline float fused_row_loss(const float* row) { return row[0] + row[1]; }

// CPU reference of scoring: for each of the `count` rows of `rows`, encode, decode from z = mu
// (eps null) or z = mu + eps exp(logvar / 2) (eps: two normal draws per row), and write
// kFusedScoreValues floats to out[kFusedScoreValues * r ...].
void light_vae_score_cpu(const float* params, int dims, const float* rows, std::int64_t count, const float* eps, float* out);

// CPU reference of decoding `count` latent points z[2k], z[2k+1] into out[k * dims ...].
void light_vae_decode_cpu(const float* params, int dims, const float* z, std::int64_t count, float* out);

#ifdef ECGPIPE_WITH_CUDA
// Whether the current GPU gives a block the shared memory the fused step needs for `dims`
// (and dims is a multiple of 8 up to kMaxFusedDims). Never throws.
bool light_vae_fused_supported(int dims);

// Floats of the scratch buffer light_vae_step_cuda needs for `batch` rows: a gradient and a loss
// per row.
std::size_t light_vae_partials_floats(int dims, std::int64_t batch);

// The same step on the GPU, asynchronous on `stream` (capturable in a CUDA graph: launches only,
// no allocation, no synchronization): one block per row writes that beat's gradient and loss to
// `partials`, then a second kernel sums them over the rows in a fixed order (the same result on
// every run) into `grad` and adds the loss to *loss_sum. Spans are device memory.
void light_vae_step_cuda(DeviceSpan<const float> params, int dims, DeviceSpan<const float> rows,
                         DeviceSpan<const std::int64_t> idx, DeviceSpan<const float> eps, DeviceSpan<float> partials,
                         DeviceSpan<float> grad, float* loss_sum, cudaStream_t stream);

// light_vae_score_cpu on the GPU: one block per row; `eps` empty for z = mu. Asynchronous.
void light_vae_score_cuda(DeviceSpan<const float> params, int dims, DeviceSpan<const float> rows, DeviceSpan<const float> eps,
                          DeviceSpan<float> out, cudaStream_t stream);

// light_vae_decode_cpu on the GPU: one block per latent point. Asynchronous.
void light_vae_decode_cuda(DeviceSpan<const float> params, int dims, DeviceSpan<const float> z, DeviceSpan<float> out,
                           cudaStream_t stream);
#endif

}  // namespace ecgpipe::detail
