// EC57 beat-classification statistics (bxb -S): see include/ecgpipe/eval/ec57.hpp.
#include "ecgpipe/eval/ec57.hpp"

#include "eval/ec57_json.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ecgpipe/common/error.hpp"
#include "ecgpipe/classify/aami_class.hpp"
#include "ecgpipe/eval/beat_match.hpp"
#include "common/json_number.hpp"

namespace ecgpipe {
namespace {

constexpr char kRowLetters[kEc57Size + 1] = "NSVFQO";
constexpr char kColumnLetters[kEc57Size + 1] = "nsvfqo";

double ratio_or_nan(std::int64_t num, std::int64_t den) {
  return den > 0 ? static_cast<double>(num) / static_cast<double>(den)
                 : std::numeric_limits<double>::quiet_NaN();
}

// bxb's pstat: "Se: 98.50% (197/200)", "-" for an undefined quotient.
std::string stat_text(const char* what, std::int64_t num, std::int64_t den) {
  constexpr double kPercent = 100.0;
  char buf[128];
  if (den <= 0)
    std::snprintf(buf, sizeof buf, "%s:      - (%lld/%lld)", what, static_cast<long long>(num),
                  static_cast<long long>(den));
  else
    std::snprintf(buf, sizeof buf, "%s: %6.2f%% (%lld/%lld)", what, kPercent * static_cast<double>(num) / static_cast<double>(den),
                  static_cast<long long>(num), static_cast<long long>(den));
  return buf;
}

}  // namespace

std::size_t ec57_index(char letter) {
  const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(letter)));
  for (std::size_t i = 0; i < kEc57Size; ++i)
    if (kRowLetters[i] == up) return i;
  throw InternalError(std::string("ec57_index: '") + letter + "' is not an EC57 class letter");
}

std::int64_t Ec57Matrix::at(char reference, char detected) const {
  return counts[ec57_index(reference)][ec57_index(detected)];
}

Ec57Matrix& Ec57Matrix::operator+=(const Ec57Matrix& other) {
  for (std::size_t r = 0; r < kEc57Size; ++r)
    for (std::size_t c = 0; c < kEc57Size; ++c) counts[r][c] += other.counts[r][c];
  return *this;
}

double Ec57Stat::se() const { return ratio_or_nan(tp, tp + fn); }
double Ec57Stat::ppv() const { return ratio_or_nan(tp, tp + fp); }

Ec57Stat ec57_qrs(const Ec57Matrix& m) {
  Ec57Stat s;
  for (std::size_t r = 0; r < kEc57None; ++r) {
    for (std::size_t c = 0; c < kEc57None; ++c) s.tp += m.counts[r][c];
    s.fn += m.counts[r][kEc57None];
    s.fp += m.counts[kEc57None][r];
  }
  return s;
}

// bxb.c print_results(): VTP = Vv; VFN = Vn+Vs+Vf+Vq+Vo(+Vx); VFP = Nv+Sv+Ov(+Xv). Fv and Qv
// are deliberately absent from VFP: a fusion beat called ventricular is not a false alarm.
Ec57Stat ec57_veb(const Ec57Matrix& m) {
  Ec57Stat s;
  s.tp = m.at('V', 'v');
  s.fn = m.at('V', 'n') + m.at('V', 's') + m.at('V', 'f') + m.at('V', 'q') + m.at('V', 'o');
  s.fp = m.at('N', 'v') + m.at('S', 'v') + m.at('O', 'v');
  return s;
}

// bxb.c print_results(): STP = Ss; SFN = Sn+Sv+Sf+Sq+So(+Sx); SFP = Ns+Vs+Fs+Os(+Xs). Qs is
// not a false positive.
Ec57Stat ec57_sveb(const Ec57Matrix& m) {
  Ec57Stat s;
  s.tp = m.at('S', 's');
  s.fn = m.at('S', 'n') + m.at('S', 'v') + m.at('S', 'f') + m.at('S', 'q') + m.at('S', 'o');
  s.fp = m.at('N', 's') + m.at('V', 's') + m.at('F', 's') + m.at('O', 's');
  return s;
}

char ec57_detected_class(char label) { return aami_class(label); }

Ec57Matrix ec57_matrix(const std::vector<char>& reference_symbols, const std::vector<char>& detected_classes,
                       const MatchResult& match) {
  if (match.matched_detection.size() != reference_symbols.size() ||
      match.matched_reference.size() != detected_classes.size())
    throw InternalError("ec57_matrix: the labels and the match differ in size");
  const auto class_index = [](char label, const char* side) {
    const char c = aami_class(label);
    if (c == 0) throw InternalError(std::string("ec57_matrix: ") + side + " label '" + label + "' is not a beat label");
    return ec57_index(c);
  };
  Ec57Matrix m;
  for (std::size_t i = 0; i < reference_symbols.size(); ++i) {
    const std::size_t r = class_index(reference_symbols[i], "reference");
    const std::int64_t d = match.matched_detection[i];
    const std::size_t c =
        d < 0 ? kEc57None : class_index(detected_classes[static_cast<std::size_t>(d)], "detected");
    ++m.counts[r][c];
  }
  for (std::size_t j = 0; j < detected_classes.size(); ++j)
    if (match.matched_reference[j] < 0) ++m.counts[kEc57None][class_index(detected_classes[j], "detected")];
  return m;
}

Ec57Matrix ec57_compare(const std::vector<std::int64_t>& reference_samples, const std::vector<char>& reference_symbols,
                        const std::vector<std::int64_t>& detected_samples, const std::vector<char>& detected_classes,
                        std::int64_t tolerance_samples) {
  if (reference_samples.size() != reference_symbols.size() || detected_samples.size() != detected_classes.size())
    throw InternalError("ec57_compare: samples and labels differ in size");
  return ec57_matrix(reference_symbols, detected_classes,
                     match_beats(reference_samples, detected_samples, tolerance_samples));
}

std::string ec57_text(const Ec57Matrix& m) {
  std::string out = "beat classes (EC57, as bxb -S; O: no reference beat, o: no detection)\n";
  out += "               Algorithm\n        n      s      v      f      q      o\n";
  char buf[128];
  for (std::size_t r = 0; r < kEc57Size; ++r) {
    std::snprintf(buf, sizeof buf, " %c |", kRowLetters[r]);
    out += buf;
    const std::size_t columns = r == kEc57None ? kEc57None : kEc57Size;  // no "Oo" cell
    for (std::size_t c = 0; c < columns; ++c) {
      std::snprintf(buf, sizeof buf, " %6lld", static_cast<long long>(m.counts[r][c]));
      out += buf;
    }
    out += '\n';
  }
  const Ec57Stat q = ec57_qrs(m), v = ec57_veb(m), s = ec57_sveb(m);
  out += stat_text("           QRS sensitivity", q.tp, q.tp + q.fn) + '\n';
  out += stat_text(" QRS positive predictivity", q.tp, q.tp + q.fp) + '\n';
  out += stat_text("           VEB sensitivity", v.tp, v.tp + v.fn) + '\n';
  out += stat_text(" VEB positive predictivity", v.tp, v.tp + v.fp) + '\n';
  out += stat_text("          SVEB sensitivity", s.tp, s.tp + s.fn) + '\n';
  out += stat_text("SVEB positive predictivity", s.tp, s.tp + s.fp) + '\n';
  return out;
}

nlohmann::json ec57_json(const Ec57Matrix& m) {
  const auto stat = [&](const Ec57Stat& s) {
    return nlohmann::json{{"tp", s.tp}, {"fn", s.fn}, {"fp", s.fp}, {"se", json_number(s.se())}, {"ppv", json_number(s.ppv())}};
  };
  nlohmann::json matrix = nlohmann::json::object();
  for (std::size_t r = 0; r < kEc57Size; ++r)
    for (std::size_t c = 0; c < kEc57Size; ++c)
      if (r != kEc57None || c != kEc57None)
        matrix[std::string{kRowLetters[r], kColumnLetters[c]}] = m.counts[r][c];
  return {{"matrix", matrix}, {"qrs", stat(ec57_qrs(m))}, {"veb", stat(ec57_veb(m))}, {"sveb", stat(ec57_sveb(m))}};
}

}  // namespace ecgpipe
