// What a run writes (src/pipeline/run_steps.hpp, write_run_outputs): beats.csv, outliers.csv,
// report.json and report.html, all renamed into place together; and run_report_json
// (include/ecgpipe/pipeline/pipeline.hpp).
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sstream>
#include <future>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/step_log.hpp"
#include "common/text.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/model/outlier_score.hpp"
#include "ecgpipe/model/torch_runtime.hpp"
#include "ecgpipe/classify/holter_json.hpp"
#include "ecgpipe/common/error.hpp"
#include "rhythm/hrv_json.hpp"
#include "rhythm/rhythm_json.hpp"
#include "common/json_number.hpp"
#include "common/parallel.hpp"
#include "pipeline/report_from_run.hpp"
#include "ecgpipe/pipeline/plausibility.hpp"
#include "pipeline/run_steps.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "common/time_format.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/report/report.hpp"
#include "ecgpipe/model/vae.hpp"
#include "common/output_set.hpp"
#include "common/json_text.hpp"

namespace ecgpipe {
namespace {

// Seconds of signal at sample `i`.
double seconds_at(std::int64_t i, double fs) { return static_cast<double>(i) / fs; }

// RR intervals (s) between a beat's R peak and its neighbours' in the table; NaN at the ends.
// With the seed preset the table holds kept beats only, so an interval may span a dropped one.
double rr_seconds(const RunOptions& o, const RunResult& r, std::size_t a, std::size_t b) {
  if (a >= r.beats.size() || b >= r.beats.size()) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(r.beats.start[b] - r.beats.start[a]) / o.fs;
}

// beats.csv's numbers go through std::to_chars into one buffer: the same text as the stream's
// setprecision(9) (both are printf's %.9g, floats widened to double first), at a fraction of the
// cost of operator<< (1.6 million numbers for a day's recording; the stream took ~0.4 s).
class CsvRow {
 public:
  explicit CsvRow(std::string& text) : text_(text) {}
  CsvRow& num(double v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
    text_.append(buf, res.ptr);
    return *this;
  }
  CsvRow& num(std::int64_t v) {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    text_.append(buf, res.ptr);
    return *this;
  }
  CsvRow& str(const char* s) {
    text_ += s;
    return *this;
  }
  CsvRow& sep() {
    text_ += ',';
    return *this;
  }

 private:
  std::string& text_;
};

// beats.csv's rows [begin, end) appended to `text`.
void append_beat_rows(std::string& text, const RunOptions& o, const RunResult& r, std::size_t begin, std::size_t end) {
  constexpr std::size_t kBytesPerRow = 160;  // a typical row is ~130 characters
  text.reserve(text.size() + (end - begin) * kBytesPerRow);
  CsvRow row(text);
  for (std::size_t i = begin; i < end; ++i) {
    const std::int64_t r_peak = r.beats.start[i] + r_peak_offset(o.rows());
    row.num(static_cast<std::int64_t>(i)).sep().num(r.beats.start[i]).sep().num(r_peak).sep().num(seconds_at(r_peak, o.fs)).sep();
    row.num(static_cast<std::int64_t>(r.beats.length[i])).sep().num(rr_seconds(o, r, i - 1, i)).sep();
    row.num(rr_seconds(o, r, i, i + 1)).sep();
    if (o.analyze_only) {
      // No model: its columns stay, empty (one layout for every beats.csv; docs/formats.md).
      row.str(",,,,,,");
      for (int k = 0; k < kLatentDim; ++k) row.sep();
    } else {
      row.str(!o.model_in.empty() ? "scored" : r.model.in_train[i] ? "train" : "test").sep();
      row.num(static_cast<double>(r.model.recon_error[i])).sep().num(static_cast<double>(r.model.neg_elbo[i])).sep();
      row.num(static_cast<double>(r.model.template_distance[i])).sep().num(static_cast<double>(r.prematurity[i])).sep();
      row.num(static_cast<double>(r.model.score[i])).sep().num(static_cast<std::int64_t>(r.outlier[i]));
      for (int k = 0; k < kLatentDim; ++k) row.sep().num(static_cast<double>(r.model.latent_mean[i * kLatentDim + static_cast<std::size_t>(k)]));
    }
    row.sep().str(class_name(r.beat_class[i])).sep().str(rhythm_name(r.rhythm[i])).sep();
    row.str(!r.artefact.empty() && r.artefact[i] ? "artefact" : "ok").str("\n");
  }
}

void write_outliers_csv(std::ostream& out, const RunOptions& o, const RunResult& r) {
  out << "rank,index,r_peak,time_s,time,rr_before_s,rr_after_s,recon_error,neg_elbo,template_distance,prematurity,score,outlier,class,rhythm\n"
      << std::setprecision(9);
  const auto ranked = top_scores(r.model.score.data(), r.model.score.size(), static_cast<std::size_t>(o.top_outliers));
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    const std::size_t i = ranked[k];
    const std::int64_t r_peak = r.beats.start[i] + r_peak_offset(o.rows());
    out << k + 1 << ',' << i << ',' << r_peak << ',' << seconds_at(r_peak, o.fs) << ',' << detail::recording_time(seconds_at(r_peak, o.fs)) << ','
        << rr_seconds(o, r, i - 1, i) << ',' << rr_seconds(o, r, i, i + 1) << ',' << r.model.recon_error[i] << ','
        << r.model.neg_elbo[i] << ',' << r.model.template_distance[i] << ',' << r.prematurity[i] << ',' << r.model.score[i] << ','
        << static_cast<int>(r.outlier[i]) << ',' << class_name(r.beat_class[i]) << ',' << rhythm_name(r.rhythm[i]) << '\n';
  }
}

// artefact.csv: the unreadable stretches (signal_quality.hpp), one row each, with the beats in them.
void write_artefact_csv(std::ostream& out, const RunOptions& o, const RunResult& r) {
  out << "start_sample,end_sample,start_s,end_s,beats\n";
  const std::vector<std::int64_t> peaks = kept_r_peaks(o, r.beats);
  char buf[160];
  for (const auto& [a, b] : r.artefact_spans) {
    const auto beats = std::lower_bound(peaks.begin(), peaks.end(), b) - std::lower_bound(peaks.begin(), peaks.end(), a);
    std::snprintf(buf, sizeof buf, "%lld,%lld,%.3f,%.3f,%lld\n", static_cast<long long>(a), static_cast<long long>(b),
                  seconds_at(a, o.fs), seconds_at(b, o.fs), static_cast<long long>(beats));
    out << buf;
  }
}

nlohmann::json report_json(const RunOptions& o, const RunResult& r) {
  using nlohmann::json;
  struct stat st {};
  const auto bytes = ::stat(o.input.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : -1;
  std::size_t n_train = 0;
  for (auto t : r.model.in_train) n_train += t;
  json j;
  j["ecgpipe_version"] = ECGPIPE_VERSION;
  j["input"] = input_json(o.input, o.source, r.samples, o.csv);
  j["input"]["bytes"] = bytes;
  j["warnings"] = r.warnings;
  j["device"] = r.device;
  j["parameters"] = {{"preset", preset_name(o.preset)}, {"model", model_name(o.model)}, {"fs", o.fs}, {"ricker_width", o.ricker_width}, {"nms_window", o.nms_window},
                     {"min_length", o.limits.min_length}, {"max_length", o.limits.max_length},
                     {"row_length", row_length(o.rows())}, {"epochs", o.train.epochs}, {"batch_size", r.model.batch_size},
                     {"seed", o.train.seed}, {"learning_rate", o.train.learning_rate},
                     {"train_fraction", o.train.train_fraction}};
  j["counts"] = {{"candidates", r.candidates}, {"beats", r.beats.size()},
                 {"train", n_train}, {"test", r.beats.size() - n_train}};
  const auto& s = r.seconds;
  j["seconds"] = {{"csv", s.csv}, {"bandpass", s.bandpass}, {"peaks", s.peaks}, {"beats", s.beats},
                  {"classify", s.classify}, {"rhythm", s.rhythm}, {"train", s.train}, {"score", s.score}, {"write", s.write},
                  {"total", s.total}};
  const auto n_class = class_counts(r.beat_class);
  j["classes"] = json::object();
  for (int c = 0; c < kBeatClassCount; ++c) j["classes"][class_name(static_cast<BeatClass>(c))] = n_class[static_cast<std::size_t>(c)];
  j["mode"] = o.analyze_only ? "analyze" : o.model_in.empty() ? "train" : "score";
  if (!o.analyze_only) {
    j["loss"] = {{"train_per_epoch", r.model.epoch_loss}, {"test", r.model.test_loss}};
    // cpu_threads: LibTorch's, null where it was not loaded (trained on the GPU without it).
    j["training"] = {{"cuda_graph", r.model.cuda_graph},
                     {"fused_step", r.model.fused_step},
                     {"libtorch", r.model.libtorch},
                     {"cpu_threads", torch_loaded() ? nlohmann::json(torch_threads()) : nlohmann::json()}};
    if (!o.model_in.empty()) j["model"] = o.model_in;
    std::size_t flagged = 0;
    for (auto f : r.outlier) flagged += f;
    j["outliers"] = {{"score", o.model == Model::rr ? "ln(recon/median) + ln(template/median) + 10 rhythm" : "recon_error"}, {"quantile", o.outlier_quantile}, {"threshold", r.outlier_threshold},
                     {"flagged", flagged}};
  }
  if (r.evaluated) j["evaluation"] = eval_report_json(r.evaluation);
  j["holter"] = holter_json(r.holter);
  j["holter"]["af"] = rhythm_burden_json(r.rhythm_burden);
  j["holter"]["hrv"] = hrv_json(r.hrv);
  // Signal quality: the artefact stretches (signal_quality.hpp) and the time analysed without them.
  std::int64_t artefact_samples = 0;
  json spans = json::array();
  for (const auto& a : r.artefact_spans) {
    artefact_samples += a.second - a.first;
    spans.push_back({{"start_s", rounded(seconds_at(a.first, o.fs), 3)}, {"end_s", rounded(seconds_at(a.second, o.fs), 3)}});
  }
  const double recording_s = static_cast<double>(r.samples) / o.fs;
  j["quality"] = {{"recording_s", rounded(recording_s, 3)},
                  {"artefact_s", rounded(seconds_at(artefact_samples, o.fs), 3)},
                  {"analysed_s", rounded(recording_s - seconds_at(artefact_samples, o.fs), 3)},
                  {"artefact_beats", std::count(r.artefact.begin(), r.artefact.end(), true)},
                  {"artefact", spans}};
  j["versions"] = {{"ecgpipe", ECGPIPE_VERSION}, {"libtorch", torch_version()}};
  return j;
}

}  // namespace

// Pieces of rows formatted on threads, in order, the header first: one thread took 87 ms for 93 k
// beats (13 MB), the largest part of writing a 20 M-sample run's outputs (2026-11-24). Kept as
// pieces for the output set (not joined: 14 days' beats.csv is ~0.3 GB).
std::vector<std::string> beats_csv_pieces(const RunOptions& o, const RunResult& r, int threads) {
  if (r.rhythm.size() != r.beats.size() || r.beat_class.size() != r.beats.size())
    throw InternalError("beats_csv: a class and a rhythm per beat");
  std::string header =
      "index,start,r_peak,time_s,length,rr_before_s,rr_after_s,split,recon_error,neg_elbo,template_distance,"
      "prematurity,score,outlier";
  for (int k = 0; k < kLatentDim; ++k) header += ",latent_mu" + std::to_string(k);
  header += ",class,rhythm,quality\n";
  constexpr std::size_t kRowsPerPiece = 8192;  // ~1 MB of text: a thread's start-up is worth it
  const std::size_t n = r.beats.size(), pieces = (n + kRowsPerPiece - 1) / kRowsPerPiece;
  std::vector<std::string> piece(pieces + 1);
  piece[0] = std::move(header);
  detail::parallel_chunks(pieces, threads, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t p = first; p < last; ++p)
      append_beat_rows(piece[p + 1], o, r, p * kRowsPerPiece, std::min(n, (p + 1) * kRowsPerPiece));
  });
  return piece;
}

std::string beats_csv(const RunOptions& o, const RunResult& r, int threads) {
  std::vector<std::string> pieces = beats_csv_pieces(o, r, threads);
  std::size_t bytes = 0;
  for (const auto& t : pieces) bytes += t.size();
  std::string text;
  text.reserve(bytes);
  for (auto& t : pieces) {
    text += t;
    std::string().swap(t);  // each piece freed once copied
  }
  return text;
}

std::string run_report_json(const RunOptions& o, const RunResult& r) { return json_text(report_json(o, r), 2); }

std::string run_beats_csv(const RunOptions& o, const RunResult& r) { return beats_csv(o, r, cpu_threads()); }

void flag_run_outliers(const RunOptions& o, RunResult& r) {
  if (o.analyze_only) return;
  OutlierFlags flagged = flag_outliers(r.model.score, o.outlier_quantile);
  r.outlier_threshold = flagged.threshold;
  r.outlier = std::move(flagged.flags);
}

void write_run_outputs(const RunOptions& o, RunResult& r, std::vector<float> signal_excerpt,
                       std::vector<double> curvature_excerpt, std::vector<EventStrip> strips,
                       detail::Clock::time_point run_start) {
  const auto t_write = detail::Clock::now();
  // One set, committed whole (output.hpp): the model first, the largest file last.
  OutputSet files(/*create_dirs=*/true);
  const auto path = [&o](const char* name) { return (std::filesystem::path(o.out_dir) / name).string(); };
  detail::StepLog parts("outputs: ", t_write);  // on a long recording, which part grows
  if (o.model_in.empty() && !o.analyze_only) files.bytes(path("model.safetensors"), std::move(r.model.model_file));
  // The parts that take time, at once (one after the other they were 0.15 s of a 24-hour GPU run
  // on an H100, report.html alone 0.06-0.09 s): beats.csv (formatted on threads itself), the WFDB
  // annotations, and report.html's body and its model appendix's figures, which need every result
  // but the timings (the appendix's summary lists them: written last). The figures are 5 times
  // the body's time (0.037 against 0.007 s for a 24-hour run on this project's 2-core machine),
  // so they get a thread of their own. The threads read `r` and `report`; nothing changes either
  // until they are joined.
  ReportData report = report_data_from_run(o, r, r_peak_offset(o.rows()), std::move(signal_excerpt),
                                           std::move(curvature_excerpt), std::move(strips));
  auto beats = std::async(std::launch::async, [&o, &r] { return beats_csv_pieces(o, r, cpu_threads()); });
  auto wfdb = std::async(std::launch::async, [&o, &r] { return wfdb_annotation_files(o, r); });
  auto html_body = std::async(std::launch::async, [&report] {
    std::ostringstream body;
    write_report_html_body(body, report);
    return body.str();
  });
  auto html_figures = std::async(std::launch::async, [&report] { return report_html_appendix_figures(report); });
  files.pieces(path("beats.csv"), beats.get());
  parts.done("beats.csv");
  if (!o.analyze_only) {
    write_outliers_csv(files.text(path("outliers.csv")), o, r);
  } else {
    // An earlier run's scores in this folder rank beats this analysis did not score: they go
    // with the commit. Its model stays (minutes of training; `score` may be pointed at it), said.
    files.remove(path("outliers.csv"));
    if (struct stat st {}; ::stat(path("model.safetensors").c_str(), &st) == 0)
      spdlog::warn("{} is an earlier run's model, not of this analysis (kept)", text::visible(path("model.safetensors")));
  }
  write_rhythm_csv(files.text(path("rhythm.csv")), r.rhythm_episodes, o.fs);
  write_artefact_csv(files.text(path("artefact.csv")), o, r);
  parts.done("outliers.csv, rhythm.csv, artefact.csv");
  for (auto& [name, bytes] : wfdb.get()) files.bytes(path(name.c_str()), std::move(bytes));  // WFDB tools
  parts.done("WFDB annotations");
  std::ostream& json = files.text(path("report.json"));
  r.seconds.write = detail::seconds_since(t_write);
  r.seconds.total = detail::seconds_since(run_start);
  json << json_text(report_json(o, r), 2) << '\n';
  parts.done("report.json");
  std::ostream& html = files.text(path("report.html"));
  html << html_body.get();
  const std::string figures = html_figures.get();
  report.stage_seconds = report_stage_seconds(r.seconds);  // after the two threads that read `report`
  write_report_html_end(html, report, figures);
  parts.done("report.html");
  files.commit();
  parts.done("commit (written, flushed to disk, renamed)");
}

}  // namespace ecgpipe
