// Which files `ecgpipe eval` compares and at what rate: see include/ecgpipe/eval/eval_records.hpp.
#include "ecgpipe/eval/eval_records.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "common/file_read.hpp"
#include "common/paths.hpp"
#include "common/text.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/io/wfdb.hpp"

namespace ecgpipe {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void check_annotator(const std::string& annotator) {
  if (annotator.empty() || annotator.front() == '.' || annotator.find('/') != std::string::npos ||
      annotator.find('\0') != std::string::npos)
    throw UsageError("annotator name '" + text::shorten(annotator, 40) +
                     "': a file name extension is expected (atr, qrs, xqrs, csv, ...), without '/' or a leading '.'");
}

std::string hz(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool same_rate(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

// The files of `dir` named REC.ANNOTATOR, by record name. InputError for one that is a directory.
std::map<std::string, std::string> annotator_files(const std::string& dir, const std::string& annotator) {
  std::vector<std::string> names;
  if (!detail::is_directory(dir) || !detail::list_directory(dir, names))
    throw InputError("cannot list the directory " + dir);
  const std::string suffix = "." + annotator;
  std::map<std::string, std::string> out;
  for (const std::string& name : names) {
    if (name.size() <= suffix.size() || !ends_with(name, suffix)) continue;
    const std::string path = detail::path_join(dir, name);
    if (detail::is_directory(path))
      throw InputError(path + " is a directory, not an annotation file of record " +
                       name.substr(0, name.size() - suffix.size()));
    out.emplace(name.substr(0, name.size() - suffix.size()), path);
  }
  return out;
}

}  // namespace

EvalFile annotator_file(const std::string& record, const std::string& annotator) {
  check_annotator(annotator);
  const std::string name = text::lower(annotator);
  return {record + "." + annotator,
          name == "csv" || name == "txt" ? EvalFileFormat::csv : EvalFileFormat::annotations};
}

std::string header_beside(const std::string& path) {
  return std::filesystem::path(path).replace_extension(".hea").string();
}

EvalRate eval_rate(const std::string& reference, bool reference_is_annotations, const std::string& detections,
                   bool detections_is_annotations, std::optional<double> fs) {
  struct Header {
    std::string path;
    double fs;
  };
  std::vector<Header> headers;
  for (const std::string& beside : {header_beside(reference), header_beside(detections)}) {
    if (!detail::path_exists(beside)) continue;
    if (!headers.empty() && headers.front().path == beside) continue;
    headers.push_back({beside, read_wfdb_header(beside).fs});
  }
  if (headers.size() == 2 && !same_rate(headers[0].fs, headers[1].fs))
    throw InputError(headers[0].path + " gives " + hz(headers[0].fs) + " Hz and " + headers[1].path + " " +
                     hz(headers[1].fs) + " Hz: the two files are not of one record's rate");
  if (fs) {
    if (!headers.empty() && !same_rate(*fs, headers.front().fs))
      throw UsageError("--fs " + hz(*fs) + " contradicts the " + hz(headers.front().fs) + " Hz of " +
                       headers.front().path);
    return {*fs, "--fs", false};
  }
  if (!headers.empty()) return {headers.front().fs, headers.front().path, false};
  if (reference_is_annotations || detections_is_annotations) {
    const std::string& file = reference_is_annotations ? reference : detections;
    throw UsageError("no " + header_beside(file) + " beside " + file + ": pass --fs (the rate of its record)");
  }
  return {kEvalDefaultFs, "default", true};
}

RecordPairs pair_directories(const std::string& reference_dir, const std::string& annotator,
                             const std::string& detections_dir, const std::string& test_annotator) {
  const EvalFileFormat reference_format = annotator_file("r", annotator).format;
  const auto references = annotator_files(reference_dir, annotator);
  std::map<std::string, std::string> detections;
  EvalFileFormat detections_format = EvalFileFormat::csv;
  const auto expected_detections = [&](const std::string& record) {
    const std::string folder = detail::path_join(detections_dir, record);
    return test_annotator.empty() ? detail::path_join(folder, "beats.csv")
                                  : detail::path_join(detections_dir, record + "." + test_annotator) + " or " +
                                        detail::path_join(folder, record + "." + test_annotator);
  };
  if (!test_annotator.empty()) {
    detections_format = annotator_file("r", test_annotator).format;
    detections = annotator_files(detections_dir, test_annotator);
    // A batch's folders: DIR/REC/REC.TEST (what `run` writes as RECORD.ecgpipe beside beats.csv).
    std::vector<std::string> names;
    detail::list_directory(detections_dir, names);
    for (const std::string& name : names) {
      const std::string folder = detail::path_join(detections_dir, name);
      const std::string file = detail::path_join(folder, name + "." + test_annotator);
      if (!detail::is_directory(folder) || !detail::path_exists(file) || detail::is_directory(file)) continue;
      const auto [it, inserted] = detections.emplace(name, file);
      if (!inserted)
        throw InputError("record " + name + " has two detections files, " + it->second + " and " + file +
                         ": keep one");
    }
  } else {
    std::vector<std::string> names;
    if (!detail::is_directory(detections_dir) || !detail::list_directory(detections_dir, names))
      throw InputError("cannot list the directory " + detections_dir);
    for (const std::string& name : names) {
      const std::string beats = expected_detections(name);
      if (detail::is_directory(detail::path_join(detections_dir, name)) && detail::path_exists(beats))
        detections.emplace(name, beats);
    }
  }
  RecordPairs out;
  for (const auto& [record, path] : references) {
    const auto d = detections.find(record);
    if (d == detections.end())
      out.unpaired.push_back({record, "detections", expected_detections(record)});
    else
      out.pairs.push_back({record, {path, reference_format}, {d->second, detections_format}});
  }
  for (const auto& [record, path] : detections)
    if (references.count(record) == 0)
      out.unpaired.push_back({record, "reference", detail::path_join(reference_dir, record + "." + annotator)});
  std::sort(out.unpaired.begin(), out.unpaired.end(),
            [](const UnpairedRecord& a, const UnpairedRecord& b) { return a.record < b.record; });
  return out;
}

RecordPairs parse_record_pairs(std::string_view text, const std::string& path) {
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  const auto resolve = [&](const std::string& p) {
    return std::filesystem::path(p).is_absolute() || base.empty() ? p : (base / p).string();
  };
  const std::size_t binary = first_binary_byte(text);
  if (binary != std::string_view::npos)
    throw InputError(path + ": byte " + std::to_string(binary) + " is not text: a pairs file is lines of reference,detections");
  RecordPairs out;
  std::map<std::string, std::size_t> seen;  // record -> its line
  bool first = true;
  text::for_each_line(text, [&](std::string_view raw, std::size_t line_no) {
    const std::string line = text::trim(std::string(raw));
    if (line.empty() || line.front() == '#') return;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    std::vector<std::string> fields;
    for (std::size_t start = 0;;) {
      const std::size_t comma = line.find(',', start);
      fields.push_back(text::trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    const bool header = first && fields.size() == 2 && text::lower(fields[0]) == "reference" &&
                        text::lower(fields[1]) == "detections";
    first = false;
    if (header) return;
    if (fields.size() != 2 || fields[0].empty() || fields[1].empty())
      throw InputError(where + "'" + text::shorten(line, 80) + "': expected reference,detections (two paths)");
    std::string record = std::filesystem::path(fields[0]).replace_extension().string();
    if (record.empty()) record = fields[0];
    const auto [it, inserted] = seen.emplace(record, line_no);
    if (!inserted)
      throw InputError(where + "record " + text::shorten(record, 80) + " again (line " + std::to_string(it->second) +
                       "): each record once");
    out.pairs.push_back({record, {resolve(fields[0]), EvalFileFormat::guess}, {resolve(fields[1]), EvalFileFormat::guess}});
  });
  return out;
}

RecordPairs read_record_pairs(const std::string& path) {
  if (detail::is_directory(path)) throw InputError("the pairs file " + path + " is a directory");
  RecordPairs all = parse_record_pairs(read_file_bounded(path, kMaxTextInputBytes, "the pairs file"), path);
  RecordPairs out;
  for (RecordPair& p : all.pairs) {
    if (!detail::path_exists(p.reference.path))
      out.unpaired.push_back({p.record, "reference", p.reference.path});
    else if (!detail::path_exists(p.detections.path))
      out.unpaired.push_back({p.record, "detections", p.detections.path});
    else
      out.pairs.push_back(std::move(p));
  }
  return out;
}

}  // namespace ecgpipe
