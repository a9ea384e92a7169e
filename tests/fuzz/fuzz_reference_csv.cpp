// libFuzzer harness: the reference-beat CSV reader (parse_reference_csv, the in-memory core of
// read_reference_csv: sample,symbol) and the detections reader (parse_detections_csv /
// parse_detections_with_scores: r_peak or sample, and score, class and rhythm columns) and the
// rhythm reference (parse_rhythm_csv: sample,rhythm), and eval's pairs file (parse_record_pairs:
// reference,detections per line), on the same text. Invariant: an InputError,
// or as many samples as symbols, beat symbols only, non-negative detections, one finite score
// (class, rhythm) per detection, rhythm changes in time order; then their AF episodes compared;
// pairs with two non-empty paths and no record twice.
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ecgpipe/eval/eval_records.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string path = "ref.csv";
  ecgpipe::ReferenceBeats ref;
  if (!fuzz::rejects([&] { ref = ecgpipe::parse_reference_csv(text, path); })) {
    FUZZ_CHECK(ref.samples.size() == ref.symbols.size());
    for (char s : ref.symbols) FUZZ_CHECK(ecgpipe::is_beat_symbol(s));
  }
  std::vector<ecgpipe::RhythmChange> rhythm;
  if (!fuzz::rejects([&] { rhythm = ecgpipe::parse_rhythm_csv(text, path); })) {
    for (std::size_t i = 1; i < rhythm.size(); ++i) FUZZ_CHECK(rhythm[i - 1].sample <= rhythm[i].sample);
    const std::int64_t end = rhythm.empty() ? 1 : rhythm.back().sample + 1;
    const auto af = ecgpipe::episodes_of(rhythm, "AFIB", end);
    for (const auto& e : af) FUZZ_CHECK(e.start <= e.end && e.end <= end);
    const auto s = ecgpipe::compare_af(af, ecgpipe::episodes_of(rhythm, "AFL", end), af);
    FUZZ_CHECK(s.overlap_of_reference <= s.reference_duration && s.detected_reference_episodes == s.reference_episodes);
  }
  ecgpipe::RecordPairs pairs;
  if (!fuzz::rejects([&] { pairs = ecgpipe::parse_record_pairs(text, "lists/pairs.txt"); })) {
    std::set<std::string> records;
    // A path is absolute or under the pairs file's directory, with a name.
    const auto placed = [](const std::string& f) {
      return (!f.empty() && f.front() == '/') || (f.size() > 6 && f.compare(0, 6, "lists/") == 0);
    };
    for (const auto& p : pairs.pairs) {
      FUZZ_CHECK(placed(p.reference.path) && placed(p.detections.path));
      FUZZ_CHECK(!p.record.empty() && records.insert(p.record).second);
    }
    FUZZ_CHECK(pairs.unpaired.empty());
  }
  std::vector<std::int64_t> detections;
  if (fuzz::rejects([&] { detections = ecgpipe::parse_detections_csv(text, path); })) return 0;
  for (std::int64_t d : detections) FUZZ_CHECK(d >= 0);
  // Only where the plain reader accepts: the scores reader takes the same column and rows and
  // checks more, so it would only reject again (a throw is much of the time per input).
  ecgpipe::Detections scored;
  if (!fuzz::rejects([&] { scored = ecgpipe::parse_detections_with_scores(text, path); })) {
    FUZZ_CHECK(scored.r_peaks == detections);  // the same column choice
    FUZZ_CHECK(scored.scores.empty() || scored.scores.size() == scored.r_peaks.size());
    for (float s : scored.scores) FUZZ_CHECK(std::isfinite(s));
    FUZZ_CHECK(scored.classes.empty() || scored.classes.size() == scored.r_peaks.size());
    FUZZ_CHECK(scored.afib.empty() || scored.afib.size() == scored.r_peaks.size());
    // Unknown rhythm names: listed once each, a bounded list, none of them a name ecgpipe knows.
    FUZZ_CHECK(scored.unknown_rhythms.size() <= ecgpipe::Detections::kListedUnknownRhythms);
    for (const auto& n : scored.unknown_rhythms) FUZZ_CHECK(!ecgpipe::is_known_rhythm_name(n));
  }
  return 0;
}
