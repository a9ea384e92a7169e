// A finished run as WFDB annotations (src/pipeline/run_steps.hpp, run_annotations) and the files
// write_run_outputs writes for WFDB tools, <record>.ecgpipe and <record>.hea (docs/formats.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "common/spans.hpp"
#include "ecgpipe/classify/classify.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/io/wfdb_annotation_write.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "pipeline/run_steps.hpp"

namespace ecgpipe {
namespace {

// WFDB's ecgcodes.h.
constexpr int kNormal = 1, kPvc = 5, kFusion = 6, kAtrialPremature = 8, kUnclassifiable = 13;
constexpr int kNoise = 14, kRhythm = 28;
// The noise annotation's subtype: -1 all signals unreadable from here on, 0 all clean again
// (bxb reads the pair as a shutdown interval: bits 4 and 5 set, then not).
constexpr int kUnreadable = -1, kClean = 0;

// The WFDB code of an AAMI class: the class's own letter where WFDB has it, S as 'A' (atrial
// premature beat, the commonest S symbol, as MIT-BIH's reference uses it).
int beat_code(BeatClass c) {
  switch (c) {
    case BeatClass::N: return kNormal;
    case BeatClass::S: return kAtrialPremature;
    case BeatClass::V: return kPvc;
    case BeatClass::F: return kFusion;
    case BeatClass::Q: return kUnclassifiable;
  }
  throw InternalError("run_annotations: beat class " + std::to_string(static_cast<int>(c)));
}

Annotation annotation(std::int64_t sample, int code, int subtype = 0, std::string aux = {}) {
  Annotation a;
  a.sample = sample;
  a.code = code;
  a.symbol = annotation_symbol(code);
  a.subtype = subtype;
  a.aux = std::move(aux);
  return a;
}

// The artefact spans sorted, overlapping and touching ones joined: a noise annotation pair per
// stretch of unreadable signal. An empty or reversed span is a bug of whoever made it.
std::vector<std::pair<std::int64_t, std::int64_t>> joined_spans(std::vector<std::pair<std::int64_t, std::int64_t>> spans) {
  for (const auto& [start, end] : spans)
    if (start < 0 || end <= start)
      throw InternalError("run_annotations: artefact span [" + std::to_string(start) + ", " + std::to_string(end) + ")");
  return merged_spans(std::move(spans));
}

}  // namespace

std::string wfdb_record_name(const std::string& input) {
  std::string name = input == "-" ? std::string() : std::filesystem::path(input).stem().string();
  for (char& c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) c = '_';
  }
  return name.empty() ? "record" : name;
}

std::vector<Annotation> run_annotations(const RunOptions& o, const RunResult& r) {
  if (r.beat_class.size() != r.beats.size() || r.rhythm.size() != r.beats.size())
    throw InternalError("run_annotations: a class and a rhythm per beat");
  const std::vector<std::int64_t> peaks = kept_r_peaks(o, r.beats);
  // At one sample the noise and rhythm annotations come before the beat: the state the beat is in
  // is set before it, as a reader walking the file meets it.
  enum Rank { noise = 0, rhythm = 1, beat = 2 };
  std::vector<std::pair<Rank, Annotation>> all;
  all.reserve(peaks.size() + 8);
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    if (i == 0 || r.rhythm[i] != r.rhythm[i - 1])
      all.emplace_back(rhythm, annotation(peaks[i], kRhythm, 0, std::string("(") + rhythm_name(r.rhythm[i])));
    all.emplace_back(beat, annotation(peaks[i], beat_code(r.beat_class[i])));
  }
  for (const auto& [start, end] : joined_spans(r.artefact_spans)) {
    all.emplace_back(noise, annotation(start, kNoise, kUnreadable));
    all.emplace_back(noise, annotation(end, kNoise, kClean));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second.sample != b.second.sample ? a.second.sample < b.second.sample : a.first < b.first;
  });
  std::vector<Annotation> out;
  out.reserve(all.size());
  for (auto& a : all) out.push_back(std::move(a.second));
  return out;
}

// WFDB's rdann takes the rate from the record's header and bxb its 150-ms match window; without a
// header both fall back to 250 Hz (rdann with "can't open header"), so times and matching are
// wrong for any other rate. A CSV or EDF input has no WFDB header: this one, without signals,
// gives the rate and the length (wfdb-python's rdann reads it too, Annotation.fs).
std::vector<std::pair<std::string, std::string>> wfdb_annotation_files(const RunOptions& o, const RunResult& r) {
  const std::string record = wfdb_record_name(o.input);
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back(record + ".ecgpipe", wfdb_annotation_bytes(run_annotations(o, r)));

  // A header already there that is not one of ours, with signals or unreadable, may be the record's
  // own (--out being the record's folder): replacing it would lose the signals' description.
  const std::string hea = record + ".hea";
  const std::string existing = (std::filesystem::path(o.out_dir) / hea).string();
  std::error_code ec;
  if (std::filesystem::exists(existing, ec)) {
    bool ours = false;
    try {
      ours = read_wfdb_header(existing).signals.empty();
    } catch (const InputError&) {
    }
    if (!ours) {
      spdlog::info("{} is a record's header: kept, not replaced by one without signals", existing);
      return files;
    }
  }
  char fs[64];
  // Fixed notation, the shortest that reads back: wfdb-python's header pattern has no exponent.
  const auto res = std::to_chars(fs, fs + sizeof fs, o.fs, std::chars_format::fixed);
  if (res.ec != std::errc()) throw InternalError("wfdb_annotation_files: rate " + std::to_string(o.fs));
  files.emplace_back(hea, record + " 0 " + std::string(fs, res.ptr) + " " + std::to_string(r.samples) +
                              "\n# ecgpipe: the rate and length for " + record + ".ecgpipe; no signals\n");
  return files;
}

}  // namespace ecgpipe
