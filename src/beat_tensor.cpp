// The beat matrix handed to LibTorch (src/detail/beat_tensor.hpp).
#include "detail/beat_tensor.hpp"

#include "ecgpipe/error.hpp"

#ifdef ECGPIPE_TORCH_CUDA
#include <c10/cuda/CUDAGuard.h>
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
void normalise_rows(torch::Tensor& x) {
  torch::NoGradGuard no_grad;
  x.sub_(std::get<0>(x.median(1, /*keepdim=*/true)));
  const auto rms = std::get<0>(x.median(0)).square().mean().sqrt();
  // A flat recording (RMS 0) stays as it is rather than turning into NaN.
  x.div_(torch::where(rms > 0, rms, torch::ones_like(rms)));
}

}  // namespace ecgpipe::detail
