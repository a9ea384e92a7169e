// MIT-format annotation files written (src/io/wfdb_annotation_write.cpp): bytes by hand, and a
// round trip through the reader (parse_wfdb_annotations) at the format's edges.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/wfdb_annotation_write.hpp"

namespace {

using ecgpipe::Annotation;

Annotation ann(std::int64_t sample, int code, int subtype = 0, int channel = 0, int num = 0, std::string aux = "") {
  Annotation a;
  a.sample = sample;
  a.code = code;
  a.symbol = ecgpipe::annotation_symbol(code);
  a.subtype = subtype;
  a.channel = channel;
  a.num = num;
  a.aux = std::move(aux);
  return a;
}

std::vector<Annotation> round_trip(const std::vector<Annotation>& in) {
  return ecgpipe::parse_wfdb_annotations(ecgpipe::wfdb_annotation_bytes(in), "written.ann");
}

// Every field, exactly.
void expect_same(const std::vector<Annotation>& got, const std::vector<Annotation>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("annotation " + std::to_string(i));
    EXPECT_EQ(got[i].sample, want[i].sample);
    EXPECT_EQ(got[i].code, want[i].code);
    EXPECT_EQ(got[i].symbol, want[i].symbol);
    EXPECT_EQ(got[i].subtype, want[i].subtype);
    EXPECT_EQ(got[i].channel, want[i].channel);
    EXPECT_EQ(got[i].num, want[i].num);
    EXPECT_EQ(got[i].aux, want[i].aux);
  }
}

// A rhythm change and a beat at one sample, a SKIP, a noise annotation with subtype -1, a channel
// and a number: the words worked out from annot(5) by hand.
TEST(WfdbAnnotationWrite, BytesOfATinyFileByHand) {
  const std::vector<Annotation> in = {ann(5, 28, 0, 0, 0, "(AFIB"), ann(5, 1), ann(2000, 5), ann(2001, 14, -1),
                                      ann(3024, 6, 0, 1, 2)};
  const char kWant[] =
      "\x05\x70"                      // + (28 << 10) at interval 5
      "\x05\xFC" "(AFIB" "\x00"       // AUX (63 << 10) of 5 bytes, padded to 6
      "\x00\x04"                      // N (1 << 10) at interval 0
      "\x00\xEC" "\x00\x00" "\xCB\x07"  // SKIP (59 << 10): 1995 = 0x000007CB, high word first
      "\x00\x14"                      // V (5 << 10) at interval 0 after the SKIP
      "\x01\x38"                      // ~ (14 << 10) at interval 1
      "\xFF\xF7"                      // SUB (61 << 10) -1: 0x3FF
      "\xFF\x1B"                      // F (6 << 10) at interval 1023, the longest without a SKIP
      "\x01\xF8"                      // CHN (62 << 10) 1
      "\x02\xF0"                      // NUM (60 << 10) 2
      "\x00\x00";                     // end of file
  EXPECT_EQ(ecgpipe::wfdb_annotation_bytes(in), std::string(kWant, sizeof kWant - 1));
  expect_same(round_trip(in), in);
}

TEST(WfdbAnnotationWrite, NoAnnotationsIsTheEndOfFileWordAlone) {
  EXPECT_EQ(ecgpipe::wfdb_annotation_bytes({}), std::string("\0\0", 2));
  EXPECT_TRUE(round_trip({}).empty());
}

// Intervals 0, 1, 1023 (one word), 1024 (the first SKIP), 2^31 - 1 (one SKIP's most), 2^31 (two
// SKIPs), past 2^32 (three) and the last sample allowed; the first annotation at sample 0.
TEST(WfdbAnnotationWrite, IntervalsAtEveryEdgeRoundTrip) {
  const std::int64_t two31 = std::int64_t{1} << 31;
  std::vector<Annotation> in;
  std::int64_t t = 0;
  for (const std::int64_t step : {std::int64_t{0}, std::int64_t{0}, std::int64_t{1}, std::int64_t{1023}, std::int64_t{1024},
                                  std::int64_t{1025}, two31 - 1, two31, two31 + 1, 2 * two31 + 5, std::int64_t{0}}) {
    t += step;
    in.push_back(ann(t, 1 + static_cast<int>(in.size() % 13)));
  }
  in.push_back(ann(ecgpipe::kMaxAnnotationSample, 1));
  expect_same(round_trip(in), in);
}

// One SKIP per 2^31 - 1 samples, and one more for the rest when it exceeds 1023: 6 bytes each.
TEST(WfdbAnnotationWrite, SkipsAsWfdbWritesThem) {
  const std::int64_t max_skip = 0x7FFFFFFF;
  const auto size = [](std::int64_t sample) { return ecgpipe::wfdb_annotation_bytes({ann(sample, 1)}).size(); };
  EXPECT_EQ(size(1023), 4u);                // word + end
  EXPECT_EQ(size(1024), 10u);               // SKIP + word + end
  EXPECT_EQ(size(max_skip), 10u);
  EXPECT_EQ(size(max_skip + 1), 10u);       // SKIP(max), then 1 in the word
  EXPECT_EQ(size(max_skip + 1023), 10u);
  EXPECT_EQ(size(max_skip + 1024), 16u);    // SKIP(max) + SKIP(1024) + word + end
  EXPECT_EQ(size(3 * max_skip + 2000), 28u);  // three SKIP(max) + SKIP(2000) + word + end
}

TEST(WfdbAnnotationWrite, AuxOfEveryLengthRoundTrips) {
  std::string all;  // every byte but NUL, 255 of them
  for (int c = 1; c <= 255; ++c) all += static_cast<char>(c);
  const std::vector<Annotation> in = {ann(10, 28, 0, 0, 0, "(N"),    ann(20, 28, 0, 0, 0, "(AFIB"), ann(30, 22, 0, 0, 0, "x"),
                                      ann(40, 22, 0, 0, 0, all),     ann(50, 22, 0, 0, 0, all.substr(0, 254)),
                                      ann(60, 1),                    ann(70, 28, 0, 0, 0, "(VT")};
  expect_same(round_trip(in), in);
}

// SUB is written per annotation (not carried over), CHN and NUM only when they change (a reader
// carries them over): each case must come back as written.
TEST(WfdbAnnotationWrite, SubtypeChannelAndNumRoundTrip) {
  const std::vector<Annotation> in = {
      ann(0, 14, -1),          ann(100, 14, 0),        ann(200, 1, 127),       ann(300, 1, -128),     ann(400, 1, 5, 0, 3),
      ann(500, 1, 0, 0, 3),    ann(600, 1, 0, 0, 0),   ann(700, 1, 0, 0, -128), ann(800, 1, 0, 0, 127), ann(900, 1, 0, 255),
      ann(1000, 1, 0, 7, 1),   ann(1000, 5, 0, 7, 2),  ann(1001, 1, 0, 0, 0),  ann(5000, 1, -1, 3, -1)};
  expect_same(round_trip(in), in);
}

TEST(WfdbAnnotationWrite, SymbolLeftAtZeroIsFilledInOnReading) {
  Annotation a = ann(10, 5);
  a.symbol = 0;
  const auto back = round_trip({a});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].symbol, 'V');
}

// The InternalError's message for `in`, "" (and a failure) when it throws none.
std::string error_of(const std::vector<Annotation>& in) {
  try {
    ecgpipe::wfdb_annotation_bytes(in);
  } catch (const ecgpipe::InternalError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InternalError";
  return {};
}

TEST(WfdbAnnotationWrite, RefusesWhatTheFormatCannotHoldNamingTheAnnotation) {
  const Annotation ok = ann(10, 1);
  const auto with = [&](auto change) {
    Annotation a = ok;
    change(a);
    return std::vector<Annotation>{ann(1, 1), a};
  };
  EXPECT_EQ(error_of(with([](Annotation& a) { a.sample = -1; })), "WFDB annotation 1 (sample -1): negative sample");
  EXPECT_EQ(error_of(with([](Annotation& a) { a.sample = 0; })),
            "WFDB annotation 1 (sample 0): before the previous annotation's sample 1");
  EXPECT_NE(error_of(with([](Annotation& a) { a.sample = ecgpipe::kMaxAnnotationSample + 1; })).find("sample beyond"),
            std::string::npos);
  for (const int code : {0, 50, 59, 63, -1}) {
    EXPECT_EQ(error_of(with([code](Annotation& a) {
                a.code = code;
                a.symbol = 0;
              })),
              "WFDB annotation 1 (sample 10): code " + std::to_string(code) + " outside 1..49");
  }
  EXPECT_EQ(error_of(with([](Annotation& a) { a.symbol = 'V'; })), "WFDB annotation 1 (sample 10): symbol 'V' is not code 1's");
  for (const int s : {-129, 128}) EXPECT_NE(error_of(with([s](Annotation& a) { a.subtype = s; })).find("subtype"), std::string::npos);
  for (const int c : {-1, 256}) EXPECT_NE(error_of(with([c](Annotation& a) { a.channel = c; })).find("channel"), std::string::npos);
  for (const int n : {-129, 128}) EXPECT_NE(error_of(with([n](Annotation& a) { a.num = n; })).find("num"), std::string::npos);
  EXPECT_EQ(error_of(with([](Annotation& a) { a.aux.assign(256, 'x'); })),
            "WFDB annotation 1 (sample 10): aux of 256 bytes (at most 255)");
  EXPECT_EQ(error_of(with([](Annotation& a) { a.aux = std::string("(N\0x", 4); })),
            "WFDB annotation 1 (sample 10): aux holds a NUL byte");
}

}  // namespace
