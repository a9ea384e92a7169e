// The robust detector over a recording in chunks (detect_stream.hpp) and the chunked CPU
// segmentation (src/pipeline/segment_stream.cpp), issue 12: exactly the whole-record results, with chunk
// edges falling on beats, on flat stretches, on the band-pass blocks' edges.
#include "ecgpipe/config.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecgpipe/pipeline/segment.hpp"
#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/classify/beat_features.hpp"
#include "ecgpipe/pipeline/beat_rows.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/signal/detect.hpp"
#include "ecgpipe/signal/detect_stream.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/eval/synth.hpp"
#include "test_util.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include <cstdlib>
#include <sstream>

#include "ecgpipe/pipeline/segment_cuda.hpp"
#include "ecgpipe/common/error.hpp"
#include "gpu_test_util.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using namespace ecgpipe;


struct Streamed {
  Detection detection;
  std::vector<double> excerpt;
};

Streamed stream_in_pieces(const std::vector<float>& x, const DetectOptions& o, std::size_t piece, std::size_t excerpt) {
  StreamingDetector d(o, excerpt);
  for (std::size_t at = 0; at < x.size(); at += piece) d.push(x.data() + at, std::min(piece, x.size() - at));
  Streamed s;
  s.detection = d.finish();
  s.excerpt = d.curvature_excerpt();
  EXPECT_EQ(d.samples(), static_cast<std::int64_t>(x.size()));
  return s;
}

void expect_same_as_whole(const std::vector<float>& x, double fs, const std::vector<std::size_t>& pieces) {
  const DetectOptions o{fs, seed_windows(fs).ricker_width};
  const std::vector<double> bp = bandpass_cpu(x, o.ricker_width, ecgpipe::RickerTaps::zero_sum);
  const Detection whole = detect_beats_cpu(x, bp, o);
  // At least 15 bpm over records of more than 10 s (half of one is flat): not between empty lists.
  if (static_cast<double>(x.size()) > 10 * fs) {
    EXPECT_GT(static_cast<double>(whole.r_peaks.size()), static_cast<double>(x.size()) / fs / 4);
  }
  const std::size_t excerpt = std::min<std::size_t>(x.size(), static_cast<std::size_t>(10 * fs));
  for (const std::size_t piece : pieces) {
    const Streamed s = stream_in_pieces(x, o, piece, excerpt);
    // Exact: the same band-pass blocks, the same sums in the same order (detect_stream.hpp).
    EXPECT_EQ(s.detection.r_peaks, whole.r_peaks) << "piece " << piece << ", n " << x.size();
    EXPECT_EQ(s.detection.candidates, whole.candidates) << "piece " << piece;
    EXPECT_EQ(s.excerpt, std::vector<double>(bp.begin(), bp.begin() + static_cast<std::ptrdiff_t>(excerpt))) << "piece " << piece;
  }
}

// 6 minutes of synthetic ECG with ectopy, pieces from 1 s (edges on every beat) to more than the
// whole record, and sizes around the band-pass block (65536) and its hop (65507 at width 30).
TEST(DetectStream, EqualsWholeRecordForEveryPieceSize) {
  const std::vector<float> x = testutil::synth_signal(250.0, 90000);
  expect_same_as_whole(x, 250.0, {250, 251, 997, 750, 4096, 65507, 65536, 65537, 90000, 200000});
}

TEST(DetectStream, EqualsWholeRecordAt360HzAndWithBigeminy) {
  expect_same_as_whole(testutil::synth_signal(360.0, 360 * 200, 1, SynthScenario::bigeminy), 360.0, {1080, 7919, 65536});
}

// Edge lengths: empty, shorter than the wavelet, one band-pass block and one sample either side.
TEST(DetectStream, ShortAndBlockEdgeLengths) {
  const std::vector<float> x = testutil::synth_signal(250.0, 131100);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{29}, std::size_t{30}, std::size_t{31},
                              std::size_t{65535}, std::size_t{65536}, std::size_t{65537}, std::size_t{131043}, std::size_t{131044}}) {
    expect_same_as_whole(std::vector<float>(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n)), 250.0, {1, 333, 65536});
  }
}

// A flat line away from zero, streamed as whole: no beats (Detect.AFlatLineAtAnyLevelHasNoBeats).
TEST(DetectStream, AFlatLineAtAnyLevelHasNoBeats) {
  const DetectOptions o{250.0, seed_windows(250.0).ricker_width};
  for (const float level : {1.0f, -2.5f, 3e38f}) {
    const Streamed s = stream_in_pieces(std::vector<float>(100000, level), o, 65536, 0);
    EXPECT_TRUE(s.detection.r_peaks.empty()) << level;
    EXPECT_EQ(s.detection.candidates, 0u) << level;
  }
}

// Flat stretches (exact zeros: only round-off candidates, removed by the whole record's floor)
// with chunk edges inside them and at their ends.
TEST(DetectStream, FlatStretchesAcrossChunkEdges) {
  std::vector<float> x = testutil::synth_signal(250.0, 60000);
  std::fill(x.begin() + 10000, x.begin() + 30000, 0.0f);
  std::fill(x.begin() + 45000, x.end(), 0.0f);
  expect_same_as_whole(x, 250.0, {750, 10000, 20000, 29999});
}

TEST(DetectStream, PushAfterFinishIsAnInternalError) {
  StreamingDetector d(DetectOptions{250.0, 30});
  const float v = 1.0f;
  d.push(&v, 1);
  (void)d.finish();
  EXPECT_THROW(d.push(&v, 1), InternalError);
  EXPECT_THROW((void)d.finish(), InternalError);
}

// The real thing: a whole MIT-BIH record (30 min, 360 Hz) in 3-second chunks.
TEST(DetectStream, MitdbRecordInThreeSecondChunks) {
  const std::string found = testutil::ds1_folder({"208.csv"});
  SKIP_WITHOUT_DS1(found);
  const fs::path file = fs::path(found) / "208.csv";
  expect_same_as_whole(read_csv_column(file.string(), CsvOptions{}), 360.0, {1080, 1 << 20});
}

// --- The chunked segmentation against the whole-signal one, field by field.

void expect_same_segmentation(const RunOptions& o, const ChunkOptions& chunks) {
  const Segmentation whole = segment_cpu_whole(o);
  const Segmentation chunked = segment_cpu_chunked(o, chunks);
  const std::string what = "chunk " + std::to_string(chunks.chunk_samples) + ", keep " + std::to_string(chunks.keep_samples);
  EXPECT_EQ(chunked.samples, whole.samples) << what;
  EXPECT_EQ(chunked.candidates, whole.candidates) << what;
  EXPECT_EQ(chunked.beats.start, whole.beats.start) << what;
  EXPECT_EQ(chunked.beats.length, whole.beats.length) << what;
  ASSERT_EQ(chunked.matrix.rows(), whole.matrix.rows()) << what;
  ASSERT_EQ(chunked.matrix.cols(), whole.matrix.cols()) << what;
  const auto values = [](const BeatMatrix& m) {
    return std::vector<float>(m.data(), m.data() + m.rows() * m.cols());
  };
  EXPECT_EQ(values(chunked.matrix), values(whole.matrix)) << what;
  EXPECT_EQ(chunked.beat_class, whole.beat_class) << what;
  EXPECT_EQ(chunked.signal_excerpt, whole.signal_excerpt) << what;
  EXPECT_EQ(chunked.curvature_excerpt, whole.curvature_excerpt) << what;
}

TEST(SegmentChunked, EqualsWholeForBothModelsKeptOrReadTwice) {
  const auto dir = testutil::fresh_dir();
  const std::vector<float> x = testutil::synth_signal(250.0, 250 * 240, 1, SynthScenario::vt_runs);
  testutil::write_signal_csv(dir / "rec.csv", x);
  RunOptions o;
  o.input = (dir / "rec.csv").string();
  for (const Model model : {Model::rr, Model::seed}) {
    o.model = model;
    // keep 0: pass 2 reads the file again; chunks of 3 s put edges on every few beats.
    for (const std::int64_t chunk : {std::int64_t{750}, std::int64_t{4001}, std::int64_t{1} << 20})
      for (const std::int64_t keep : {std::int64_t{0}, std::int64_t{1} << 24}) expect_same_segmentation(o, ChunkOptions{chunk, keep});
  }
}

// A two-lead CSV's second lead (issue 24) is parsed in the primary's passes: kept with it when
// the recording is kept whole, gathered at the R peaks in pass 2 when it is read twice (keep 0:
// pass 1 stops parsing it at once). Either way the classes and the second lead's verdict are the
// whole read's; a flat second lead is found flat (so it was read), and a bad cell in it is the
// same error, named as the second lead's.
TEST(SegmentChunked, ASecondLeadIsReadInThePrimarysPassesKeptOrReadTwice) {
  const auto dir = testutil::fresh_dir();
  const std::vector<float> x = testutil::synth_signal(250.0, 250 * 120, 3, SynthScenario::vt_runs);
  const auto write = [&](const std::string& name, const std::function<std::string(std::size_t)>& v1) {
    std::string text = "MLII,V1\n";
    for (std::size_t i = 0; i < x.size(); ++i) text += std::to_string(x[i]) + "," + v1(i) + "\n";
    testutil::write_text(dir / name, text);
    return (dir / name).string();
  };
  RunOptions o;
  o.fs = 250.0;
  o.source.lead2_column = "V1";
  o.source.lead2_name = "column 'V1' (1)";
  const auto v1_like = [&](std::size_t i) { return std::to_string(-0.6 * x[i >= 2 ? i - 2 : 0]); };
  struct Case {
    std::string file;
    bool flat;
  };
  for (const Case& c : {Case{write("two.csv", v1_like), false}, Case{write("flat.csv", [](std::size_t) { return "0"; }), true}}) {
    o.input = c.file;
    const Segmentation whole = segment_cpu_whole(o);
    EXPECT_EQ(whole.lead2_warning.find("shows no consistent QRS") != std::string::npos, c.flat) << whole.lead2_warning;
    for (const std::int64_t chunk : {std::int64_t{750}, std::int64_t{1} << 20})
      for (const std::int64_t keep : {std::int64_t{0}, std::int64_t{1} << 24}) {
        const Segmentation chunked = segment_cpu_chunked(o, ChunkOptions{chunk, keep});
        EXPECT_EQ(chunked.beat_class, whole.beat_class) << c.file << ", chunk " << chunk << ", keep " << keep;
        EXPECT_EQ(chunked.lead2_warning, whole.lead2_warning) << c.file << ", chunk " << chunk << ", keep " << keep;
      }
  }
  o.input = write("bad.csv", [&](std::size_t i) { return i == 20000 ? std::string("abc") : v1_like(i); });
  const std::string expected = testutil::input_error_of([&] { (void)segment_cpu_whole(o); });
  EXPECT_NE(expected.find("bad.csv:20002: cannot parse \"abc\" as a number in column \"V1\""), std::string::npos) << expected;
  EXPECT_NE(expected.find("(the second lead, column 'V1' (1); --lead2 none reads"), std::string::npos) << expected;
  for (const std::int64_t keep : {std::int64_t{0}, std::int64_t{1} << 24})
    EXPECT_EQ(testutil::input_error_of([&] { (void)segment_cpu_chunked(o, ChunkOptions{750, keep}); }), expected) << keep;
}

// The rr model's rows begin with the classifier's windows at the usual rates, so the chunked path
// classifies from the rows instead of keeping a second copy of every beat.
TEST(SegmentChunked, RrRowsHoldTheClassifierWindows) {
  for (const double fs : {128.0, 250.0, 360.0, 500.0, 1000.0}) {
    RunOptions o;
    o.fs = fs;
    const FeatureWindow fw = feature_window(fs);
    EXPECT_EQ(r_peak_offset(o.rows()), fw.before) << fs;
    EXPECT_GE(row_length(o.rows()), fw.length) << fs;
  }
}

// Pass 2 reads the recording again: if it has changed in between (rewritten by another process),
// its rows would not be the detected beats'. A FIFO stands in for the file: the writer gives the
// first open 60 s of signal and the second 40 s. A FIFO's write end opens while any reader holds
// it, so the writer waits until no descriptor of this process is open on the FIFO (the first
// reader has closed; the second blocks in open() until a writer comes) before it opens again.
bool open_in_this_process(const std::string& path) {
  DIR* d = ::opendir("/proc/self/fd");  // opendir: see test_util.hpp on std::filesystem iterators
  if (d == nullptr) return false;
  bool found = false;
  while (const dirent* e = ::readdir(d)) {
    char target[4096];
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target);
    if (n > 0 && std::string(target, static_cast<std::size_t>(n)) == path) found = true;
  }
  ::closedir(d);
  return found;
}
void write_to_next_reader(const std::string& fifo, const std::string& text) {
  const int fd = ::open(fifo.c_str(), O_WRONLY);  // blocks until a reader opens
  ASSERT_GE(fd, 0);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    ASSERT_GT(n, 0);
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

TEST(SegmentChunked, RecordingThatChangesBetweenThePassesIsAnInputError) {
  const auto dir = testutil::fresh_dir();
  const std::string fifo = (dir / "rec.csv").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  char resolved[PATH_MAX];
  ASSERT_NE(::realpath(fifo.c_str(), resolved), nullptr);  // as /proc/self/fd's links name it
  const std::vector<float> x = testutil::synth_signal(250.0, 250 * 60);
  std::string first = "heartbeats\n", second;
  for (std::size_t i = 0; i < x.size(); ++i) {
    first += std::to_string(x[i]) + "\n";
    if (i + 1 == x.size() * 2 / 3) second = first;
  }
  std::thread writer([&] {
    write_to_next_reader(fifo, first);
    while (open_in_this_process(resolved)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    write_to_next_reader(fifo, second);
  });
  RunOptions o;
  o.input = fifo;
  const std::string message = testutil::input_error_of([&] { (void)segment_cpu_chunked(o, ChunkOptions{750, 0}); });
  writer.join();
  EXPECT_NE(message.find("the recording changed while it was read (15000 samples, then 10000)"), std::string::npos) << message;
}

TEST(SegmentChunked, SeedPresetIsNotChunked) {
  RunOptions o;
  o.preset = Preset::seed;
  EXPECT_THROW(segment_cpu_chunked(o, ChunkOptions{1000, 0}), InternalError);
}

}  // namespace

namespace {

// Through the executable: `run` and `detect` in 3-second chunks write what they write with the
// whole signal in memory (--chunk-seconds 0): beats.csv and outliers.csv byte for byte (the same
// rows, so the same training with the same seed), report.json's counts, classes and Holter summary.
TEST(ChunkCli, RunAndDetectInChunksWriteWhatTheWholeSignalGives) {
  const auto dir = testutil::fresh_dir();
  testutil::write_signal_csv(dir / "rec.csv", testutil::synth_signal(250.0, 250 * 200, 1, SynthScenario::bigeminy));
  const std::string in = testutil::q(dir / "rec.csv");
  for (const char* chunk : {"3", "0"}) {
    const auto r = testutil::run_ecgpipe("-q --threads 1 run " + in + " --device cpu --epochs 2 --chunk-seconds " + chunk +
                                             " --out '" + (dir / ("run" + std::string(chunk))).string() + "'",
                                         dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto d = testutil::run_ecgpipe("-q detect " + in + " --device cpu --chunk-seconds " + chunk + " --out '" +
                                             (dir / ("detect" + std::string(chunk) + ".csv")).string() + "'",
                                         dir);
    ASSERT_EQ(d.code, 0) << d.err;
  }
  for (const char* f : {"beats.csv", "outliers.csv"})
    EXPECT_EQ(testutil::read_text(dir / "run3" / f), testutil::read_text(dir / "run0" / f)) << f;
  EXPECT_EQ(testutil::read_text(dir / "detect3.csv"), testutil::read_text(dir / "detect0.csv"));
  EXPECT_GT(testutil::count_lines(testutil::read_text(dir / "detect3.csv")), 200u);
  const auto a = nlohmann::json::parse(testutil::read_text(dir / "run3" / "report.json"));
  const auto b = nlohmann::json::parse(testutil::read_text(dir / "run0" / "report.json"));
  for (const char* key : {"counts", "classes", "holter", "loss"}) EXPECT_EQ(a[key], b[key]) << key;
}

// The column `name` of a CSV text, one string a row.
std::vector<std::string> csv_column(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line, cell;
  std::getline(in, line);
  std::size_t index = SIZE_MAX, k = 0;
  for (std::istringstream h(line); std::getline(h, cell, ','); ++k)
    if (cell == name) index = k;
  if (index == SIZE_MAX) {
    ADD_FAILURE() << "no column " << name << " in " << line;
    return {};
  }
  std::vector<std::string> out;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (k = 0; std::getline(row, cell, ',') && k < index; ++k) {
    }
    out.push_back(cell);
  }
  return out;
}

// A constant offset in the input (raw ADC counts about 1 024, a lead-off stretch held at a level)
// moved the robust detector's beats: the seed's band-pass taps sum to 0.088 (docs/accuracy.md, "A
// constant offset"; 2026-11-27, 300 s of synthetic ECG: 11 false beats with 50 mV added, 53 beats
// inside 30 s held at 2.5 mV). On every path that band-passes -- `detect` whole, `analyze` (the
// segmentation `run` uses) whole and in chunks (the streaming detector, which `detect` in chunks
// shares) and, with a GPU, `detect --device cuda` whole and streamed and `analyze` there -- the
// beats of x + 1000 mV are those of x, and a stretch held at a level has none (checked on the
// first path of each device: about a second a command, the band-pass's LibTorch loading).
TEST(DetectCli, AnOffsetInTheInputDoesNotMoveTheBeats) {
  const auto dir = testutil::fresh_dir();
  const std::vector<float> x = testutil::synth_signal(250.0, 250 * 120, 4);
  std::vector<float> offset = x, held = x;
  for (float& v : offset) v += 1000.0f;
  constexpr std::size_t kHeldFrom = 250 * 40, kHeldTo = 250 * 70;  // 30 s in the middle, at 2.5 mV
  std::fill(held.begin() + kHeldFrom, held.begin() + kHeldTo, 2.5f);
  testutil::write_signal_csv(dir / "x.csv", x);
  testutil::write_signal_csv(dir / "offset.csv", offset);
  testutil::write_signal_csv(dir / "held.csv", held);
  // analyze writes a folder (beats.csv), detect a CSV of R peaks; both have the column r_peak.
  std::vector<std::string> commands = {"detect --device cpu --chunk-seconds 0", "analyze --device cpu --chunk-seconds 0",
                                       "analyze --device cpu --chunk-seconds 7"};
#ifdef ECGPIPE_WITH_CUDA
  if (ecgpipe::cuda_device_available()) {
    commands.push_back("detect --device cuda --gpu-memory 1G");  // whole on the GPU
    commands.push_back("detect --device cuda --gpu-memory 1K");  // streamed through it
    commands.push_back("analyze --device cuda --gpu-memory 1G");
  }
#endif
  for (std::size_t k = 0; k < commands.size(); ++k) {
    const std::string& command = commands[k];
    const bool folder = command.rfind("analyze", 0) == 0;
    std::map<std::string, std::vector<std::string>> peaks;
    const bool first_of_device = k == 0 || (command.find("cuda") != std::string::npos && commands[k - 1].find("cuda") == std::string::npos);
    for (const char* name : {"x", "offset", "held"}) {
      if (std::string(name) == "held" && !first_of_device) continue;
      const fs::path out = dir / (std::to_string(k) + "-" + name + (folder ? "" : ".csv"));
      const auto r = testutil::run_ecgpipe("-q " + command + " '" + (dir / (std::string(name) + ".csv")).string() + "' --out '" + out.string() + "'",
                                           dir);
      ASSERT_EQ(r.code, 0) << command << " " << name << ": " << r.err;
      peaks[name] = csv_column(testutil::read_text(folder ? out / "beats.csv" : out), "r_peak");
    }
    EXPECT_GT(peaks["x"].size(), 120u) << command;
    EXPECT_EQ(peaks["offset"], peaks["x"]) << command;
    if (!first_of_device) continue;
    // The held stretch: no beat more than 0.5 s inside it (its two steps may each make one).
    std::size_t inside = 0;
    for (const std::string& p : peaks["held"]) {
      const long long at = std::stoll(p);
      inside += at > static_cast<long long>(kHeldFrom) + 125 && at < static_cast<long long>(kHeldTo) - 125;
    }
    EXPECT_EQ(inside, 0u) << command;
  }
}

// A recording that is a flat line away from zero (a lead off at a DC level) had beats on every
// path: round-off ripples passed the floor relative to its own largest envelope (30 s of 1.0 at
// 250 Hz: 70 R peaks). Now none, on the paths of the test above (Detect.AFlatLineAtAnyLevelHasNoBeats
// holds the detector's own cases).
TEST(DetectCli, AFlatRecordingAwayFromZeroHasNoBeats) {
  const auto dir = testutil::fresh_dir();
  testutil::write_signal_csv(dir / "flat.csv", std::vector<float>(250 * 30, 1.0f));
  std::vector<std::string> commands = {"detect --device cpu --chunk-seconds 0", "analyze --device cpu --chunk-seconds 0",
                                       "analyze --device cpu --chunk-seconds 7"};
#ifdef ECGPIPE_WITH_CUDA
  if (ecgpipe::cuda_device_available()) {
    commands.push_back("detect --device cuda --gpu-memory 1G");
    commands.push_back("detect --device cuda --gpu-memory 1K");
    commands.push_back("analyze --device cuda --gpu-memory 1G");
  }
#endif
  for (std::size_t k = 0; k < commands.size(); ++k) {
    const bool folder = commands[k].rfind("analyze", 0) == 0;
    const fs::path out = dir / (std::to_string(k) + (folder ? "" : ".csv"));
    const auto r = testutil::run_ecgpipe("-q " + commands[k] + " --fs 250 '" + (dir / "flat.csv").string() + "' --out '" +
                                             out.string() + "'",
                                         dir);
    ASSERT_EQ(r.code, 0) << commands[k] << ": " << r.err;
    EXPECT_TRUE(csv_column(testutil::read_text(folder ? out / "beats.csv" : out), "r_peak").empty()) << commands[k];
  }
}

#ifdef ECGPIPE_WITH_CUDA
// --- Recordings larger than the GPU's memory (ecgpipe/pipeline/segment_cuda.hpp): a file whose
// sample count (a CSV's lines) times kGpuBytesPerSample exceeds the budget goes through the
// chunked host path, and only its beat matrix to the GPU. The decision runs without a GPU when the
// budget is given. The arithmetic itself: tests/pipeline/test_gpu_budget.cpp.

using testutil::ScopedEnv;
constexpr const char* kBudgetEnv = "ECGPIPE_GPU_MEMORY_BUDGET_MB";

TEST(GpuChunking, BudgetFromTheOptionElseTheEnvironmentInWholeMiB) {
  {
    ScopedEnv e(kBudgetEnv, "12");
    EXPECT_EQ(gpu_memory_budget().bytes, std::uint64_t{12} << 20);
    EXPECT_EQ(gpu_memory_budget().source, kBudgetEnv);
    EXPECT_EQ(gpu_memory_budget(std::uint64_t{5}).bytes, 5u);  // --gpu-memory wins
    EXPECT_EQ(gpu_memory_budget(std::uint64_t{5}).source, "--gpu-memory");
  }
  {
    ScopedEnv e(kBudgetEnv, "0");
    EXPECT_EQ(gpu_memory_budget().bytes, 0u);
  }
  for (const char* bad : {"", "x", "-1", "12MB", "1e3", "99999999999999999999", "17592186044416"}) {
    ScopedEnv e(kBudgetEnv, bad);
    EXPECT_THROW(gpu_memory_budget(), UsageError) << "'" << bad << "'";
    EXPECT_EQ(gpu_memory_budget(std::uint64_t{1}).bytes, 1u) << "'" << bad << "': the option is taken, the variable not read";
  }
}

TEST(GpuChunking, RobustCsvAndEdfFilesOverTheBudgetAreStreamedThroughTheGpu) {
  const auto dir = testutil::fresh_dir();
  testutil::write_signal_csv(dir / "rec.csv", std::vector<float>(1000, 0.5f));
  const std::string csv = (dir / "rec.csv").string();
  ScopedEnv none(kBudgetEnv, "0");
  EXPECT_GT(gpu_chunk_samples_for(csv, "", Preset::robust, 600.0), 0);
  EXPECT_EQ(gpu_chunk_samples_for(csv, "", Preset::seed, 600.0), 0);  // the seed preset is whole-signal only
  EXPECT_EQ(gpu_chunk_samples_for(csv, "", Preset::robust, 0.0), 0);  // --chunk-seconds 0: whole, as asked
  EXPECT_EQ(gpu_chunk_samples_for((dir / "rec.hea").string(), "", Preset::robust, 600.0), 0);  // WFDB: read whole
  EXPECT_EQ(gpu_chunk_samples_for((dir / "missing.csv").string(), "", Preset::robust, 600.0), 0);  // the reader says why
  // The bound from the file's size: whole with exactly its bytes, chunked with a byte less.
  const std::uint64_t need = csv_samples_bound(csv).value() * kGpuBytesPerSample;
  EXPECT_EQ(gpu_chunk_samples_for(csv, "", Preset::robust, 600.0, need), 0);
  EXPECT_EQ(gpu_chunk_samples_for(csv, "", Preset::robust, 600.0, need - 1), kMinGpuChunkSamples);  // a tiny budget
  ScopedEnv plenty(kBudgetEnv, "1");  // 1 MiB: 7281 samples, the file's size allows fewer
  EXPECT_EQ(gpu_chunk_samples_for(csv, "", Preset::robust, 600.0), 0);
}

// On the GPU, a recording over the budget gives the whole GPU path's R peaks, beats and classes
// (the matrix is the same rows; its training on the GPU is compared by its counts, not its bits).
TEST(GpuChunkingCli, OverTheBudgetRunAndDetectGiveTheWholeGpuPathsResults) {
  SKIP_WITHOUT_GPU();
  const auto dir = testutil::fresh_dir();
  testutil::write_signal_csv(dir / "rec.csv", testutil::synth_signal(250.0, 250 * 200, 1, SynthScenario::bigeminy));
  const std::string in = testutil::q(dir / "rec.csv");
  std::string log;
  for (const char* budget : {"0", "1024"}) {
    ScopedEnv e(kBudgetEnv, budget);
    const std::string tag = budget;
    const auto r = testutil::run_ecgpipe("run " + in + " --device cuda --epochs 2 --out '" + (dir / ("run" + tag)).string() + "'", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    if (tag == "0") log = r.err;
    const auto d = testutil::run_ecgpipe("-q detect " + in + " --device cuda --out '" + (dir / ("detect" + tag + ".csv")).string() + "'", dir);
    ASSERT_EQ(d.code, 0) << d.err;
  }
  EXPECT_NE(log.find("streamed through the GPU in chunks"), std::string::npos) << log;  // run: the chunked GPU path
  EXPECT_EQ(testutil::read_text(dir / "detect0.csv"), testutil::read_text(dir / "detect1024.csv"));
  // --gpu-memory does the same as the variable, and says which way it went and why.
  const auto small = testutil::run_ecgpipe("detect " + in + " --device cuda --gpu-memory 1K --out '" + (dir / "detect1K.csv").string() + "'", dir);
  ASSERT_EQ(small.code, 0) << small.err;
  EXPECT_NE(small.err.find("over the budget of 0.0 MiB (--gpu-memory): streamed through the GPU in chunks"), std::string::npos)
      << small.err;
  EXPECT_EQ(testutil::read_text(dir / "detect0.csv"), testutil::read_text(dir / "detect1K.csv"));
  const auto large = testutil::run_ecgpipe("detect " + in + " --device cuda --gpu-memory 1G --out '" + (dir / "detect1G.csv").string() + "'", dir);
  ASSERT_EQ(large.code, 0) << large.err;
  EXPECT_NE(large.err.find("within the budget of 1024.0 MiB (--gpu-memory): read and detected whole on the GPU"), std::string::npos)
      << large.err;
  EXPECT_EQ(testutil::read_text(dir / "detect0.csv"), testutil::read_text(dir / "detect1G.csv"));
  const std::string a = testutil::read_text(dir / "run0" / "beats.csv"), b = testutil::read_text(dir / "run1024" / "beats.csv");
  for (const char* column : {"start", "r_peak", "length", "class", "rhythm"}) EXPECT_EQ(csv_column(a, column), csv_column(b, column)) << column;
  EXPECT_GT(csv_column(a, "r_peak").size(), 200u);
  const auto ja = nlohmann::json::parse(testutil::read_text(dir / "run0" / "report.json"));
  const auto jb = nlohmann::json::parse(testutil::read_text(dir / "run1024" / "report.json"));
  for (const char* key : {"counts", "classes", "holter"}) EXPECT_EQ(ja[key], jb[key]) << key;
  EXPECT_EQ(ja["device"], "cuda");
}
#endif  // ECGPIPE_WITH_CUDA

}  // namespace
