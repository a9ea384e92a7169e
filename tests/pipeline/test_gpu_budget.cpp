// The GPU memory decision's facts and arithmetic (pipeline/gpu_budget.hpp; issue 29): sizes as
// --gpu-memory takes them, a file's sample count, whole or chunked. Plain C++: runs on every build.
#include "ecgpipe/pipeline/gpu_budget.hpp"

#include <edflib.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "ecgpipe/common/error.hpp"
#include "test_util.hpp"

namespace ecgpipe {
namespace {

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10, kTiB = kGiB << 10;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(GpuBudget, SizesWithAndWithoutUnits) {
  const std::vector<std::pair<std::string, std::uint64_t>> good = {
      {"0", 0},
      {"1", 1},
      {"1073741824", kGiB},
      {"512M", 512 * kMiB},
      {"8G", 8 * kGiB},
      {"8g", 8 * kGiB},
      {"8GB", 8 * kGiB},
      {"8GiB", 8 * kGiB},
      {"8gib", 8 * kGiB},
      {"64K", 64 * kKiB},
      {"2T", 2 * kTiB},
      {"100B", 100},
      {"1.5G", kGiB + kGiB / 2},
      {"0.5K", 512},
      {"0.001K", 1},  // 1.024 bytes, rounded down
      {"0.0001K", 0},
      {"18446744073709551615", kMax},
      {"16777215T", 16777215 * kTiB},
  };
  for (const auto& [text, bytes] : good) EXPECT_EQ(parse_memory_size(text, "--gpu-memory"), bytes) << text;
}

TEST(GpuBudget, AnythingElseIsAUsageErrorNamingTheOption) {
  for (const char* bad : {"", " ", "8X", "8 G", " 8G", "8G ", "-1", "+1", "-0", "1e30", "1e3", "G", ".5G", "1.G", "1.5",
                          "1.5B", "8GG", "8Gb1", "8KiBB", "0x10", "nan", "inf", "18446744073709551616", "16777216T",
                          "99999999999999999999999", "1,5G", "8M\n"}) {
    try {
      parse_memory_size(bad, "--gpu-memory");
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("--gpu-memory must be a size", 0), 0u) << what;
    }
  }
  // A long text is cut in the message.
  try {
    parse_memory_size(std::string(5000, 'x'), "--gpu-memory");
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u);
  }
}

// The GPU paths' two whole-number environment variables (ECGPIPE_GPU_MEMORY_BUDGET_MB,
// ECGPIPE_GPU_CHUNK_SAMPLES) read by one function: digits only, within the range, else a
// UsageError that names the variable, the unit and the range and quotes the value (cut).
TEST(GpuBudget, WholeNumberEnvironmentVariables) {
  constexpr const char* kName = "ECGPIPE_TEST_WHOLE_NUMBER";
  ::unsetenv(kName);
  EXPECT_EQ(whole_number_env(kName, "samples", 1, 100), std::nullopt);
  const std::vector<std::pair<const char*, std::uint64_t>> good = {{"1", 1}, {"100", 100}, {"007", 7}, {"32", 32}};
  for (const auto& [text, value] : good) {
    const testutil::ScopedEnv env(kName, text);
    EXPECT_EQ(whole_number_env(kName, "samples", 1, 100), value) << text;
  }
  {
    const testutil::ScopedEnv env(kName, "18446744073709551615");
    EXPECT_EQ(whole_number_env(kName, "MiB", 0, kMax), kMax);
  }
  for (const char* bad : {"", "0", "101", " 5", "5 ", "+5", "-5", "-0", "5x", "0x10", "1e2", "5.0", "18446744073709551616",
                          "99999999999999999999999"}) {
    const testutil::ScopedEnv env(kName, bad);
    try {
      whole_number_env(kName, "samples", 1, 100);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), std::string(kName) + " must be a whole number of samples from 1 to 100, not '" + bad + "'");
    }
  }
  const testutil::ScopedEnv env(kName, std::string(5000, '9').c_str());
  try {
    whole_number_env(kName, "samples", 1, 100);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u);
  }
}

TEST(GpuBudget, WholeWhenTheSamplesNeedAtMostTheBudget) {
  const std::uint64_t budget = 1000 * kGpuBytesPerSample;
  const GpuMemoryPlan at = plan_gpu_memory(1000, kGpuBytesPerSample, budget);
  EXPECT_TRUE(at.whole);
  EXPECT_EQ(at.samples, 1000u);
  EXPECT_EQ(at.need_bytes, budget);
  EXPECT_EQ(at.budget_bytes, budget);
  EXPECT_FALSE(plan_gpu_memory(1001, kGpuBytesPerSample, budget).whole);
  EXPECT_FALSE(plan_gpu_memory(1000, kGpuBytesPerSample, budget - 1).whole);
  EXPECT_TRUE(plan_gpu_memory(0, kGpuBytesPerSample, 0).whole);
  EXPECT_FALSE(plan_gpu_memory(1, kGpuBytesPerSample, 0).whole);
  // Saturates instead of wrapping: 2^60 samples at 144 B do not fit 2^64 - 1 bytes.
  const GpuMemoryPlan huge = plan_gpu_memory(std::uint64_t{1} << 60, kGpuBytesPerSample, kMax - 1);
  EXPECT_EQ(huge.need_bytes, kMax);
  EXPECT_FALSE(huge.whole);
  EXPECT_TRUE(plan_gpu_memory(kMax, 0, 0).whole);
  // Issue 29's 14-day recording (242 M samples, a 1.8 GB CSV) on an idle 80 GB H100 (~79 GiB free).
  const std::uint64_t fourteen_days = 242'000'000;
  EXPECT_TRUE(plan_gpu_memory(fourteen_days, kGpuBytesPerSample, gpu_budget_from_free(79 * kGiB)).whole);
  EXPECT_FALSE(plan_gpu_memory(fourteen_days, kGpuBytesPerSample, 8 * kGiB).whole);  // --gpu-memory 8G
}

TEST(GpuBudget, FreeMemoryLessATenthAtLeastOneGiB) {
  EXPECT_EQ(gpu_budget_from_free(0), 0u);
  EXPECT_EQ(gpu_budget_from_free(kGiB), 0u);
  EXPECT_EQ(gpu_budget_from_free(kGiB + 5), 5u);
  EXPECT_EQ(gpu_budget_from_free(4 * kGiB), 3 * kGiB);
  EXPECT_EQ(gpu_budget_from_free(80 * kGiB), 72 * kGiB);
  EXPECT_EQ(gpu_budget_from_free(kMax), kMax - kMax / 10);
}

TEST(GpuBudget, CsvBoundIsHalfTheSizeRoundedUpAndNeedsARegularFile) {
  const auto dir = testutil::fresh_dir();
  const auto bound = [&dir](const std::string& name, const std::string& text) {
    testutil::write_text(dir / name, text);
    return csv_samples_bound((dir / name).string());
  };
  EXPECT_EQ(bound("empty.csv", ""), std::uint64_t{0});
  EXPECT_EQ(bound("one.csv", "1"), std::uint64_t{1});
  EXPECT_EQ(bound("lf.csv", "\n"), std::uint64_t{1});
  EXPECT_EQ(bound("tail.csv", "a\n1\n2"), std::uint64_t{3});  // the densest file: every line counted
  EXPECT_EQ(bound("dense.csv", "a\n1\n2\n"), std::uint64_t{3});
  EXPECT_EQ(bound("long.csv", "ecg\n0.125\n0.25\n"), std::uint64_t{8});  // an upper bound
  EXPECT_EQ(csv_samples_bound((dir / "missing.csv").string()), std::nullopt);
  EXPECT_EQ(csv_samples_bound(dir.string()), std::nullopt);  // a directory: the reader says why
  EXPECT_EQ(csv_samples_bound("/dev/null"), std::nullopt);   // not a regular file: no size to trust
}

TEST(GpuBudget, SampleBoundOfCsvEdfAndWfdb) {
  const auto dir = testutil::fresh_dir();
  testutil::write_signal_csv(dir / "rec.csv", std::vector<float>(1000, 0.5f));
  EXPECT_EQ(recording_samples_bound((dir / "rec.csv").string(), ""), csv_samples_bound((dir / "rec.csv").string()));
  EXPECT_EQ(recording_samples_bound((dir / "rec.hea").string(), ""), std::nullopt);  // WFDB: read whole
  EXPECT_EQ(recording_samples_bound((dir / "missing.edf").string(), ""), std::nullopt);
  testutil::write_text(dir / "bad.edf", "not an EDF file");
  EXPECT_EQ(recording_samples_bound((dir / "bad.edf").string(), ""), std::nullopt);

  // Two signals, 100 and 50 samples a 1-s record, 3 records: the header's counts, per channel.
  const std::string edf = (dir / "two.edf").string();
  const int h = edfopen_file_writeonly(edf.c_str(), EDFLIB_FILETYPE_EDFPLUS, 2);
  ASSERT_GE(h, 0);
  const int rates[2] = {100, 50};
  const char* labels[2] = {"ECG", "Resp"};
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(edf_set_samplefrequency(h, i, rates[i]), 0);
    ASSERT_EQ(edf_set_physical_minimum(h, i, -10.0), 0);
    ASSERT_EQ(edf_set_physical_maximum(h, i, 10.0), 0);
    ASSERT_EQ(edf_set_digital_minimum(h, i, -32768), 0);
    ASSERT_EQ(edf_set_digital_maximum(h, i, 32767), 0);
    ASSERT_EQ(edf_set_label(h, i, labels[i]), 0);
    ASSERT_EQ(edf_set_physical_dimension(h, i, "mV"), 0);
  }
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 2; ++i) {
      std::vector<double> record(static_cast<std::size_t>(rates[i]), 1.0);
      ASSERT_EQ(edfwrite_physical_samples(h, record.data()), 0);
    }
  ASSERT_EQ(edfclose_file(h), 0);
  EXPECT_EQ(recording_samples_bound(edf, ""), std::uint64_t{300});
  EXPECT_EQ(recording_samples_bound(edf, "Resp"), std::uint64_t{150});
  EXPECT_EQ(recording_samples_bound(edf, "1"), std::uint64_t{150});
  EXPECT_EQ(recording_samples_bound(edf, "nope"), std::nullopt);  // the reader lists the labels
}

}  // namespace
}  // namespace ecgpipe
