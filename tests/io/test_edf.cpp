// EDF / EDF+ / BDF input: files written with edflib itself, and one written by hand byte by byte
// (so the reader is not only checked against its own library's writer); read_signal's dispatch;
// `ecgpipe detect` on an EDF file.
#include <edflib.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ecgpipe/io/edf.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "test_util.hpp"

namespace {

using testutil::fs::path;

struct EdfTestSignal {
  std::string label, units;
  int fs;                 // samples per 1-s data record
  double phys_min, phys_max;
  int dig_min, dig_max;
  std::vector<double> values;  // physical; a whole number of records
};

// Writes `signals` with edflib (EDFLIB_FILETYPE_EDFPLUS or _BDFPLUS: edflib writes no plain
// EDF/BDF), one data record at a time.
void write_with_edflib(const path& file, int filetype, const std::vector<EdfTestSignal>& signals) {
  const int h = edfopen_file_writeonly(file.c_str(), filetype, static_cast<int>(signals.size()));
  ASSERT_GE(h, 0) << "edfopen_file_writeonly " << h;
  for (int i = 0; i < static_cast<int>(signals.size()); ++i) {
    const auto& s = signals[i];
    ASSERT_EQ(edf_set_samplefrequency(h, i, s.fs), 0);
    ASSERT_EQ(edf_set_physical_minimum(h, i, s.phys_min), 0);
    ASSERT_EQ(edf_set_physical_maximum(h, i, s.phys_max), 0);
    ASSERT_EQ(edf_set_digital_minimum(h, i, s.dig_min), 0);
    ASSERT_EQ(edf_set_digital_maximum(h, i, s.dig_max), 0);
    ASSERT_EQ(edf_set_label(h, i, s.label.c_str()), 0);
    ASSERT_EQ(edf_set_physical_dimension(h, i, s.units.c_str()), 0);
  }
  const std::size_t records = signals[0].values.size() / static_cast<std::size_t>(signals[0].fs);
  for (std::size_t r = 0; r < records; ++r)
    for (const auto& s : signals) {
      std::vector<double> rec(s.values.begin() + static_cast<long>(r * s.fs), s.values.begin() + static_cast<long>((r + 1) * s.fs));
      ASSERT_EQ(edfwrite_physical_samples(h, rec.data()), 0);
    }
  ASSERT_EQ(edfclose_file(h), 0);
}

std::vector<double> ramp(std::size_t n, double step, double offset = 0) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = offset + step * static_cast<double>(static_cast<long>(i % 200) - 100);
  return v;
}

// A plain EDF file written field by field as the EDF specification (Kemp et al. 1992) lays it
// out: a 256-byte header, 256 bytes per signal (each field of a signal for all signals in turn),
// then data records of little-endian 16-bit two's complement samples. Two signals: "ECG" with 200
// samples per 0.5-s record (400 Hz, in mV, 0.0001 mV per digital step) and "Resp" with 50.
// `reserved` is the 44-byte reserved field ("" for EDF, "EDF+D" to fake a discontinuous file).
std::string hand_written_edf(int records, const std::string& version = "0", const std::string& reserved = "") {
  auto field = [](std::string s, std::size_t width) {
    s.resize(width, ' ');
    return s;
  };
  const int ns = 2;
  const int per_record[ns] = {200, 50};
  std::string h;
  h += field(version, 8);
  h += field("X X X X", 80);
  h += field("Startdate 01-JAN-2020 X X X", 80);
  h += field("01.01.20", 8) + field("10.00.00", 8);
  h += field(std::to_string(256 * (ns + 1)), 8);
  h += field(reserved, 44);
  h += field(std::to_string(records), 8);
  h += field("0.5", 8);
  h += field(std::to_string(ns), 4);
  h += field("ECG", 16) + field("Resp", 16);
  h += field("AgAgCl electrode", 80) + field("belt", 80);
  h += field("mV", 8) + field("a.u.", 8);
  h += field("-3.2768", 8) + field("-1", 8);
  h += field("3.2767", 8) + field("1", 8);
  h += field("-32768", 8) + field("-32768", 8);
  h += field("32767", 8) + field("32767", 8);
  h += field("HP:0.1Hz", 80) + field("", 80);
  h += field(std::to_string(per_record[0]), 8) + field(std::to_string(per_record[1]), 8);
  h += field("", 32) + field("", 32);
  EXPECT_EQ(h.size(), 256u * (ns + 1));
  for (int r = 0; r < records; ++r)
    for (int s = 0; s < ns; ++s)
      for (int i = 0; i < per_record[s]; ++i) {
        // ECG: digital value = 7 * (sample index) - 3000 (+ the record's offset); Resp: zero.
        const int t = r * per_record[s] + i;
        const int d = s == 0 ? 7 * t - 3000 : 0;
        const auto u = static_cast<unsigned short>(static_cast<short>(d));
        h += static_cast<char>(u & 0xFF);
        h += static_cast<char>(u >> 8);
      }
  return h;
}

using testutil::input_error_of;

}  // namespace

TEST(Edf, EdfPlusFromEdflibByLabelAndIndexWithTheSignalsOwnRate) {
  const auto dir = testutil::fresh_dir();
  const path file = dir / "psg.edf";
  // Identity scaling (physical = digital) so whole numbers come back exactly; the other signal
  // runs at another rate, which must not matter.
  const EdfTestSignal eeg{"EEG Fpz-Cz", "uV", 100, -32768, 32767, -32768, 32767, ramp(300, 3)};
  const EdfTestSignal ecg{"ECG II", "uV", 256, -32768, 32767, -32768, 32767, ramp(768, 5, 7)};
  write_with_edflib(file, EDFLIB_FILETYPE_EDFPLUS, {eeg, ecg});

  const auto header = ecgpipe::read_edf_header(file.string());
  EXPECT_EQ(header.type, "EDF+");
  ASSERT_EQ(header.signals.size(), 2u);  // the annotation signal is hidden
  EXPECT_EQ(header.signals[1].label, "ECG II");
  EXPECT_DOUBLE_EQ(header.signals[0].fs, 100.0);
  EXPECT_DOUBLE_EQ(header.signals[1].fs, 256.0);
  EXPECT_EQ(header.signals[1].samples, 768);

  for (const std::string channel : {"ECG II", "ecg ii", " ECG II ", "1"}) {
    const auto s = ecgpipe::read_edf_signal(file.string(), channel);
    EXPECT_EQ(s.info.label, "ECG II") << channel;
    EXPECT_EQ(s.info.units, "uV");
    EXPECT_DOUBLE_EQ(s.info.fs, 256.0);
    EXPECT_EQ(s.values, std::vector<float>(ecg.values.begin(), ecg.values.end())) << channel;
  }
  const auto first = ecgpipe::read_edf_signal(file.string());  // default: signal 0
  EXPECT_EQ(first.info.label, "EEG Fpz-Cz");
  EXPECT_EQ(first.values.size(), 300u);

  EXPECT_NE(input_error_of([&] { ecgpipe::read_edf_signal(file.string(), "ECG I"); }).find("'ECG II'"), std::string::npos)
      << "the error lists the labels";
  EXPECT_NE(input_error_of([&] { ecgpipe::read_edf_signal(file.string(), "2"); }).find("no signal 2"), std::string::npos);

  ecgpipe::CsvOptions ecg2;
  ecg2.column = "ECG II";
  EXPECT_EQ(ecgpipe::resolve_signal_source(file.string(), ecg2, std::nullopt, 250).fs, 256.0);
  EXPECT_EQ(ecgpipe::resolve_signal_source(file.string(), {}, std::nullopt, 250).fs, 100.0);
}

TEST(Edf, PhysicalUnitsFromTheHeadersScaling) {
  const auto dir = testutil::fresh_dir();
  const path file = dir / "mv.edf";
  // ±5 mV on 16 bits: one step is 10/65535 mV. edflib's writer truncates to the digital value
  // (measured: errors up to 0.7 step), so a value comes back within one step.
  std::vector<double> v = ramp(500, 0.037, 0.25);
  // edflib writes EDF+ and BDF+ only; plain EDF is the hand-written file's case below.
  write_with_edflib(file, EDFLIB_FILETYPE_EDFPLUS, {{"ECG", "mV", 250, -5, 5, -32768, 32767, v}});
  const auto s = ecgpipe::read_edf_signal(file.string(), "ECG");
  EXPECT_EQ(s.info.units, "mV");
  ASSERT_EQ(s.values.size(), v.size());
  const double step = 10.0 / 65535.0;
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(s.values[i], v[i], step + 1e-6) << i;
}

TEST(Edf, BdfPlusFrom24BitEdflib) {
  const auto dir = testutil::fresh_dir();
  const path file = dir / "holter.bdf";
  // 24-bit digital range with identity scaling: values beyond 16 bits survive.
  std::vector<double> v = ramp(1000, 1000);  // -100000 .. 99000
  write_with_edflib(file, EDFLIB_FILETYPE_BDFPLUS, {{"II", "uV", 500, -8388608, 8388607, -8388608, 8388607, v}});
  const auto header = ecgpipe::read_edf_header(file.string());
  EXPECT_EQ(header.type, "BDF+");
  const auto s = ecgpipe::read_edf_signal(file.string(), "II");
  EXPECT_DOUBLE_EQ(s.info.fs, 500.0);
  EXPECT_EQ(s.values, std::vector<float>(v.begin(), v.end()));
}

TEST(Edf, HandWrittenEdfWithHalfSecondRecords) {
  const auto dir = testutil::fresh_dir();
  const path file = dir / "hand.edf";
  testutil::write_text(file, hand_written_edf(3));
  const auto header = ecgpipe::read_edf_header(file.string());
  EXPECT_EQ(header.type, "EDF");
  ASSERT_EQ(header.signals.size(), 2u);
  EXPECT_DOUBLE_EQ(header.signals[0].fs, 400.0);  // 200 samples per 0.5-s record
  EXPECT_DOUBLE_EQ(header.signals[1].fs, 100.0);
  const auto s = ecgpipe::read_edf_signal(file.string(), "ecg");
  EXPECT_EQ(s.info.units, "mV");
  ASSERT_EQ(s.values.size(), 600u);
  // physical = phys_min + (d - dig_min) * (phys range / dig range) = d * 0.0001 here (exactly in
  // decimal; within float rounding of the double edflib computes).
  for (std::size_t t = 0; t < s.values.size(); ++t)
    EXPECT_NEAR(s.values[t], (7.0 * static_cast<double>(t) - 3000.0) * 1e-4, 1e-6) << t;
  // read_signal dispatches by extension and checks the rate.
  ecgpipe::CsvOptions opts;
  opts.column = "ECG";
  EXPECT_EQ(ecgpipe::read_signal(file.string(), opts, 400.0), s.values);
  EXPECT_THROW(ecgpipe::read_signal(file.string(), opts, 360.0), ecgpipe::UsageError);
}

TEST(Edf, BadFilesNameTheReason) {
  const auto dir = testutil::fresh_dir();
  const std::string good = hand_written_edf(3);
  const path truncated = dir / "truncated.edf", wrong = dir / "wrong.edf", discontinuous = dir / "d.edf",
             empty = dir / "empty.edf", short_header = dir / "short.edf";
  testutil::write_text(truncated, good.substr(0, good.size() - 100));
  testutil::write_text(wrong, hand_written_edf(3, "EDF"));  // version must be "0"
  testutil::write_text(discontinuous, hand_written_edf(3, "0", "EDF+D"));
  testutil::write_text(empty, "");
  testutil::write_text(short_header, good.substr(0, 100));

  EXPECT_NE(input_error_of([&] { ecgpipe::read_edf_signal(truncated.string()); }).find("truncated?"), std::string::npos);
  EXPECT_NE(input_error_of([&] { ecgpipe::read_edf_signal(wrong.string()); }).find("not a valid EDF"), std::string::npos);
  const std::string d = input_error_of([&] { ecgpipe::read_edf_signal(discontinuous.string()); });
  EXPECT_NE(d.find("EDF+D (discontinuous)"), std::string::npos) << d;
  EXPECT_NE(d.find("d.edf"), std::string::npos) << d;
  EXPECT_FALSE(input_error_of([&] { ecgpipe::read_edf_signal(empty.string()); }).empty());
  EXPECT_FALSE(input_error_of([&] { ecgpipe::read_edf_signal(short_header.string()); }).empty());
  EXPECT_NE(input_error_of([&] { ecgpipe::read_edf_signal((dir / "missing.edf").string()); }).find("no such file"),
            std::string::npos);
}

// Found by fuzz_edf: a physical minimum of "-3.E768" (edflib reads it as -inf) scales every
// sample to a non-finite value; refused as non-finite, as the CSV and WFDB readers do.
TEST(Edf, HeaderScalingThatMakesSamplesNonFiniteIsAnInputError) {
  const auto dir = testutil::fresh_dir();
  std::string bad = hand_written_edf(3);
  const std::size_t physical_min = 256 + 2 * (16 + 80 + 8);  // the first signal's field
  ASSERT_EQ(bad.substr(physical_min, 8), "-3.2768 ");
  bad.replace(physical_min, 8, "-3.E768 ");
  const path file = dir / "inf.edf";
  testutil::write_text(file, bad);
  const std::string e = input_error_of([&] { ecgpipe::read_edf_signal(file.string()); });
  EXPECT_NE(e.find("inf.edf"), std::string::npos) << e;
  EXPECT_NE(e.find("non-finite"), std::string::npos) << e;
}

TEST(Edf, CliDetectOnAnEdfFileEqualsDetectOnTheSameSamplesAsCsv) {
  const auto dir = testutil::fresh_dir();
  // The test ECG in whole microvolts (identity scaling), so the CSV and the EDF hold the same floats.
  const auto x = testutil::synthetic_ecg(40, 200);
  std::vector<double> uv(x.size() - x.size() % 250);
  for (std::size_t i = 0; i < uv.size(); ++i) uv[i] = std::round(1000.0 * x[i]);
  write_with_edflib(dir / "rec.edf", EDFLIB_FILETYPE_EDFPLUS,
                    {{"Resp", "a.u.", 250, -32768, 32767, -32768, 32767, std::vector<double>(uv.size(), 0.0)},
                     {"ECG", "uV", 250, -32768, 32767, -32768, 32767, uv}});
  testutil::write_signal_csv(dir / "rec.csv", std::vector<float>(uv.begin(), uv.end()));
  const auto a = testutil::run_ecgpipe("detect '" + (dir / "rec.edf").string() + "' --column ECG --device cpu --out '" +
                                           (dir / "edf_beats.csv").string() + "'", dir);
  ASSERT_EQ(a.code, 0) << a.err;
  const auto b = testutil::run_ecgpipe("detect '" + (dir / "rec.csv").string() + "' --fs 250 --device cpu --out '" +
                                           (dir / "csv_beats.csv").string() + "'", dir);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_GT(testutil::count_lines(testutil::read_text(dir / "edf_beats.csv")), 30u);
  EXPECT_EQ(testutil::read_text(dir / "edf_beats.csv"), testutil::read_text(dir / "csv_beats.csv"));
  // A bad EDF file: exit 3 with the reason.
  testutil::write_text(dir / "bad.edf", hand_written_edf(2, "0", "EDF+D"));
  const auto c = testutil::run_ecgpipe("detect '" + (dir / "bad.edf").string() + "' --out '" + (dir / "x.csv").string() + "'", dir);
  EXPECT_EQ(c.code, 3);
  EXPECT_NE(c.err.find("discontinuous"), std::string::npos) << c.err;
}

// The reader in pieces (the chunked path, issue 12): the same samples as the whole-signal read,
// whatever the piece size (pieces smaller than, equal to and across the 200-sample records).
TEST(Edf, ReaderInPiecesEqualsWholeRead) {
  const auto dir = testutil::fresh_dir();
  testutil::write_text(dir / "hand.edf", hand_written_edf(7));
  const auto whole = ecgpipe::read_edf_signal((dir / "hand.edf").string(), "ECG");
  ASSERT_EQ(whole.values.size(), 1400u);
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{200}, std::size_t{333}, std::size_t{5000}}) {
    ecgpipe::EdfSignalReader reader((dir / "hand.edf").string(), "ECG");
    EXPECT_EQ(reader.info().label, "ECG");
    std::vector<float> got;
    while (reader.read(got, piece) > 0) {
    }
    EXPECT_EQ(got, whole.values) << "piece " << piece;
  }
}

// edflib refuses a file name it has open (issue 25: the same EDF file twice in a --jobs 2 batch
// failed "the file is already open" in 3 of 4 tries): two readers of one file at once.
TEST(Edf, OneFileReadByTwoReadersAtOnce) {
  const auto dir = testutil::fresh_dir();
  testutil::write_text(dir / "hand.edf", hand_written_edf(7));
  const auto whole = ecgpipe::read_edf_signal((dir / "hand.edf").string(), "ECG");
  ecgpipe::EdfSignalReader a((dir / "hand.edf").string(), "ECG");
  ecgpipe::EdfSignalReader b((dir / "hand.edf").string(), "ECG");
  const auto again = ecgpipe::read_edf_signal((dir / "hand.edf").string(), "ECG");
  std::vector<float> got_a, got_b;
  while (a.read(got_a, 300) + b.read(got_b, 500) > 0) {
  }
  EXPECT_EQ(got_a, whole.values);
  EXPECT_EQ(got_b, whole.values);
  EXPECT_EQ(again.values, whole.values);
}

// Issue 25: a 23-digit --column was "internal error: stoul" (exit 1); a header rate outside
// 50..100000 Hz with no --fs given said "--fs must be between ..." (exit 2). Both are the file's
// input errors, one line naming it.
TEST(Edf, CliHugeColumnAndAnOutOfRangeHeaderRateNameTheFile) {
  const auto dir = testutil::fresh_dir();
  const auto x = testutil::synthetic_ecg(12, 200);
  std::vector<double> uv(x.size() - x.size() % 250);
  for (std::size_t i = 0; i < uv.size(); ++i) uv[i] = std::round(1000.0 * x[i]);
  write_with_edflib(dir / "rec.edf", EDFLIB_FILETYPE_EDFPLUS, {{"ECG", "uV", 250, -32768, 32767, -32768, 32767, uv}});
  const auto a = testutil::run_ecgpipe("-q detect '" + (dir / "rec.edf").string() + "' --column 99999999999999999999999 --out '" +
                                           (dir / "a.csv").string() + "'", dir);
  EXPECT_EQ(a.code, 3) << a.err;
  EXPECT_EQ(testutil::count_lines(a.err), 1u) << a.err;
  EXPECT_NE(a.err.find("rec.edf: no signal 99999999999999999999999"), std::string::npos) << a.err;
  std::vector<double> slow(30 * 20, 0.0);  // 20 samples per 1-s record: 20 Hz
  write_with_edflib(dir / "slow.edf", EDFLIB_FILETYPE_EDFPLUS, {{"ECG", "uV", 20, -32768, 32767, -32768, 32767, slow}});
  for (const char* command : {"detect", "run"}) {
    const auto b = testutil::run_ecgpipe(std::string("-q ") + command + " '" + (dir / "slow.edf").string() + "' --out '" +
                                             (dir / "b").string() + "'", dir);
    EXPECT_EQ(b.code, 3) << command << ": " << b.err;
    EXPECT_EQ(testutil::count_lines(b.err), 1u) << b.err;
    EXPECT_NE(b.err.find("slow.edf (signal 'ECG'): sampling rate 20 Hz is outside 50..100000 Hz"), std::string::npos) << b.err;
  }
}
