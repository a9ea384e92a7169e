// Beat matching, AUROC and AAMI classes: see include/ecgpipe/evaluate.hpp.
#include "ecgpipe/evaluate.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <string_view>

#include "ecgpipe/error.hpp"

namespace ecgpipe {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMsPerSecond = 1000.0;

double ratio(std::int64_t num, std::int64_t den) {
  return den > 0 ? static_cast<double>(num) / static_cast<double>(den) : kNaN;
}

// Indices of `v` sorted by (value, index).
std::vector<std::size_t> sorted_order(const std::vector<std::int64_t>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  return order;
}

// Lexicographic DP score: more matches first, then less total distance.
struct Score {
  std::int64_t matches = 0;
  std::int64_t cost = 0;
  bool better_than(const Score& o) const {
    return matches != o.matches ? matches > o.matches : cost < o.cost;
  }
};

enum Step : std::uint8_t { kSkipReference, kSkipDetection, kPair };

// Matches the sorted values r[0..a) and d[0..b) (one cluster); writes pairs into `pairs` as
// (position in r, position in d).
void match_cluster(const std::int64_t* r, std::size_t a, const std::int64_t* d, std::size_t b,
                   std::int64_t tol, std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  if (a == 0 || b == 0) return;
  const std::size_t width = b + 1;
  if ((a + 1) > kMaxMatchDpCells / width) {
    // Too large for the table: greedy earliest-free detection, which maximizes TP.
    std::size_t p = 0;
    for (std::size_t i = 0; i < a && p < b; ++i) {
      while (p < b && d[p] < r[i] - tol) ++p;
      if (p < b && d[p] <= r[i] + tol) pairs.emplace_back(i, p++);
    }
    return;
  }
  std::vector<Score> f((a + 1) * width);
  std::vector<std::uint8_t> step((a + 1) * width, kSkipReference);
  for (std::size_t j = 1; j <= b; ++j) step[j] = kSkipDetection;
  for (std::size_t i = 1; i <= a; ++i) {
    for (std::size_t j = 1; j <= b; ++j) {
      Score best = f[(i - 1) * width + j];
      std::uint8_t how = kSkipReference;
      const Score& left = f[i * width + j - 1];
      if (left.better_than(best)) {
        best = left;
        how = kSkipDetection;
      }
      const std::int64_t dist = std::abs(r[i - 1] - d[j - 1]);
      if (dist <= tol) {
        const Score& diag = f[(i - 1) * width + j - 1];
        const Score paired{diag.matches + 1, diag.cost + dist};
        if (paired.better_than(best)) {
          best = paired;
          how = kPair;
        }
      }
      f[i * width + j] = best;
      step[i * width + j] = how;
    }
  }
  for (std::size_t i = a, j = b; i > 0 && j > 0;) {
    switch (step[i * width + j]) {
      case kPair:
        pairs.emplace_back(i - 1, j - 1);
        --i;
        --j;
        break;
      case kSkipReference:
        --i;
        break;
      default:
        --j;
        break;
    }
  }
}

// --- CSV helpers for the two small files eval reads.
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits on ',' honouring double quotes ("a,b" and "" for a quote), trims unquoted fields.
std::vector<std::string> split_fields(std::string_view line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"' && trim(cur).empty()) {
      quoted = was_quoted = true;
      cur.clear();
    } else if (c == ',') {
      fields.push_back(was_quoted ? cur : std::string(trim(cur)));
      cur.clear();
      was_quoted = false;
    } else {
      cur += c;
    }
  }
  fields.push_back(was_quoted ? cur : std::string(trim(cur)));
  return fields;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Larger sample numbers are refused: a day at 100 kHz is 8.6e9 samples, and the matcher adds
// tolerances to them (9223372036854775807 overflowed there).
constexpr std::int64_t kMaxSampleIndex = std::int64_t{1} << 53;

// A non-negative integer up to kMaxSampleIndex, optionally written with a zero fraction ("123",
// "123.0").
bool parse_sample(std::string_view s, std::int64_t& out) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr == s.data() || v < 0 || v > kMaxSampleIndex) return false;
  std::string_view rest(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr));
  if (!rest.empty()) {
    if (rest.front() != '.') return false;
    rest.remove_prefix(1);
    if (!std::all_of(rest.begin(), rest.end(), [](char c) { return c == '0'; })) return false;
  }
  out = v;
  return true;
}

// Reads non-blank lines; the first is the header. Calls row(fields, line_number) per data row.
template <typename Row>
std::vector<std::string> read_csv(const std::string& path, Row&& row_of) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open " + path);
  std::string line;
  std::vector<std::string> header;
  bool have_header = false;
  std::size_t line_no = 0;
  std::size_t index = 0;  // of the chosen column, set after the header
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF
    if (trim(line).empty()) continue;
    if (!have_header) {
      header = split_fields(line);
      for (auto& h : header) h = lower(h);
      have_header = true;
      index = row_of.header(header);
      continue;
    }
    row_of.row(split_fields(line), line_no, index);
  }
  if (in.bad()) throw InputError("cannot read " + path);
  if (!have_header) throw InputError(path + ": empty file (no header)");
  return header;
}

std::string cell_error(const std::string& path, std::size_t line, const std::string& what) {
  return path + ":" + std::to_string(line) + ": " + what;
}

constexpr std::array<char, 5> kAamiClasses{'N', 'S', 'V', 'F', 'Q'};

}  // namespace

double MatchResult::sensitivity() const { return ratio(tp, tp + fn); }
double MatchResult::positive_predictivity() const { return ratio(tp, tp + fp); }
double MatchResult::f1() const { return ratio(2 * tp, 2 * tp + fp + fn); }

MatchResult match_beats(const std::vector<std::int64_t>& reference,
                        const std::vector<std::int64_t>& detections, std::int64_t tol) {
  if (tol < 0) throw InternalError("match_beats: negative tolerance");
  MatchResult m;
  m.matched_detection.assign(reference.size(), -1);
  m.matched_reference.assign(detections.size(), -1);
  const auto r_order = sorted_order(reference);
  const auto d_order = sorted_order(detections);
  std::vector<std::int64_t> r(reference.size()), d(detections.size());
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = reference[r_order[i]];
  for (std::size_t j = 0; j < d.size(); ++j) d[j] = detections[d_order[j]];

  // Clusters: maximal runs of the merged sorted events with gaps <= tol.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::size_t i = 0, j = 0;
  while (i < r.size() || j < d.size()) {
    const std::size_t i0 = i, j0 = j;
    std::int64_t last = 0;
    bool first = true;
    while (i < r.size() || j < d.size()) {
      const bool take_ref = j >= d.size() || (i < r.size() && r[i] <= d[j]);
      const std::int64_t t = take_ref ? r[i] : d[j];
      if (!first && t - last > tol) break;
      first = false;
      last = t;
      take_ref ? ++i : ++j;
    }
    const std::size_t before = pairs.size();
    match_cluster(r.data() + i0, i - i0, d.data() + j0, j - j0, tol, pairs);
    for (std::size_t k = before; k < pairs.size(); ++k) {
      pairs[k].first += i0;
      pairs[k].second += j0;
    }
  }
  for (const auto& [ri, dj] : pairs) {
    m.matched_detection[r_order[ri]] = static_cast<std::int64_t>(d_order[dj]);
    m.matched_reference[d_order[dj]] = static_cast<std::int64_t>(r_order[ri]);
  }
  m.tp = static_cast<std::int64_t>(pairs.size());
  m.fn = static_cast<std::int64_t>(reference.size()) - m.tp;
  m.fp = static_cast<std::int64_t>(detections.size()) - m.tp;
  return m;
}

std::int64_t tolerance_samples(double tolerance_ms, double fs) {
  // Slack far below one sample, far above double rounding of ms * fs / 1000.
  constexpr double kRoundingSlack = 1e-6;
  if (!std::isfinite(tolerance_ms) || tolerance_ms < 0.0)
    throw UsageError("--tolerance-ms must be a non-negative number");
  if (!std::isfinite(fs) || fs <= 0.0) throw UsageError("--fs must be positive");
  return static_cast<std::int64_t>(std::floor(tolerance_ms * fs / kMsPerSecond + kRoundingSlack));
}

double auroc(const std::vector<float>& scores, const std::vector<int>& labels) {
  if (scores.size() != labels.size()) throw InternalError("auroc: scores and labels differ in size");
  for (float s : scores)
    if (std::isnan(s)) throw InternalError("auroc: NaN score");
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  double positive_rank_sum = 0.0;
  std::size_t positives = 0;
  for (std::size_t lo = 0; lo < order.size();) {
    std::size_t hi = lo;
    while (hi < order.size() && scores[order[hi]] == scores[order[lo]]) ++hi;
    // 1-based ranks lo+1 .. hi share their average.
    const double avg_rank = 0.5 * static_cast<double>(lo + 1 + hi);
    for (std::size_t k = lo; k < hi; ++k) {
      if (labels[order[k]] != 0) {
        positive_rank_sum += avg_rank;
        ++positives;
      }
    }
    lo = hi;
  }
  const std::size_t negatives = scores.size() - positives;
  if (positives == 0 || negatives == 0) return kNaN;
  const double p = static_cast<double>(positives);
  const double u = positive_rank_sum - p * (p + 1.0) / 2.0;
  return u / (p * static_cast<double>(negatives));
}

char aami_class(char symbol) {
  switch (symbol) {
    case 'N': case 'L': case 'R': case 'e': case 'j':
      return 'N';
    case 'A': case 'a': case 'J': case 'S':
      return 'S';
    case 'V': case 'E':
      return 'V';
    case 'F':
      return 'F';
    case '/': case 'f': case 'Q':
      return 'Q';
    default:
      return 0;
  }
}

ReferenceBeats read_reference_csv(const std::string& path) {
  struct Reader {
    const std::string& path;
    ReferenceBeats out;
    std::size_t symbol_index = 0;
    std::size_t header(const std::vector<std::string>& h) {
      const auto s = std::find(h.begin(), h.end(), "sample");
      const auto y = std::find(h.begin(), h.end(), "symbol");
      if (s == h.end() || y == h.end())
        throw InputError(path + ": the reference needs columns 'sample' and 'symbol'");
      symbol_index = static_cast<std::size_t>(y - h.begin());
      return static_cast<std::size_t>(s - h.begin());
    }
    void row(const std::vector<std::string>& f, std::size_t line, std::size_t sample_index) {
      if (f.size() <= std::max(sample_index, symbol_index))
        throw InputError(cell_error(path, line, "too few fields"));
      const std::string& sym = f[symbol_index];
      if (sym.size() != 1 || !is_beat_symbol(sym[0])) {
        ++out.skipped_non_beats;
        return;
      }
      std::int64_t v = 0;
      if (!parse_sample(f[sample_index], v))
        throw InputError(cell_error(path, line, "'" + f[sample_index] + "' is not a sample index"));
      out.samples.push_back(v);
      out.symbols.push_back(sym[0]);
    }
  } reader{path, {}};
  read_csv(path, reader);
  return std::move(reader.out);
}

std::vector<std::int64_t> read_detections_csv(const std::string& path) {
  struct Reader {
    const std::string& path;
    std::vector<std::int64_t> out;
    std::size_t header(const std::vector<std::string>& h) {
      for (const char* name : {"r_peak", "sample"}) {
        const auto it = std::find(h.begin(), h.end(), name);
        if (it != h.end()) return static_cast<std::size_t>(it - h.begin());
      }
      return 0;
    }
    void row(const std::vector<std::string>& f, std::size_t line, std::size_t index) {
      if (f.size() <= index) throw InputError(cell_error(path, line, "too few fields"));
      std::int64_t v = 0;
      if (!parse_sample(f[index], v))
        throw InputError(cell_error(path, line, "'" + f[index] + "' is not a sample index"));
      out.push_back(v);
    }
  } reader{path, {}};
  read_csv(path, reader);
  return std::move(reader.out);
}

std::vector<ClassCounts> per_class_counts(const ReferenceBeats& reference, const MatchResult& match) {
  std::vector<ClassCounts> out;
  for (char c : kAamiClasses) out.push_back(ClassCounts{c, 0, 0});
  for (std::size_t i = 0; i < reference.symbols.size(); ++i) {
    const char c = aami_class(reference.symbols[i]);
    const auto it = std::find(kAamiClasses.begin(), kAamiClasses.end(), c);
    if (it == kAamiClasses.end()) continue;
    ClassCounts& cc = out[static_cast<std::size_t>(it - kAamiClasses.begin())];
    ++cc.reference;
    if (i < match.matched_detection.size() && match.matched_detection[i] >= 0) ++cc.detected;
  }
  return out;
}

std::vector<Episode> vf_episodes(const std::vector<Annotation>& annotations) {
  constexpr std::string_view kVfRhythm = "(VF";  // "(VFL": ventricular flutter; "(VF" in other databases
  std::vector<Episode> out;
  bool in_vf = false;
  for (const Annotation& a : annotations) {
    const bool rhythm = a.symbol == '+' && !a.aux.empty();
    const bool vf_rhythm = rhythm && std::string_view(a.aux).substr(0, kVfRhythm.size()) == kVfRhythm;
    if (!in_vf && (a.symbol == '[' || vf_rhythm)) {
      out.push_back(Episode{a.sample, kEpisodeToEnd});
      in_vf = true;
    } else if (in_vf && (a.symbol == ']' || (rhythm && !vf_rhythm))) {
      out.back().end = a.sample;
      in_vf = false;
    }
  }
  return out;
}

ReferenceBeats reference_from_annotations(const std::vector<Annotation>& annotations) {
  ReferenceBeats ref;
  ref.has_rhythm = true;
  for (const Annotation& a : annotations) {
    if (!is_beat_symbol(a.symbol)) {
      ++ref.skipped_non_beats;
      continue;
    }
    ref.samples.push_back(a.sample);
    ref.symbols.push_back(a.symbol);
  }
  ref.vf_episodes = vf_episodes(annotations);
  return ref;
}

ReferenceBeats read_reference(const std::string& path) {
  if (lower(std::filesystem::path(path).extension().string()) == ".atr")
    return reference_from_annotations(read_wfdb_annotations(path));
  return read_reference_csv(path);
}

Detections read_detections_with_scores(const std::string& path, const std::string& score_column) {
  struct Reader {
    const std::string& path;
    const std::string& wanted;
    Detections out;
    std::size_t score_index = 0;
    bool has_score = false;
    std::size_t header(const std::vector<std::string>& h) {
      const auto find = [&](const std::string& name) { return std::find(h.begin(), h.end(), lower(name)); };
      if (!wanted.empty()) {
        const auto it = find(wanted);
        if (it == h.end()) throw InputError(path + ": no score column '" + wanted + "' in the header");
        score_index = static_cast<std::size_t>(it - h.begin());
        has_score = true;
        out.score_column = *it;
      } else {
        for (const char* name : {"score", "recon_error"}) {  // default choice: see the header
          const auto it = find(name);
          if (it == h.end()) continue;
          score_index = static_cast<std::size_t>(it - h.begin());
          has_score = true;
          out.score_column = name;
          break;
        }
      }
      for (const char* name : {"r_peak", "sample"}) {
        const auto it = find(name);
        if (it != h.end()) return static_cast<std::size_t>(it - h.begin());
      }
      return 0;
    }
    void row(const std::vector<std::string>& f, std::size_t line, std::size_t index) {
      if (f.size() <= index || (has_score && f.size() <= score_index))
        throw InputError(cell_error(path, line, "too few fields"));
      std::int64_t v = 0;
      if (!parse_sample(f[index], v))
        throw InputError(cell_error(path, line, "'" + f[index] + "' is not a sample index"));
      out.r_peaks.push_back(v);
      if (!has_score) return;
      const std::string cell(trim(f[score_index]));
      char* end = nullptr;
      const double score = cell.empty() ? kNaN : std::strtod(cell.c_str(), &end);
      if (cell.empty() || end != cell.c_str() + cell.size() || !std::isfinite(score))
        throw InputError(cell_error(path, line, "score '" + f[score_index] + "' is not a finite number"));
      out.scores.push_back(static_cast<float>(score));
    }
  } reader{path, score_column, {}};
  read_csv(path, reader);
  return std::move(reader.out);
}

namespace {

bool in_any(const std::vector<Episode>& episodes, std::int64_t t) {
  return std::any_of(episodes.begin(), episodes.end(), [t](const Episode& e) { return t >= e.start && t < e.end; });
}

// AUROC of `scores` for matched beats of class `positive` (0: all of S V F Q) against matched N.
AurocResult auroc_for(const ReferenceBeats& ref, const MatchResult& m, const std::vector<float>& scores,
                      char positive) {
  AurocResult r;
  r.positive = positive == 0 ? "abnormal" : std::string(1, positive);
  std::vector<float> s;
  std::vector<int> labels;
  for (std::size_t i = 0; i < ref.symbols.size(); ++i) {
    const std::int64_t d = m.matched_detection[i];
    if (d < 0) continue;
    const char c = aami_class(ref.symbols[i]);
    const bool pos = positive == 0 ? c != 'N' : c == positive;
    if (c != 'N' && !pos) continue;
    s.push_back(scores[static_cast<std::size_t>(d)]);
    labels.push_back(pos ? 1 : 0);
    ++(pos ? r.positives : r.negatives);
  }
  r.auroc = auroc(s, labels);
  return r;
}

}  // namespace

EvalReport evaluate_detections(const ReferenceBeats& reference, const std::vector<std::int64_t>& r_peaks,
                               const std::vector<float>& scores, const EvalOptions& o) {
  if (!scores.empty() && scores.size() != r_peaks.size())
    throw InternalError("evaluate_detections: " + std::to_string(scores.size()) + " scores for " +
                        std::to_string(r_peaks.size()) + " detections");
  EvalReport rep;
  rep.fs = o.fs;
  rep.tolerance_ms = o.tolerance_ms;
  rep.tolerance_samples = tolerance_samples(o.tolerance_ms, o.fs);
  rep.skipped_non_beats = reference.skipped_non_beats;
  rep.vf_exclusion = o.vf_exclusion;
  rep.reference_has_rhythm = reference.has_rhythm;

  // EC57 / bxb: no beat-by-beat comparison inside VF episodes, for either side.
  const std::vector<Episode> none;
  const std::vector<Episode>& episodes = o.vf_exclusion ? reference.vf_episodes : none;
  ReferenceBeats ref;
  ref.skipped_non_beats = reference.skipped_non_beats;
  std::int64_t last = 0;  // the last event, where an episode "to the end" stops for its duration
  for (std::size_t i = 0; i < reference.samples.size(); ++i) {
    last = std::max(last, reference.samples[i] + 1);
    if (in_any(episodes, reference.samples[i])) {
      ++rep.excluded_reference_beats;
      continue;
    }
    ref.samples.push_back(reference.samples[i]);
    ref.symbols.push_back(reference.symbols[i]);
  }
  std::vector<std::int64_t> det;
  std::vector<float> det_scores;
  for (std::size_t j = 0; j < r_peaks.size(); ++j) {
    last = std::max(last, r_peaks[j] + 1);
    if (in_any(episodes, r_peaks[j])) {
      ++rep.excluded_detections;
      continue;
    }
    det.push_back(r_peaks[j]);
    if (!scores.empty()) det_scores.push_back(scores[j]);
  }
  for (Episode e : episodes) {
    rep.excluded_episodes.push_back(e);
    const std::int64_t end = e.end == kEpisodeToEnd ? std::max(last, e.start) : e.end;
    rep.excluded_seconds += static_cast<double>(end - e.start) / o.fs;
  }

  rep.match = match_beats(ref.samples, det, rep.tolerance_samples);
  rep.classes = per_class_counts(ref, rep.match);
  if (!scores.empty()) {
    for (float v : det_scores)
      if (!std::isfinite(v)) throw InputError("evaluate_detections: a detection's score is not finite");
    rep.aurocs.push_back(auroc_for(ref, rep.match, det_scores, 0));
    for (char c : kAamiClasses)
      if (c != 'N') rep.aurocs.push_back(auroc_for(ref, rep.match, det_scores, c));
  }
  return rep;
}

EvalReport evaluate_files(const std::string& reference_path, const std::string& detections_path,
                          const EvalOptions& options, const std::string& score_column) {
  tolerance_samples(options.tolerance_ms, options.fs);  // option errors before reading files
  const ReferenceBeats ref = read_reference(reference_path);
  const Detections det = read_detections_with_scores(detections_path, score_column);
  EvalReport rep = evaluate_detections(ref, det.r_peaks, det.scores, options);
  rep.reference_path = reference_path;
  rep.detections_path = detections_path;
  rep.score_column = det.score_column;
  return rep;
}

std::string eval_report_text(const EvalReport& r) {
  constexpr double kPercent = 100.0;
  const auto pct = [](double v) {
    if (std::isnan(v)) return std::string("n/a");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", kPercent * v);
    return std::string(buf);
  };
  const MatchResult& m = r.match;
  char buf[512];
  std::string out;
  std::snprintf(buf, sizeof buf, "reference:  %s (%lld beats, %zu non-beat annotations skipped)\n",
                r.reference_path.c_str(), static_cast<long long>(m.tp + m.fn), r.skipped_non_beats);
  out += buf;
  std::snprintf(buf, sizeof buf, "detections: %s (%lld)\n", r.detections_path.c_str(),
                static_cast<long long>(m.tp + m.fp));
  out += buf;
  std::snprintf(buf, sizeof buf, "tolerance:  %g ms = %lld samples at %g Hz\n", r.tolerance_ms,
                static_cast<long long>(r.tolerance_samples), r.fs);
  out += buf;
  if (!r.vf_exclusion) {
    out += "VF episodes: not excluded (--no-vf-exclusion)\n";
  } else if (!r.reference_has_rhythm) {
    out += "VF episodes: not excluded (a sample,symbol CSV reference has no rhythm annotations; use the .atr)\n";
  } else {
    std::snprintf(buf, sizeof buf,
                  "VF episodes: %zu excluded (%.1f s): %lld reference beats and %lld detections not counted\n",
                  r.excluded_episodes.size(), r.excluded_seconds, static_cast<long long>(r.excluded_reference_beats),
                  static_cast<long long>(r.excluded_detections));
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "TP %lld  FN %lld  FP %lld\n", static_cast<long long>(m.tp),
                static_cast<long long>(m.fn), static_cast<long long>(m.fp));
  out += buf;
  out += "Se " + pct(m.sensitivity()) + "  +P " + pct(m.positive_predictivity()) + "  F1 " +
         pct(m.f1()) + "\n";
  for (const ClassCounts& c : r.classes) {
    if (c.reference == 0) continue;
    std::snprintf(buf, sizeof buf, "class %c: %lld of %lld detected (Se %s)\n", c.aami,
                  static_cast<long long>(c.detected), static_cast<long long>(c.reference),
                  pct(ratio(c.detected, c.reference)).c_str());
    out += buf;
  }
  if (r.aurocs.empty()) {
    out += "AUROC: n/a (no score column in the detections)\n";
  } else {
    for (const AurocResult& a : r.aurocs) {
      const std::string value = std::isnan(a.auroc) ? std::string("n/a") : [&] {
        char v[32];
        std::snprintf(v, sizeof v, "%.4f", a.auroc);
        return std::string(v);
      }();
      std::snprintf(buf, sizeof buf, "AUROC of %s, %s vs N: %s (%lld vs %lld matched beats)\n",
                    r.score_column.empty() ? "the score" : r.score_column.c_str(), a.positive.c_str(), value.c_str(),
                    static_cast<long long>(a.positives), static_cast<long long>(a.negatives));
      out += buf;
    }
  }
  return out;
}

nlohmann::json eval_report_json(const EvalReport& r) {
  const auto num = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  const MatchResult& m = r.match;
  nlohmann::json classes = nlohmann::json::object();
  for (const ClassCounts& c : r.classes)
    classes[std::string(1, c.aami)] = {{"reference", c.reference},
                                       {"detected", c.detected},
                                       {"se", num(ratio(c.detected, c.reference))}};
  nlohmann::json episodes = nlohmann::json::array();
  for (const Episode& e : r.excluded_episodes)
    episodes.push_back({{"start", e.start}, {"end", e.end == kEpisodeToEnd ? nlohmann::json(nullptr) : nlohmann::json(e.end)}});
  nlohmann::json aurocs = nlohmann::json::object();
  for (const AurocResult& a : r.aurocs)
    aurocs[a.positive] = {{"auroc", num(a.auroc)}, {"positives", a.positives}, {"negatives", a.negatives}};
  return {{"reference", r.reference_path},
          {"detections", r.detections_path},
          {"fs", r.fs},
          {"tolerance_ms", r.tolerance_ms},
          {"tolerance_samples", r.tolerance_samples},
          {"reference_beats", m.tp + m.fn},
          {"detected_beats", m.tp + m.fp},
          {"skipped_non_beats", r.skipped_non_beats},
          {"tp", m.tp},
          {"fn", m.fn},
          {"fp", m.fp},
          {"se", num(m.sensitivity())},
          {"ppv", num(m.positive_predictivity())},
          {"f1", num(m.f1())},
          {"classes", classes},
          {"vf_exclusion",
           {{"enabled", r.vf_exclusion},
            {"reference_has_rhythm", r.reference_has_rhythm},
            {"episodes", episodes.size()},
            {"seconds", r.excluded_seconds},
            {"episode_samples", episodes},
            {"excluded_reference_beats", r.excluded_reference_beats},
            {"excluded_detections", r.excluded_detections}}},
          {"score_column", r.score_column.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.score_column)},
          {"auroc", r.aurocs.empty() ? nlohmann::json(nullptr) : aurocs}};
}

}  // namespace ecgpipe
