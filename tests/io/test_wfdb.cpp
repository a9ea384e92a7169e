// WFDB readers: MIT annotations, headers, format 212/16 signals, read_signal's dispatch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "test_util.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/signal_source.hpp"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<unsigned char>;

// DS1's folder when every file the tests below read is there (testutil::ds1_folder), else "".
fs::path mitdb() {
  static const std::string dir = testutil::ds1_folder({"101.csv", "101_beats.csv", "wfdb/101.hea", "wfdb/101.dat",
                                                        "wfdb/101.atr", "wfdb/207.atr"});
  return dir;
}
const char* const kDs1[] = {"101", "106", "108", "109", "112", "114", "115", "116", "118", "119", "122",
                            "124", "201", "203", "205", "207", "208", "209", "215", "220", "223", "230"};

using testutil::put_aux;
using testutil::put_skip;
using testutil::put_word;

class Wfdb : public ::testing::Test {
 protected:
  fs::path dir_ = testutil::fresh_dir();
  std::string write(const std::string& name, const Bytes& b) {
    std::ofstream(dir_ / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                                       static_cast<std::streamsize>(b.size()));
    return (dir_ / name).string();
  }
  std::string write_text(const std::string& name, const std::string& text) {
    testutil::write_text(dir_ / name, text);
    return (dir_ / name).string();
  }
};

TEST(AnnotationSymbol, StandardEcgcodes) {
  EXPECT_EQ(ecgpipe::annotation_symbol(1), 'N');
  EXPECT_EQ(ecgpipe::annotation_symbol(5), 'V');
  EXPECT_EQ(ecgpipe::annotation_symbol(8), 'A');
  EXPECT_EQ(ecgpipe::annotation_symbol(12), '/');
  EXPECT_EQ(ecgpipe::annotation_symbol(14), '~');
  EXPECT_EQ(ecgpipe::annotation_symbol(22), '"');
  EXPECT_EQ(ecgpipe::annotation_symbol(28), '+');
  EXPECT_EQ(ecgpipe::annotation_symbol(31), '!');
  EXPECT_EQ(ecgpipe::annotation_symbol(32), '[');
  EXPECT_EQ(ecgpipe::annotation_symbol(33), ']');
  EXPECT_EQ(ecgpipe::annotation_symbol(34), 'e');
  EXPECT_EQ(ecgpipe::annotation_symbol(37), 'x');
  EXPECT_EQ(ecgpipe::annotation_symbol(38), 'f');
  EXPECT_EQ(ecgpipe::annotation_symbol(41), 'r');
  EXPECT_EQ(ecgpipe::annotation_symbol(15), 0);  // unused codes have no mnemonic
  EXPECT_EQ(ecgpipe::annotation_symbol(45), 0);
}

TEST_F(Wfdb, AnnotationsWithSkipNumSubChnAuxAndEnd) {
  Bytes b;
  put_word(b, 1, 10);                     // N at 10
  put_word(b, 28, 5);                     // + at 15 ...
  put_aux(b, "(VFL");                     // ... with aux "(VFL" (even length)
  put_skip(b, 100000);                    // 100000 samples later (needs the 32-bit SKIP)
  put_word(b, 5, 3);                      // V at 100018 ...
  put_word(b, 60, 7);                     // ... num 7 (sticky)
  put_word(b, 61, 2);                     // ... subtype 2 (this one only)
  put_word(b, 62, 1);                     // ... channel 1 (sticky)
  put_word(b, 22, 1);                     // " at 100019 ...
  put_aux(b, "abc");                      // ... aux of odd length, padded
  put_word(b, 1, 1023);                   // N at 101042 (largest 10-bit increment)
  put_word(b, 0, 0);                      // end of file
  put_word(b, 1, 1);                      // after the end: ignored
  const auto ann = ecgpipe::read_wfdb_annotations(write("a.atr", b));
  ASSERT_EQ(ann.size(), 5u);
  EXPECT_EQ(ann[0].sample, 10);
  EXPECT_EQ(ann[0].symbol, 'N');
  EXPECT_EQ(ann[1].sample, 15);
  EXPECT_EQ(ann[1].symbol, '+');
  EXPECT_EQ(ann[1].aux, "(VFL");
  EXPECT_EQ(ann[2].sample, 100018);
  EXPECT_EQ(ann[2].symbol, 'V');
  EXPECT_EQ(ann[2].code, 5);
  EXPECT_EQ(ann[2].num, 7);
  EXPECT_EQ(ann[2].subtype, 2);
  EXPECT_EQ(ann[2].channel, 1);
  EXPECT_EQ(ann[3].sample, 100019);
  EXPECT_EQ(ann[3].aux, "abc");
  EXPECT_EQ(ann[3].num, 7);
  EXPECT_EQ(ann[3].subtype, 0);
  EXPECT_EQ(ann[3].channel, 1);
  EXPECT_EQ(ann[4].sample, 101042);
  EXPECT_TRUE(ann[4].aux.empty());
}

TEST_F(Wfdb, AnnotationsWithoutEndWordAndEmpty) {
  Bytes b;
  put_word(b, 1, 4);
  const auto ann = ecgpipe::read_wfdb_annotations(write("a.atr", b));
  ASSERT_EQ(ann.size(), 1u);
  EXPECT_EQ(ann[0].sample, 4);
  EXPECT_TRUE(ecgpipe::read_wfdb_annotations(write("e.atr", {})).empty());
}

TEST_F(Wfdb, AnnotationErrorsNameTheFile) {
  const auto expect_input_error = [](const std::string& path, const std::string& part) {
    try {
      ecgpipe::read_wfdb_annotations(path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const ecgpipe::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_input_error(write("odd.atr", {1, 4, 0}), "odd size");
  Bytes skip;
  put_word(skip, 59, 0);
  put_word(skip, 0, 1);  // only half of the 32-bit interval
  expect_input_error(write("skip.atr", skip), "SKIP cut short");
  Bytes aux;
  put_word(aux, 1, 1);
  put_word(aux, 63, 10);  // 10 bytes announced, none there
  expect_input_error(write("aux.atr", aux), "AUX string cut short");
  expect_input_error((dir_ / "none.atr").string(), "cannot open");
}

// Found by tests/fuzz/fuzz_wfdb_annotations: a negative 32-bit SKIP moved the time back, so
// annotations came out of time order (VF episodes ending before they start) or at negative
// samples. WFDB writes annotations in time order (putann refuses anything else): refuse them.
TEST_F(Wfdb, AnnotationsGoingBackInTimeAreRefused) {
  const auto error_of = [](const std::string& path) -> std::string {
    try {
      (void)ecgpipe::read_wfdb_annotations(path);
    } catch (const ecgpipe::InputError& e) {
      return e.what();
    }
    return "";
  };
  Bytes back;
  put_word(back, 32, 100);        // [ at 100
  put_skip(back, 0xFFFFFFCEu);    // SKIP -50
  put_word(back, 33, 0);          // ] at 50: before the [
  const std::string b = write("back.atr", back);
  EXPECT_NE(error_of(b).find(b + ": byte 8: annotation at sample 50 comes before the previous one (100)"), std::string::npos)
      << error_of(b);
  Bytes negative;
  put_skip(negative, 0xFFFFFFFFu);  // SKIP -1
  put_word(negative, 1, 0);         // N at -1
  const std::string n = write("negative.atr", negative);
  EXPECT_NE(error_of(n).find(n + ": byte 6: annotation at negative sample -1"), std::string::npos) << error_of(n);
  Bytes same;  // equal times are in order (two annotations at one sample, e.g. on two channels)
  put_word(same, 1, 10);
  put_skip(same, 0xFFFFFFFBu);  // SKIP -5 ...
  put_word(same, 5, 5);         // ... then +5: V at 10 too
  const auto ann = ecgpipe::read_wfdb_annotations(write("same.atr", same));
  ASSERT_EQ(ann.size(), 2u);
  EXPECT_EQ(ann[1].sample, 10);
}

// NNN.atr's beat annotations are NNN_beats.csv, exactly, for all of DS1.
TEST(WfdbMitdb, AtrBeatsEqualBeatsCsvForAllDs1Records) {
  std::vector<std::string> needs;
  for (const char* rec : kDs1) needs.insert(needs.end(), {std::string(rec) + "_beats.csv", "wfdb/" + std::string(rec) + ".atr"});
  const fs::path kMitdb = testutil::ds1_folder(needs);
  SKIP_WITHOUT_DS1(kMitdb.string());
  for (const char* rec : kDs1) {
    SCOPED_TRACE(rec);
    const auto ann = ecgpipe::read_wfdb_annotations((kMitdb / "wfdb" / (std::string(rec) + ".atr")).string());
    const ecgpipe::ReferenceBeats csv = ecgpipe::read_reference_csv((kMitdb / (std::string(rec) + "_beats.csv")).string());
    EXPECT_EQ(csv.skipped_non_beats, 0u);
    std::vector<std::int64_t> samples;
    std::vector<char> symbols;
    for (const auto& a : ann) {
      if (!ecgpipe::is_beat_symbol(a.symbol)) continue;
      samples.push_back(a.sample);
      symbols.push_back(a.symbol);
    }
    EXPECT_EQ(samples, csv.samples);
    EXPECT_EQ(symbols, csv.symbols);
  }
}

// Record 207's VF episodes: '[' ... ']' (each followed by a "(VFL" / "(N" rhythm change).
TEST(WfdbMitdb, Record207HasSixVfEpisodes) {
  const fs::path kMitdb = mitdb();
  SKIP_WITHOUT_DS1(kMitdb.string());
  const auto ref = ecgpipe::read_reference((kMitdb / "wfdb" / "207.atr").string());
  EXPECT_TRUE(ref.has_rhythm);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{
      {14665, 18350}, {19715, 21731}, {87172, 88716}, {89242, 94122}, {97008, 101126}, {554682, 589926}};
  ASSERT_EQ(ref.vf_episodes.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(ref.vf_episodes[i].start, expected[i].first);
    EXPECT_EQ(ref.vf_episodes[i].end, expected[i].second);
  }
  EXPECT_TRUE(ecgpipe::read_reference((kMitdb / "wfdb" / "101.atr").string()).vf_episodes.empty());
}

// Record 101's MLII through the .hea equals 101.csv, which holds the same physical values
// printed with %.4f: they differ by at most half of the last printed digit (0.5e-4), plus
// float32's rounding of values below 10 mV (< 1e-6).
TEST(WfdbMitdb, Record101MliiEqualsTheCsv) {
  const fs::path kMitdb = mitdb();
  SKIP_WITHOUT_DS1(kMitdb.string());
  constexpr double kPrintedHalfDigit = 0.5e-4, kFloatSlack = 1e-6;
  const auto csv = ecgpipe::read_csv_column((kMitdb / "101.csv").string(), ecgpipe::CsvOptions{});
  const auto sig = ecgpipe::read_wfdb_signal((kMitdb / "wfdb" / "101.hea").string(), "MLII");
  EXPECT_EQ(sig.fs, 360.0);
  EXPECT_EQ(sig.channel, 0u);
  EXPECT_EQ(sig.description, "MLII");
  ASSERT_EQ(sig.values.size(), csv.size());
  ASSERT_EQ(sig.values.size(), 650000u);
  double worst = 0.0;
  for (std::size_t i = 0; i < csv.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(sig.values[i]) - static_cast<double>(csv[i])));
  EXPECT_LE(worst, kPrintedHalfDigit + kFloatSlack);
  // The same record by its .dat, by its bare name, by index; channel 1 is V1.
  EXPECT_EQ(ecgpipe::read_wfdb_signal((kMitdb / "wfdb" / "101.dat").string()).values, sig.values);
  EXPECT_EQ(ecgpipe::read_wfdb_signal((kMitdb / "wfdb" / "101").string(), "0").values, sig.values);
  EXPECT_EQ(ecgpipe::read_wfdb_signal((kMitdb / "wfdb" / "101.hea").string(), "v1").description, "V1");
  EXPECT_EQ(ecgpipe::resolve_signal_source((kMitdb / "wfdb" / "101.hea").string(), {}, std::nullopt, 250).fs, 360.0);
}

// 212 packing of a value stream (two 12-bit values per 3 bytes; an odd last value takes 2 bytes).
Bytes pack212(const std::vector<int>& v) {
  Bytes b;
  for (std::size_t i = 0; i < v.size(); i += 2) {
    const unsigned a = static_cast<unsigned>(v[i]) & 0xFFFu;
    const unsigned c = i + 1 < v.size() ? static_cast<unsigned>(v[i + 1]) & 0xFFFu : 0u;
    b.push_back(static_cast<unsigned char>(a & 0xFF));
    b.push_back(static_cast<unsigned char>((a >> 8) | ((c >> 8) << 4)));
    if (i + 1 < v.size()) b.push_back(static_cast<unsigned char>(c & 0xFF));
  }
  return b;
}
Bytes pack16(const std::vector<int>& v) {
  Bytes b;
  for (int x : v) {
    b.push_back(static_cast<unsigned char>(static_cast<unsigned>(x) & 0xFF));
    b.push_back(static_cast<unsigned char>((static_cast<unsigned>(x) >> 8) & 0xFF));
  }
  return b;
}

TEST_F(Wfdb, Format212OddCountNegativeValues) {
  write("r.dat", pack212({0, -1, 2047, -2047, 100}));
  const auto hea = write_text("r.hea", "# comment\n\nr 1 500 5\nr.dat 212 200 12 0 0 0 0 ECG lead II\n");
  const auto s = ecgpipe::read_wfdb_signal(hea);
  EXPECT_EQ(s.fs, 500.0);
  EXPECT_EQ(s.description, "ECG lead II");
  // (adu - 0) / 200, exactly as float32 of the double quotient.
  EXPECT_EQ(s.values, (std::vector<float>{0.0f, static_cast<float>(-1 / 200.0), static_cast<float>(2047 / 200.0),
                                          static_cast<float>(-2047 / 200.0), 0.5f}));
}

TEST_F(Wfdb, Format212InterleavedChannelsByNameAndBaseline) {
  // Two signals in one file, 3 frames: stream a0 b0 a1 b1 a2 b2.
  write("r.dat", pack212({10, -20, 11, -21, 12, -22}));
  const auto hea = write_text("r.hea", "r 2 360 3\nr.dat 212 100 11 4 0 0 0 MLII\nr.dat 212 50(-2)/mV 11 0 0 0 0 V5\n");
  const auto a = ecgpipe::read_wfdb_signal(hea, "MLII");  // baseline = ADC zero 4
  EXPECT_EQ(a.values, (std::vector<float>{0.06f, 0.07f, 0.08f}));
  const auto b = ecgpipe::read_wfdb_signal(hea, "V5");  // baseline -2 from the gain field
  EXPECT_EQ(b.channel, 1u);
  EXPECT_EQ(b.values, (std::vector<float>{-0.36f, -0.38f, -0.4f}));
}

TEST_F(Wfdb, Format16NegativeValuesAndSamplesFromFileSize) {
  write("s.dat", pack16({-32767, -1, 0, 32767, 5}));
  const auto hea = write_text("s.hea", "s 1 250\ns.dat 16 0 16 5 0 0 0 x\n");  // gain 0: WFDB's 200; no nsamp
  const auto s = ecgpipe::read_wfdb_signal((dir_ / "s").string());
  ASSERT_EQ(s.values.size(), 5u);
  EXPECT_EQ(s.values, (std::vector<float>{static_cast<float>(-32772 / 200.0), static_cast<float>(-6 / 200.0),
                                          static_cast<float>(-5 / 200.0), static_cast<float>(32762 / 200.0), 0.0f}));
  (void)hea;
}

TEST_F(Wfdb, SignalErrorsNameTheFile) {
  const auto expect_input_error = [](auto&& call, const std::string& part) {
    try {
      call();
      ADD_FAILURE() << "no error (expected '" << part << "')";
    } catch (const ecgpipe::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  const auto missing_dat = write_text("m.hea", "m 1 360 3\nm.dat 212 200 11 0\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(missing_dat); }, "m.dat");
  write("f.dat", pack16({1, 2}));
  const auto fmt80 = write_text("f.hea", "f 1 360 2\nf.dat 80 200\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(fmt80); }, "format 80");
  const auto bad_count = write_text("b.hea", "b x 360\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(bad_count); }, "b.hea:1: bad signal count");
  const auto too_few = write_text("t.hea", "t 2 360 2\nf.dat 16 200\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(too_few); }, "announces 2 signals but has 1");
  const auto truncated = write_text("u.hea", "u 1 360 3\nf.dat 16 200\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(truncated); }, "truncated");
  const auto ok = write_text("ok.hea", "ok 1 360 2\nf.dat 16 200 16 0 0 0 0 MLII\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(ok, "V1"); }, "no channel 'V1' (channels: MLII)");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(ok, "3"); }, "no channel 3");
  write("i.dat", pack16({1, -32768}));
  const auto invalid = write_text("i.hea", "i 1 360 2\ni.dat 16 200\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(invalid); }, "marked invalid");
  expect_input_error([&] { ecgpipe::read_wfdb_signal((dir_ / "none.hea").string()); }, "none.hea");
  const auto multi = write_text("ms.hea", "ms/2 1 360\n");
  expect_input_error([&] { ecgpipe::read_wfdb_signal(multi); }, "multi-segment");
}

// A header names its signal file: one beside it (or below), never an absolute path or one out
// through "..", which made any file on the machine a signal (into report.html's strips) and
// /dev/zero one that filled memory until std::bad_alloc. A signal file is read only as far as
// the header's sample count, and an annotation file that does not end is refused at the bound.
TEST_F(Wfdb, HeadersNameSignalFilesBesideThemAndReadsAreBounded) {
  const auto error_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const ecgpipe::InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  for (const char* name : {"/dev/zero", "../x.dat", "sub/../../x.dat", ".."}) {
    const auto hea = write_text("out.hea", std::string("out 1 360 2\n") + name + " 16 200\n");
    EXPECT_NE(error_of([&] { ecgpipe::read_wfdb_header(hea); }).find(
                  "out.hea:2: signal file '" + std::string(name) + "' is not in the header's folder"),
              std::string::npos)
        << name;
  }
  fs::create_directories(dir_ / "sub");
  write("sub/s.dat", pack16({3, -4}));
  EXPECT_EQ(ecgpipe::read_wfdb_signal(write_text("s.hea", "s 1 360 2\nsub/s.dat 16 1\n")).values, (std::vector<float>{3, -4}));
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  fs::create_symlink("/dev/zero", dir_ / "z.dat");
  const auto z = ecgpipe::read_wfdb_signal(write_text("z.hea", "z 1 360 1000\nz.dat 16 200 16 0 0 0 0 MLII\n"));
  EXPECT_EQ(z.values, std::vector<float>(1000, 0.0f)) << "2000 bytes read of a file that does not end";
  EXPECT_NE(error_of([&] { ecgpipe::read_wfdb_signal(write_text("n.hea", "n 1 360\nz.dat 16 200\n")); }).find(
                "z.dat: not a regular file, and " + (dir_ / "n.hea").string() + " gives no sample count"),
            std::string::npos)
      << "no sample count: as many as the file holds, which a device does not say";
  fs::create_symlink("/dev/zero", dir_ / "z.atr");
  EXPECT_NE(error_of([&] { ecgpipe::read_wfdb_annotations((dir_ / "z.atr").string()); }).find("more than"), std::string::npos);
}

// The readers read the files, then parse the bytes (parse_*, which the fuzz harnesses call
// directly): the same results, and messages that name the paths given.
TEST_F(Wfdb, ReadersAreParsersOfTheFileBytes) {
  const auto message = [](auto&& call) { return testutil::input_error_of(call); };
  const Bytes dat = pack212({10, -20, 11, -21, 12, -22});
  write("r.dat", dat);
  const std::string text = "r 2 360 3\r\nr.dat 212 100 11 4 0 0 0 MLII\nr.dat 212 50(-2)/mV 11 0 0 0 0 V5";  // no last '\n'
  const auto hea = write_text("r.hea", text);
  const ecgpipe::WfdbHeader h = ecgpipe::parse_wfdb_header(text, "d/r.hea");
  EXPECT_EQ(h.path, "d/r.hea");
  ASSERT_EQ(h.signals.size(), 2u);
  EXPECT_EQ(h.signals[1].description, "V5");
  EXPECT_EQ(ecgpipe::wfdb_signal_path(h, "V5"), "d/r.dat");
  const std::string_view bytes(reinterpret_cast<const char*>(dat.data()), dat.size());
  const ecgpipe::WfdbSignal s = ecgpipe::parse_wfdb_signal(h, "V5", bytes, "d/r.dat");
  EXPECT_EQ(s.values, ecgpipe::read_wfdb_signal(hea, "V5").values);
  EXPECT_EQ(s.channel, 1u);
  EXPECT_EQ(message([&] { ecgpipe::parse_wfdb_signal(h, "", bytes.substr(0, 5), "d/r.dat"); }),
            "d/r.dat: truncated: 3 samples announced by d/r.hea, 1 stored");
  EXPECT_EQ(message([&] { ecgpipe::wfdb_signal_path(h, "V1"); }), "d/r.hea: no channel 'V1' (channels: MLII, V5)");
  EXPECT_EQ(message([&] { ecgpipe::parse_wfdb_header("# c\nr x 360\n", "h.hea"); }), "h.hea:2: bad signal count 'x'");
  Bytes atr;
  put_word(atr, 1, 5);
  put_word(atr, 63, 4);
  EXPECT_EQ(message([&] { ecgpipe::parse_wfdb_annotations(std::string(atr.begin(), atr.end()), "a.atr"); }),
            "a.atr: byte 2: AUX string cut short");
  const auto atr_path = write("a.atr", atr);
  EXPECT_EQ(message([&] { ecgpipe::read_wfdb_annotations(atr_path); }), atr_path + ": byte 2: AUX string cut short");
  atr.pop_back();
  EXPECT_EQ(message([&] { ecgpipe::parse_wfdb_annotations(std::string(atr.begin(), atr.end()), "a.atr"); }),
            "a.atr: odd size 3 (not a MIT annotation file)");
}

// Fields are split as `istream >> std::string` split them (the parser's tokenizer before it
// worked on views): any run of ' ', '\t', '\v', '\f', '\r'; a description of several words keeps
// one space between them.
// A header is text: a NUL byte in it (in "h\0.dat" the C library would open "h", another file than
// the one named) is refused with its line, as a manifest's is (found on a hostile tour).
TEST(WfdbHeader, ANulByteIsRefusedWithItsLine) {
  try {
    (void)ecgpipe::parse_wfdb_header(std::string("h 1 360 10\nh\0.dat 16 200\n", 25), "h.hea");
    ADD_FAILURE() << "no error";
  } catch (const ecgpipe::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "h.hea:2: a NUL byte at column 2 (a header is text)");
  }
}

TEST(WfdbHeader, FieldsSplitOnAnyWhitespaceAndDescriptionsJoinWithOneSpace) {
  const std::string text = "\t rec\v2\f360  650000\n"
                           "rec.dat\t212+512 200(-5)/uV 11 1024 0 0 0 \tchest \f lead\r\n"
                           "rec.dat 16\r\n";
  const ecgpipe::WfdbHeader h = ecgpipe::parse_wfdb_header(text, "rec.hea");
  EXPECT_EQ(h.record, "rec");
  EXPECT_EQ(h.fs, 360.0);
  EXPECT_EQ(h.samples, 650000);
  ASSERT_EQ(h.signals.size(), 2u);
  const ecgpipe::WfdbSignalSpec& a = h.signals[0];
  EXPECT_EQ(a.file_name, "rec.dat");
  EXPECT_EQ(a.format, 212);
  EXPECT_EQ(a.byte_offset, 512);
  EXPECT_EQ(a.gain, 200.0);
  EXPECT_EQ(a.baseline, -5);
  EXPECT_EQ(a.units, "uV");
  EXPECT_EQ(a.adc_zero, 1024);
  EXPECT_EQ(a.description, "chest lead");
  EXPECT_EQ(h.signals[1].format, 16);
  EXPECT_EQ(h.signals[1].description, "");
}

// The record's start as the report reads it ("YYYY-MM-DD hh:mm:ss", signal_source.hpp): header(5)
// writes the date "dd/mm/yyyy" after the time, so SVDB-style "10:20:30 01/02/2003" is 1 February
// 2003. The report once showed "'01/02/2003 10:20:30' (not a date and time read here)" and every
// time elapsed (found on the Holter report's tour). A date that is no date stays as written (the
// report says it could not read it); the time alone, as in most PhysioNet headers, is the time.
TEST(WfdbHeader, StartTimeIsTheReportsLayout) {
  const auto start = [](const std::string& record_line) {
    return ecgpipe::wfdb_start_time(ecgpipe::parse_wfdb_header(record_line + "\nr.dat 16\n", "r.hea"));
  };
  EXPECT_EQ(start("r 1 360 10 10:20:30 01/02/2003"), "2003-02-01 10:20:30");
  EXPECT_EQ(start("r 1 360 10 10:20:30.5 31/12/1999"), "1999-12-31 10:20:30.5");
  EXPECT_EQ(start("r 1 360 10 7:05:09 1/2/2003"), "2003-02-01 07:05:09");  // strtim reads one-digit fields
  EXPECT_EQ(start("r 1 360 10 10:20:30"), "10:20:30");
  EXPECT_EQ(start("r 1 360 10 0:0:0"), "00:00:00");
  EXPECT_EQ(start("r 1 360 10"), "");
  // Not a date or time: kept as written, for the report to say so.
  EXPECT_EQ(start("r 1 360 10 10:20:30 32/01/2003"), "10:20:30 32/01/2003");
  EXPECT_EQ(start("r 1 360 10 10:20:30 01/13/2003"), "10:20:30 01/13/2003");
  EXPECT_EQ(start("r 1 360 10 25:00:00 01/02/2003"), "25:00:00 01/02/2003");
  EXPECT_EQ(start("r 1 360 10 10:20 01/02/2003"), "10:20 01/02/2003");
  EXPECT_EQ(start("r 1 360 10 10:20:30 01/02/03"), "10:20:30 01/02/03");
}

TEST_F(Wfdb, ReadSignalDispatchesOnTheExtensionAndChecksFs) {
  write("w.dat", pack16({200, -400}));
  const auto hea = write_text("w.hea", "w 1 360 2\nw.dat 16 200 16 0 0 0 0 MLII\n");
  ecgpipe::CsvOptions opts;
  EXPECT_EQ(ecgpipe::read_signal(hea, opts, 360), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(ecgpipe::read_signal((dir_ / "w.dat").string(), opts, 360), (std::vector<float>{1.0f, -2.0f}));
  try {
    ecgpipe::read_signal(hea, opts, 250);
    ADD_FAILURE() << "no error for a mismatching fs";
  } catch (const ecgpipe::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--fs 250 does not match the 360 Hz"), std::string::npos) << e.what();
  }
  opts.column = "MLII";
  EXPECT_EQ(ecgpipe::read_signal(hea, opts, 360), (std::vector<float>{1.0f, -2.0f}));
  const auto csv = write_text("c.csv", "heartbeats\n1.5\n-2\n");
  EXPECT_EQ(ecgpipe::read_signal(csv, ecgpipe::CsvOptions{}, 250), (std::vector<float>{1.5f, -2.0f}));
  // The rate each declares (resolve_signal_source, signal_source.hpp): a CSV none, the header 360 Hz.
  EXPECT_TRUE(ecgpipe::resolve_signal_source(csv, {}, std::nullopt, 250).fs_is_default);
  EXPECT_EQ(ecgpipe::resolve_signal_source(hea, {}, std::nullopt, 250).fs, 360.0);
  EXPECT_TRUE(ecgpipe::is_wfdb_record_path("X.HEA"));
  EXPECT_FALSE(ecgpipe::is_wfdb_record_path("x.csv"));
  EXPECT_EQ(ecgpipe::wfdb_header_path("d/r.dat"), "d/r.hea");
  EXPECT_EQ(ecgpipe::wfdb_header_path("d/r"), "d/r.hea");
}

// `ecgpipe detect` on a record's .hea takes the header's rate when --fs is left out.
TEST(WfdbCli, DetectReadsAHeaWithItsRate) {
  const fs::path kMitdb = mitdb();
  SKIP_WITHOUT_DS1(kMitdb.string());
  const fs::path dir = testutil::fresh_dir();
  const std::string hea = (kMitdb / "wfdb" / "101.hea").string();
  auto r = testutil::run_ecgpipe("detect '" + hea + "' --out '" + (dir / "b.csv").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("at 360 Hz"), std::string::npos) << r.err;
  r = testutil::run_ecgpipe("detect '" + hea + "' --fs 250 --out '" + (dir / "c.csv").string() + "'", dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("does not match the 360 Hz"), std::string::npos) << r.err;
  // bench too (issue 25: without --fs it said "--fs 250 does not match the 360 Hz", exit 2).
  r = testutil::run_ecgpipe("bench '" + hea + "' --repeat 1 --device cpu", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("samples"), std::string::npos) << r.out;
}

}  // namespace
