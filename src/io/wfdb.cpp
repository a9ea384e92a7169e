// WFDB readers: see include/ecgpipe/io/wfdb.hpp.
#include "ecgpipe/io/wfdb.hpp"

#include <algorithm>
#include <array>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>
#include <string_view>

#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/common/error.hpp"
#include "common/file_read.hpp"
#include "common/text.hpp"

namespace ecgpipe {
namespace {

using text::lower;

// MIT annotation format: each 16-bit little-endian word holds a code (top 6 bits) and a value
// (low 10 bits). Codes above ACMAX (49) are pseudo-annotations modifying the stream.
constexpr int kCodeShift = 10;
constexpr unsigned kDataMask = 0x3FF;
constexpr int kSkip = 59;  // next 4 bytes: a 32-bit time increment (PDP-11 word order)
constexpr int kNum = 60;   // num field of this and the following annotations
constexpr int kSub = 61;   // subtype of the annotation just read
constexpr int kChn = 62;   // chan field of this and the following annotations
constexpr int kAux = 63;   // value = byte count of an aux string that follows, padded to even

// WFDB's ecgcodes.h mnemonics, indexed by code (0..41); ' ' marks codes without one.
constexpr std::array<char, 42> kMnemonics{
    ' ', 'N', 'L', 'R', 'a', 'V', 'F', 'J', 'A', 'S', 'E', 'j', '/', 'Q', '~', ' ',
    '|', ' ', 's', 'T', '*', 'D', '"', '=', 'p', 'B', '^', 't', '+', 'u', '?', '!',
    '[', ']', 'e', 'n', '@', 'x', 'f', '(', ')', 'r'};
constexpr int kUnusedCode15 = 15;
constexpr int kUnusedCode17 = 17;

// Sample formats and the WFDB "invalid sample" marker of each (the most negative value).
constexpr int kFormat212 = 212;
constexpr int kFormat16 = 16;
constexpr int kInvalid212 = -2048;
constexpr int kInvalid16 = -32768;
constexpr double kDefaultGain = 200.0;  // WFDB_DEFGAIN, ADC units per mV
constexpr double kDefaultFs = 250.0;    // WFDB_DEFFREQ

// A directory opens like a file, then fails inside the stream library ("basic_filebuf::underflow"):
// refuse it by name first.
void require_not_directory(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw InputError(what + " " + path + " is a directory");
}

// The whole file, for the parse_* functions (which work on bytes in memory; the fuzz harnesses
// call them directly), never past `max_bytes`.
std::string read_bytes(const std::string& path, const char* what, std::size_t max_bytes = kMaxTextInputBytes) {
  require_not_directory(path, what);
  return read_file_bounded(path, max_bytes, what);
}

// The most of a signal file read: 4 G values of format 16 (24 h of 12 leads at 1 kHz is 2 GB),
// which as floats is 16 GB. A header that announces more, or a file without a sample count in its
// header that goes on past it (a device), is refused rather than filling memory.
constexpr std::size_t kMaxSignalFileBytes = std::size_t{8} << 30;

std::string extension_lower(const std::string& path) {
  return lower(std::filesystem::path(path).extension().string());
}

std::string header_error(const std::string& path, std::size_t line, const std::string& what) {
  return path + ":" + std::to_string(line) + ": " + what;
}

// Whole-token parses; false on trailing junk.
// Tokens are views into the header's text; strtod/strtoll need a terminated copy (a short token
// stays in std::string's own buffer: no allocation).
bool to_double(std::string_view token, double& out) {
  if (token.empty()) return false;
  const std::string s(token);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}
// False on overflow too: strtoll clamps to LLONG_MAX and says so only through errno.
bool to_long(std::string_view token, long long& out) {
  if (token.empty()) return false;
  const std::string s(token);
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(s.c_str(), &end, 10);
  return end == s.c_str() + s.size() && errno != ERANGE;
}
// Fields stored as int: a value beyond int is an error, not a silent wrap (4294967508 -> 212).
bool to_int(std::string_view s, int& out) {
  long long v = 0;
  if (!to_long(s, v) || v < INT_MIN || v > INT_MAX) return false;
  out = static_cast<int>(v);
  return true;
}

// "360", "360/1", "360/1(0)": the sampling frequency is the part before '/' or '('.
double parse_fs(std::string_view token, const std::string& path, std::size_t line) {
  const std::string_view head = token.substr(0, token.find_first_of("/("));
  double fs = 0.0;
  if (!to_double(head, fs) || fs < 0.0)
    throw InputError(header_error(path, line, "bad sampling frequency '" + std::string(token) + "'"));
  // The same bounds as --fs: the windows are durations scaled by the rate.
  if (fs > 0.0 && (fs < kMinFs || fs > kMaxFs)) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "sampling frequency %g Hz is outside %g..%g Hz", fs, kMinFs, kMaxFs);
    throw InputError(header_error(path, line, buf));
  }
  return fs > 0.0 ? fs : kDefaultFs;
}

// "212", "212+512" (byte offset); sample multiples ("212x2") and skew ("212:3") are refused.
void parse_format(std::string_view token, WfdbSignalSpec& s, const std::string& path, std::size_t line) {
  const std::size_t plus = token.find('+');
  const std::string_view fmt = token.substr(0, plus);
  if (!to_int(fmt, s.format)) {
    throw InputError(header_error(path, line, "unsupported signal format '" + std::string(token) +
                                                  "' (only plain 212 or 16, with an optional +offset)"));
  }
  if (plus != std::string_view::npos) {
    long long off = 0;
    if (!to_long(token.substr(plus + 1), off) || off < 0)
      throw InputError(header_error(path, line, "bad byte offset in '" + std::string(token) + "'"));
    s.byte_offset = off;
  }
}

// "200", "200(0)", "200/mV", "200(-12)/uV": gain, optional baseline, optional units.
void parse_gain(std::string_view token, WfdbSignalSpec& s, bool& has_baseline, const std::string& path,
                std::size_t line) {
  std::string_view t = token;
  const std::size_t slash = t.find('/');
  if (slash != std::string_view::npos) {
    s.units = std::string(t.substr(slash + 1));
    t = t.substr(0, slash);
  }
  const std::size_t open = t.find('(');
  if (open != std::string_view::npos) {
    const std::size_t close = t.find(')', open);
    if (close == std::string_view::npos || !to_int(t.substr(open + 1, close - open - 1), s.baseline))
      throw InputError(header_error(path, line, "bad baseline in gain '" + std::string(token) + "'"));
    has_baseline = true;
    t = t.substr(0, open);
  }
  double g = 0.0;
  if (!to_double(t, g) || g < 0.0) throw InputError(header_error(path, line, "bad gain '" + std::string(token) + "'"));
  s.gain = g > 0.0 ? g : kDefaultGain;  // 0 means "uncalibrated": WFDB uses its default gain
}

// The whitespace-separated fields of a line, as `istream >> std::string` splits them (the C
// locale's isspace set), into `out` (cleared first).
void split_fields(std::string_view line, std::vector<std::string_view>& out) {
  // ' ' and '\t' '\n' '\v' '\f' '\r' (9..13): two comparisons a character, where find_first_of
  // scans the set for each (what the fuzzer's instrumented build spends its time on).
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  out.clear();
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && space(line[i])) ++i;
    if (i == line.size()) return;
    const std::size_t from = i;
    while (i < line.size() && !space(line[i])) ++i;
    out.push_back(line.substr(from, i - from));
  }
}

// Sign-extends the low `bits` bits.
int sign_extend(unsigned v, int bits) {
  const unsigned sign = 1u << (bits - 1);
  return static_cast<int>((v ^ sign)) - static_cast<int>(sign);
}

}  // namespace

char annotation_symbol(int code) {
  if (code < 0 || code >= static_cast<int>(kMnemonics.size())) return 0;
  if (code == kUnusedCode15 || code == kUnusedCode17) return 0;
  const char c = kMnemonics[static_cast<std::size_t>(code)];
  return c == ' ' && code != 0 ? 0 : c;
}

std::vector<Annotation> read_wfdb_annotations(const std::string& path) {
  return parse_wfdb_annotations(read_bytes(path, "annotation file"), path);
}

std::vector<Annotation> parse_wfdb_annotations(std::string_view bytes, const std::string& path) {
  const auto* const b = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  const auto where = [&](std::size_t pos, const std::string& what) {
    return path + ": byte " + std::to_string(pos) + ": " + what;
  };
  if (size % 2 != 0) throw InputError(path + ": odd size " + std::to_string(size) + " (not a MIT annotation file)");
  const auto word = [&](std::size_t pos) { return static_cast<unsigned>(b[pos]) | (static_cast<unsigned>(b[pos + 1]) << 8); };

  std::vector<Annotation> out;
  std::int64_t time = 0;
  int num = 0, chan = 0;  // sticky: the writer only records changes
  std::size_t pos = 0;
  while (pos + 2 <= size) {
    const unsigned w = word(pos);
    const std::size_t at = pos;
    pos += 2;
    if (w == 0) break;  // end of file
    const int code = static_cast<int>(w >> kCodeShift);
    const unsigned data = w & kDataMask;
    switch (code) {
      case kSkip: {
        if (pos + 4 > size) throw InputError(where(at, "SKIP cut short"));
        // PDP-11 long: high 16-bit word first, each word little-endian.
        const std::uint32_t hi = word(pos), lo = word(pos + 2);
        time += static_cast<std::int32_t>((hi << 16) | lo);
        pos += 4;
        break;
      }
      case kNum:
        num = sign_extend(data, kCodeShift);
        if (!out.empty()) out.back().num = num;
        break;
      case kSub:
        if (out.empty()) throw InputError(where(at, "SUB before any annotation"));
        out.back().subtype = sign_extend(data, kCodeShift);
        break;
      case kChn:
        chan = static_cast<int>(data);
        if (!out.empty()) out.back().channel = chan;
        break;
      case kAux: {
        if (pos + data > size) throw InputError(where(at, "AUX string cut short"));
        if (out.empty()) throw InputError(where(at, "AUX before any annotation"));
        out.back().aux.assign(reinterpret_cast<const char*>(b + pos), data);
        // Some writers count a trailing NUL: the string ends there.
        const std::size_t nul = out.back().aux.find('\0');
        if (nul != std::string::npos) out.back().aux.resize(nul);
        pos += data + (data & 1u);  // padded to an even length
        if (pos > size) throw InputError(where(at, "AUX padding cut short"));
        break;
      }
      default: {
        time += data;
        // WFDB writes annotations in time order; a negative SKIP must not take them back in time
        // (found by tests/fuzz/fuzz_wfdb_annotations: VF episodes that end before they start).
        if (time < 0) throw InputError(where(at, "annotation at negative sample " + std::to_string(time)));
        if (!out.empty() && time < out.back().sample) {
          throw InputError(where(at, "annotation at sample " + std::to_string(time) + " comes before the previous one (" +
                                         std::to_string(out.back().sample) + ")"));
        }
        Annotation a;
        a.sample = time;
        a.code = code;
        a.symbol = annotation_symbol(code);
        a.num = num;
        a.channel = chan;
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

WfdbHeader read_wfdb_header(const std::string& path) {
  return parse_wfdb_header(read_bytes(path, "WFDB header"), path);
}

WfdbHeader parse_wfdb_header(std::string_view text, const std::string& path) {
  WfdbHeader h;
  h.path = path;
  std::vector<std::string_view> tok;  // the line's fields, views into text (reused: no allocation per line)
  long long nsig = -1;
  text::for_each_line(text, [&](std::string_view line, std::size_t line_no) {
    // Text: a NUL would cut a file name short where the C library opens it (another file).
    if (const auto nul = line.find('\0'); nul != std::string_view::npos)
      throw InputError(header_error(path, line_no, "a NUL byte at column " + std::to_string(nul + 1) + " (a header is text)"));
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') return true;
    split_fields(line, tok);
    if (nsig < 0) {  // the record line: name nsig [fs [nsamp ...]]
      if (tok.size() < 2) throw InputError(header_error(path, line_no, "record line needs a name and a signal count"));
      if (tok[0].find('/') != std::string_view::npos)
        throw InputError(header_error(path, line_no, "multi-segment records are not supported"));
      h.record = std::string(tok[0]);
      if (!to_long(tok[1], nsig) || nsig < 0)
        throw InputError(header_error(path, line_no, "bad signal count '" + std::string(tok[1]) + "'"));
      if (tok.size() > 2) h.fs = parse_fs(tok[2], path, line_no);
      if (tok.size() > 3) {
        long long n = 0;
        if (!to_long(tok[3], n) || n < 0)
          throw InputError(header_error(path, line_no, "bad number of samples '" + std::string(tok[3]) + "'"));
        h.samples = n;
      }
      // Base time and date (header(5): "hh:mm:ss[.sss]" and "dd/mm/yyyy"), kept as text for the
      // report's clock times; a field of anything but digits and separators is not a time.
      const auto clock_text = [](std::string_view t) {
        return !t.empty() && t.size() <= 16 && t.find_first_not_of("0123456789:./") == std::string_view::npos;
      };
      if (tok.size() > 4 && clock_text(tok[4])) h.base_time = std::string(tok[4]);
      if (tok.size() > 5 && clock_text(tok[5])) h.base_date = std::string(tok[5]);
      return true;
    }
    if (static_cast<long long>(h.signals.size()) == nsig) return false;  // info strings may follow
    // Signal line: file format [gain [adcres [adczero [initval [checksum [blocksize [desc...]]]]]]]
    if (tok.size() < 2) throw InputError(header_error(path, line_no, "signal line needs a file name and a format"));
    WfdbSignalSpec s;
    s.file_name = std::string(tok[0]);
    // Beside the header or below it, as PhysioNet's records are: an absolute path or one out
    // through ".." would make any file on the machine a signal (and /dev/zero one without end).
    const std::filesystem::path file(s.file_name);
    if (file.is_absolute() || std::any_of(file.begin(), file.end(), [](const auto& part) { return part == ".."; }))
      throw InputError(header_error(path, line_no, "signal file '" + text::visible(s.file_name) +
                                                       "' is not in the header's folder (an absolute path or '..')"));
    parse_format(tok[1], s, path, line_no);
    bool baseline_given = false;
    if (tok.size() > 2) parse_gain(tok[2], s, baseline_given, path, line_no);
    constexpr std::size_t kAdcZeroField = 4, kDescriptionField = 8;
    if (tok.size() > kAdcZeroField) {
      if (!to_int(tok[kAdcZeroField], s.adc_zero))
        throw InputError(header_error(path, line_no, "bad ADC zero '" + std::string(tok[kAdcZeroField]) + "'"));
    }
    if (!baseline_given) s.baseline = s.adc_zero;  // header(5): baseline defaults to ADC zero
    for (std::size_t i = kDescriptionField; i < tok.size(); ++i) {
      if (i > kDescriptionField) s.description += ' ';
      s.description += tok[i];
    }
    h.signals.push_back(std::move(s));
    return true;
  });
  if (nsig < 0) throw InputError(path + ": no record line (not a WFDB header)");
  if (static_cast<long long>(h.signals.size()) != nsig) {
    throw InputError(path + ": announces " + std::to_string(nsig) + " signals but has " +
                     std::to_string(h.signals.size()) + " signal lines");
  }
  return h;
}

namespace {

// Splits `text` at `sep` into exactly `n` fields of 1..max_digits digits each (the last may carry a
// fraction "30.5" when `fraction`), as ints; false for any other shape.
bool numeric_fields(std::string_view text, char sep, std::size_t n, std::size_t max_digits, bool fraction,
                    std::array<int, 3>& out, std::string_view& fraction_text) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t end = i + 1 < n ? text.find(sep) : text.size();
    if (end == std::string_view::npos) return false;
    std::string_view field = text.substr(0, end);
    text = i + 1 < n ? text.substr(end + 1) : std::string_view();
    if (i + 1 == n && fraction) {
      const std::size_t dot = field.find('.');
      fraction_text = dot == std::string_view::npos ? std::string_view() : field.substr(dot);
      if (dot != std::string_view::npos) {
        field = field.substr(0, dot);
        if (fraction_text.size() < 2 || fraction_text.find_first_not_of("0123456789", 1) != std::string_view::npos)
          return false;
      }
    }
    if (field.empty() || field.size() > max_digits || field.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    out[i] = std::stoi(std::string(field));
  }
  return true;
}

}  // namespace

std::string wfdb_start_time(const WfdbHeader& header) {
  if (header.base_time.empty()) return header.base_date.empty() ? "" : header.base_date;
  const std::string as_written = header.base_date.empty() ? header.base_time : header.base_time + " " + header.base_date;
  constexpr int kHours = 24, kMinutes = 60, kSeconds = 60, kMonths = 12, kDays = 31;
  std::array<int, 3> t{}, d{};
  std::string_view fraction, unused;
  if (!numeric_fields(header.base_time, ':', 3, 2, true, t, fraction) || t[0] >= kHours || t[1] >= kMinutes ||
      t[2] >= kSeconds)
    return as_written;
  char time[48];
  std::snprintf(time, sizeof time, "%02d:%02d:%02d", t[0], t[1], t[2]);
  std::string out = std::string(time) + std::string(fraction);
  if (header.base_date.empty()) return out;
  constexpr std::size_t kYearDigits = 4;
  if (!numeric_fields(header.base_date, '/', 3, kYearDigits, false, d, unused) || d[0] < 1 || d[0] > kDays ||
      d[1] < 1 || d[1] > kMonths || header.base_date.size() - header.base_date.rfind('/') - 1 != kYearDigits)
    return as_written;
  char date[48];
  std::snprintf(date, sizeof date, "%04d-%02d-%02d ", d[2], d[1], d[0]);
  return date + out;
}

std::string wfdb_header_path(const std::string& path) {
  const std::string ext = extension_lower(path);
  if (ext == ".hea") return path;
  if (ext == ".dat") return std::filesystem::path(path).replace_extension(".hea").string();
  return path + ".hea";
}

bool is_wfdb_record_path(const std::string& path) {
  const std::string ext = extension_lower(path);
  if (ext == ".hea" || ext == ".dat") return true;
  // A record name as WFDB tools take it ("data/100"): nothing by that name, a header beside it
  // (issue 27). A file of that name is read as what it is (a CSV without extension).
  std::error_code ec;
  return !path.empty() && !std::filesystem::exists(path, ec) && std::filesystem::is_regular_file(path + ".hea", ec);
}

namespace {

// The channel a read_wfdb_signal call asks for, and where its values sit in its signal file.
struct ChannelChoice {
  std::size_t ch = 0;        // index in the header
  std::size_t group = 0;     // signals stored in its file (interleaved frame by frame)
  std::size_t position = 0;  // its place in a frame
  std::string dat;           // the signal file's path
};

ChannelChoice choose_channel(const WfdbHeader& h, const std::string& channel) {
  if (h.signals.empty()) throw InputError(h.path + ": the record has no signals");

  // Which channel.
  std::size_t ch = 0;
  long long index = 0;
  if (!channel.empty() && to_long(channel, index)) {
    if (index < 0 || index >= static_cast<long long>(h.signals.size())) {
      throw InputError(h.path + ": no channel " + channel + " (the record has " + std::to_string(h.signals.size()) +
                       ")");
    }
    ch = static_cast<std::size_t>(index);
  } else if (!channel.empty()) {
    auto it = std::find_if(h.signals.begin(), h.signals.end(), [&](const auto& s) { return s.description == channel; });
    if (it == h.signals.end()) {
      it = std::find_if(h.signals.begin(), h.signals.end(),
                        [&](const auto& s) { return lower(s.description) == lower(channel); });
    }
    if (it == h.signals.end()) {
      std::string names;
      for (const auto& s : h.signals) names += (names.empty() ? "" : ", ") + s.description;
      throw InputError(h.path + ": no channel '" + channel + "' (channels: " + names + ")");
    }
    ch = static_cast<std::size_t>(it - h.signals.begin());
  }
  const WfdbSignalSpec& spec = h.signals[ch];
  if (spec.format != kFormat212 && spec.format != kFormat16) {
    throw InputError(h.path + ": signal format " + std::to_string(spec.format) + " of channel " + std::to_string(ch) +
                     " is not supported (only 212 and 16)");
  }

  // Signals stored in the same file are interleaved frame by frame, in header order.
  std::size_t group = 0, position = 0;
  for (std::size_t i = 0; i < h.signals.size(); ++i) {
    if (h.signals[i].file_name != spec.file_name) continue;
    if (h.signals[i].format != spec.format)
      throw InputError(h.path + ": signals in " + spec.file_name + " mix formats (not supported)");
    if (i == ch) position = group;
    ++group;
  }
  return {ch, group, position, wfdb_signal_file(h, spec)};
}

WfdbSignal decode_signal(const WfdbHeader& h, const ChannelChoice& choice, std::string_view bytes, const std::string& dat) {
  const std::size_t ch = choice.ch, group = choice.group, position = choice.position;
  const WfdbSignalSpec& spec = h.signals[ch];
  if (static_cast<std::size_t>(spec.byte_offset) > bytes.size()) throw InputError(dat + ": shorter than its byte offset");
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + spec.byte_offset;
  const std::size_t size = bytes.size() - static_cast<std::size_t>(spec.byte_offset);

  // Total stored values (all signals of the file) that fit in the file.
  const std::size_t stored = spec.format == kFormat16 ? size / 2 : (size / 3) * 2 + (size % 3 >= 2 ? 1 : 0);
  const std::size_t available = stored / group;
  std::size_t n = available;
  if (h.samples > 0) {
    if (static_cast<std::size_t>(h.samples) > available) {
      throw InputError(dat + ": truncated: " + std::to_string(h.samples) + " samples announced by " + h.path +
                       ", " + std::to_string(available) + " stored");
    }
    n = static_cast<std::size_t>(h.samples);
  }

  WfdbSignal out;
  out.fs = h.fs;
  out.channel = ch;
  out.description = spec.description;
  out.values.resize(n);
  const double gain = spec.gain, baseline = spec.baseline;
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t k = t * group + position;  // index in the file's value stream
    int v = 0;
    if (spec.format == kFormat16) {
      v = sign_extend(static_cast<unsigned>(data[2 * k]) | (static_cast<unsigned>(data[2 * k + 1]) << 8), 16);
      if (v == kInvalid16) throw InputError(dat + ": sample " + std::to_string(t) + " of channel " + std::to_string(ch) + " is marked invalid (-32768)");
    } else {
      // 212: two 12-bit values in 3 bytes; the middle byte holds the high nibbles (second value's on top).
      const unsigned char* p = data + 3 * (k / 2);
      const unsigned raw = (k % 2 == 0) ? (p[0] | ((p[1] & 0x0Fu) << 8)) : (p[2] | ((p[1] & 0xF0u) << 4));
      v = sign_extend(raw, 12);
      if (v == kInvalid212) throw InputError(dat + ": sample " + std::to_string(t) + " of channel " + std::to_string(ch) + " is marked invalid (-2048)");
    }
    out.values[t] = static_cast<float>((v - baseline) / gain);
    // As the CSV reader: a non-finite sample would poison every filter output downstream.
    if (!std::isfinite(out.values[t])) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": gain %g makes sample %zu of channel %zu non-finite in float32", gain, t, ch);
      throw InputError(h.path + buf);
    }
  }
  return out;
}

}  // namespace

std::string wfdb_signal_file(const WfdbHeader& header, const WfdbSignalSpec& signal) {
  return (std::filesystem::path(header.path).parent_path() / signal.file_name).string();
}

std::string wfdb_signal_path(const WfdbHeader& header, const std::string& channel) {
  return choose_channel(header, channel).dat;
}

WfdbSignal parse_wfdb_signal(const WfdbHeader& header, const std::string& channel, std::string_view dat_bytes,
                             const std::string& dat_path) {
  return decode_signal(header, choose_channel(header, channel), dat_bytes, dat_path);
}

WfdbSignal read_wfdb_signal(const std::string& path, const std::string& channel) {
  const WfdbHeader h = read_wfdb_header(wfdb_header_path(path));
  const ChannelChoice choice = choose_channel(h, channel);  // channel errors before the file's
  if (h.samples > 0) {
    // As far as the header's samples go (the file may be longer, or a device that does not end).
    const WfdbSignalSpec& spec = h.signals[choice.ch];
    const double values = static_cast<double>(h.samples) * static_cast<double>(choice.group);
    const double bytes = static_cast<double>(spec.byte_offset) + (spec.format == kFormat16 ? 2.0 * values : std::ceil(1.5 * values));
    if (bytes > static_cast<double>(kMaxSignalFileBytes))
      throw InputError(h.path + ": " + std::to_string(h.samples) + " samples announced, more than the " +
                       std::to_string(kMaxSignalFileBytes) + " bytes of a signal file ecgpipe reads");
    require_not_directory(choice.dat, "WFDB signal file");
    return decode_signal(h, choice, read_file_prefix(choice.dat, static_cast<std::size_t>(bytes), "WFDB signal file"), choice.dat);
  }
  // No sample count: as many as the file holds, which a regular file's size says and a device's
  // does not (read_regular_file also refuses one that grows past the bound while read).
  require_not_directory(choice.dat, "WFDB signal file");
  struct stat st {};
  if (::stat(choice.dat.c_str(), &st) == 0 &&
      (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > kMaxSignalFileBytes))
    throw InputError("WFDB signal file " + choice.dat + ": " +
                     (S_ISREG(st.st_mode) ? "more than the " + std::to_string(kMaxSignalFileBytes) + " bytes ecgpipe reads"
                                          : std::string("not a regular file")) +
                     ", and " + h.path + " gives no sample count");
  return decode_signal(h, choice, read_regular_file(choice.dat, kMaxSignalFileBytes, "WFDB signal file"), choice.dat);
}

}  // namespace ecgpipe
