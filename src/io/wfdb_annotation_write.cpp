// MIT-format annotation files written: see include/ecgpipe/io/wfdb_annotation_write.hpp.
#include "ecgpipe/io/wfdb_annotation_write.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ecgpipe/common/error.hpp"

namespace ecgpipe {
namespace {

// annot(5): a word is a code in the top 6 bits and a value in the low 10 (the same constants as
// the reader's in wfdb.cpp, where they are private).
constexpr int kCodeShift = 10;
constexpr unsigned kDataMask = 0x3FF;
constexpr std::int64_t kMaxInterval = 1023;          // WFDB's MAXRR: the longest in one word
constexpr std::int64_t kMaxSkip = 0x7FFFFFFF;        // WFDB's MAXSKIP: the longest in one SKIP
constexpr int kSkip = 59, kNum = 60, kSub = 61, kChn = 62, kAux = 63;

class Words {
 public:
  void word(int code, unsigned value) {
    const unsigned w = (static_cast<unsigned>(code) << kCodeShift) | (value & kDataMask);
    bytes_ += static_cast<char>(w & 0xFFu);
    bytes_ += static_cast<char>(w >> 8);
  }
  // A 32-bit interval as WFDB stores it (PDP-11 order): the high 16-bit word first, each word
  // little-endian.
  void skip(std::int64_t interval) {
    word(kSkip, 0);
    const auto v = static_cast<std::uint32_t>(interval);
    raw16(v >> 16);
    raw16(v & 0xFFFFu);
  }
  void aux(const std::string& s) {
    word(kAux, static_cast<unsigned>(s.size()));
    bytes_ += s;
    if (s.size() % 2 != 0) bytes_ += '\0';  // padded to an even length
  }
  std::string take() { return std::move(bytes_); }

 private:
  void raw16(std::uint32_t v) {
    bytes_ += static_cast<char>(v & 0xFFu);
    bytes_ += static_cast<char>((v >> 8) & 0xFFu);
  }
  std::string bytes_;
};

void check(const Annotation& a, std::size_t index, std::int64_t previous) {
  const auto fail = [&](const std::string& what) {
    throw InternalError("WFDB annotation " + std::to_string(index) + " (sample " + std::to_string(a.sample) + "): " + what);
  };
  if (a.sample < 0) fail("negative sample");
  if (a.sample > kMaxAnnotationSample) fail("sample beyond " + std::to_string(kMaxAnnotationSample));
  if (a.sample < previous) fail("before the previous annotation's sample " + std::to_string(previous));
  if (a.code < 1 || a.code > kMaxAnnotationCode) fail("code " + std::to_string(a.code) + " outside 1..49");
  if (a.symbol != 0 && a.symbol != annotation_symbol(a.code))
    fail(std::string("symbol '") + a.symbol + "' is not code " + std::to_string(a.code) + "'s");
  if (a.subtype < kMinAnnotationSubtype || a.subtype > kMaxAnnotationSubtype)
    fail("subtype " + std::to_string(a.subtype) + " outside -128..127");
  if (a.channel < 0 || a.channel > kMaxAnnotationChannel) fail("channel " + std::to_string(a.channel) + " outside 0..255");
  if (a.num < kMinAnnotationNum || a.num > kMaxAnnotationNum) fail("num " + std::to_string(a.num) + " outside -128..127");
  if (a.aux.size() > kMaxAnnotationAux) fail("aux of " + std::to_string(a.aux.size()) + " bytes (at most 255)");
  if (a.aux.find('\0') != std::string::npos) fail("aux holds a NUL byte");
}

}  // namespace

std::string wfdb_annotation_bytes(const std::vector<Annotation>& annotations) {
  Words out;
  std::int64_t time = 0;
  int num = 0, chan = 0;  // a reader starts from 0 and carries both over: only changes are written
  for (std::size_t i = 0; i < annotations.size(); ++i) {
    const Annotation& a = annotations[i];
    check(a, i, time);
    std::int64_t interval = a.sample - time;
    while (interval > kMaxSkip) {
      out.skip(kMaxSkip);
      interval -= kMaxSkip;
    }
    if (interval > kMaxInterval) {
      out.skip(interval);
      interval = 0;
    }
    // Never the word 0 (end of file): the code is at least 1.
    out.word(a.code, static_cast<unsigned>(interval));
    if (a.subtype != 0) out.word(kSub, static_cast<unsigned>(a.subtype));  // two's complement, masked to 10 bits
    if (a.channel != chan) out.word(kChn, static_cast<unsigned>(a.channel));
    if (a.num != num) out.word(kNum, static_cast<unsigned>(a.num));
    if (!a.aux.empty()) out.aux(a.aux);
    time = a.sample;
    chan = a.channel;
    num = a.num;
  }
  out.word(0, 0);  // end of file
  return out.take();
}

}  // namespace ecgpipe
