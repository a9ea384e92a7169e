// The text helpers every reader and writer shares: for_each_line and visible (src/common/text.hpp), xml_escape
// (src/common/xml_escape.hpp) and json_number (src/common/json_number.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/json_number.hpp"
#include "common/text.hpp"
#include "common/xml_escape.hpp"

namespace ecgpipe {
namespace {

using Lines = std::vector<std::pair<std::string, std::size_t>>;

Lines lines_of(std::string_view text) {
  Lines out;
  text::for_each_line(text, [&](std::string_view line, std::size_t n) { out.emplace_back(std::string(line), n); });
  return out;
}

TEST(Text, ForEachLineSplitsAsGetline) {
  EXPECT_EQ(lines_of(""), Lines{});
  EXPECT_EQ(lines_of("a"), (Lines{{"a", 1}}));                        // a last line without '\n' counts
  EXPECT_EQ(lines_of("a\n"), (Lines{{"a", 1}}));                      // no empty piece after the last '\n'
  EXPECT_EQ(lines_of("\n"), (Lines{{"", 1}}));
  EXPECT_EQ(lines_of("a\n\nb"), (Lines{{"a", 1}, {"", 2}, {"b", 3}}));  // blank lines are numbered too
  EXPECT_EQ(lines_of("a\r\nb\r\n"), (Lines{{"a", 1}, {"b", 2}}));     // CRLF: the CR is not part of the line
  EXPECT_EQ(lines_of("a\r\r\n"), (Lines{{"a\r", 1}}));                 // only one final CR goes
  EXPECT_EQ(lines_of(std::string_view("a\0b\nc", 5)), (Lines{{std::string("a\0b", 3), 1}, {"c", 2}}));
}

// Excel and Notepad write a UTF-8 byte-order mark first; it is not part of the first line (a
// reference CSV's header "\xEF\xBB\xBFsample" did not name its 'sample' column). Only at the start.
TEST(Text, ForEachLineSkipsAByteOrderMarkAtTheStart) {
  EXPECT_EQ(lines_of("\xEF\xBB\xBFsample\r\n1\r\n"), (Lines{{"sample", 1}, {"1", 2}}));
  EXPECT_EQ(lines_of("\xEF\xBB\xBF"), Lines{});
  EXPECT_EQ(lines_of("\xEF\xBB\xBF\n"), (Lines{{"", 1}}));
  EXPECT_EQ(lines_of("a\n\xEF\xBB\xBF" "b"), (Lines{{"a", 1}, {"\xEF\xBB\xBF" "b", 2}}));  // not later
  EXPECT_EQ(lines_of("\xEF\xBBx"), (Lines{{"\xEF\xBBx", 1}}));                          // not a part of one
}

TEST(Text, ForEachLineStopsWhenTheCallbackSaysSo) {
  std::vector<std::size_t> seen;
  text::for_each_line("1\n2\n3\n4\n", [&](std::string_view, std::size_t n) {
    seen.push_back(n);
    return n < 2;
  });
  EXPECT_EQ(seen, (std::vector<std::size_t>{1, 2}));
}

TEST(Text, XmlEscapeReplacesTheFiveMarkupCharacters) {
  EXPECT_EQ(xml_escape(""), "");
  EXPECT_EQ(xml_escape("plain"), "plain");
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(xml_escape("&amp;"), "&amp;amp;");  // escaped again, never taken as an entity
}

TEST(Text, JsonNumberIsNullWhereNotFinite) {
  EXPECT_EQ(json_number(0.5).dump(), "0.5");
  EXPECT_EQ(json_number(-3.0).dump(), "-3.0");
  EXPECT_TRUE(json_number(std::numeric_limits<double>::quiet_NaN()).is_null());
  EXPECT_TRUE(json_number(std::numeric_limits<double>::infinity()).is_null());
  EXPECT_TRUE(json_number(-std::numeric_limits<double>::infinity()).is_null());
}

// Exact: every control character and every byte outside valid UTF-8 as \xHH, the rest unchanged.
TEST(Text, VisibleEscapesWhatATerminalWouldObey) {
  EXPECT_EQ(text::visible(""), "");
  EXPECT_EQ(text::visible("V1 (ECG, mV)"), "V1 (ECG, mV)");
  EXPECT_EQ(text::visible("V1\x1b[2J\a"), "V1\\x1b[2J\\x07");  // ESC, BEL: clear screen, bell
  EXPECT_EQ(text::visible("a\nb\rc\td\x7f"), "a\\x0ab\\x0dc\\x09d\\x7f");  // a forged line, DEL
  EXPECT_EQ(text::visible(std::string("a\0b", 3)), "a\\x00b");
  // UTF-8 passes: 2, 3 and 4 bytes (é, €, 𝄞); U+00A0, the first code point after C1, too.
  EXPECT_EQ(text::visible("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\xc2\xa0"), "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\xc2\xa0");
  // C1's CSI (U+009B), as UTF-8 and as a lone byte; a cut or bad sequence; bytes no UTF-8 has.
  EXPECT_EQ(text::visible("\xc2\x9b" "2J"), "\\xc2\\x9b" "2J");
  EXPECT_EQ(text::visible("\x9b" "2J"), "\\x9b" "2J");
  EXPECT_EQ(text::visible("\xe2\x82"), "\\xe2\\x82");
  EXPECT_EQ(text::visible("\xe2(\xac"), "\\xe2(\\xac");
  EXPECT_EQ(text::visible("\xc0\xaf\xf5\xff"), "\\xc0\\xaf\\xf5\\xff");
  // A multi-line text keeps its line ends, and only those.
  EXPECT_EQ(text::visible("a\x1b\nb\r\n", true), "a\\x1b\nb\\x0d\n");
}

}  // namespace
}  // namespace ecgpipe
