// Stage 1 on the GPU, the host side: one numeric column of a CSV file (or two, a two-lead file's
// second lead beside the primary: CsvSecondColumn) -> float32 samples on the device, through the
// kernels of kernels/io/csv.cu (launchers: kernels/io/csv_kernels.hpp).
//
// Streaming: the header (and blank lines before it) is read with getc and resolved with
// resolve_column(); then the file is read in chunks of `chunk_bytes` into two pinned host buffers
// used in turn. A chunk always starts at a line start: the bytes after its last LF (a partial
// line) are carried to the front of the next chunk; only the last chunk may end without LF.
// Every step is queued on the caller's stream; the host blocks only (a) before refilling a
// pinned buffer whose previous host->device copy may still be running (event), and (b) for the
// row count of chunk k-1 (event, already done by then because it was queued before the host read
// chunk k). So reading chunk k+1 from disk overlaps the copy and the kernels of chunk k.
//
// Streaming (stream_csv_column_cuda): each chunk is parsed into a chunk-sized buffer of its own
// instead of the growing output, its undecided cells settled (or, more than the device lists, the
// whole chunk parsed on the host), and handed to the caller before the next chunk is parsed.
//
// Errors: the kernels find only *where* the first bad row is (its file offset); the host turns it
// into a line number by re-reading the file and builds the message with the CPU code
// (csv_internal::throw_bad_line), so both paths say the same thing. Device->host traffic: per
// chunk one 16-byte status (row count, first bad offset, count of undecided cells), plus the
// undecided cells' positions at the end, which the host re-parses with fast_float and patches
// (more than kHardCapacity of them: the whole file is parsed on the CPU instead).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/csv_internal.hpp"
#include "kernels/io/csv_kernels.hpp"
#include "common/parallel.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/csv_cuda.hpp"
#include "ecgpipe/common/cuda.hpp"
#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

using csv_kernels::kHardCapacity;
using csv_kernels::kNoOffset;
using csv_kernels::ParseArgs;
using csv_kernels::Status;
using csv_kernels::UndecidedCell;
using csv_kernels::parse_rows;
using csv_kernels::row_starts_scratch_bytes;
using csv_kernels::select_row_starts;
using csv_kernels::upload_parse_tables;

// Waits for the stream when it goes out of scope: declared after the pinned buffers, it runs
// before they are freed, so an exception never frees memory a queued copy still reads.
// Disarmed once the host has waited for everything queued (the usual, successful path).
struct StreamDrain {
  cudaStream_t stream;
  bool armed = true;
  ~StreamDrain() {
    if (armed) (void)cudaStreamSynchronize(stream);
  }
};

// Reads one raw line (LF removed) with getc. Keeps at most `keep` bytes in `line`, returns the
// full length in `length`; false at end of file with nothing read.
bool read_raw_line(std::FILE* file, std::string& line, std::size_t keep, std::size_t& length) {
  line.clear();
  length = 0;
  int c = 0;
  bool any = false;
  while ((c = std::getc(file)) != EOF) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < keep) line.push_back(static_cast<char>(c));
    ++length;
  }
  return any;
}

// The line holding file offset `offset`: its 1-based number and its raw text (LF removed, a BOM
// removed on line 1), at most kMaxLineBytes + 1 bytes kept; `length` is the full length.
struct LocatedLine {
  std::size_t line_no = 1;
  std::string raw;
  std::size_t length = 0;
};

LocatedLine locate_line(const std::string& path, std::uint64_t offset) {
  csv_internal::FilePtr file = csv_internal::open_csv_file(path);
  LocatedLine found;
  std::vector<char> block(std::size_t{1} << 20);
  std::uint64_t pos = 0, line_start = 0;
  while (pos < offset) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), offset - pos));
    const std::size_t got = std::fread(block.data(), 1, want, file.get());
    if (got == 0) break;
    for (const char* p = block.data(); (p = static_cast<const char*>(std::memchr(p, '\n', got - (p - block.data())))) != nullptr; ++p) {
      ++found.line_no;
      line_start = pos + static_cast<std::uint64_t>(p - block.data()) + 1;
    }
    pos += got;
  }
  if (std::fseek(file.get(), static_cast<long>(line_start), SEEK_SET) != 0) {
    throw InputError("cannot seek in " + path);
  }
  read_raw_line(file.get(), found.raw, csv_internal::kMaxLineBytes + 4, found.length);
  if (line_start == 0 && csv_internal::starts_with_bom(found.raw)) {
    found.raw.erase(0, 3);
    found.length -= 3;
  }
  return found;
}

// The rest of the line from `offset` (a row start), as the CPU reader sees it.
std::string row_text_at(std::FILE* file, const std::string& path, std::uint64_t offset) {
  if (std::fseek(file, static_cast<long>(offset), SEEK_SET) != 0) throw InputError("cannot seek in " + path);
  std::string raw;
  std::size_t length = 0;
  read_raw_line(file, raw, csv_internal::kMaxLineBytes + 1, length);
  return std::string(csv_internal::reader_view(raw));
}

class GpuCsvReader {
 public:
  GpuCsvReader(const std::string& path, const CsvOptions& options, cudaStream_t stream, std::size_t chunk_bytes,
               const CsvSecondColumn* second = nullptr)
      : path_(path), options_(options), stream_(stream),
        chunk_(std::clamp<std::size_t>(chunk_bytes, 16, std::size_t{1} << 30)),
        second_(second != nullptr ? std::make_optional(*second) : std::nullopt) {}

  DeviceColumns run();
  std::uint64_t stream(const CsvColumnsUse& use);  // the second span empty without a second column

 private:
  void open_and_allocate();
  void stream_chunks();
  void deliver(int slot, std::uint32_t rows);
  void parse_chunk_on_host(int slot, std::uint32_t rows, std::uint32_t len, std::uint64_t file_offset);
  void read_header();
  void enqueue_chunk(int slot, std::size_t bytes);
  std::size_t read_more(char* dst, std::size_t want);
  void parse_pending();
  void grow_output(std::size_t needed, std::uint64_t bytes_done);
  std::uint64_t fetch_final_status();
  std::uint64_t settle_undecided(std::uint64_t first_bad, float* target, float* target2, std::size_t target_size);
  bool parse_row(std::string_view line, float& value, float& value2) const;
  CsvColumns read_on_cpu() const;
  [[noreturn]] void fail(std::uint64_t offset, bool chunk_overflow = false);

  const std::string path_;
  const CsvOptions options_;
  const cudaStream_t stream_;
  const std::size_t chunk_;
  const std::optional<CsvSecondColumn> second_;  // a second column, if any, and its index once resolved
  CsvColumn column2_;
  csv_internal::FilePtr file_;
  std::size_t file_size_ = 0;
  CsvColumn column_;
  std::uint64_t data_start_ = 0;  // file offset of the first data byte
  std::string initial_;           // bytes read while checking for a BOM (no header): chunk 0's head
  std::int64_t read_pos_ = -1;    // pread's next offset (regular files), from ftell after the header

  // Streaming state.
  std::unique_ptr<PinnedBuffer> host_[2];
  std::unique_ptr<PinnedBuffer> host_status_;  // Status[3]: one per slot, one final
  std::unique_ptr<StreamDrain> drain_;
  DeviceBuffer<char> text_[2];
  DeviceBuffer<std::uint32_t> row_starts_[2];
  DeviceBuffer<Status> status_;
  DeviceBuffer<UndecidedCell> undecided_;
  DeviceBuffer<unsigned char> cub_temp_;
  Event copied_[2], status_ready_[2];
  bool slot_used_[2] = {false, false};
  DeviceBuffer<float> out_;
  std::uint64_t rows_ = 0;
  DeviceBuffer<float> out2_;          // the second column's, as out_
  const CsvColumnsUse* use_ = nullptr;  // streaming: the caller's callback
  DeviceBuffer<float> chunk_out_[2];  // streaming: a chunk's values
  DeviceBuffer<float> chunk_out2_[2];
  struct Pending {
    bool active = false;
    int slot = 0;
    std::uint64_t file_offset = 0;
    std::uint32_t len = 0;
  } pending_;
};

void GpuCsvReader::read_header() {
  if (!options_.has_header) {
    column_ = resolve_column({}, options_, path_);
    if (second_) column2_ = resolve_column({}, csv_internal::second_column_options(options_, *second_), path_);
    char head[3];
    const std::size_t got = std::fread(head, 1, 3, file_.get());
    if (csv_internal::starts_with_bom(std::string_view(head, got))) {
      data_start_ = 3;  // the CPU reader skips a UTF-8 BOM
    } else {
      initial_.assign(head, got);
    }
    return;
  }
  std::string raw;
  std::size_t length = 0;
  std::size_t line_no = 0;
  std::uint64_t consumed = 0;
  while (read_raw_line(file_.get(), raw, csv_internal::kMaxLineBytes + 4, length)) {
    ++line_no;
    consumed += length;
    if (!std::feof(file_.get())) ++consumed;  // the LF
    std::string_view text = raw;
    if (line_no == 1 && csv_internal::starts_with_bom(text)) {
      text.remove_prefix(3);
      length -= 3;
    }
    if (length > csv_internal::kMaxLineBytes) csv_internal::throw_line_too_long(path_, line_no);
    text = csv_internal::reader_view(text);
    csv_internal::check_no_nul(path_, line_no, text);
    if (!is_blank_line(text)) {
      column_ = resolve_column(text, options_, path_);
      if (second_) column2_ = resolve_column(text, csv_internal::second_column_options(options_, *second_), path_);
      data_start_ = consumed;
      return;
    }
  }
  csv_internal::throw_empty_file(path_);
}

// Queues chunk `slot` (its `bytes` bytes are in host_[slot]): copy, row starts, status.
void GpuCsvReader::enqueue_chunk(int slot, std::size_t bytes) {
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(text_[slot].data(), host_[slot]->as<char>(), bytes, cudaMemcpyHostToDevice, stream_));
  ECGPIPE_CUDA_CHECK(cudaEventRecord(copied_[slot], stream_));
  slot_used_[slot] = true;
  select_row_starts(text_[slot].data(), static_cast<std::uint32_t>(bytes), row_starts_[slot].data(), &status_.data()->rows,
                    cub_temp_.span(), stream_);
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(host_status_->as<Status>() + slot, status_.data(), sizeof(Status),
                                     cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaEventRecord(status_ready_[slot], stream_));
}

// Launches the parse of the pending chunk, whose row count is in host status[slot].
void GpuCsvReader::parse_pending() {
  if (!pending_.active) return;
  pending_.active = false;
  const int slot = pending_.slot;
  ECGPIPE_CUDA_CHECK(cudaEventSynchronize(status_ready_[slot]));
  const Status st = host_status_->as<Status>()[slot];
  if (st.first_bad != kNoOffset) fail(st.first_bad);  // found in an earlier chunk: stop reading
  const std::uint32_t rows = st.rows;
  if (rows == 0) return;
  if (use_ == nullptr) grow_output(rows_ + rows, pending_.file_offset + pending_.len);
  float* out2 = use_ != nullptr ? chunk_out2_[slot].data() : out2_.data();
  ParseArgs a;
  a.text = text_[slot].data();
  a.len = pending_.len;
  a.row_starts = row_starts_[slot].data();
  a.rows = rows;
  a.field = column_.index;
  a.out = use_ != nullptr ? chunk_out_[slot].data() : out_.data();
  a.field2 = second_ ? column2_.index : csv_kernels::kNoField;
  a.out2 = second_ ? out2 : nullptr;
  a.row_base = use_ != nullptr ? 0 : rows_;
  a.file_offset = pending_.file_offset;
  a.check_length = pending_.len > csv_internal::kMaxLineBytes;
  a.status = status_.data();
  a.undecided = undecided_.data();
  parse_rows(a, stream_);
  if (use_ != nullptr) deliver(slot, rows);
  rows_ += rows;
}

// Streaming: waits for chunk `slot`'s parse, settles its undecided cells and hands its rows over;
// then the device's undecided list starts afresh for the next chunk.
void GpuCsvReader::deliver(int slot, std::uint32_t rows) {
  Status* st = host_status_->as<Status>() + 2;
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(st, status_.data(), sizeof(Status), cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host reads the status next
  if (st->first_bad != kNoOffset) fail(st->first_bad);
  if (st->undecided > kHardCapacity) {
    parse_chunk_on_host(slot, rows, pending_.len, pending_.file_offset);
  } else if (st->undecided > 0) {
    const std::uint64_t bad = settle_undecided(kNoOffset, chunk_out_[slot].data(), chunk_out2_[slot].data(), rows);
    if (bad != kNoOffset) fail(bad);
  }
  (*use_)(DeviceSpan<const float>{chunk_out_[slot].data(), rows},
          DeviceSpan<const float>{second_ ? chunk_out2_[slot].data() : nullptr, second_ ? rows : 0}, rows_);
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(&status_.data()->undecided, 0, sizeof(unsigned int), stream_));
}

// Streaming, a chunk with more undecided cells than the device lists: every row of it parsed on
// the host from the chunk's text (still in its pinned buffer), as the CPU reader parses a line.
void GpuCsvReader::parse_chunk_on_host(int slot, std::uint32_t rows, std::uint32_t len, std::uint64_t file_offset) {
  std::vector<std::uint32_t> starts(rows);
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(starts.data(), row_starts_[slot].data(), rows * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host reads the row starts next
  const char* text = host_[slot]->as<char>();
  std::vector<float> values(rows), values2(second_ ? rows : 0);
  float ignored = 0.0f;
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint32_t begin = starts[r];
    const void* lf = std::memchr(text + begin, '\n', len - begin);
    const std::uint32_t end = lf == nullptr ? len : static_cast<std::uint32_t>(static_cast<const char*>(lf) - text);
    const std::string_view line = csv_internal::reader_view(std::string_view(text + begin, end - begin));
    if (!parse_row(line, values[r], second_ ? values2[r] : ignored)) fail(file_offset + begin);
  }
  copy_to_device(chunk_out_[slot].span(), values.data(), rows, stream_);
  if (second_) copy_to_device(chunk_out2_[slot].span(), values2.data(), rows, stream_);
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `values` and `values2` are freed on return
}

// Makes out_ hold at least `needed` rows; sizes it from the rows per byte seen so far, so a file
// of known size is usually allocated once (plus the final exact-size copy).
void GpuCsvReader::grow_output(std::size_t needed, std::uint64_t bytes_done) {
  if (needed <= out_.size()) return;
  std::size_t capacity = std::max(needed, out_.size() + out_.size() / 2);
  if (file_size_ > bytes_done && bytes_done > data_start_) {
    const double per_byte = static_cast<double>(needed) / static_cast<double>(bytes_done - data_start_);
    const double estimate = per_byte * static_cast<double>(file_size_ - data_start_) * 1.02 + 1024.0;
    capacity = std::max(capacity, static_cast<std::size_t>(estimate));
  }
  const auto grow = [&](DeviceBuffer<float>& out) {
    DeviceBuffer<float> bigger(capacity, stream_);
    if (rows_ > 0) {
      ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(bigger.data(), out.data(), rows_ * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    }
    out = std::move(bigger);
  };
  grow(out_);
  if (second_) grow(out2_);
}

// Waits for everything queued and returns the final first_bad (the status lands in slot 2).
std::uint64_t GpuCsvReader::fetch_final_status() {
  Status* final_status = host_status_->as<Status>() + 2;
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(final_status, status_.data(), sizeof(Status), cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  drain_->armed = false;  // nothing queued reads pinned memory any more
  return final_status->first_bad;
}

// A data line's cells as the CPU reader parses them: the column's, and the second column's when
// there is one (value2 untouched otherwise). False if either is missing or not a number.
bool GpuCsvReader::parse_row(std::string_view line, float& value, float& value2) const {
  return csv_internal::parse_data_line(line, column_.index, value) &&
         (!second_ || csv_internal::parse_data_line(line, column2_.index, value2));
}

// The whole file read by the CPU reader (both columns, if two), with its values and errors.
CsvColumns GpuCsvReader::read_on_cpu() const {
  if (!second_) return CsvColumns{read_csv_column(path_, options_), {}};
  return read_csv_columns(path_, options_, *second_);
}

// Parses the undecided cells on the host (fast_float's big-integer path) and patches their rows
// (in both columns: a row is undecided when either cell is). Returns the smallest bad offset:
// first_bad, or an undecided cell that turns out bad (inf). Call after fetch_final_status().
// Throws nothing for too many cells: the caller checks.
std::uint64_t GpuCsvReader::settle_undecided(std::uint64_t first_bad, float* target, float* target2, std::size_t target_size) {
  const unsigned int count = host_status_->as<Status>()[2].undecided;
  if (count == 0) return first_bad;
  std::vector<UndecidedCell> cells(std::min<unsigned int>(count, kHardCapacity));
  ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(cells.data(), undecided_.data(), cells.size() * sizeof(UndecidedCell),
                                     cudaMemcpyDeviceToHost, stream_));
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<float> values(cells.size()), values2(cells.size());
  for (std::size_t k = 0; k < cells.size(); ++k) {
    if (cells[k].offset >= first_bad) continue;  // after the first error: irrelevant
    const std::string text = row_text_at(file_.get(), path_, cells[k].offset);
    if (!parse_row(text, values[k], values2[k])) {
      first_bad = cells[k].offset;
      continue;
    }
    if (cells[k].row < target_size) {
      ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(target + cells[k].row, &values[k], sizeof(float), cudaMemcpyHostToDevice, stream_));
      if (second_) {
        ECGPIPE_CUDA_CHECK(
            cudaMemcpyAsync(target2 + cells[k].row, &values2[k], sizeof(float), cudaMemcpyHostToDevice, stream_));
      }
    }
  }
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `values` and `values2` are read by the copies above
  return first_bad;
}

// Reports the first bad line at or before file offset `offset`: a bad row found by the device,
// or (chunk_overflow) a line that does not fit in one chunk, starting at `offset`.
void GpuCsvReader::fail(std::uint64_t offset, bool chunk_overflow) {
  const std::uint64_t device_bad = fetch_final_status();
  if (host_status_->as<Status>()[2].undecided > kHardCapacity) {
    (void)read_on_cpu();  // throws the CPU's error for this file
  }
  const std::uint64_t first = settle_undecided(std::min(offset, device_bad), nullptr, nullptr, 0);
  if (first != offset) chunk_overflow = false;
  const LocatedLine line = locate_line(path_, first);
  if (line.length > csv_internal::kMaxLineBytes) csv_internal::throw_line_too_long(path_, line.line_no);
  if (chunk_overflow) {
    // The CPU names a NUL byte in this line before anything else (a zeroed block is a "line"
    // longer than a small chunk, and the user must hear about the NUL, as on the CPU).
    csv_internal::check_no_nul(path_, line.line_no, line.raw);
    throw InputError(path_ + ":" + std::to_string(line.line_no) + ": line longer than the GPU parser's chunk (" +
                     std::to_string(chunk_) + " bytes)");
  }
  const std::string_view text = csv_internal::reader_view(line.raw);
  if (!second_) csv_internal::throw_bad_line(path_, line.line_no, text, column_, options_);
  csv_internal::throw_bad_row(path_, line.line_no, text, column_, options_, column2_, *second_);
}

// Up to `want` bytes of the file's next bytes into dst (fewer only at the end of the file). A
// regular file is read with pread by up to kReadThreads threads at disjoint offsets: one thread
// copies the page cache at a few GB/s, which capped the whole GPU reader at ~2.2 GB/s on an H100
// host (4 threads: ~15 GB/s into pinned memory there; 8 or 12 were no faster with chunks of 8-32
// MiB, measured 2026-11-24); anything else (a pipe) with fread.
std::size_t GpuCsvReader::read_more(char* dst, std::size_t want) {
  constexpr int kReadThreads = 4;
  constexpr std::size_t kMinReadBytes = std::size_t{4} << 20;  // smaller pieces are not worth a thread
  if (file_size_ == 0) {
    const std::size_t got = std::fread(dst, 1, want, file_.get());
    if (got < want && std::ferror(file_.get())) throw InputError("cannot read " + path_ + ": read error");
    return got;
  }
  if (read_pos_ < 0) read_pos_ = ftello(file_.get());  // after what read_header took through the FILE
  const auto pos = static_cast<std::uint64_t>(read_pos_);
  const std::size_t total = pos >= file_size_ ? 0 : std::min<std::size_t>(want, file_size_ - pos);
  const int fd = fileno(file_.get());
  detail::parallel_chunks(total, kReadThreads, kMinReadBytes, [&](std::size_t at, std::size_t end) {
    while (at < end) {
      const ssize_t got = ::pread(fd, dst + at, end - at, static_cast<off_t>(pos + at));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError("cannot read " + path_ + ": " + std::strerror(errno));
      if (got == 0) throw InputError("cannot read " + path_ + ": the file shrank while it was read");
      at += static_cast<std::size_t>(got);
    }
  });
  read_pos_ += static_cast<std::int64_t>(total);
  return total;
}

void GpuCsvReader::open_and_allocate() {
  file_ = csv_internal::open_csv_file(path_);
  file_size_ = csv_internal::file_size_or_zero(file_.get());
  read_header();

  // Buffers: two pinned chunks, two device chunks with their row starts (a row takes >= 2 bytes,
  // its first byte and an LF, except the file's last row), status, undecided cells, CUB scratch.
  const std::size_t max_rows = chunk_ / 2 + 1;
  for (int s = 0; s < 2; ++s) {
    host_[s] = std::make_unique<PinnedBuffer>(chunk_);
    text_[s] = DeviceBuffer<char>(chunk_, stream_);
    row_starts_[s] = DeviceBuffer<std::uint32_t>(max_rows, stream_);
  }
  host_status_ = std::make_unique<PinnedBuffer>(3 * sizeof(Status));
  drain_ = std::make_unique<StreamDrain>(StreamDrain{stream_});
  status_ = DeviceBuffer<Status>(1, stream_);
  undecided_ = DeviceBuffer<UndecidedCell>(kHardCapacity, stream_);
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(status_.data(), 0, sizeof(Status), stream_));
  ECGPIPE_CUDA_CHECK(cudaMemsetAsync(&status_.data()->first_bad, 0xFF, sizeof(unsigned long long), stream_));  // kNoOffset
  cub_temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(row_starts_scratch_bytes(chunk_, stream_), 1), stream_);
  upload_parse_tables(stream_);
  if (use_ != nullptr) {
    for (int s = 0; s < 2; ++s) {
      chunk_out_[s] = DeviceBuffer<float>(max_rows, stream_);
      if (second_) chunk_out2_[s] = DeviceBuffer<float>(max_rows, stream_);
    }
  }
}

void GpuCsvReader::stream_chunks() {
  // Stream the chunks. chunk_offset: file offset of the next chunk's first byte.
  std::uint64_t chunk_offset = data_start_;
  const char* carry = initial_.data();
  std::size_t carry_len = initial_.size();
  bool eof = false;
  for (int k = 0;; ++k) {
    const int slot = k & 1;
    if (slot_used_[slot]) ECGPIPE_CUDA_CHECK(cudaEventSynchronize(copied_[slot]));  // its last copy is done
    char* h = host_[slot]->as<char>();
    if (carry_len > 0) std::memcpy(h, carry, carry_len);  // the partial line from the other buffer
    std::size_t n = carry_len;
    if (!eof) {
      n += read_more(h + n, chunk_ - n);
      if (n < chunk_) eof = true;
    }
    if (n == 0) break;
    std::size_t len = n;  // bytes of whole lines in this chunk
    if (!eof) {
      const void* last_lf = memrchr(h, '\n', n);
      if (last_lf == nullptr) {  // one line fills the chunk
        parse_pending();
        fail(chunk_offset, true);
      }
      len = static_cast<const char*>(last_lf) - h + 1;
    }
    enqueue_chunk(slot, len);
    parse_pending();  // the previous chunk: its row count is ready by now
    pending_ = {true, slot, chunk_offset, static_cast<std::uint32_t>(len)};
    carry = h + len;
    carry_len = n - len;
    chunk_offset += len;
    if (eof && carry_len == 0) break;
  }
  parse_pending();
}

DeviceColumns GpuCsvReader::run() {
  open_and_allocate();
  stream_chunks();

  std::uint64_t first_bad = fetch_final_status();
  DeviceColumns columns;
  if (host_status_->as<Status>()[2].undecided > kHardCapacity) {
    // Adversarial input with thousands of undecided cells: let the CPU parse the whole file.
    const CsvColumns cpu = read_on_cpu();
    const auto up = [&](const std::vector<float>& values) {
      DeviceBuffer<float> exact(values.size(), stream_);
      copy_to_device(exact.span(), values.data(), values.size(), stream_);
      return exact;
    };
    columns.first = up(cpu.first);
    if (second_) columns.second = up(cpu.second);
    ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `cpu` is freed on return
    return columns;
  }
  first_bad = settle_undecided(first_bad, out_.data(), out2_.data(), rows_);
  if (first_bad != kNoOffset) fail(first_bad);
  if (rows_ == 0) csv_internal::throw_no_data_rows(path_, options_);
  const auto exact = [&](DeviceBuffer<float>& out) {
    if (out.size() == rows_) return std::move(out);
    DeviceBuffer<float> copy(rows_, stream_);
    ECGPIPE_CUDA_CHECK(cudaMemcpyAsync(copy.data(), out.data(), rows_ * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    return copy;
  };
  columns.first = exact(out_);
  if (second_) columns.second = exact(out2_);
  return columns;
}


std::uint64_t GpuCsvReader::stream(const CsvColumnsUse& use) {
  use_ = &use;
  open_and_allocate();
  stream_chunks();
  const std::uint64_t first_bad = fetch_final_status();
  if (first_bad != kNoOffset) fail(first_bad);
  if (rows_ == 0) csv_internal::throw_no_data_rows(path_, options_);
  return rows_;
}

}  // namespace

namespace csv_internal {
DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options, cudaStream_t stream,
                                         std::size_t chunk_bytes) {
  return GpuCsvReader(path, options, stream, chunk_bytes).run().first;
}
DeviceColumns read_csv_columns_cuda(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second,
                                    cudaStream_t stream, std::size_t chunk_bytes) {
  return GpuCsvReader(path, options, stream, chunk_bytes, &second).run();
}
}  // namespace csv_internal

DeviceBuffer<float> read_csv_column_cuda(const std::string& path, const CsvOptions& options, cudaStream_t stream) {
  return csv_internal::read_csv_column_cuda(path, options, stream, csv_internal::kDefaultChunkBytes);
}

DeviceColumns read_csv_columns_cuda(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second,
                                    cudaStream_t stream) {
  return csv_internal::read_csv_columns_cuda(path, options, second, stream, csv_internal::kDefaultChunkBytes);
}

std::uint64_t stream_csv_column_cuda(const std::string& path, const CsvOptions& options, cudaStream_t stream,
                                     const CsvChunkUse& use, std::size_t chunk_bytes) {
  const CsvColumnsUse one = [&use](DeviceSpan<const float> first, DeviceSpan<const float>, std::uint64_t index) {
    use(first, index);
  };
  return GpuCsvReader(path, options, stream, chunk_bytes == 0 ? csv_internal::kDefaultChunkBytes : chunk_bytes).stream(one);
}

std::uint64_t stream_csv_columns_cuda(const std::string& path, const CsvOptions& options, const CsvSecondColumn& second,
                                      cudaStream_t stream, const CsvColumnsUse& use, std::size_t chunk_bytes) {
  return GpuCsvReader(path, options, stream, chunk_bytes == 0 ? csv_internal::kDefaultChunkBytes : chunk_bytes, &second)
      .stream(use);
}

}  // namespace ecgpipe
