// Stage 1, reading a CSV column on the GPU (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/io/csv.hpp.
#pragma once

#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

// GPU path: streams the file through pinned chunks and parses on the device; same values (bit for
// bit) and same errors as read_csv_column. Synchronizes on `stream` only for counts and errors.
DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options,
                                         cudaStream_t stream);

}  // namespace ecgpipe
