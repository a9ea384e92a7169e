// The training and scoring without LibTorch on the GPU (src/model/flat_training.hpp):
// flat_trainer.hpp over ecgpipe's kernels, on the stream the beat matrix was written on. Every
// buffer is a DeviceBuffer (stream-ordered); the host waits only where it reads: each epoch's
// loss, the scores, the report's rows and the trained weights.
#include "model/flat_training.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/model/model_device.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include <optional>

#include "ecgpipe/common/cuda.hpp"
#include "kernels/model/light_vae_math.cuh"
#include "model/column_median_cuda.hpp"
#include "model/flat_trainer.hpp"
#include "model/normal_draws.hpp"
#include "model/normalise_rows_cuda.hpp"
#include "model/template_distance_cuda.hpp"
#endif

namespace ecgpipe {

#ifdef ECGPIPE_WITH_CUDA
namespace detail {
namespace {

struct CudaOps {
  using Floats = DeviceBuffer<float>;
  using Indices = DeviceBuffer<std::int64_t>;
  cudaStream_t stream;
  const float* rows;
  std::int64_t n;
  int dims;
  // Each epoch's order goes up from page-locked memory, so that its copy is queued behind the
  // previous epoch's steps instead of waiting for them; one buffer suffices, as the host reads
  // the epoch's loss (and so waits for that copy) before it writes the next order.
  std::optional<PinnedBuffer> staging;

  DeviceSpan<const float> all_rows() const { return {rows, static_cast<std::size_t>(n) * static_cast<std::size_t>(dims)}; }

  Floats floats(std::size_t k) const {
    Floats b(k, stream);
    if (k > 0) ECGPIPE_CUDA_CHECK(cudaMemsetAsync(b.data(), 0, k * sizeof(float), stream));
    return b;
  }
  Floats partials(int d, std::int64_t batch) const { return Floats(light_vae_partials_floats(d, batch), stream); }
  // The order's buffer (one per training), with the page-locked memory its uploads go through.
  Indices indices(std::size_t k) {
    staging.emplace(std::max<std::size_t>(k, 1) * sizeof(std::int64_t));
    return Indices(k, stream);
  }
  void put(Floats& dst, const std::vector<float>& src) const {
    if (src.size() != dst.size()) throw InternalError("CudaOps::put: sizes differ");
    copy_to_device(dst.span(), src.data(), src.size(), stream);
    // `src` may go as this returns: wait for the (pageable) copy. Only the initial weights and the
    // report's grid of latent points take this, once each.
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void put(Indices& dst, const std::vector<std::int64_t>& src) const {
    if (src.size() != dst.size()) throw InternalError("CudaOps::put: sizes differ");
    std::memcpy(staging->as<std::int64_t>(), src.data(), src.size() * sizeof(std::int64_t));
    copy_to_device(dst.span(), staging->as<const std::int64_t>(), src.size(), stream);
  }
  void zero(Floats& dst) const { ECGPIPE_CUDA_CHECK(cudaMemsetAsync(dst.data(), 0, dst.size() * sizeof(float), stream)); }
  std::vector<float> get(const Floats& src) const {
    std::vector<float> out(src.size());
    copy_to_host(out.data(), src.cspan(), src.size(), stream);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // `out` is read on return
    return out;
  }
  void draws(std::uint64_t seed, std::uint32_t stream_id, std::uint64_t first, Floats& out, std::size_t count) const {
    normal_draws_cuda(seed, stream_id, first, DeviceSpan<float>{out.data(), count}, stream);
  }
  void step(const Floats& params, const Indices& idx, std::int64_t at, std::int64_t count, const Floats& eps, Floats& partials,
            Floats& grad, Floats& loss) const {
    light_vae_step_cuda(params.cspan(), dims, all_rows(),
                        DeviceSpan<const std::int64_t>{idx.data() + at, static_cast<std::size_t>(count)},
                        DeviceSpan<const float>{eps.data(), static_cast<std::size_t>(kLatentDim * count)}, partials.span(),
                        grad.span(), loss.data(), stream);
  }
  void adam(Floats& params, const Floats& grad, Floats& m, Floats& v, adam::Scalars s) const {
    adam_update_cuda(params.span(), grad.cspan(), m.span(), v.span(), s, stream);
  }
  void score(const Floats& params, const Floats* eps, Floats& out) const {
    light_vae_score_cuda(params.cspan(), dims, all_rows(), eps != nullptr ? eps->cspan() : DeviceSpan<const float>{}, out.span(),
                         stream);
  }
  std::vector<float> decode(const Floats& params, const std::vector<float>& z) {
    Floats dz(z.size(), stream);
    put(dz, z);
    Floats out(z.size() / kLatentDim * static_cast<std::size_t>(dims), stream);
    light_vae_decode_cuda(params.cspan(), dims, dz.cspan(), out.span(), stream);
    return get(out);
  }
  std::vector<float> template_distance() const {
    static_assert(kTemplateSpan <= kMaxTemplateSpanCuda, "a template's rows are sorted in one CUDA block");
    Floats out(static_cast<std::size_t>(n), stream);
    template_distance_cuda(all_rows(), n, dims, kTemplateBlock, kTemplateSpan, out.span(), stream);
    return get(out);
  }
  std::vector<float> column_median() const {
    Floats out(static_cast<std::size_t>(dims), stream);
    column_median_cuda(all_rows(), n, dims, out.span(), stream);
    return get(out);
  }
  std::vector<float> rows_at(const std::vector<std::int64_t>& index) const { return rows_to_host(rows, dims, index, stream); }
};

// BeatMatrix::normalise on the GPU, in place.
void normalise_matrix(const BeatMatrix& beats, cudaStream_t stream) {
  normalise_rows_cuda(DeviceSpan<float>{beats.data(), static_cast<std::size_t>(beats.rows() * beats.cols())}, beats.rows(),
                      static_cast<int>(beats.cols()), stream);
}

}  // namespace
}  // namespace detail

bool model_runs_without_torch(std::int64_t cols) {
  const char* env = std::getenv("ECGPIPE_FUSED_VAE");
  if (env != nullptr && (std::string(env) == "0" || std::string(env) == "libtorch")) return false;
  return cols > 0 && cols <= light_vae::kMaxFusedDims && cuda_device_available() &&
         detail::light_vae_fused_supported(static_cast<int>(cols));
}

namespace detail {

TrainResult train_and_score_flat_cuda(BeatMatrix beats, const TrainOptions& options, const std::string& model_path,
                                      const std::string& meta_json, const ScoreFunction& score) {
  // On these errors `beats` frees the matrix as the exception leaves.
  if (!beats.on_cuda()) throw InternalError("train_and_score_flat_cuda: the matrix is not on the GPU");
  check_trainable(beats.rows(), beats.cols(), options);
  const int dims = static_cast<int>(beats.cols());
  CudaOps ops{static_cast<cudaStream_t>(beats.cuda_stream()), beats.data(), beats.rows(), dims, std::nullopt};
  if (beats.normalise) normalise_matrix(beats, ops.stream);
  TrainResult result = train_flat(ops, beats.rows(), dims, options, meta_json, score);
  write_model_file(model_path, result.model_file);
  return result;
}

TrainResult score_with_model_flat_cuda(BeatMatrix beats, const std::string& model_path, const ScoreFunction& score) {
  // On these errors `beats` frees the matrix as the exception leaves.
  if (!beats.on_cuda()) throw InternalError("score_with_model_flat_cuda: the matrix is not on the GPU");
  const std::vector<float> flat = open_flat_model(beats.rows(), beats.cols(), model_path);
  const int dims = static_cast<int>(beats.cols());
  CudaOps ops{static_cast<cudaStream_t>(beats.cuda_stream()), beats.data(), beats.rows(), dims, std::nullopt};
  if (beats.normalise) normalise_matrix(beats, ops.stream);
  return score_flat_model(ops, flat, beats.rows(), score);
}

}  // namespace detail

#else

bool model_runs_without_torch(std::int64_t) { return false; }

TrainResult detail::train_and_score_flat_cuda(BeatMatrix, const TrainOptions&, const std::string&, const std::string&,
                                              const ScoreFunction&) {
  throw DeviceError("this build has no CUDA kernels");
}

TrainResult detail::score_with_model_flat_cuda(BeatMatrix, const std::string&, const ScoreFunction&) {
  throw DeviceError("this build has no CUDA kernels");
}

#endif

}  // namespace ecgpipe
