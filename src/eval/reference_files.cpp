// Reading `ecgpipe eval`'s files (include/ecgpipe/eval/evaluate.hpp): reference beats (a WFDB
// annotation file, with its VF episodes, or a sample,symbol CSV), detections (a CSV with an
// optional score column, or another annotator's annotation file), and which of the two a file is.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"
#include "common/file_read.hpp"
#include "common/text.hpp"

namespace ecgpipe {
namespace {

using text::lower;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- CSV helpers for the two small files eval reads.
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits on ',' honouring double quotes ("a,b" and "" for a quote), trims unquoted fields. Into
// `fields`, whose strings are reused from row to row (no allocation per cell once warm).
void split_fields(std::string_view line, std::vector<std::string>& fields) {
  std::size_t n = 0;
  const auto next = [&]() -> std::string& {
    if (n == fields.size()) fields.emplace_back();
    std::string& f = fields[n];
    f.clear();
    return f;
  };
  std::string* cur = &next();
  bool quoted = false, was_quoted = false;
  const auto finish = [&] {
    if (was_quoted) return;
    const std::string_view t = trim(*cur);
    const std::size_t from = static_cast<std::size_t>(t.data() - cur->data()), size = t.size();
    cur->erase(from + size);
    cur->erase(0, from);
  };
  // Runs of plain characters are appended at once, not a character at a time.
  for (std::size_t i = 0; i < line.size();) {
    if (quoted) {
      const std::size_t q = line.find('"', i);
      if (q == std::string_view::npos) {  // no closing quote: the rest of the line is the field
        cur->append(line.substr(i));
        break;
      }
      cur->append(line.substr(i, q - i));
      if (q + 1 < line.size() && line[q + 1] == '"') {  // "" for a quote
        *cur += '"';
        i = q + 2;
      } else {
        quoted = false;
        i = q + 1;
      }
      continue;
    }
    // A plain loop, not find_first_of(",\""): two comparisons a character where find_first_of
    // scans its set for each (what the fuzzer's instrumented build spent its time on).
    std::size_t stop = i;
    while (stop < line.size() && line[stop] != ',' && line[stop] != '"') ++stop;
    cur->append(line.substr(i, stop - i));
    if (stop == line.size()) break;
    i = stop + 1;
    if (line[stop] == ',') {
      finish();
      ++n;
      cur = &next();
      was_quoted = false;
    } else if (trim(*cur).empty()) {  // a quote opens a field only at its start
      quoted = was_quoted = true;
      cur->clear();
    } else {
      *cur += '"';
    }
  }
  finish();
  fields.resize(n + 1);
}

// A non-negative integer up to kMaxSampleIndex (evaluate.hpp), optionally written with a zero fraction ("123",
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

// The whole file (InputError "cannot open PATH" / "cannot read PATH: why"), for the parse_* functions.
std::string read_file(const std::string& path) { return read_file_bounded(path, kMaxTextInputBytes, ""); }

std::string cell_error(const std::string& path, std::size_t line, const std::string& what) {
  return path + ":" + std::to_string(line) + ": " + what;
}

// InputError "PATH:LINE: byte N is 0xXX, not text" when `bytes` (a CSV) holds a byte text never
// does, at `binary` (first_binary_byte's answer, passed when known).
void require_text(std::string_view bytes, const std::string& path, std::size_t binary) {
  if (binary == std::string_view::npos) return;
  const auto line = 1 + std::count(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(binary), '\n');
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(bytes[binary])));
  throw InputError(cell_error(path, static_cast<std::size_t>(line),
                              "byte " + std::to_string(binary) + " is " + hex +
                                  ", not text: a binary file where a CSV is expected (a WFDB annotation file? "
                                  "give it its annotator's name, REC.atr or REC.qrs, not .csv or .txt)"));
}

// Non-blank lines of `text` (text::for_each_line); the first is the header. Calls row(fields, line_number) per data row.
template <typename Row>
std::vector<std::string> parse_csv(std::string_view text, const std::string& path, Row&& row_of) {
  std::vector<std::string> header;
  bool have_header = false;
  std::size_t index = 0;  // of the chosen column, set after the header
  std::vector<std::string> fields;
  require_text(text, path, first_binary_byte(text));
  text::for_each_line(text, [&](std::string_view line, std::size_t line_no) {
    if (trim(line).empty()) return;
    if (!have_header) {
      split_fields(line, header);
      for (auto& h : header) h = lower(h);
      have_header = true;
      index = row_of.header(header);
      return;
    }
    split_fields(line, fields);
    row_of.row(fields, line_no, index);
  });
  if (!have_header) throw InputError(path + ": empty file (no header)");
  return header;
}

}  // namespace

ReferenceBeats read_reference_csv(const std::string& path) { return parse_reference_csv(read_file(path), path); }

ReferenceBeats parse_reference_csv(std::string_view text, const std::string& path) {
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
  parse_csv(text, path, reader);
  return std::move(reader.out);
}

namespace {
// A header without r_peak or sample whose first columns are ecgpipe's episode lists' (rhythm.csv,
// artefact.csv): not beat times, though its first column would be taken for them.
void refuse_episode_list(const std::vector<std::string>& h, const std::string& path) {
  const auto has = [&h](const char* name) { return std::find(h.begin(), h.end(), name) != h.end(); };
  if (!has("r_peak") && !has("sample") && has("start_sample") && has("end_sample"))
    throw InputError(path + ": columns start_sample and end_sample: a list of episodes or stretches (ecgpipe's "
                            "rhythm.csv or artefact.csv), not beat times; give beats.csv");
}
}  // namespace

std::vector<std::int64_t> read_detections_csv(const std::string& path) {
  return parse_detections_csv(read_file(path), path);
}

std::vector<std::int64_t> parse_detections_csv(std::string_view text, const std::string& path) {
  struct Reader {
    const std::string& path;
    std::vector<std::int64_t> out;
    std::size_t header(const std::vector<std::string>& h) {
      refuse_episode_list(h, path);
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
  parse_csv(text, path, reader);
  return std::move(reader.out);
}

std::vector<RhythmChange> parse_rhythm_csv(std::string_view text, const std::string& path) {
  static constexpr const char* kNoEpisode = "N";  // what no row of an episode list covers
  struct Reader {
    const std::string& path;
    std::vector<RhythmChange> out;
    std::size_t rhythm_index = 0;
    // An episode list (start_sample, end_sample: ecgpipe's rhythm.csv, or a user's list of AF
    // episodes alone) ends each row at its end; the changes list runs each to the next change.
    std::optional<std::size_t> end_index;
    std::int64_t previous_end = 0;
    std::size_t header(const std::vector<std::string>& h) {
      const auto y = std::find(h.begin(), h.end(), "rhythm");
      auto s = std::find(h.begin(), h.end(), "sample");
      if (s == h.end()) {
        s = std::find(h.begin(), h.end(), "start_sample");
        if (const auto e = std::find(h.begin(), h.end(), "end_sample"); s != h.end() && e != h.end())
          end_index = static_cast<std::size_t>(e - h.begin());
      }
      if (s == h.end() || y == h.end())
        throw InputError(path + ": a rhythm reference needs columns 'sample' (or 'start_sample') and 'rhythm'");
      rhythm_index = static_cast<std::size_t>(y - h.begin());
      return static_cast<std::size_t>(s - h.begin());
    }
    std::int64_t sample_at(const std::vector<std::string>& f, std::size_t index, std::size_t line) const {
      std::int64_t v = 0;
      if (!parse_sample(f[index], v))
        throw InputError(cell_error(path, line, "'" + text::shorten(f[index], 40) + "' is not a sample index"));
      return v;
    }
    void row(const std::vector<std::string>& f, std::size_t line, std::size_t sample_index) {
      if (f.size() <= std::max({sample_index, rhythm_index, end_index.value_or(0)}))
        throw InputError(cell_error(path, line, "too few fields"));
      RhythmChange c;
      c.sample = sample_at(f, sample_index, line);
      if (!end_index && !out.empty() && c.sample < out.back().sample)
        throw InputError(cell_error(path, line, "rhythm changes go back in time"));
      c.rhythm = f[rhythm_index];
      if (!c.rhythm.empty() && c.rhythm.front() == '(') c.rhythm.erase(0, 1);
      if (trim(c.rhythm).empty()) throw InputError(cell_error(path, line, "an empty rhythm"));
      if (!end_index) {
        out.push_back(std::move(c));
        return;
      }
      const std::int64_t end = sample_at(f, *end_index, line);
      if (end < c.sample)
        throw InputError(cell_error(path, line, "it ends (" + std::to_string(end) + ") before it starts (" +
                                                    std::to_string(c.sample) + ")"));
      if (!out.empty() && c.sample < previous_end)
        throw InputError(cell_error(path, line, "it starts inside the episode before (to " + std::to_string(previous_end) + ")"));
      // The N that ended the episode before is this one's start: one change there, not two.
      if (!out.empty() && out.back().sample == c.sample && out.back().rhythm == kNoEpisode) out.pop_back();
      out.push_back(std::move(c));
      out.push_back(RhythmChange{end, kNoEpisode});
      previous_end = end;
    }
  } reader{path, {}, 0, std::nullopt, 0};
  parse_csv(text, path, reader);
  return std::move(reader.out);
}

std::vector<RhythmChange> read_rhythm_reference(const std::string& path) {
  if (lower(std::filesystem::path(path).extension().string()) == ".csv") return parse_rhythm_csv(read_file(path), path);
  auto changes = rhythm_changes(read_wfdb_annotations(path));
  std::stable_sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.sample < b.sample; });
  return changes;
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
  ref.rhythm = rhythm_changes(annotations);
  return ref;
}

std::size_t first_binary_byte(std::string_view bytes) {
  constexpr unsigned char kDel = 0x7F, kSpace = 0x20;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == kDel || (c < kSpace && (c < '\t' || c > '\r'))) return i;
  }
  return std::string_view::npos;
}

EvalFileFormat eval_file_format(std::string_view bytes, const std::string& path, EvalFileFormat format) {
  const std::size_t binary = first_binary_byte(bytes);
  if (format == EvalFileFormat::guess) {
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext == ".csv" || ext == ".txt")
      format = EvalFileFormat::csv;
    else
      format = bytes.empty() || binary != std::string_view::npos ? EvalFileFormat::annotations : EvalFileFormat::csv;
  }
  if (format == EvalFileFormat::csv) require_text(bytes, path, binary);
  if (format == EvalFileFormat::annotations && !bytes.empty() && binary == std::string_view::npos) {
    const std::string_view first = bytes.substr(0, bytes.find('\n'));
    throw InputError(path + ": byte 0: text ('" + text::shorten(trim(first), 40) +
                     "' on line 1), not a WFDB annotation file (MIT format): a CSV? give it by its path, "
                     "named .csv");
  }
  return format;
}

ReferenceBeats parse_reference(std::string_view bytes, const std::string& path, EvalFileFormat format) {
  if (eval_file_format(bytes, path, format) == EvalFileFormat::csv) return parse_reference_csv(bytes, path);
  return reference_from_annotations(parse_wfdb_annotations(bytes, path));
}

ReferenceBeats read_reference(const std::string& path, EvalFileFormat format) {
  return parse_reference(read_file(path), path, format);
}

Detections detections_from_annotations(const std::vector<Annotation>& annotations) {
  Detections d;
  d.from_annotations = true;
  const bool has_rhythm = std::any_of(annotations.begin(), annotations.end(),
                                      [](const Annotation& a) { return a.symbol == '+' && !a.aux.empty(); });
  Rhythm current = Rhythm::N;
  for (const Annotation& a : annotations) {
    if (a.symbol == '+' && !a.aux.empty()) {
      // The aux names the rhythm from here on: "(AFIB", with a trailing NUL already cut.
      current = rhythm_named(a.aux);
      continue;
    }
    if (!is_beat_symbol(a.symbol)) continue;
    d.r_peaks.push_back(a.sample);
    d.classes.push_back(a.symbol);
    if (has_rhythm) {
      d.afib.push_back(current == Rhythm::AFIB ? 1 : 0);
      d.rhythm.push_back(current);
    }
  }
  return d;
}

Detections parse_detections(std::string_view bytes, const std::string& path, const std::string& score_column,
                            EvalFileFormat format) {
  if (eval_file_format(bytes, path, format) == EvalFileFormat::csv)
    return parse_detections_with_scores(bytes, path, score_column);
  if (!score_column.empty())
    throw UsageError("--score-column " + score_column + ": " + path + " is a WFDB annotation file, which has no score");
  return detections_from_annotations(parse_wfdb_annotations(bytes, path));
}

Detections read_detections(const std::string& path, const std::string& score_column, EvalFileFormat format) {
  return parse_detections(read_file(path), path, score_column, format);
}

Detections read_detections_with_scores(const std::string& path, const std::string& score_column) {
  return parse_detections_with_scores(read_file(path), path, score_column);
}

Detections parse_detections_with_scores(std::string_view text, const std::string& path, const std::string& score_column) {
  struct Reader {
    const std::string& path;
    const std::string& wanted;
    Detections out;
    std::size_t score_index = 0;
    bool has_score = false;
    std::size_t class_index = 0;
    bool has_class = false;
    std::size_t rhythm_index = 0;
    bool has_rhythm = false;
    std::size_t quality_index = 0;
    bool has_quality = false;
    bool score_by_default = false;  // the score column was chosen here, not asked for
    bool first_row = true;
    std::size_t header(const std::vector<std::string>& h) {
      refuse_episode_list(h, path);
      const auto find = [&](const std::string& name) { return std::find(h.begin(), h.end(), lower(name)); };
      if (const auto it = find("quality"); it != h.end()) {
        quality_index = static_cast<std::size_t>(it - h.begin());
        has_quality = true;
      }
      if (const auto it = find("rhythm"); it != h.end()) {
        rhythm_index = static_cast<std::size_t>(it - h.begin());
        has_rhythm = true;
      }
      if (const auto it = find("class"); it != h.end()) {
        class_index = static_cast<std::size_t>(it - h.begin());
        has_class = true;
      }
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
          score_by_default = true;
          out.score_column = name;
          break;
        }
      }
      for (const char* name : {"r_peak", "sample"}) {
        const auto it = find(name);
        if (it != h.end()) {
          out.sample_column = name;
          return static_cast<std::size_t>(it - h.begin());
        }
      }
      out.sample_column = h.empty() ? std::string() : h[0];
      out.sample_column_by_position = true;
      return 0;
    }
    void row(const std::vector<std::string>& f, std::size_t line, std::size_t index) {
      if (f.size() <= index || (has_score && f.size() <= score_index) || (has_class && f.size() <= class_index) ||
          (has_rhythm && f.size() <= rhythm_index) || (has_quality && f.size() <= quality_index))
        throw InputError(cell_error(path, line, "too few fields"));
      // `ecgpipe analyze` leaves the model's columns empty: a score column found by name (not
      // asked for) whose first cell is empty is no score column; an empty cell after a number
      // stays an error below.
      if (first_row && score_by_default && trim(f[score_index]).empty()) {
        has_score = false;
        out.score_column.clear();
      }
      first_row = false;
      if (has_quality) out.artefact.push_back(trim(f[quality_index]) == "artefact");
      if (has_rhythm) {
        const std::string_view name = trim(f[rhythm_index]);
        if (name.empty()) throw InputError(cell_error(path, line, "an empty rhythm"));
        out.rhythm.push_back(rhythm_named(name));
        out.afib.push_back(out.rhythm.back() == Rhythm::AFIB ? 1 : 0);
        if (!is_known_rhythm_name(name) && out.unknown_rhythms.size() < Detections::kListedUnknownRhythms &&
            std::find(out.unknown_rhythms.begin(), out.unknown_rhythms.end(), name) == out.unknown_rhythms.end())
          out.unknown_rhythms.emplace_back(name);
      }
      if (has_class) {
        const std::string label(trim(f[class_index]));
        if (label.size() != 1 || ec57_detected_class(label[0]) == 0)
          throw InputError(cell_error(path, line, "class '" + f[class_index] + "' is not a beat label (N, S, V, F, Q)"));
        out.classes.push_back(label[0]);
      }
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
      // Scores are kept as float: 2E62 is finite as a double and infinite as a float.
      if (!std::isfinite(static_cast<float>(score)))
        throw InputError(cell_error(path, line, "score '" + f[score_index] + "' is beyond float's range"));
      out.scores.push_back(static_cast<float>(score));
    }
  } reader{path, score_column, {}};
  parse_csv(text, path, reader);
  return std::move(reader.out);
}

EvalReport evaluate_read(const ReferenceBeats& ref, const Detections& det, const EvalOptions& options,
                         const std::string& reference_path, const std::string& detections_path) {
  EvalReport rep = evaluate_detections(ref, det.r_peaks, det.scores, options, det.classes);
  if (ref.has_rhythm && !det.afib.empty()) {
    // The detections' AF episodes from their beats, against the reference's; both end at the
    // later of the last detection and the last reference annotation.
    std::int64_t end = 0;
    if (!det.r_peaks.empty()) end = *std::max_element(det.r_peaks.begin(), det.r_peaks.end()) + 1;
    if (!ref.samples.empty()) end = std::max(end, ref.samples.back() + 1);
    if (!ref.rhythm.empty()) end = std::max(end, ref.rhythm.back().sample + 1);
    std::vector<Rhythm> rhythm = det.rhythm;
    if (rhythm.size() != det.afib.size()) {  // AF flags alone (Detections filled by hand)
      rhythm.assign(det.afib.size(), Rhythm::N);
      for (std::size_t i = 0; i < rhythm.size(); ++i)
        if (det.afib[i]) rhythm[i] = Rhythm::AFIB;
    }
    const std::vector<RhythmEpisode> episodes = rhythm_episodes(det.r_peaks, rhythm, options.fs, end);
    rep.af = compare_af(ref.rhythm, episodes, end);
    rep.rhythms = compare_ectopic_rhythms(ref.rhythm, episodes, end);
    rep.has_af = true;
  }
  rep.reference_path = reference_path;
  rep.detections_path = detections_path;
  rep.score_column = det.score_column;
  return rep;
}

EvalReport evaluate_files(const std::string& reference_path, const std::string& detections_path,
                          const EvalOptions& options, const std::string& score_column) {
  tolerance_samples(options.tolerance_ms, options.fs);  // option errors before reading files
  const ReferenceBeats ref = read_reference(reference_path);
  const Detections det = read_detections(detections_path, score_column);
  return evaluate_read(ref, det, options, reference_path, detections_path);
}

}  // namespace ecgpipe
