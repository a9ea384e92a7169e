// The beat matrix's owner (include/ecgpipe/signal/beat_matrix.hpp).
#include "ecgpipe/signal/beat_matrix.hpp"

#include <memory>
#include <utility>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {

BeatMatrix::BeatMatrix(std::vector<float> values, std::int64_t rows, std::int64_t cols)
    : rows_(rows), cols_(cols), host_(std::move(values)) {
  if (static_cast<std::int64_t>(host_.size()) != rows * cols) throw InternalError("BeatMatrix: values are not rows x cols");
  data_ = host_.data();
}

BeatMatrix::BeatMatrix(float* data, std::int64_t rows, std::int64_t cols, Deleter deleter, bool on_cuda, void* cuda_stream)
    : data_(data), rows_(rows), cols_(cols), on_cuda_(on_cuda), cuda_stream_(cuda_stream), deleter_(std::move(deleter)) {}

BeatMatrix BeatMatrix::view(float* data, std::int64_t rows, std::int64_t cols) { return BeatMatrix(data, rows, cols, {}); }

BeatMatrix::BeatMatrix(BeatMatrix&& other) noexcept { *this = std::move(other); }

BeatMatrix& BeatMatrix::operator=(BeatMatrix&& other) noexcept {
  if (this == &other) return *this;
  free_storage();
  // A moved std::vector keeps its buffer, so data_ stays valid for host rows.
  data_ = std::exchange(other.data_, nullptr);
  rows_ = std::exchange(other.rows_, 0);
  cols_ = std::exchange(other.cols_, 0);
  on_cuda_ = std::exchange(other.on_cuda_, false);
  cuda_stream_ = std::exchange(other.cuda_stream_, nullptr);
  host_ = std::move(other.host_);
  other.host_.clear();
  deleter_ = std::move(other.deleter_);
  other.deleter_ = nullptr;
  normalise = other.normalise;
  return *this;
}

BeatMatrix::~BeatMatrix() { free_storage(); }

void BeatMatrix::free_storage() noexcept {
  if (deleter_ && data_) deleter_(data_);
  deleter_ = nullptr;
  host_ = std::vector<float>();
  data_ = nullptr;
}

BeatMatrix::Deleter BeatMatrix::release() {
  Deleter out;
  if (deleter_) {
    out = std::move(deleter_);
    deleter_ = nullptr;
  } else if (!host_.empty()) {
    // The host rows move to the heap, owned by the returned deleter (the buffer does not move).
    auto rows = std::make_shared<std::vector<float>>(std::move(host_));
    host_.clear();
    out = [rows](float*) mutable { rows.reset(); };
  }
  return out;
}

}  // namespace ecgpipe
