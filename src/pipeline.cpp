#include "ecgpipe/pipeline.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <chrono>
#include <optional>
#include <cstdio>
#include <limits>
#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "ecgpipe/bandpass.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/detect.hpp"
#include "ecgpipe/error.hpp"
#include "ecgpipe/peaks.hpp"
#include "ecgpipe/report.hpp"
#include "ecgpipe/wfdb.hpp"
#include "output.hpp"
#include "segment.hpp"

#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/cuda.hpp"
#endif

namespace ecgpipe {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const char* device_name(Device d) { return d == Device::cuda ? "cuda" : "cpu"; }

bool cuda_usable() {
#ifdef ECGPIPE_WITH_CUDA
  return cuda_device_available() && torch_cuda_available();
#else
  return false;
#endif
}


// Seconds of signal at sample `i`, and as h:mm:ss.s for people.
double seconds_at(std::int64_t i, double fs) { return static_cast<double>(i) / fs; }
std::string clock_time(double seconds) {
  constexpr int kSecondsPerHour = 3600, kSecondsPerMinute = 60;
  const auto whole = static_cast<long>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%04.1f", whole / kSecondsPerHour, whole % kSecondsPerHour / kSecondsPerMinute,
                seconds - static_cast<double>(whole - whole % kSecondsPerMinute));
  return buf;
}

// RR intervals (s) between a beat's R peak and its neighbours' in the table; NaN at the ends.
// With the seed preset the table holds kept beats only, so an interval may span a dropped one.
double rr_seconds(const RunOptions& o, const RunResult& r, std::size_t a, std::size_t b) {
  if (a >= r.beats.size() || b >= r.beats.size()) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(r.beats.start[b] - r.beats.start[a]) / o.fs;
}

void write_beats_csv(std::ostream& out, const RunOptions& o, const RunResult& r) {
  out << "index,start,r_peak,time_s,length,rr_before_s,rr_after_s,split,recon_error,neg_elbo,template_distance,"
         "prematurity,score,outlier";
  for (int k = 0; k < kLatentDim; ++k) out << ",latent_mu" << k;
  out << '\n' << std::setprecision(9);
  for (std::size_t i = 0; i < r.beats.size(); ++i) {
    const std::int64_t r_peak = r.beats.start[i] + r_peak_offset(o);
    out << i << ',' << r.beats.start[i] << ',' << r_peak << ',' << seconds_at(r_peak, o.fs) << ',' << r.beats.length[i] << ','
        << rr_seconds(o, r, i - 1, i) << ',' << rr_seconds(o, r, i, i + 1) << ','
        << (!o.model_in.empty() ? "scored" : r.model.in_train[i] ? "train" : "test") << ',' << r.model.recon_error[i] << ',' << r.model.neg_elbo[i] << ','
        << r.model.template_distance[i] << ',' << r.prematurity[i] << ',' << r.model.score[i] << ',' << static_cast<int>(r.outlier[i]);
    for (int k = 0; k < kLatentDim; ++k) out << ',' << r.model.latent_mean[i * kLatentDim + static_cast<std::size_t>(k)];
    out << '\n';
  }
}

void write_outliers_csv(std::ostream& out, const RunOptions& o, const RunResult& r) {
  out << "rank,index,r_peak,time_s,time,rr_before_s,rr_after_s,recon_error,neg_elbo,template_distance,prematurity,score,outlier\n"
      << std::setprecision(9);
  const auto ranked = top_scores(r.model.score.data(), r.model.score.size(), static_cast<std::size_t>(o.top_outliers));
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    const std::size_t i = ranked[k];
    const std::int64_t r_peak = r.beats.start[i] + r_peak_offset(o);
    out << k + 1 << ',' << i << ',' << r_peak << ',' << seconds_at(r_peak, o.fs) << ',' << clock_time(seconds_at(r_peak, o.fs)) << ','
        << rr_seconds(o, r, i - 1, i) << ',' << rr_seconds(o, r, i, i + 1) << ',' << r.model.recon_error[i] << ','
        << r.model.neg_elbo[i] << ',' << r.model.template_distance[i] << ',' << r.prematurity[i] << ',' << r.model.score[i] << ','
        << static_cast<int>(r.outlier[i]) << '\n';
  }
}

// The `quantile` of the beats' scores (linear interpolation between order statistics, as
// numpy.quantile's default) and the per-beat flags above it.
void flag_outliers(const RunOptions& o, RunResult& r) {
  std::vector<float> sorted = r.model.score;
  std::sort(sorted.begin(), sorted.end());
  const double pos = o.outlier_quantile * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  r.outlier_threshold = sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
  r.outlier.resize(r.model.score.size());
  for (std::size_t i = 0; i < r.outlier.size(); ++i) r.outlier[i] = r.model.score[i] > r.outlier_threshold;
}

// Detection accuracy and score AUROCs against the reference (evaluate.hpp, EC57 conventions), and
// each beat's reference class for the report.
void evaluate_run(const RunOptions& o, const ReferenceBeats& ref, const std::vector<std::int64_t>& peaks, RunResult& r) {
  EvalOptions eo;
  eo.fs = o.fs;
  r.evaluation = evaluate_detections(ref, peaks, r.model.score, eo);
  r.evaluation.reference_path = o.reference;
  r.evaluation.detections_path = o.input;
  r.evaluation.score_column = "score";
  r.evaluated = true;
  const MatchResult m = match_beats(ref.samples, peaks, tolerance_samples(eo.tolerance_ms, o.fs));
  r.classes.assign(peaks.size(), '-');
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    const std::int64_t k = m.matched_reference[i];
    if (k >= 0) r.classes[i] = aami_class(ref.symbols[static_cast<std::size_t>(k)]);
  }
  const MatchResult& e = r.evaluation.match;
  spdlog::info("against {}: Se {:.2f} %, +P {:.2f} % (TP {}, FN {}, FP {})", o.reference, 100 * e.sensitivity(),
               100 * e.positive_predictivity(), e.tp, e.fn, e.fp);
  for (const auto& a : r.evaluation.aurocs) {
    spdlog::info("AUROC {} vs N: {:.4f} ({} vs {} beats)", a.positive, a.auroc, a.positives, a.negatives);
  }
}

// Scores that overflowed (a recording whose values are far beyond anything the model saw, e.g.
// 1e20) would make every ranking and threshold meaningless: an input error naming the beats.
void check_finite_scores(const RunOptions& o, const RunResult& r, const std::vector<std::int64_t>& peaks) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = r.model.score.size(); i-- > 0;)
    if (!std::isfinite(r.model.score[i])) {
      ++bad;
      first = i;
    }
  if (bad == 0) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                ": %zu of %zu beats have non-finite scores (first: beat %zu, R peak at sample %lld); the recording's "
                "values are far outside the model's range",
                bad, r.model.score.size(), first, static_cast<long long>(peaks[first]));
  throw InputError(o.input + buf);
}

}  // namespace

// Seed model: the NMS compares the window's centre, and the causal wavelet (taps at the start of
// the kernel) delays the curvature by half its width. rr model: the window's `before`.
std::int64_t r_peak_offset(const RunOptions& o) {
  return o.model == Model::rr ? centred_window(o.fs).before : seed_r_offset(o.nms_window, o.ricker_width);
}

int row_length(const RunOptions& o) { return o.model == Model::rr ? centred_window(o.fs).length : o.limits.max_length; }

std::vector<std::int64_t> seed_r_peaks(const RunOptions& o, const BeatTable& seed_beats) {
  std::vector<std::int64_t> peaks;
  peaks.reserve(seed_beats.size());
  for (const auto start : seed_beats.start) peaks.push_back(start + seed_r_offset(o.nms_window, o.ricker_width));
  return peaks;
}

BeatTable beat_rows(const RunOptions& o, const std::vector<std::int64_t>& r_peaks, std::int64_t samples) {
  if (o.model == Model::rr) return centred_windows(r_peaks, samples, centred_window(o.fs));
  return beat_windows(r_peaks, samples, r_peak_offset(o), o.limits.max_length);
}

nlohmann::json report_json(const RunOptions& o, const RunResult& r) {
  using nlohmann::json;
  struct stat st {};
  const auto bytes = ::stat(o.input.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : -1;
  std::size_t n_train = 0;
  for (auto t : r.model.in_train) n_train += t;
  json j;
  j["ecgpipe_version"] = ECGPIPE_VERSION;
  j["input"] = {{"path", o.input}, {"bytes", bytes}, {"samples", r.samples},
                {"column", o.csv.column}, {"header", o.csv.has_header}};
  j["device"] = r.device;
  j["parameters"] = {{"preset", preset_name(o.preset)}, {"model", model_name(o.model)}, {"fs", o.fs}, {"ricker_width", o.ricker_width}, {"nms_window", o.nms_window},
                     {"min_length", o.limits.min_length}, {"max_length", o.limits.max_length},
                     {"row_length", row_length(o)}, {"epochs", o.train.epochs}, {"batch_size", r.model.batch_size},
                     {"seed", o.train.seed}, {"learning_rate", o.train.learning_rate},
                     {"train_fraction", o.train.train_fraction}};
  j["counts"] = {{"candidates", r.candidates}, {"beats", r.beats.size()},
                 {"train", n_train}, {"test", r.beats.size() - n_train}};
  const auto& s = r.seconds;
  j["seconds"] = {{"csv", s.csv}, {"bandpass", s.bandpass}, {"peaks", s.peaks}, {"beats", s.beats},
                  {"train", s.train}, {"score", s.score}, {"write", s.write}, {"total", s.total}};
  j["loss"] = {{"train_per_epoch", r.model.epoch_loss}, {"test", r.model.test_loss}};
  j["training"] = {{"cuda_graph", r.model.cuda_graph}, {"cpu_threads", cpu_threads()}};
  j["mode"] = o.model_in.empty() ? "train" : "score";
  if (!o.model_in.empty()) j["model"] = o.model_in;
  std::size_t flagged = 0;
  for (auto f : r.outlier) flagged += f;
  j["outliers"] = {{"score", o.model == Model::rr ? "ln(recon/median) + ln(template/median) + 10 prematurity" : "recon_error"}, {"quantile", o.outlier_quantile}, {"threshold", r.outlier_threshold},
                   {"flagged", flagged}};
  if (r.evaluated) j["evaluation"] = eval_report_json(r.evaluation);
  j["versions"] = {{"ecgpipe", ECGPIPE_VERSION}, {"libtorch", torch_version()}};
  return j;
}

// Format of the meta record in model.pt; bump when its meaning changes.
constexpr int kModelFormat = 1;

std::string model_meta_json(const RunOptions& o) {
  nlohmann::json j;
  j["format"] = kModelFormat;
  j["ecgpipe_version"] = ECGPIPE_VERSION;
  j["model"] = "LightVAE";
  j["latent_dim"] = kLatentDim;
  j["preset"] = preset_name(o.preset);
  j["fs"] = o.fs;
  j["ricker_width"] = o.ricker_width;
  j["nms_window"] = o.nms_window;
  j["min_length"] = o.limits.min_length;
  j["max_length"] = o.limits.max_length;
  j["beats"] = model_name(o.model);       // how rows are made and scored (score.hpp)
  j["row_length"] = row_length(o);        // the beat length the model takes
  j["normalisation"] = o.model == Model::rr ? "per-beat median, per-recording median-beat RMS" : "none";
  j["trained_on"] = o.input;
  return j.dump();
}

void apply_model_meta(const std::string& meta_json, const std::string& model_path, RunOptions& o) {
  try {
    const auto j = nlohmann::json::parse(meta_json);
    const int format = j.at("format").get<int>();
    if (format != kModelFormat) {
      throw InputError("model " + model_path + " has format " + std::to_string(format) + " (made by ecgpipe " +
                       j.value("ecgpipe_version", std::string("?")) + "); this ecgpipe reads format " +
                       std::to_string(kModelFormat));
    }
    if (j.at("latent_dim").get<int>() != kLatentDim || j.at("model").get<std::string>() != "LightVAE") {
      throw InputError("model " + model_path + " is not a " + std::to_string(kLatentDim) + "-D LightVAE");
    }
    o.preset = parse_preset(j.at("preset").get<std::string>());
    o.fs = j.at("fs").get<double>();
    o.ricker_width = j.at("ricker_width").get<int>();
    o.nms_window = j.at("nms_window").get<int>();
    o.limits.min_length = j.at("min_length").get<int>();
    o.limits.max_length = j.at("max_length").get<int>();
    // Models written before the rr model existed have no "beats" record: they are seed models.
    o.model = parse_model(j.value("beats", std::string("seed")));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("model " + model_path + " has a damaged ecgpipe record: " + e.what());
  } catch (const UsageError& e) {
    throw InputError("model " + model_path + ": " + e.what());
  }
  o.model_in = model_path;
}

std::string run_report_json(const RunOptions& o, const RunResult& r) { return report_json(o, r).dump(2); }

Segmentation segment_cpu(const RunOptions& o) {
  Segmentation seg;
  auto t0 = Clock::now();
  const std::vector<float> signal = read_signal(o.input, o.csv, o.fs);  // CSV or WFDB record
  seg.samples = signal.size();
  seg.seconds.csv = seconds_since(t0);
  seg.signal_excerpt.assign(signal.begin(), signal.begin() + static_cast<std::ptrdiff_t>(report_excerpt_samples(o.fs, signal.size())));

  t0 = Clock::now();
  const std::vector<double> curvature = bandpass_cpu(signal, o.ricker_width);
  seg.seconds.bandpass = seconds_since(t0);
  seg.curvature_excerpt.assign(curvature.begin(), curvature.begin() + static_cast<std::ptrdiff_t>(report_excerpt_samples(o.fs, curvature.size())));

  t0 = Clock::now();
  const auto samples = static_cast<std::int64_t>(signal.size());
  if (o.preset == Preset::robust) {  // R peaks, then the model's rows around them
    const Detection det = detect_beats_cpu(signal, curvature, DetectOptions{o.fs, o.ricker_width});
    seg.candidates = det.candidates;
    seg.seconds.peaks = seconds_since(t0);
    t0 = Clock::now();
    seg.beats = beat_rows(o, det.r_peaks, samples);
  } else {
    const std::vector<std::int64_t> gates = detect_gates_cpu(curvature, o.nms_window);
    seg.candidates = gates.size();
    seg.seconds.peaks = seconds_since(t0);
    t0 = Clock::now();
    seg.beats = select_beats(gates, o.limits);
    if (o.model == Model::rr) seg.beats = beat_rows(o, seed_r_peaks(o, seg.beats), samples);
  }
  seg.host_matrix = pad_beats_cpu(signal, seg.beats, row_length(o));
  seg.seconds.beats = seconds_since(t0);
  return seg;
}

void validate(const RunOptions& o) {
  validate_fs(o.fs);
  if (o.ricker_width < 2) throw UsageError("--ricker-width must be at least 2 samples");
  if (o.nms_window < kMinNmsWindow) throw UsageError("--nms-window must be at least " + std::to_string(kMinNmsWindow) + " samples");
  if (o.limits.min_length < 1) throw UsageError("--min-length must be at least 1 sample");
  if (o.limits.max_length < o.limits.min_length) throw UsageError("--max-length must not be below --min-length");
  if (o.limits.max_length % kModelLengthMultiple != 0) {
    throw UsageError("--max-length must be a multiple of " + std::to_string(kModelLengthMultiple) +
                     " (the VAE halves it three times)");
  }
  if (o.train.epochs < 1) throw UsageError("--epochs must be at least 1");
  if (o.train.batch_size < 0) throw UsageError("--batch-size must be at least 1 (or 0: automatic)");
  if (!(o.outlier_quantile > 0.0 && o.outlier_quantile < 1.0)) throw UsageError("--outlier-quantile must lie in (0, 1)");
  if (o.top_outliers < 1) throw UsageError("--top must be at least 1");
}

Device parse_device(const std::string& name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "cpu") return Device::cpu;
  if (lower == "cuda" || lower == "gpu") return Device::cuda;
  if (lower == "auto") return Device::automatic;
  throw UsageError("--device must be cpu, cuda or auto, got " + name);
}

Device resolve_device(Device requested) {
  if (requested == Device::cpu) return Device::cpu;
  if (cuda_usable()) return Device::cuda;
  if (requested == Device::cuda) {
#ifdef ECGPIPE_WITH_CUDA
    throw DeviceError("--device cuda: no usable CUDA device, or LibTorch was built without CUDA");
#else
    throw DeviceError("--device cuda: this ecgpipe was built without CUDA");
#endif
  }
  return Device::cpu;
}

RunResult run_pipeline(const RunOptions& o) {
  validate(o);
  const auto t_all = Clock::now();
  // Read first: a bad reference file fails the run before any work.
  std::optional<ReferenceBeats> reference;
  if (!o.reference.empty()) reference = read_reference(o.reference);
  const Device device = resolve_device(o.device);
  check_output_dir(o.out_dir);  // now, not after minutes of training; created at the commit
  spdlog::info("reading {} on {}", o.input, device_name(device));

  Segmentation seg;
  BeatMatrix matrix;
#ifdef ECGPIPE_WITH_CUDA
  std::shared_ptr<CudaContext> cuda;  // outlives training: LibTorch runs on its stream
  if (device == Device::cuda) {
    cuda = make_cuda_context();
    seg = segment_cuda(o, *cuda);
    matrix.data = seg.device_matrix;
    matrix.on_cuda = true;
    matrix.release = seg.release;
    matrix.cuda_stream = seg.stream;
  }
#endif
  if (device == Device::cpu) {
    seg = segment_cpu(o);
    matrix.data = seg.host_matrix.data();
  }
  matrix.rows = static_cast<std::int64_t>(seg.beats.size());
  matrix.cols = row_length(o);
  matrix.normalise = o.model == Model::rr;
  spdlog::info("{} samples, {} gates, {} beats of {}..{} samples", seg.samples, seg.candidates, seg.beats.size(),
               o.limits.min_length, o.limits.max_length);

  RunResult r;
  r.device = device_name(device);
  r.samples = seg.samples;
  r.candidates = seg.candidates;
  r.beats = std::move(seg.beats);
  r.seconds = seg.seconds;

  // The rhythm term over the compact R-peak list (host), then the model's score (score.hpp).
  std::vector<std::int64_t> peaks(r.beats.start);
  for (auto& p : peaks) p += r_peak_offset(o);
  r.prematurity = prematurity(peaks);
  ScoreFunction score;
  if (o.model == Model::rr) {
    score = [&r](const TrainResult& t) { return score_rr(t.recon_error, t.template_distance, r.prematurity); };
  }
  const bool training = o.model_in.empty();
  if (training) {
    r.model = train_and_score(std::move(matrix), o.train, /*model_path=*/"", model_meta_json(o), score);
  } else {
    r.model = score_with_model(std::move(matrix), o.model_in, score);
  }
  r.seconds.train = r.model.train_seconds;
  if (device == Device::cuda) {
    spdlog::debug("training steps {} a captured CUDA graph", r.model.cuda_graph ? "replayed" : "did not use");
  }
  r.seconds.score = r.model.score_seconds;
  check_finite_scores(o, r, peaks);

  if (reference) evaluate_run(o, *reference, peaks, r);

  const auto t_write = Clock::now();
  flag_outliers(o, r);
  // One set, committed whole (output.hpp): the model first, the largest file last.
  OutputSet files(/*create_dirs=*/true);
  const auto path = [&o](const char* name) { return (std::filesystem::path(o.out_dir) / name).string(); };
  if (training) files.bytes(path("model.pt"), std::move(r.model.model_file));
  write_beats_csv(files.text(path("beats.csv")), o, r);
  write_outliers_csv(files.text(path("outliers.csv")), o, r);
  std::ostream& report = files.text(path("report.json"));
  r.seconds.write = seconds_since(t_write);
  r.seconds.total = seconds_since(t_all);
  report << report_json(o, r).dump(2) << '\n';
  write_report_html(files.text(path("report.html")),
                    report_data_from_run(o, r, r_peak_offset(o), std::move(seg.signal_excerpt), std::move(seg.curvature_excerpt)));
  files.commit();
  return r;
}

}  // namespace ecgpipe
