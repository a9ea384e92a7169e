// Stage 1, reading a CSV column on the GPU (CUDA builds only: include it where ECGPIPE_WITH_CUDA is
// defined). The CPU reference and the shared types are in ecgpipe/io/csv.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/common/cuda.hpp"

namespace ecgpipe {

// GPU path: streams the file through pinned chunks and parses on the device; same values (bit for
// bit) and same errors as read_csv_column. Synchronizes on `stream` only for counts and errors.
DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options,
                                         cudaStream_t stream);

// The same reader handing the column over chunk by chunk, so that no buffer grows with the file
// (issue 29: recordings larger than the GPU): `use(samples, first)` is called once per chunk of
// parsed rows, in file order, with the rows' values on the device (valid until `use` returns and
// the stream has passed what it queued: the reader reuses the memory for the chunk after next)
// and the index of its first sample. Partial lines are carried to the next chunk as in
// read_csv_column_cuda, and the values are the same, bit for bit. Errors are the same too, but
// come when their chunk is reached: the chunks before have been handed over by then. Each chunk
// waits for the device once (its row count, its undecided cells); a chunk with more undecided
// cells than the device lists is parsed on the host from its text. chunk_bytes: as
// csv_internal::kDefaultChunkBytes (clamped to at least 16; tests pass tiny ones). Returns the
// number of samples.
using CsvChunkUse = std::function<void(DeviceSpan<const float> samples, std::uint64_t first)>;
std::uint64_t stream_csv_column_cuda(const std::string& path, const CsvOptions& options, cudaStream_t stream,
                                     const CsvChunkUse& use, std::size_t chunk_bytes = 0);

// Two columns of one file in one pass (issue 24: the second lead of a two-lead CSV, which was
// parsed again on the CPU, 1.1 s of a 2.3 s GPU run for 24 hours at 360 Hz): the file is read,
// its rows found and each row walked once, both cells parsed in the walk. Each column's values
// are read_csv_column's for that column, bit for bit, and the errors read_csv_columns's
// (csv.hpp: the first bad row of either column, a second column's error followed by its note).
struct DeviceColumns {
  DeviceBuffer<float> first;
  DeviceBuffer<float> second;
};
DeviceColumns read_csv_columns_cuda(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second,
                                    cudaStream_t stream);
// Streaming, as stream_csv_column_cuda: `use(first, second, index)`, both spans of one chunk's rows.
using CsvColumnsUse = std::function<void(DeviceSpan<const float> first, DeviceSpan<const float> second, std::uint64_t index)>;
std::uint64_t stream_csv_columns_cuda(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second,
                                      cudaStream_t stream, const CsvColumnsUse& use, std::size_t chunk_bytes = 0);

}  // namespace ecgpipe
