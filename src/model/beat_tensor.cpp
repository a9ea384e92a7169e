// The beat matrix handed to LibTorch (src/model/beat_tensor.hpp).
#include "model/beat_tensor.hpp"

#include <algorithm>
#include <vector>

#include "ecgpipe/config.hpp"
#include "ecgpipe/common/error.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "model/column_median_cuda.hpp"
#include "model/normalise_rows_cuda.hpp"
#endif

namespace ecgpipe::detail {

BeatTensor::BeatTensor(BeatMatrix beats) {
#ifdef ECGPIPE_TORCH_CUDA
  if (beats.on_cuda()) {
    device = torch::Device(torch::kCUDA, c10::cuda::current_device());
    // LibTorch works on the pipeline's stream: no cross-stream sync needed for the matrix.
    stream_guard.emplace(c10::cuda::getStreamFromExternal(static_cast<cudaStream_t>(beats.cuda_stream()), device.index()));
  }
#else
  if (beats.on_cuda()) throw DeviceError("this build's LibTorch has no CUDA support");
#endif
  const auto opts = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  float* rows = beats.data();
  const std::int64_t n = beats.rows(), cols = beats.cols();
  const bool normalise = beats.normalise;
  if (BeatMatrix::Deleter free_rows = beats.release()) {
    try {
      data = torch::from_blob(rows, {n, cols}, [free_rows](void* p) { free_rows(static_cast<float*>(p)); }, opts);
    } catch (...) {
      free_rows(rows);  // LibTorch never took it
      throw;
    }
  } else {
    data = torch::from_blob(rows, {n, cols}, opts);  // a view: the caller keeps the rows alive
  }
  if (normalise && n > 0) normalise_rows(data);
}

// In place: the matrix is ours (CPU: the pipeline's buffer, which it does not read again; GPU:
// owned through the deleter). A median, not a mean, for both the baseline and the template, so
// that a minority of odd beats moves neither.
// The row medians are taken 64 Ki rows at a time on the CPU, for the reason column_median gives.
// On a GPU: ecgpipe's kernels (normalise_rows_cuda.hpp says why), on the current stream.
void normalise_rows(torch::Tensor& x) {
#ifdef ECGPIPE_TORCH_CUDA
  if (x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat32) {
    normalise_rows_cuda(DeviceSpan<float>{x.data_ptr<float>(), static_cast<std::size_t>(x.numel())}, x.size(0),
                        static_cast<int>(x.size(1)), c10::cuda::getCurrentCUDAStream());
    return;
  }
#endif
  torch::NoGradGuard no_grad;
  const std::int64_t n = x.size(0), row_block = x.is_cuda() ? n : std::int64_t{1} << 16;
  for (std::int64_t b = 0; b < n; b += row_block) {
    auto rows = x.slice(0, b, std::min(n, b + row_block));
    rows.sub_(std::get<0>(rows.median(1, /*keepdim=*/true)));
  }
  const auto rms = column_median(x).square().mean().sqrt();
  // A flat recording (RMS 0) stays as it is rather than turning into NaN.
  x.div_(torch::where(rms > 0, rms, torch::ones_like(rms)));
}

torch::Tensor column_median(const torch::Tensor& x) {
#ifdef ECGPIPE_TORCH_CUDA
  if (x.is_cuda() && x.size(0) > 0 && x.size(1) > 0) {
    const torch::Tensor rows = x.to(torch::kFloat32).contiguous();
    auto out = torch::empty({rows.size(1)}, rows.options());
    column_median_cuda(DeviceSpan<const float>{rows.data_ptr<float>(), static_cast<std::size_t>(rows.numel())}, rows.size(0),
                       static_cast<int>(rows.size(1)), DeviceSpan<float>{out.data_ptr<float>(), static_cast<std::size_t>(out.numel())},
                       c10::cuda::getCurrentCUDAStream());
    return out.to(x.scalar_type());
  }
#endif
  torch::NoGradGuard no_grad;
  const std::int64_t cols = x.size(1), block = x.is_cuda() ? cols : 16;
  std::vector<torch::Tensor> parts;
  for (std::int64_t c = 0; c < cols; c += block) parts.push_back(std::get<0>(x.slice(1, c, std::min(cols, c + block)).median(0)));
  return parts.size() == 1 ? parts.front() : torch::cat(parts);
}

}  // namespace ecgpipe::detail
