// Small string helpers shared by the input readers (private to the library).
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace ecgpipe::text {

// Without leading and trailing blanks (spaces, tabs, CR, LF).
inline std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// ASCII lower case.
inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// `s` cut for a message: at most `max` bytes of it and "... (N bytes)" after, so that input quoted in
// an error stays one readable line (issue 25: a 20 MB manifest line was echoed twice).
inline std::string shorten(std::string_view s, std::size_t max = 200) {
  if (s.size() <= max) return std::string(s);
  return std::string(s.substr(0, max)) + "... (" + std::to_string(s.size()) + " bytes)";
}

// `s` safe to print on a terminal: every control character (C0, DEL, and the C1 controls U+0080..
// U+009F, which some terminals obey as ESC sequences) and every byte that is not part of valid UTF-8
// as \xHH, the rest (names in any script) as it is. Logs and error lines quote input -- a CSV header,
// a cell, a file name -- which must not clear the screen, retitle the window or forge a line.
// `keep_newlines`: '\n' passes, for a multi-line text (a table of records named by their files).
inline std::string visible(std::string_view s, bool keep_newlines = false) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  const auto escape = [&out](unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 || c == 0x7f) && !(keep_newlines && c == '\n')) escape(c);
      else out += s[i];
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) ok = false;  // C1: both bytes escaped
    if (!ok) {
      escape(c);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

// `path` (generic form, '/' between segments) as the path of a relative URL: every byte but the
// unreserved ones (RFC 3986: A-Z a-z 0-9 - . _ ~) and '/' percent-encoded, so that no file name
// can become a scheme (the ':' of "javascript:" is %3A), a query or a fragment.
inline std::string url_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == '/') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A UTF-8 byte-order mark, which Excel and Notepad write at the start of a text file: every reader
// of text skips one there (it is not part of the first line's first name or value).
inline constexpr std::string_view kUtf8Bom{"\xEF\xBB\xBF", 3};
inline bool starts_with_bom(std::string_view s) { return s.substr(0, kUtf8Bom.size()) == kUtf8Bom; }

// Calls line(text_of_line, line_number) for each line of `text`, numbered from 1, split as
// std::getline splits: on '\n'; a last line without one counts, an empty piece after the last
// '\n' does not. A final CR (CRLF files) is not part of the line, nor a byte-order mark at the
// start of the text part of the first. The readers of small text files (WFDB headers, reference
// CSVs) all split this way; a callback that returns bool stops the walk by returning false.
template <typename Line>
void for_each_line(std::string_view text, Line&& line) {
  if (starts_with_bom(text)) text.remove_prefix(kUtf8Bom.size());
  std::size_t line_no = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view piece = text.substr(start, end - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
    if constexpr (std::is_same_v<std::invoke_result_t<Line&, std::string_view, std::size_t>, bool>) {
      if (!line(piece, line_no)) return;
    } else {
      line(piece, line_no);
    }
  }
}

}  // namespace ecgpipe::text
