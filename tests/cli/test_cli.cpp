// The ecgpipe executable: options, outputs, and every bad input's message and exit code.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "ecgpipe/signal/beats.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/signal/bandpass.hpp"
#include "ecgpipe/signal/peaks.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/model/vae.hpp"
#include "test_util.hpp"

namespace {

namespace fs = std::filesystem;
using testutil::fresh_dir;
using testutil::run_ecgpipe;

constexpr int kUsage = 2, kInput = 3, kOutput = 4;
const char* const kOutputs[] = {"beats.csv", "outliers.csv", "rhythm.csv", "model.safetensors", "report.json", "report.html"};

// No output file, and no temporary left behind.
void expect_no_outputs(const fs::path& out) {
  for (const auto& name : testutil::list_dir(out)) ADD_FAILURE() << "left behind: " << name;
}

// The error is one line on stderr (the runs use -q, so no progress lines surround it).
void expect_one_line_error(const testutil::Result& r, const std::string& needle) {
  EXPECT_EQ(testutil::count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
}

TEST(Cli, Version) {
  const auto dir = fresh_dir();
  const auto r = run_ecgpipe("--version", dir);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("ecgpipe " ECGPIPE_VERSION), std::string::npos) << r.out;
}

TEST(Cli, RunHelpListsEveryOptionWithDefault) {
  const auto dir = fresh_dir();
  const auto r = run_ecgpipe("run --help", dir);
  EXPECT_EQ(r.code, 0);
  for (const char* opt : {"--column", "--no-header", "--ricker-width", "--nms-window", "--min-length", "--max-length",
                          "--epochs", "--batch-size", "--learning-rate", "--seed", "--device", "--out", "--json", "--preset",
                          "--model", "--reference"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  for (const char* def : {"=30", "=180", "=100", "=256", "=robust", "=rr", "=42", "auto", "ecgpipe-out"})
    EXPECT_NE(r.out.find(def), std::string::npos) << "default " << def << " in\n" << r.out;
}

TEST(Cli, NoSubcommandIsUsageError) {
  const auto dir = fresh_dir();
  EXPECT_EQ(run_ecgpipe("", dir).code, kUsage);
  EXPECT_EQ(run_ecgpipe("run", dir).code, kUsage) << "missing file argument";
  EXPECT_EQ(run_ecgpipe("run x.csv --epochs zero", dir).code, kUsage);
  EXPECT_EQ(run_ecgpipe("run x.csv --device tpu", dir).code, kUsage);
}

// --device, --preset and --model take their names in any case and nothing else: not the enums'
// integers, and selftest's --device not cuda. A refusal is one line naming the option and the names.
TEST(Cli, EnumOptionsTakeNamesInAnyCase) {
  const auto dir = fresh_dir();
  testutil::write_signal_csv(dir / "in.csv", testutil::synthetic_ecg(20, 200));
  const std::string in = testutil::q(dir / "in.csv");
  const auto bench = run_ecgpipe("-q bench " + in + " --device CPU --preset Seed --model RR --repeat 1 --json", dir);
  ASSERT_EQ(bench.code, 0) << bench.err;
  const auto j = nlohmann::json::parse(bench.out);
  EXPECT_EQ(j.at("device"), "cpu");
  EXPECT_EQ(j.at("preset"), "seed");
  EXPECT_EQ(j.at("model"), "rr");
  const auto detect = run_ecgpipe("-q detect " + in + " --device Cpu --preset Robust --out '" + (dir / "b.csv").string() + "'", dir);
  EXPECT_EQ(detect.code, 0) << detect.err;

  const auto tpu = run_ecgpipe("run " + in + " --device tpu", dir);
  EXPECT_EQ(tpu.code, kUsage);
  EXPECT_NE(tpu.err.find("--device: tpu not in {auto,cpu,cuda}"), std::string::npos) << tpu.err;
  EXPECT_EQ(std::count(tpu.err.begin(), tpu.err.end(), '\n'), 1) << tpu.err;
  for (const char* bad : {"run IN --device 0", "run IN --preset 1", "run IN --model lstm", "detect IN --preset fast",
                          "score IN --model m.pt --device gpu", "selftest --device cuda"}) {
    std::string args = bad;
    if (const auto at = args.find("IN"); at != std::string::npos) args.replace(at, 2, in);
    EXPECT_EQ(run_ecgpipe(args, dir).code, kUsage) << bad;
  }
}

TEST(Cli, BadOptionValuesAreUsageErrors) {
  const auto dir = fresh_dir();
  testutil::write_signal_csv(dir / "in.csv", testutil::synthetic_ecg(20, 200));
  const auto in = (dir / "in.csv").string(), out = (dir / "out").string();
  for (const char* bad : {"--max-length 250", "--epochs 0", "--min-length 300", "--nms-window 0", "--ricker-width 1",
                          "--threads -1", "--threads two"}) {
    const auto r = run_ecgpipe("-q run '" + in + "' --out '" + out + "' " + bad, dir);
    EXPECT_EQ(r.code, kUsage) << bad << ": " << r.err;
    expect_one_line_error(r, "--");
  }
  expect_no_outputs(out);
}

struct BadInput {
  const char* name;
  const char* content;  // nullptr: the file does not exist
  const char* extra_args;
  const char* message;  // a piece of the expected message
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, OneLineExitCodeNoOutput) {
  const auto& p = GetParam();
  const auto dir = fresh_dir();
  const auto in = dir / "in.csv";
  if (p.content) testutil::write_text(in, p.content);
  const auto out = dir / "out";
  const auto r = run_ecgpipe("-q run '" + in.string() + "' --device cpu --epochs 1 --out '" + out.string() + "' " + p.extra_args, dir);
  EXPECT_EQ(r.code, kInput) << r.err;
  expect_one_line_error(r, p.message);
  expect_no_outputs(out);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values(BadInput{"missing", nullptr, "", "in.csv"},
                      BadInput{"empty", "", "", "in.csv"},
                      BadInput{"header_only", "heartbeats\n", "", "in.csv"},
                      BadInput{"text_cell", "heartbeats\n1.0\n2.0\n3.0\nabc\n", "", "abc"},
                      BadInput{"nan", "heartbeats\n1.0\nnan\n", "", ":3"},
                      BadInput{"inf", "heartbeats\n1.0\n2.0\n-inf\n", "", ":4"},
                      BadInput{"unknown_column", "a,b\n1,2\n", "--column nope", "nope"},
                      BadInput{"column_index_out_of_range", "a,b\n1,2\n", "--column 5", "5"},
                      BadInput{"too_few_beats", "heartbeats\n1\n2\n3\n", "", "too few beats"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Cli, TextCellReportsLineNumber) {
  const auto dir = fresh_dir();
  testutil::write_text(dir / "in.csv", "heartbeats\n1.0\n2.0\n3.0\nabc\n");
  const auto r = run_ecgpipe("run '" + (dir / "in.csv").string() + "' --device cpu --out '" + (dir / "o").string() + "'", dir);
  EXPECT_NE(r.err.find(":5"), std::string::npos) << "line 5 holds abc: " << r.err;
}

TEST(Cli, UnwritableOutputDirectory) {
  const auto dir = fresh_dir();
  testutil::write_signal_csv(dir / "in.csv", testutil::synthetic_ecg(20, 200));
  testutil::write_text(dir / "file", "x");  // a path under a regular file can never be created
  const auto r = run_ecgpipe("-q run '" + (dir / "in.csv").string() + "' --device cpu --epochs 1 --out '" +
                                 (dir / "file" / "out").string() + "'",
                             dir);
  EXPECT_EQ(r.code, kOutput) << r.err;
  expect_one_line_error(r, "file/out");
}

TEST(Cli, RunWritesConsistentOutputs) {
  const auto dir = fresh_dir();
  const auto signal = testutil::synthetic_ecg(40, 200);
  testutil::write_signal_csv(dir / "in.csv", signal);
  const auto out = dir / "out";
  const auto r = run_ecgpipe("run '" + (dir / "in.csv").string() + "' --preset seed --model seed --device cpu --epochs 2 --json --threads 1 --out '" + out.string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : kOutputs) EXPECT_TRUE(fs::exists(out / f)) << f;

  // What the stages compute in-process is what the files say: from the signal as the file holds
  // it (%.6f), since the seed's gates in the flat lead-in compare band-pass round-off.
  const auto gates = ecgpipe::detect_gates_cpu(ecgpipe::bandpass_cpu(ecgpipe::read_csv_column((dir / "in.csv").string(), {}), 30, ecgpipe::RickerTaps::seed), 180);
  const auto beats = ecgpipe::select_beats(gates, {});
  const auto report = nlohmann::json::parse(testutil::read_text(out / "report.json"));
  EXPECT_EQ(nlohmann::json::parse(r.out), report) << "--json prints the report";
  EXPECT_EQ(report["counts"]["candidates"], gates.size());
  EXPECT_EQ(report["counts"]["beats"], beats.size());
  EXPECT_EQ(report["counts"]["train"], static_cast<std::size_t>(0.75 * beats.size()));
  EXPECT_EQ(report["input"]["samples"], signal.size());
  EXPECT_EQ(report["loss"]["train_per_epoch"].size(), 2u);
  EXPECT_EQ(report["device"], "cpu");
  EXPECT_EQ(report["training"]["cpu_threads"], 1) << "--threads 1";
  EXPECT_GE(beats.size(), 35u) << "one beat per synthetic QRS";
  // Issue 10: the predicted AAMI classes, one per beat.
  std::size_t classified = 0;
  for (const char* c : {"N", "S", "V", "F", "Q"}) classified += report["classes"][c].get<std::size_t>();
  EXPECT_EQ(classified, beats.size());

  const auto csv = testutil::read_text(out / "beats.csv");
  EXPECT_EQ(csv.rfind("index,start,r_peak,time_s,length,rr_before_s,rr_after_s,split,recon_error,neg_elbo,"
                     "template_distance,prematurity,score,outlier,latent_mu0,latent_mu1,class,rhythm,quality\n",
                     0),
            0u)
      << csv.substr(0, 120);
  EXPECT_EQ(testutil::count_lines(csv), beats.size() + 1);
  EXPECT_NE(csv.find("\n0," + std::to_string(beats.start[0]) + ","), std::string::npos);
}

TEST(Cli, NoHeaderAndColumnByName) {
  const auto dir = fresh_dir();
  const auto signal = testutil::synthetic_ecg(12, 200);
  std::string two_cols = "time,ecg\n", bare;
  for (std::size_t i = 0; i < signal.size(); ++i) {
    two_cols += std::to_string(i) + "," + std::to_string(signal[i]) + "\r\n";
    bare += std::to_string(signal[i]) + "\n";
  }
  testutil::write_text(dir / "two.csv", two_cols);
  testutil::write_text(dir / "bare.csv", bare + "\n");
  const auto a = run_ecgpipe("run '" + (dir / "two.csv").string() + "' --column ecg --device cpu --epochs 1 --out '" + (dir / "a").string() + "'", dir);
  const auto b = run_ecgpipe("run '" + (dir / "bare.csv").string() + "' --no-header --device cpu --epochs 1 --out '" + (dir / "b").string() + "'", dir);
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  const auto ra = nlohmann::json::parse(testutil::read_text(dir / "a" / "report.json"));
  const auto rb = nlohmann::json::parse(testutil::read_text(dir / "b" / "report.json"));
  EXPECT_EQ(ra["counts"], rb["counts"]);
  EXPECT_EQ(ra["input"]["samples"], signal.size());
}

// The bundled sample has 22 premature ventricular (V) and 15 premature atrial (A) beats among
// 704 (data/sample_beats.csv): unsupervised, the default model must rank them on top: V by shape,
// A (a normal QRS, early) by the rhythm term. The seed model finds the V beats only.
std::string ranked_symbols(const fs::path& dir, const std::string& options) {
  const fs::path data = fs::path(ECGPIPE_SOURCE_DIR) / "data";
  const auto r = run_ecgpipe("-q run '" + (data / "sample.csv").string() + "' " + options + " --epochs 30 --device cpu --out '" +
                                 (dir / "o").string() + "'",
                             dir);
  EXPECT_EQ(r.code, 0) << r.err;
  // Truth: sample,symbol,class; a ranked beat is a V when its R peak lies within 150 ms (37 samples).
  constexpr std::int64_t kTolerance = 37;
  std::vector<std::pair<std::int64_t, char>> truth;
  std::istringstream tin(testutil::read_text(data / "sample_beats.csv"));
  std::string line;
  std::getline(tin, line);
  while (std::getline(tin, line)) truth.emplace_back(std::stoll(line), line.at(line.find(',') + 1));  // sample,symbol,class
  const auto symbol_at = [&](std::int64_t r_peak) {
    for (const auto& [s, sym] : truth)
      if (std::llabs(s - r_peak) <= kTolerance) return sym;
    return '?';
  };
  std::istringstream oin(testutil::read_text(dir / "o" / "outliers.csv"));
  std::getline(oin, line);
  EXPECT_EQ(line, "rank,index,r_peak,time_s,time,rr_before_s,rr_after_s,recon_error,neg_elbo,template_distance,prematurity,"
                  "score,outlier,class,rhythm");
  std::string ranked;
  while (std::getline(oin, line)) {
    std::istringstream f(line);
    std::string rank, index, r_peak;
    std::getline(f, rank, ',');
    std::getline(f, index, ',');
    std::getline(f, r_peak, ',');
    ranked += symbol_at(std::stoll(r_peak));
  }
  EXPECT_EQ(ranked.size(), 100u) << "--top 100 by default";
  return ranked;
}

constexpr std::size_t kVentricular = 22, kAtrial = 15;

TEST(Cli, InjectedAbnormalBeatsRankOnTop) {
  const auto dir = fresh_dir();
  const std::string ranked = ranked_symbols(dir, "");
  const std::string top = ranked.substr(0, kVentricular + kAtrial);
  // Measured (LibTorch 1.13, CPU): the top 37 hold all 22 V and 14 of the 15 A (the last A is
  // rank 38). Margins for other LibTorch builds.
  EXPECT_GE(std::count(top.begin(), top.end(), 'V'), 21) << "top of the ranking: " << top;
  EXPECT_GE(std::count(top.begin(), top.end(), 'A'), 12) << "top of the ranking: " << top;
  const auto report = nlohmann::json::parse(testutil::read_text(dir / "o" / "report.json"));
  EXPECT_EQ(report["outliers"]["flagged"], 8u) << "above the 0.99 quantile of 704 beats";
  EXPECT_EQ(report["parameters"]["model"], "rr");
  EXPECT_EQ(report["parameters"]["batch_size"], 64) << "automatic: 528 training beats / 32 steps, at least 64";
}

TEST(Cli, SeedModelRanksVentricularBeatsOnTop) {
  const auto dir = fresh_dir();
  const std::string ranked = ranked_symbols(dir, "--model seed --batch-size 64");
  const auto v_on_top = std::count(ranked.begin(), ranked.begin() + kVentricular, 'V');
  // Measured: all 22 V beats rank 1..22 (LibTorch 1.13, CPU); a margin for other LibTorch builds.
  EXPECT_GE(v_on_top, 20) << "top of the ranking: " << ranked.substr(0, 40);
}

// --reference: the run evaluates its own detections and scores (EC57 matching, AUROC per AAMI
// class) and the report colours the latent plot by class; a bad reference fails before any work.
TEST(Cli, RunWithReferenceEvaluatesDetectionsAndScores) {
  const fs::path data = fs::path(ECGPIPE_SOURCE_DIR) / "data";
  const auto dir = fresh_dir();
  const auto r = run_ecgpipe("-q run '" + (data / "sample.csv").string() + "' --reference '" + (data / "sample_beats.csv").string() +
                                 "' --epochs 30 --device cpu --out '" + (dir / "o").string() + "'",
                             dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testutil::read_text(dir / "o" / "report.json"));
  const auto& e = report["evaluation"];
  EXPECT_EQ(e["reference_beats"], 704);
  EXPECT_EQ(e["tp"].get<int>() + e["fn"].get<int>(), 704);
  EXPECT_GE(e["se"].get<double>(), 0.99);
  EXPECT_EQ(e["score_column"], "score");
  EXPECT_EQ(e["auroc"]["V"]["positives"], 22);
  EXPECT_EQ(e["auroc"]["S"]["positives"], 15);
  // Measured (LibTorch 1.13, CPU): V 1.000, S 0.998; margins for other builds.
  EXPECT_GE(e["auroc"]["V"]["auroc"].get<double>(), 0.99);
  EXPECT_GE(e["auroc"]["S"]["auroc"].get<double>(), 0.95);
  const auto html = testutil::read_text(dir / "o" / "report.html");
  EXPECT_EQ(html.find("no reference classes given"), std::string::npos);
  EXPECT_NE(html.find("V (22)"), std::string::npos) << "class legend with counts";

  const auto bad = run_ecgpipe("-q run '" + (data / "sample.csv").string() + "' --reference '" + (dir / "missing.csv").string() +
                                   "' --device cpu --out '" + (dir / "b").string() + "'",
                               dir);
  EXPECT_EQ(bad.code, kInput) << bad.err;
  expect_one_line_error(bad, "missing.csv");
  EXPECT_TRUE(testutil::list_dir(dir / "b").empty()) << "no output for a failed run";
}

// Determinism on the GPU: with the same --seed the same input gives the same beats.csv (scores,
// latent means, splits) on the same device. Needs a GPU and a CUDA LibTorch.
TEST(Cli, GpuRunsAreDeterministic) {
  if (!ecgpipe::torch_cuda_available()) GTEST_SKIP() << "no CUDA device or a LibTorch without CUDA";
  const fs::path data = fs::path(ECGPIPE_SOURCE_DIR) / "data";
  const auto dir = fresh_dir();
  for (const char* out : {"a", "b"}) {
    const auto r = run_ecgpipe("-q run '" + (data / "sample.csv").string() + "' --device cuda --seed 7 --out '" + (dir / out).string() + "'", dir);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const auto a = testutil::read_text(dir / "a" / "beats.csv"), b = testutil::read_text(dir / "b" / "beats.csv");
  EXPECT_GT(testutil::count_lines(a), 600u);
  EXPECT_EQ(a, b);
}

// Train on one recording, score with the saved model: same beats, same scores (CPU); the model
// carries the beat parameters, so `score` needs no --preset/--fs/--max-length.
TEST(Cli, ScoreWithSavedModel) {
  const auto dir = fresh_dir();
  const auto sample = (fs::path(ECGPIPE_SOURCE_DIR) / "data" / "sample.csv").string();
  const auto train = run_ecgpipe("-q run '" + sample + "' --preset robust --fs 250 --batch-size 64 --epochs 3 --device cpu --out '" +
                                     (dir / "t").string() + "'",
                                 dir);
  ASSERT_EQ(train.code, 0) << train.err;
  const auto model = (dir / "t" / "model.safetensors").string();
  const auto score = run_ecgpipe("-q score '" + sample + "' --model '" + model + "' --device cpu --out '" + (dir / "s").string() + "'", dir);
  ASSERT_EQ(score.code, 0) << score.err;
  EXPECT_FALSE(fs::exists(dir / "s" / "model.safetensors")) << "score writes no model";
  // Same rows except the split column (train/test vs scored).
  const auto drop_split = [](const std::string& csv) {
    std::istringstream in(csv);
    std::string line, out;
    while (std::getline(in, line)) {
      std::size_t start = 0;
      for (int k = 0; k < 7; ++k) start = line.find(',', start) + 1;
      out += line.substr(0, start) + line.substr(line.find(',', start)) + "\n";
    }
    return out;
  };
  EXPECT_EQ(drop_split(testutil::read_text(dir / "s" / "beats.csv")), drop_split(testutil::read_text(dir / "t" / "beats.csv")));
  const auto report = nlohmann::json::parse(testutil::read_text(dir / "s" / "report.json"));
  EXPECT_EQ(report["mode"], "score");
  EXPECT_EQ(report["parameters"]["preset"], "robust") << "taken from the model";
  // Issue 10: the beats.csv rows above include the class column, so `score` labels as `run` did.
  EXPECT_EQ(report["classes"], nlohmann::json::parse(testutil::read_text(dir / "t" / "report.json"))["classes"]);
  // --start as run's and analyze's (and the Python package's model.score(start=)): a CSV's clock time.
  const auto timed = run_ecgpipe("-q score '" + sample + "' --model '" + model + "' --device cpu --start 08:50:00 --out '" +
                                     (dir / "c").string() + "'",
                                 dir);
  ASSERT_EQ(timed.code, 0) << timed.err;
  EXPECT_EQ(nlohmann::json::parse(testutil::read_text(dir / "c" / "report.json"))["input"]["start"], "08:50:00");
  const auto bad = run_ecgpipe("-q score '" + sample + "' --model '" + model + "' --start 08:50 --out '" + (dir / "b").string() + "'", dir);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--start '08:50' is not a start the report reads"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "b"));
}

TEST(Cli, ScoreRefusesWhatIsNotAModel) {
  const auto dir = fresh_dir();
  const auto sample = (fs::path(ECGPIPE_SOURCE_DIR) / "data" / "sample.csv").string();
  testutil::write_text(dir / "fake.pt", "heartbeats\n1\n");
  for (const auto& [model, message] : {std::pair<std::string, std::string>{(dir / "fake.pt").string(), "fake.pt: not a safetensors file"},
                                       {(dir / "missing.pt").string(), "cannot open model"}}) {
    const auto r = run_ecgpipe("-q score '" + sample + "' --model '" + model + "' --out '" + (dir / "s").string() + "'", dir);
    EXPECT_EQ(r.code, kInput) << r.err;
    expect_one_line_error(r, message);
    expect_no_outputs(dir / "s");
  }
}

TEST(ModelMeta, RoundTripAndValidation) {
  ecgpipe::RunOptions trained;
  trained.preset = ecgpipe::Preset::robust;
  trained.fs = 360;
  trained.limits.max_length = 368;
  ecgpipe::RunOptions o;
  ecgpipe::apply_model_meta(ecgpipe::model_meta_json(trained), "m.pt", o);
  EXPECT_EQ(o.preset, ecgpipe::Preset::robust);
  EXPECT_EQ(o.fs, 360);
  EXPECT_EQ(o.limits.max_length, 368);
  EXPECT_EQ(o.model_in, "m.pt");
  auto meta = nlohmann::json::parse(ecgpipe::model_meta_json(trained));
  meta["format"] = 2;
  EXPECT_THROW(ecgpipe::apply_model_meta(meta.dump(), "m.pt", o), ecgpipe::InputError) << "a newer format";
  meta["format"] = 1;
  meta.erase("fs");
  EXPECT_THROW(ecgpipe::apply_model_meta(meta.dump(), "m.pt", o), ecgpipe::InputError) << "a missing field";
  EXPECT_THROW(ecgpipe::apply_model_meta("{not json", "m.pt", o), ecgpipe::InputError);
  meta = nlohmann::json::parse(ecgpipe::model_meta_json(trained));
  meta["latent_dim"] = 3;
  EXPECT_THROW(ecgpipe::apply_model_meta(meta.dump(), "m.pt", o), ecgpipe::InputError) << "another model";
}

// Found by tests/fuzz/fuzz_model_meta: an int field written as a float out of int's range (1e300)
// was converted with static_cast (undefined behaviour: INT_MIN on x86, a UBSan report), a
// fraction was dropped and a huge integer wrapped, instead of refusing the damaged record.
TEST(ModelMeta, NonIntegerFieldsAreInputErrors) {
  const std::string good = ecgpipe::model_meta_json(ecgpipe::RunOptions{});
  for (const char* key : {"format", "latent_dim", "ricker_width", "nms_window", "min_length", "max_length"}) {
    for (const nlohmann::json& bad : {nlohmann::json(1e300), nlohmann::json(-1e300), nlohmann::json(2.5),
                                      nlohmann::json(4294967298LL), nlohmann::json(18446744073709551615ULL)}) {
      auto meta = nlohmann::json::parse(good);
      meta[key] = bad;
      ecgpipe::RunOptions o;
      try {
        ecgpipe::apply_model_meta(meta.dump(), "m.pt", o);
        ADD_FAILURE() << key << " = " << bad.dump() << " accepted";
      } catch (const ecgpipe::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("m.pt"), std::string::npos) << e.what();
      }
    }
  }
}

// The bundled sample against the seed's own NumPy segmentation (../shared/peer/seed_cpu.py), when
// the shared folder and python3-numpy are there.
TEST(Cli, BundledSampleMatchesSeedSegmentation) {
  const fs::path seed = fs::path(ECGPIPE_SOURCE_DIR) / ".." / "shared" / "peer" / "seed_cpu.py";
  const fs::path sample = fs::path(ECGPIPE_SOURCE_DIR) / "data" / "sample.csv";
  if (!fs::exists(seed)) GTEST_SKIP() << "no ../shared/peer/seed_cpu.py beside the checkout";
  if (!fs::exists(sample)) GTEST_SKIP() << "no data/sample.csv";
  if (std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) GTEST_SKIP() << "no python3-numpy";
  const auto dir = fresh_dir();
  const std::string cmd = "/usr/bin/python3 '" + seed.string() + "' '" + sample.string() + "' > '" + (dir / "seed.json").string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto expect = nlohmann::json::parse(testutil::read_text(dir / "seed.json"));
  const auto r = run_ecgpipe("run '" + sample.string() + "' --preset seed --device cpu --epochs 1 --out '" + (dir / "o").string() + "'", dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto report = nlohmann::json::parse(testutil::read_text(dir / "o" / "report.json"));
  EXPECT_EQ(report["input"]["samples"], expect["samples"]);
  EXPECT_EQ(report["counts"]["candidates"], expect["candidates"]);
  EXPECT_EQ(report["counts"]["beats"], expect["beats"]);
}

}  // namespace
