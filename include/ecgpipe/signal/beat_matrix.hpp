// The beat matrix (rows x cols float32, row-major; host or device memory) and its one owner from
// its allocation until LibTorch's tensor deleter frees it. Move-only: a copy would free twice;
// destroyed while it still owns its storage (an error before LibTorch takes it) it frees it.
// Plain C++: no LibTorch, no CUDA (a device buffer comes with the deleter that frees it).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ecgpipe {

// A beat row's length is a multiple of this: the VAE that reads the rows downsamples three times
// by stride 2 ([1,2,1] kernels). Here, below the detector that sizes the rows and the model.
inline constexpr int kModelLengthMultiple = 8;

class BeatMatrix {
 public:
  // Frees the storage; called exactly once, by the last owner.
  using Deleter = std::function<void(float*)>;

  BeatMatrix() = default;
  // Host rows, owned by the matrix (the CPU path). values.size() must be rows * cols.
  BeatMatrix(std::vector<float> values, std::int64_t rows, std::int64_t cols);
  // Storage allocated elsewhere (a device buffer, a test's counting allocator), freed by `deleter`.
  // On the GPU `cuda_stream` is the cudaStream_t the matrix was written on.
  BeatMatrix(float* data, std::int64_t rows, std::int64_t cols, Deleter deleter, bool on_cuda = false,
             void* cuda_stream = nullptr);
  // Host rows owned by the caller, who keeps them alive while the matrix is used; nothing is freed.
  static BeatMatrix view(float* data, std::int64_t rows, std::int64_t cols);

  BeatMatrix(BeatMatrix&& other) noexcept;
  BeatMatrix& operator=(BeatMatrix&& other) noexcept;
  BeatMatrix(const BeatMatrix&) = delete;
  BeatMatrix& operator=(const BeatMatrix&) = delete;
  ~BeatMatrix();

  float* data() const { return data_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  bool on_cuda() const { return on_cuda_; }
  void* cuda_stream() const { return cuda_stream_; }

  // Hands the storage to a new owner (LibTorch's tensor deleter): returns the function that
  // frees it, to be called exactly once; empty for a view. data() stays valid for the new owner;
  // this matrix no longer frees anything.
  Deleter release();

  // Normalise the rows before use (the `rr` model, in place on their device): each row minus its
  // own median (baseline wander), then all rows divided by the RMS of the median beat (the
  // recording's gain), so the model sees beats of unit scale from any lead or amplifier.
  bool normalise = false;

 private:
  void free_storage() noexcept;

  float* data_ = nullptr;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  bool on_cuda_ = false;
  void* cuda_stream_ = nullptr;
  std::vector<float> host_;  // the storage, when the matrix holds host rows itself
  Deleter deleter_;          // the storage's deleter, when it came from elsewhere
};

}  // namespace ecgpipe
