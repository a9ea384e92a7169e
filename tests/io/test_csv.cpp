// Stage 1 (CSV parsing): the CPU reference against strtof, its errors, and the GPU parser against
// the CPU bit for bit (values and error messages).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/csv_internal.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/common/error.hpp"
#include "gpu_test_util.hpp"
#include "test_util.hpp"

namespace {

using ecgpipe::CsvOptions;
using ecgpipe::InputError;
using ecgpipe::read_csv_column;
using ecgpipe::CsvColumns;
using ecgpipe::CsvSecondColumn;
using ecgpipe::read_csv_columns;

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Exact (bitwise) equality of two float vectors, reporting the first difference.
::testing::AssertionResult same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure() << "sizes differ: " << a.size() << " vs " << b.size();
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (bits(a[i]) != bits(b[i])) {
      return ::testing::AssertionFailure() << "row " << i << ": " << a[i] << " (0x" << std::hex << bits(a[i]) << ") vs "
                                           << b[i] << " (0x" << bits(b[i]) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// A file under the test's own temp directory.
std::string write_file(const std::string& name, const std::string& text) {
  const auto dir = testutil::fresh_dir("_" + name);
  const auto path = dir / name;
  testutil::write_text(path, text);
  return path.string();
}

std::vector<float> parse(const std::string& text, CsvOptions options = {}) {
  return read_csv_column(write_file("in.csv", text), options);
}

// The message of the InputError that reading `path` throws ("" if none).
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string cpu_error(const std::string& path, const CsvOptions& options = {}) {
  return input_error_of([&] { (void)read_csv_column(path, options); });
}

float strtof_of(const char* s) { return std::strtof(s, nullptr); }

// ---------------------------------------------------------------------------------------------
// Building blocks

TEST(CsvCell, AcceptsTheGrammar) {
  const char* ok[] = {"0", "-0.1234", "1e-3", ".5", "5.", "+2", "+.5", "-.5", "1E+2", "1e-2", " 7 ", "\t8\t",
                      "1.e5", "0001.2500", "-0", "3.4028234663852886e38", "1e-40", "1e-50", "0e999999999999"};
  for (const char* s : ok) {
    float v = -99.0f;
    EXPECT_TRUE(ecgpipe::parse_cell(s, v)) << s;
    std::string t(s);
    if (t.find('+') == 0) t.erase(0, 1);
    EXPECT_EQ(bits(v), bits(strtof_of(t.c_str()))) << s;
  }
}

TEST(CsvCell, RejectsEverythingElse) {
  const char* bad[] = {"", "  ", "abc", "nan", "NaN", "-nan", "inf", "-inf", "+inf", "infinity", "1e50", "-1e39",
                       "3.4028235677973367e38", "+-1", "-+1", "++1", "+", "-", ".", "e5", "1e", "1e+", "1.2.3",
                       "0x10", "1 2", "1,", "1d3", "\"1\"", "5f"};
  for (const char* s : bad) {
    float v = 42.0f;
    EXPECT_FALSE(ecgpipe::parse_cell(s, v)) << s;
    EXPECT_EQ(v, 42.0f) << s;  // untouched
  }
}

TEST(CsvCell, NegativeZeroKeepsItsSign) {
  float v = 1.0f;
  ASSERT_TRUE(ecgpipe::parse_cell("-0.0", v));
  EXPECT_EQ(bits(v), 0x80000000u);
}

TEST(CsvCell, SeventeenSignificantDigitsMatchStrtof) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-10.0, 10.0);
  std::uniform_int_distribution<int> expo(-44, 37);
  char buf[64];
  for (int i = 0; i < 200000; ++i) {
    const double x = mant(rng) * std::pow(10.0, expo(rng));
    std::snprintf(buf, sizeof buf, "%.16e", x);
    float v = 0.0f;
    const float ref = strtof_of(buf);
    if (!std::isfinite(ref)) continue;
    ASSERT_TRUE(ecgpipe::parse_cell(buf, v)) << buf;
    ASSERT_EQ(bits(v), bits(ref)) << buf;
  }
}

TEST(CsvCell, ManyDigitsAndHalfwayCasesMatchStrtof) {
  const char* cases[] = {
      "1.000000059604644775390625",          // exactly halfway between 1 and 1+2^-23: ties to even
      "1.00000005960464477539062500001",     // just above halfway
      "1.00000005960464477539062499999",     // just below halfway
      "1.000000178813934326171875",          // halfway, rounds up to the even neighbour
      "0.1000000000000000055511151231257827021181583404541015625",
      "123456789012345678901234567890",
      "7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015625e-46",
      "7.0064923216240853546186479164495806564013097093825788587853414194489554134293030074331909418106079101563e-46",
      "3.40282356779733661637539395458142568447e38",
      "0.000000000000000000000000000000000000000000001401298464324817070923729583289916131280261941876515771757068283889791082685860601486638188362121582031250",
  };
  for (const char* s : cases) {
    float v = 0.0f;
    ASSERT_TRUE(ecgpipe::parse_cell(s, v)) << s;
    EXPECT_EQ(bits(v), bits(strtof_of(s))) << s;
  }
}

TEST(CsvLine, FieldsAndBlankLines) {
  std::string_view f;
  ASSERT_TRUE(ecgpipe::field_of_line("a,b,,d", 0, f));
  EXPECT_EQ(f, "a");
  ASSERT_TRUE(ecgpipe::field_of_line("a,b,,d", 2, f));
  EXPECT_EQ(f, "");
  ASSERT_TRUE(ecgpipe::field_of_line("a,b,,d", 3, f));
  EXPECT_EQ(f, "d");
  EXPECT_FALSE(ecgpipe::field_of_line("a,b,,d", 4, f));
  ASSERT_TRUE(ecgpipe::field_of_line("", 0, f));
  EXPECT_EQ(f, "");
  EXPECT_TRUE(ecgpipe::is_blank_line(""));
  EXPECT_TRUE(ecgpipe::is_blank_line(" \t "));
  EXPECT_FALSE(ecgpipe::is_blank_line(" x "));
  EXPECT_FALSE(ecgpipe::is_blank_line("\r"));
}

TEST(CsvColumnResolve, NamesIndicesAndDefaults) {
  CsvOptions o;
  EXPECT_EQ(ecgpipe::resolve_column("time,heartbeats", o, "f").index, 1u);
  EXPECT_EQ(ecgpipe::resolve_column("time,heartbeats", o, "f").name, "heartbeats");
  EXPECT_EQ(ecgpipe::resolve_column("a,b", o, "f").index, 0u);
  EXPECT_EQ(ecgpipe::resolve_column(" \"a\" , \" b \" ", CsvOptions{"b", true}, "f").index, 1u);
  EXPECT_EQ(ecgpipe::resolve_column("a,b,c", CsvOptions{"2", true}, "f").index, 2u);
  EXPECT_EQ(ecgpipe::resolve_column("x,0", CsvOptions{"0", true}, "f").index, 1u);  // a name wins
  EXPECT_THROW(ecgpipe::resolve_column("a,b", CsvOptions{"c", true}, "f"), InputError);
  EXPECT_THROW(ecgpipe::resolve_column("a,b", CsvOptions{"2", true}, "f"), InputError);
  EXPECT_EQ(ecgpipe::resolve_column("ignored", CsvOptions{"", false}, "f").index, 0u);
  EXPECT_EQ(ecgpipe::resolve_column("ignored", CsvOptions{"3", false}, "f").index, 3u);
  EXPECT_EQ(ecgpipe::resolve_column("ignored", CsvOptions{"3", false}, "f").name, "column 3");
  EXPECT_THROW(ecgpipe::resolve_column("", CsvOptions{"heartbeats", false}, "f"), InputError);
}

// ---------------------------------------------------------------------------------------------
// The CPU reader

TEST(CsvCpu, SeedFormat) {
  EXPECT_TRUE(same_bits(parse("heartbeats\n0.25\n-0.1234\n1e-3\n"), {0.25f, -0.1234f, 1e-3f}));
}

TEST(CsvCpu, LfAndCrlfAgree) {
  const auto lf = parse("heartbeats\n1.5\n2.5\n-3\n");
  const auto crlf = parse("heartbeats\r\n1.5\r\n2.5\r\n-3\r\n");
  EXPECT_TRUE(same_bits(lf, {1.5f, 2.5f, -3.0f}));
  EXPECT_TRUE(same_bits(crlf, lf));
}

TEST(CsvCpu, BlankLinesAreSkipped) {
  EXPECT_TRUE(same_bits(parse("heartbeats\n1\n2\n\n"), {1.0f, 2.0f}));                          // trailing
  EXPECT_TRUE(same_bits(parse("\n \nheartbeats\n1\n\n \t \r\n\r\n2\n"), {1.0f, 2.0f}));        // anywhere
  EXPECT_TRUE(same_bits(parse("heartbeats\n1\n2"), {1.0f, 2.0f}));                              // no final LF
  EXPECT_TRUE(same_bits(parse("heartbeats\r\n1\r\n2\r"), {1.0f, 2.0f}));                        // final CR
  EXPECT_TRUE(same_bits(parse("\xEF\xBB\xBFheartbeats\n7\n"), {7.0f}));                         // UTF-8 BOM
}

// Issue 11 row 6: a NUL byte used to end the line's text (io::LineReader returns C strings), so
// "1.5\0garbage" read as 1.5 and a zeroed block vanished: samples silently dropped, every later
// index shifted. Now any NUL is an InputError naming the file and the line.
TEST(CsvCpu, NulByteIsAnError) {
  const std::string cut = write_file("nul.csv", std::string("heartbeats\n1\n1.5\0garbage\n2\n", 27));
  EXPECT_NE(cpu_error(cut).find("nul.csv:3: NUL byte"), std::string::npos) << cpu_error(cut);
  // A 4 KiB zeroed block in the middle of the data (a damaged disk block), on its own lines.
  std::string block = "heartbeats\n1\n2\n" + std::string(4096, '\0') + "\n3\n";
  const std::string zeroed = write_file("zeroed.csv", block);
  EXPECT_NE(cpu_error(zeroed).find("zeroed.csv:4: NUL byte"), std::string::npos) << cpu_error(zeroed);
  // Anywhere: in the header, in a field that is not read, in a line that would be blank.
  EXPECT_NE(cpu_error(write_file("h.csv", std::string("heart\0beats\n1\n", 14))).find("h.csv:1: NUL"), std::string::npos);
  EXPECT_NE(cpu_error(write_file("f.csv", std::string("a,b\n1,2\n3,\0\n", 12))).find("f.csv:3: NUL"), std::string::npos);
  EXPECT_NE(cpu_error(write_file("b.csv", std::string("a\n1\n \0\n2\n", 9))).find("b.csv:3: NUL"), std::string::npos);
  EXPECT_NE(cpu_error(write_file("l.csv", std::string("a\n1\n2\0", 6))).find("l.csv:3: NUL"), std::string::npos);
  // The first bad line wins, NUL or not.
  EXPECT_NE(cpu_error(write_file("o.csv", std::string("a\nx\n\0\n", 6))).find("o.csv:2: cannot parse"), std::string::npos);
}

TEST(CsvCli, NulByteExitsWithInputError) {  // exit 3 (input), the line named, no output file
  const auto dir = testutil::fresh_dir();
  std::string text = "heartbeats\n";
  for (int i = 0; i < 2000; ++i) text += std::to_string((i % 360) == 0 ? 1.0 : 0.01 * (i % 7)) + "\n";
  text += std::string(4096, '\0') + "\n0.5\n";
  testutil::write_text(dir / "in.csv", text);
  const auto r = testutil::run_ecgpipe("detect '" + (dir / "in.csv").string() + "' --fs 360 --out '" + (dir / "b.csv").string() + "'", dir);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("in.csv:2002: NUL byte"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "b.csv"));
}

TEST(CsvCpu, NumberForms) {
  EXPECT_TRUE(same_bits(parse("heartbeats\n-0.1234\n1e-3\n.5\n5.\n+2\n  3.25 \n\t-4\t\n1E+2\n"),
                        {-0.1234f, 1e-3f, 0.5f, 5.0f, 2.0f, 3.25f, -4.0f, 100.0f}));
}

TEST(CsvCpu, SeventeenDigitValuesEqualStrtof) {
  std::mt19937 rng(3);
  std::normal_distribution<double> d(0.0, 1.0);
  std::string text = "heartbeats\n";
  std::vector<float> expected;
  char buf[64];
  for (int i = 0; i < 20000; ++i) {
    std::snprintf(buf, sizeof buf, "%.16e", d(rng) * std::pow(10.0, i % 20 - 10));
    text += buf;
    text += '\n';
    expected.push_back(strtof_of(buf));
  }
  EXPECT_TRUE(same_bits(parse(text), expected));
}

TEST(CsvCpu, MultiColumnByNameAndIndex) {
  const std::string text = "time,heartbeats,other\n0,1.5,-1\n1,2.5,-2\n";
  EXPECT_TRUE(same_bits(parse(text), {1.5f, 2.5f}));                       // default: "heartbeats"
  EXPECT_TRUE(same_bits(parse(text, {"other", true}), {-1.0f, -2.0f}));
  EXPECT_TRUE(same_bits(parse(text, {"0", true}), {0.0f, 1.0f}));
  EXPECT_TRUE(same_bits(parse(text, {"2", true}), {-1.0f, -2.0f}));
  EXPECT_TRUE(same_bits(parse("a,b\n1,2\n"), {1.0f}));                       // no "heartbeats": column 0
}

TEST(CsvCpu, QuotedHeader) {
  EXPECT_TRUE(same_bits(parse(" \"time\" , \"heartbeats\" \n0,4\n1,5\n"), {4.0f, 5.0f}));
  EXPECT_TRUE(same_bits(parse("\"time\",\"v\"\n0,4\n", {"v", true}), {4.0f}));
}

TEST(CsvCpu, NoHeader) {
  EXPECT_TRUE(same_bits(parse("1,10\n2,20\n", {"", false}), {1.0f, 2.0f}));
  EXPECT_TRUE(same_bits(parse("1,10\n2,20\n", {"1", false}), {10.0f, 20.0f}));
  EXPECT_THROW(parse("1,10\n", {"heartbeats", false}), InputError);
}

TEST(CsvCpu, Errors) {
  const auto dir = testutil::fresh_dir();
  auto file = [&](const std::string& name, const std::string& text) {
    testutil::write_text(dir / name, text);
    return (dir / name).string();
  };
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos ? ::testing::AssertionSuccess()
                                               : ::testing::AssertionFailure() << '"' << msg << "\" lacks \"" << part << '"';
  };

  const std::string missing = (dir / "missing.csv").string();
  EXPECT_TRUE(has(cpu_error(missing), "cannot open " + missing + ": No such file"));
  EXPECT_TRUE(has(cpu_error(dir.string()), "cannot open"));
  EXPECT_TRUE(has(cpu_error(file("empty.csv", "")), "empty file"));
  EXPECT_TRUE(has(cpu_error(file("blank.csv", "\n \n\r\n")), "empty file"));
  EXPECT_TRUE(has(cpu_error(file("empty.csv", ""), {"", false}), "empty file"));
  EXPECT_TRUE(has(cpu_error(file("header.csv", "heartbeats\n")), "no data rows"));
  EXPECT_TRUE(has(cpu_error(file("header2.csv", "heartbeats\n\n  \n")), "no data rows"));

  const std::string abc = file("abc.csv", "heartbeats\n1\n2\n3\nabc\n5\n");
  const std::string msg = cpu_error(abc);
  EXPECT_TRUE(has(msg, abc + ":5:"));
  EXPECT_TRUE(has(msg, "\"abc\""));
  EXPECT_TRUE(has(msg, "column \"heartbeats\""));
  EXPECT_EQ(msg.find('\n'), std::string::npos);  // one line

  EXPECT_TRUE(has(cpu_error(file("nan.csv", "heartbeats\n1\nnan\n")), ":3: cannot parse \"nan\""));
  EXPECT_TRUE(has(cpu_error(file("inf.csv", "heartbeats\n1\n2\n-inf\n")), ":4: cannot parse \"-inf\""));
  EXPECT_TRUE(has(cpu_error(file("big.csv", "heartbeats\n1e50\n")), ":2: cannot parse \"1e50\""));
  EXPECT_TRUE(has(cpu_error(file("emptycell.csv", "a,heartbeats\n1,2\n3,\n")), ":3: empty cell"));
  EXPECT_TRUE(has(cpu_error(file("crlf.csv", "heartbeats\r\n1\r\n\r\nx\r\n")), ":4: cannot parse \"x\""));
  EXPECT_TRUE(has(cpu_error(file("cols.csv", "a,b\n1,2\n"), {"c", true}), "no column named \"c\""));
  EXPECT_TRUE(has(cpu_error(file("cols.csv", "a,b\n1,2\n"), {"5", true}), "--column 5 is out of range"));
  EXPECT_TRUE(has(cpu_error(file("few.csv", "a,b,c\n1,2,3\n4,5\n"), {"c", true}), ":3: line has 2 field(s), but column \"c\" is field 3"));
  EXPECT_TRUE(has(cpu_error(file("few2.csv", "1,2\n3\n"), {"1", false}), ":2: line has 1 field(s), but column 1 is field 2"));
}

// The reader in pieces (issue 12): a file read a few bytes at a time, so that block edges fall
// inside the BOM, between CR and LF, inside cells and blank lines, gives the same values, read
// any number of rows at a time, as the whole-file reader, and the same errors (same line).
TEST(CsvCpu, ReadInTinyBlocksEqualsWholeFile) {
  std::string text = "\xEF\xBB\xBF\n  \ntime, \"heartbeats\" ,x\r\n";
  for (int i = 0; i < 300; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, i % 5 == 0 ? "%d, %+.7e ,z\r\n" : "%d,%.4f,zz\n", i, std::sin(i * 0.37) * 1000);
    text += buf;
    if (i % 17 == 0) text += " \t\r\n";
  }
  text += "300,1.5";  // a last line without LF
  const std::string path = write_file("blocks.csv", text);
  const std::vector<float> whole = read_csv_column(path, {});
  ASSERT_EQ(whole.size(), 301u);
  EXPECT_TRUE(same_bits(ecgpipe::parse_csv_column(text, {}, "text"), whole));
  for (const std::size_t block : {1, 2, 3, 5, 7, 13, 64, 4093}) {
    for (const std::size_t rows : {1, 3, 1000}) {
      ecgpipe::CsvColumnReader reader(path, {}, block);
      EXPECT_EQ(reader.column().name, "heartbeats");
      std::vector<float> got;
      while (reader.read(got, rows) > 0) {
      }
      EXPECT_TRUE(same_bits(got, whole)) << "block " << block << ", rows " << rows;
      EXPECT_EQ(reader.bytes_consumed(), text.size());
    }
  }
}

TEST(CsvCpu, ErrorsInTinyBlocksNameTheSameLine) {
  const auto dir = testutil::fresh_dir();
  const std::vector<std::pair<std::string, std::string>> files = {
      {"abc.csv", "heartbeats\n1\n2\n3\nabc\n5\n"},
      {"nul.csv", "heartbeats\n1\n2.5\n3\n4\n5\n6\n1" + std::string(1, '\0') + "2\n7\n"},
      {"crlf.csv", "heartbeats\r\n1\r\n\r\nx\r\n"},
      {"header.csv", "heartbeats\n  \n"},
      {"empty.csv", "\n\n"},
      {"few.csv", "a,heartbeats\n1,2\n3\n"},
  };
  for (const auto& [name, text] : files) {
    testutil::write_text(dir / name, text);
    const std::string path = (dir / name).string();
    const std::string whole = cpu_error(path);
    ASSERT_NE(whole, "") << name;
    for (const std::size_t block : {1, 2, 7}) {
      const std::string piecewise = input_error_of([&] {
        ecgpipe::CsvColumnReader reader(path, {}, block);
        std::vector<float> got;
        while (reader.read(got, 2) > 0) {
        }
      });
      EXPECT_EQ(piecewise, whole) << name << ", block " << block;
    }
  }
}

// Two columns in one pass (issue 24: a two-lead CSV's second lead): each is the column read
// alone, bit for bit, in any block size, whichever comes first in the row; the pieces of a
// reader that stops parsing the second column are the first column's alone.
TEST(CsvCpu, TwoColumnsInOnePassAreEachColumnRead) {
  std::string text = "time,MLII,x,V1\n";
  for (int i = 0; i < 3000; ++i) {
    text += std::to_string(i) + "," + std::to_string(std::sin(i * 0.1)) + ",z," + std::to_string(-0.5 * std::cos(i * 0.07)) +
            (i % 3 == 0 ? "\r\n" : "\n");
    if (i % 97 == 5) text += " \n";
  }
  const std::string path = write_file("two.csv", text);
  const auto mlii = read_csv_column(path, {"MLII"}), v1 = read_csv_column(path, {"V1"});
  ASSERT_EQ(mlii.size(), 3000u);
  const CsvColumns both = read_csv_columns(path, {"MLII"}, {"V1", " (note)"});
  EXPECT_TRUE(same_bits(both.first, mlii));
  EXPECT_TRUE(same_bits(both.second, v1));
  const CsvColumns swapped = read_csv_columns(path, {"V1"}, {"1", " (note)"});
  EXPECT_TRUE(same_bits(swapped.first, v1));
  EXPECT_TRUE(same_bits(swapped.second, mlii));
  for (const std::size_t block : {1, 7, 4096}) {
    const CsvSecondColumn second{"V1", ""};
    ecgpipe::CsvColumnReader reader(path, {"MLII"}, block, &second);
    std::vector<float> a, b;
    while (reader.read(a, 31, a.size() < 1000 ? &b : nullptr) > 0) {
    }
    EXPECT_TRUE(same_bits(a, mlii)) << block;
    ASSERT_EQ(b.size(), 1023u) << block;  // 33 pieces of 31 rows read it
    EXPECT_TRUE(same_bits(b, std::vector<float>(v1.begin(), v1.begin() + 1023))) << block;
  }
}

// The first bad row of either column stops the read: a bad cell of the second column is the
// column's own error with the note after it; one of the first (or a NUL byte) the first's.
TEST(CsvCpu, TwoColumnErrorsAreTheBadColumnsWithTheNote) {
  std::string good = "time,MLII,x,V1\n";
  for (int i = 0; i < 300; ++i) good += std::to_string(i) + ",1.5,z,-2.25\n";
  struct Case {
    std::string name, tail, column;
  };
  const std::vector<Case> cases = {
      {"second.csv", "300,1.5,z,abc\n301,def,z,1.0\n", "V1"},
      {"first.csv", "300,abc,z,def\n", "MLII"},
      {"few.csv", "300,1.5,z\n", "V1"},
      {"empty.csv", "300,1.5,z,\n", "V1"},
      {"nul.csv", std::string("300,1.5,z,2\0\n", 13), "MLII"},
  };
  for (const Case& c : cases) {
    const std::string path = write_file(c.name, good + c.tail);
    std::string expected = cpu_error(path, {c.column});
    ASSERT_NE(expected, "") << c.name;
    if (c.column == "V1") expected += " (the second lead)";
    EXPECT_EQ(input_error_of([&] { (void)read_csv_columns(path, {"MLII"}, {"V1", " (the second lead)"}); }), expected) << c.name;
  }
}

#ifdef ECGPIPE_WITH_CUDA
// ---------------------------------------------------------------------------------------------
// The GPU parser: same values bit for bit, same errors.

std::vector<float> gpu_read(const std::string& path, const CsvOptions& options, std::size_t chunk_bytes = 0) {
  ecgpipe_test::TestStream stream;
  ecgpipe::DeviceBuffer<float> d =
      chunk_bytes == 0 ? ecgpipe::read_csv_column_cuda(path, options, stream)
                       : ecgpipe::csv_internal::read_csv_column_cuda(path, options, stream, chunk_bytes);
  auto v = ecgpipe_test::download(d.data(), d.size(), stream);
  d.reset();
  ECGPIPE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

std::string gpu_error(const std::string& path, const CsvOptions& options = {}, std::size_t chunk_bytes = 0) {
  return input_error_of([&] { (void)gpu_read(path, options, chunk_bytes); });
}

// Random text: numbers in several printf formats, mixed LF / CRLF, blank lines, extra columns.
std::string random_csv(std::size_t rows, unsigned seed, bool header = true) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 99);
  std::uniform_int_distribution<int> expo(-46, 39);
  std::string text = header ? "time , \"heartbeats\",x\n" : "";
  char buf[96];
  for (std::size_t i = 0; i < rows; ++i) {
    const int kind = pick(rng);
    double x = normal(rng);
    if (kind < 20) {
      // Keep inside float32's range (FLT_MAX ~ 3.4e38): beyond it is an error on both paths.
      constexpr double kNearFloatMax = 3.0e38;
      const double v = x * std::pow(10.0, expo(rng));
      std::snprintf(buf, sizeof buf, "%.16e", std::fabs(v) < kNearFloatMax ? v : std::copysign(kNearFloatMax, v));
    } else if (kind < 40) {
      std::snprintf(buf, sizeof buf, "%.4f", x * 1000);
    } else if (kind < 55) {
      std::snprintf(buf, sizeof buf, "%g", x);
    } else if (kind < 65) {  // a random finite float32 bit pattern, shortest-ish and exact forms
      std::uint32_t u = static_cast<std::uint32_t>(rng());
      float f;
      std::memcpy(&f, &u, sizeof f);
      if (!std::isfinite(f)) f = 1.0f;
      std::snprintf(buf, sizeof buf, kind < 60 ? "%.9g" : "%.8e", static_cast<double>(f));
    } else if (kind < 70) {
      std::snprintf(buf, sizeof buf, "%+.3f", x);
    } else if (kind < 75) {
      std::snprintf(buf, sizeof buf, "  %.6g\t", x * 1e-3);
    } else if (kind < 80) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x * 1e6));
    } else {
      std::snprintf(buf, sizeof buf, "%.6f", x);
    }
    text += std::to_string(i) + ',' + buf + ",z";
    text += (kind % 3 == 0) ? "\r\n" : "\n";
    if (kind == 7) text += "\n";        // a blank line
    if (kind == 8) text += "  \t\r\n";  // a blank line with spaces and a CR
  }
  return text;
}

TEST(CsvGpu, RandomFilesMatchCpuBitForBit) {
  SKIP_WITHOUT_GPU();
  const std::string path = write_file("random.csv", random_csv(100000, 11));
  const auto cpu = read_csv_column(path, {});
  ASSERT_EQ(cpu.size(), 100000u);
  EXPECT_TRUE(same_bits(gpu_read(path, {}), cpu));
  EXPECT_TRUE(same_bits(gpu_read(path, {}, 1 << 16), cpu));
  EXPECT_TRUE(same_bits(gpu_read(path, {"0", true}, 4099), read_csv_column(path, {"0", true})));
}

// A file larger than one 32 MiB chunk: each chunk is read by several threads at disjoint offsets
// (pread, 4 MiB or more each), after the header was read through the FILE; the pieces must join
// exactly where fread would have put them. With and without a header (a BOM instead).
TEST(CsvGpu, FileReadInParallelPiecesMatchesCpuBitForBit) {
  SKIP_WITHOUT_GPU();
  for (bool header : {true, false}) {
    const std::string path = write_file("large.csv", (header ? "" : "\xEF\xBB\xBF") + random_csv(2500000, 29, header));
    ASSERT_GT(std::filesystem::file_size(path), std::uintmax_t{40} << 20);
    const CsvOptions o{"", header};
    const auto cpu = read_csv_column(path, o);
    EXPECT_TRUE(same_bits(gpu_read(path, o), cpu)) << "header " << header;
  }
}

TEST(CsvGpu, NoHeaderMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const std::string path = write_file("noheader.csv", "\xEF\xBB\xBF" + random_csv(5000, 5, false));
  for (const char* col : {"", "1"}) {
    const CsvOptions o{col, false};
    EXPECT_TRUE(same_bits(gpu_read(path, o), read_csv_column(path, o))) << col;
    EXPECT_TRUE(same_bits(gpu_read(path, o, 64), read_csv_column(path, o))) << col;
  }
}

TEST(CsvGpu, SmallChunksStraddleLinesManyTimes) {
  SKIP_WITHOUT_GPU();
  const std::string path = write_file("straddle.csv", random_csv(3000, 23));
  const auto cpu = read_csv_column(path, {});
  for (std::size_t chunk : {64, 65, 97, 128, 1000, 4096}) {
    EXPECT_TRUE(same_bits(gpu_read(path, {}, chunk), cpu)) << "chunk " << chunk;
  }
}

TEST(CsvGpu, RowCountsAroundAWarp) {
  SKIP_WITHOUT_GPU();
  for (std::size_t rows : {1, 31, 32, 33, 1025}) {
    for (bool final_newline : {true, false}) {
      std::string text = "heartbeats\n";
      for (std::size_t i = 0; i < rows; ++i) text += std::to_string(i) + ".25" + (i + 1 < rows || final_newline ? "\n" : "");
      const std::string path = write_file("rows.csv", text);
      const auto cpu = read_csv_column(path, {});
      ASSERT_EQ(cpu.size(), rows);
      EXPECT_TRUE(same_bits(gpu_read(path, {}), cpu)) << rows;
      EXPECT_TRUE(same_bits(gpu_read(path, {}, 32), cpu)) << rows;
    }
  }
  // 0 data rows: the same error as the CPU.
  const std::string path = write_file("zero.csv", "heartbeats\n\n");
  EXPECT_NE(cpu_error(path), "");
  EXPECT_EQ(gpu_error(path), cpu_error(path));
}

TEST(CsvGpu, EdgeTextMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const std::string text =
      "\n  \nheartbeats\r\n-0\r\n0e999999999\n1e-50\n1.4e-45\n7e-46\n7.1e-46\n3.4028235677973366e38\n"
      "1.000000059604644775390625\n1.00000005960464477539062500001\n1.00000005960464477539062499999\n"
      "1.000000178813934326171875\n123456789012345678901234567890\n0.00000000000000000000000000012345\n"
      "+.5\n5.\n.5\n  \t 9 \t\n1.e3\n16777217\n16777216e-10\n9007199254740993\n1e10\n1e11\n1e-10\n1e-11\n"
      "0.1000000000000000055511151231257827021181583404541015625\n4\r";
  const std::string path = write_file("edge.csv", text);
  const auto cpu = read_csv_column(path, {});
  EXPECT_TRUE(same_bits(gpu_read(path, {}), cpu));
  EXPECT_TRUE(same_bits(gpu_read(path, {}, 70), cpu));

  // A NUL byte is an error on both paths (issue 11 row 6): see ErrorsMatchCpu.
}

TEST(CsvGpu, ErrorsMatchCpu) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  auto file = [&](const std::string& name, const std::string& text) {
    testutil::write_text(dir / name, text);
    return (dir / name).string();
  };
  struct Case {
    std::string path;
    CsvOptions options;
  };
  std::vector<Case> cases = {
      {(dir / "missing.csv").string(), {}},
      {file("empty.csv", ""), {}},
      {file("empty2.csv", ""), {"", false}},
      {file("blank.csv", "\n \n"), {}},
      {file("header.csv", "heartbeats\n"), {}},
      {file("abc.csv", "heartbeats\n1\n2\n3\nabc\n5\n"), {}},
      {file("nan.csv", "heartbeats\n1\nnan\n"), {}},
      {file("inf.csv", "heartbeats\n1\n2\ninf\n"), {}},
      {file("big.csv", "heartbeats\n1\n1e50\n"), {}},
      {file("max.csv", "heartbeats\n1\n3.4028235677973367e38\n"), {}},
      {file("emptycell.csv", "a,heartbeats\n1,2\n3,\n"), {}},
      {file("cols.csv", "a,b\n1,2\n"), {"c", true}},
      {file("cols2.csv", "a,b\n1,2\n"), {"5", true}},
      {file("few.csv", "a,b,c\n1,2,3\n4,5\n"), {"c", true}},
      {file("few2.csv", "1,2\n3\n"), {"1", false}},
      {file("last.csv", "heartbeats\n1\n2\n3x"), {}},
      {file("nul.csv", std::string("heartbeats\n1\nx\0 2\n", 18)), {}},  // first bad line: "x\0 2"
      {file("nul2.csv", std::string("heartbeats\n1\n1.5\0garbage\n2\n", 27)), {}},
      {file("nul3.csv", std::string("a,b\n1,2\n3,4\0\n", 13)), {"a", true}},  // in a field not read
      {file("nul4.csv", "heartbeats\n1\n" + std::string(4096, '\0') + "\n2\n"), {}},  // a zeroed block
      {file("nul5.csv", std::string("heartbeats\n1\n \0\n", 16)), {}},  // in a line that would be blank
      {file("nul6.csv", std::string("heart\0beats\n1\n", 14)), {}},   // in the header
      {file("nul7.csv", std::string("\n\0\nheartbeats\n1\n", 16)), {}},  // before the header
      {file("nul8.csv", std::string("1\n2\n\0", 5)), {"", false}},  // no header, last line, no LF
      {file("cr.csv", "heartbeats\n1\n \r 2\n"), {}},
  };
  for (const auto& c : cases) {
    const std::string expected = cpu_error(c.path, c.options);
    EXPECT_NE(expected, "") << c.path;
    EXPECT_EQ(gpu_error(c.path, c.options), expected) << c.path;
    EXPECT_EQ(gpu_error(c.path, c.options, 32), expected) << c.path;  // every line fits in 32 bytes
  }

  // A bad cell deep in a large file, behind chunk boundaries: same line number, and the first bad
  // line wins over later ones.
  std::string text = random_csv(20000, 99);
  std::size_t pos = 0;
  for (int line = 1; line < 12345; ++line) pos = text.find('\n', pos) + 1;
  text.insert(pos, "0,abc,z\n");
  text += "1,def,z\n";
  const std::string big = file("bad_big.csv", text);
  const std::string expected = cpu_error(big);
  ASSERT_NE(expected.find("\"abc\""), std::string::npos) << expected;
  EXPECT_EQ(gpu_error(big), expected);
  EXPECT_EQ(gpu_error(big, {}, 1000), expected);
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
