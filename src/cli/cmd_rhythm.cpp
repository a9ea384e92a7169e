// `ecgpipe rhythm BEATS --fs HZ --out DIR`: atrial fibrillation from beat times alone (another
// detector's beats, a device's beat times, or a database's .qrs files), written as
// DIR/rhythm.csv; with --reference, EC57's AF episode and duration statistics (epicmp -a); and
// the heart-rate variability of the beats' NN intervals (printed).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "common/output_lock.hpp"
#include "common/output_set.hpp"
#include "common/text.hpp"
#include "ecgpipe/classify/aami_class.hpp"
#include "ecgpipe/classify/holter.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/eval/rhythm_eval.hpp"
#include "ecgpipe/io/wfdb.hpp"
#include "ecgpipe/rhythm/af_detect.hpp"
#include "ecgpipe/rhythm/ectopic_rhythm.hpp"
#include "ecgpipe/rhythm/hrv.hpp"
#include "ecgpipe/rhythm/rhythm_episodes.hpp"
#include "rhythm/hrv_json.hpp"
#include "rhythm/rhythm_json.hpp"
#include "common/json_text.hpp"

namespace ecgpipe::cli {
namespace {

struct RhythmArgs {
  std::string beats, out = "ecgpipe-rhythm", reference;
  double fs = 0;
  bool json = false;
  CLI::Option* fs_option = nullptr;
  AfOptions af;  // the cross-validated defaults unless an --af-* option says otherwise (scripts/tune-af.py)
};

bool is_csv(const std::string& path) { return text::lower(std::filesystem::path(path).extension().string()) == ".csv"; }

struct Beats {
  std::vector<std::int64_t> samples;
  std::vector<char> ventricular;  // per beat where the file labels beats (a .atr), else empty
  std::vector<char> classes;      // per beat, AAMI (N S V F Q); N where the file has no classes
  std::vector<bool> artefact;     // per beat: in artefact (a beats.csv `quality` column), else empty
  bool has_classes = false;
  std::string column;             // a CSV's column of samples (empty for a WFDB file)
  bool column_by_position = false;  // no r_peak or sample column: the first
};

// The beats of `path`: a CSV's r_peak / sample / first column (and its class column, when there
// is one), or a WFDB annotation file's beat annotations (any annotator: .atr, .qrs, ...) with
// their AAMI class, sorted, each sample once (a warning says when either changed anything). V
// beats (AF leaves their intervals out) from either: a CSV's class column is as much a labelling
// as a WFDB file's symbols.
Beats read_beats(const std::string& path) {
  struct Beat {
    std::int64_t sample;
    char ventricular, cls;
    bool artefact = false;
    bool operator<(const Beat& o) const { return sample < o.sample; }
  };
  std::vector<Beat> found;
  bool labelled = false, has_classes = false, has_quality = false, column_by_position = false;
  std::string column;
  if (is_csv(path)) {
    const Detections d = read_detections_with_scores(path);
    column = d.sample_column;
    column_by_position = d.sample_column_by_position;
    has_quality = !d.artefact.empty();
    has_classes = labelled = !d.classes.empty();
    for (std::size_t i = 0; i < d.r_peaks.size(); ++i) {
      const char cls = has_classes ? aami_class(d.classes[i]) : 'N';
      found.push_back({d.r_peaks[i], cls == 'V', cls, !d.artefact.empty() && d.artefact[i] != 0});
    }
  } else {
    for (const auto& a : read_wfdb_annotations(path))
      if (is_beat_symbol(a.symbol)) {
        found.push_back({a.sample, aami_class(a.symbol) == 'V', aami_class(a.symbol)});
        labelled = labelled || a.symbol != 'N';  // a .qrs labels every beat N: no classes
      }
    has_classes = labelled;
  }
  // Another detector's CSV may list its beats out of order or twice (a merge of two passes):
  // they are sorted and each sample kept once, and that is said (either changes the intervals).
  std::size_t earlier = 0;
  for (std::size_t i = 1; i < found.size(); ++i) earlier += found[i].sample < found[i - 1].sample;
  if (earlier > 0) spdlog::warn("{}: {} beats are earlier than the beat listed before them: sorted by time", path, earlier);
  std::stable_sort(found.begin(), found.end());
  Beats out;
  out.has_classes = has_classes;
  out.column = column;
  out.column_by_position = column_by_position;
  for (const Beat& b : found) {
    if (!out.samples.empty() && out.samples.back() == b.sample) continue;
    out.samples.push_back(b.sample);
    out.ventricular.push_back(b.ventricular);
    out.classes.push_back(b.cls);
    if (has_quality) out.artefact.push_back(b.artefact);
  }
  if (found.size() > out.samples.size())
    spdlog::warn("{}: {} beats at a sample another beat has: left out", path, found.size() - out.samples.size());
  if (!labelled) out.ventricular.clear();
  return out;
}

}  // namespace

void add_rhythm_command(CLI::App& app) {
  auto a = std::make_shared<RhythmArgs>();
  auto* cmd = app.add_subcommand(
      "rhythm", "Atrial fibrillation episodes from beat times alone (no signal): DIR/rhythm.csv; with --reference, "
                "EC57's AF episode and duration Se / +P (as WFDB epicmp -a)");
  cmd->add_option("BEATS", a->beats,
                  "beat times: a WFDB annotation file of any annotator (.atr, .qrs, ...: its beat annotations) or a "
                  "CSV (column r_peak, else sample, else the first)")
      ->required();
  a->fs_option = cmd->add_option("--fs", a->fs, "sampling rate of the beat times, Hz [default: REC.hea beside a WFDB "
                                                "annotation file REC.EXT; a CSV needs it]");
  check_finite(a->fs_option, kMinFs, kMaxFs);
  cmd->add_option("--out", a->out, "output directory (rhythm.csv)")->capture_default_str();
  cmd->add_option("--reference", a->reference,
                  "reference rhythm: a WFDB annotation file with rhythm changes (.atr: '+' (AFIB, (AFL, ...) or a CSV "
                  "of changes (sample,rhythm) or of episodes (start_sample,end_sample,rhythm: ecgpipe's rhythm.csv, or the AF "
                  "episodes alone; what no row covers is N)");
  cmd->add_flag("--json", a->json, "print a JSON object instead of text");
  // The AF detector's numbers, for scripts/tune-af.py's cross-validation of them; the defaults are
  // its result (docs/accuracy.md, "Rhythm"), the same as `run` and `analyze` use.
  const char* tuning = "AF detector (cross-validated defaults; for re-tuning)";
  cmd->add_option("--af-window", a->af.window, "intervals in the long scale's window")
      ->check(CLI::Range(1, 100000))->capture_default_str()->group(tuning);
  cmd->add_option("--af-short-window", a->af.short_window, "intervals in the short scale's window")
      ->check(CLI::Range(1, 100000))->capture_default_str()->group(tuning);
  check_finite(cmd->add_option("--af-threshold", a->af.threshold, "AF above this irregularity at either scale")
                   ->capture_default_str()->group(tuning),
               0.0, 100.0);
  cmd->add_option("--af-min-run", a->af.min_run, "beats: shorter runs of AF, then of other rhythm, are absorbed")
      ->check(CLI::Range(1, 1000000))->capture_default_str()->group(tuning);
  cmd->callback([a] {
    double fs = a->fs;
    std::string fs_source = "--fs";
    if (a->fs_option->count() == 0) {
      const auto header = std::filesystem::path(a->beats).replace_extension(".hea");
      std::error_code ec;  // an unreadable directory is "no header", not an exception
      if (is_csv(a->beats) || !std::filesystem::exists(header, ec))
        throw UsageError("rhythm: give --fs (no WFDB header beside " + a->beats + " gives the rate)");
      fs = read_wfdb_header(header.string()).fs;
      fs_source = header.string();  // its rate is checked against kMinFs..kMaxFs as it is read
    }
    const AfOptions defaults;
    if (a->af.window != defaults.window || a->af.short_window != defaults.short_window ||
        a->af.threshold != defaults.threshold || a->af.min_run != defaults.min_run)
      spdlog::info("AF detector not at its defaults: windows {} and {} intervals, threshold {}, runs of {} beats",
                   a->af.window, a->af.short_window, a->af.threshold, a->af.min_run);
    const Beats read = read_beats(a->beats);
    const std::vector<std::int64_t>& beats = read.samples;
    if (beats.empty()) throw InputError(a->beats + ": no beats");
    std::vector<RhythmChange> reference;
    if (!a->reference.empty()) {
      reference = read_rhythm_reference(a->reference);
      if (reference.empty()) spdlog::warn("{}: no rhythm changes: no reference episode to compare with", a->reference);
      if (const std::string unknown = unknown_rhythm_warning(reference, a->reference); !unknown.empty()) spdlog::warn("{}", unknown);
    }
    // The record ends after the last beat, or at the reference's last change if that is later
    // (said when it is more than a minute later: the burden's time is the record's).
    std::int64_t end = beats.back() + 1;
    if (!reference.empty() && reference.back().sample + 1 > end) {
      constexpr double kSaidAfterS = 60.0;
      const double after_s = static_cast<double>(reference.back().sample + 1 - end) / fs;
      if (after_s > kSaidAfterS)
        spdlog::warn("{}: its last rhythm change is {:.0f} s after the last beat: the record is taken to end there", a->reference,
                     after_s);
      end = reference.back().sample + 1;
    }
    // As `run`: beats in artefact are no AF (a detector's beats in noise are as irregular as AF).
    std::vector<Rhythm> rhythm =
        af_rhythm(beats, a->af, read.ventricular, nullptr, read.artefact.empty() ? nullptr : &read.artefact);
    // The rhythms the beats' classes name (VT, IVR, SVTA, bigeminy, trigeminy), as `run` names them from
    // its own: they need the classes, not the signal.
    if (read.has_classes)
      name_ectopic_rhythms(holter_ectopy(beats, fs, read.classes, {}, read.artefact), rhythm);
    const auto episodes = rhythm_episodes(beats, rhythm, fs, end);
    const RhythmBurden burden = rhythm_burden(episodes, fs);
    // Said, not assumed: a CSV without r_peak or sample columns gives its first column's numbers.
    if (read.column_by_position)
      spdlog::warn("{}: no 'r_peak' or 'sample' column: beat samples from the first column, '{}'", a->beats, read.column);
    // HRV over NN intervals: N beats by the file's classes (every beat N without them).
    if (!read.has_classes) spdlog::info("{}: no beat classes: every beat is taken as N for the HRV", a->beats);
    // ... and beats in artefact (a beats.csv `quality` column) and in AF left out, as `run` does.
    const HrvResult hrv = compute_hrv(beats, read.classes, hrv_usable_beats(read.artefact, rhythm), fs);

    const std::string path = (std::filesystem::path(a->out) / "rhythm.csv").string();
    {
      const OutputLock lock(a->out, OutputLock::Mode::exclusive);
      OutputSet files(true);
      write_rhythm_csv(files.text(path), episodes, fs);
      files.commit();
    }
    const auto in_artefact = std::count(read.artefact.begin(), read.artefact.end(), true);
    spdlog::info("{}: {} beats{} at {} Hz (from {}){}{}: {} AF episodes, AF burden {:.1f} % -> {}", a->beats, beats.size(),
                 read.column.empty() ? "" : " (column '" + read.column + "')", fs,
                 fs_source, read.ventricular.empty() ? "" : ", its V beats left out",
                 in_artefact == 0 ? std::string() : fmt::format(", its {} beats in artefact left out", in_artefact),
                 burden.afib_episodes, burden.afib_percent(), path);

    nlohmann::json j = rhythm_burden_json(burden);
    j["beats"] = a->beats;
    j["fs"] = fs;
    j["hrv"] = hrv_json(hrv);
    // Episodes and time of the other rhythms (none without beat classes).
    const std::map<Rhythm, RhythmTotal> totals = rhythm_totals(episodes, fs);
    j["other_rhythms"] = nlohmann::json::object();
    for (const auto& [r, t] : totals)
      if (r != Rhythm::N && r != Rhythm::AFIB) j["other_rhythms"][rhythm_name(r)] = {{"episodes", t.episodes}, {"seconds", t.seconds}};
    AfStats stats;
    std::vector<RhythmStats> rhythm_stats;  // kEctopicRhythms: where the beats have classes to name them
    if (!a->reference.empty()) {
      stats = compare_af(reference, episodes, end);
      j["reference"] = a->reference;
      j["af"] = af_stats_json(stats, fs);
      if (read.has_classes) {
        rhythm_stats = compare_ectopic_rhythms(reference, episodes, end);
        j["rhythms"] = rhythm_stats_json(rhythm_stats, fs);
      }
    }
    if (a->json) {
      std::cout << json_text(j, 2) << '\n';
      return;
    }
    // A value that is not defined here (Se of no reference episodes, SDANN of one 5-min segment) in
    // words; `unit` follows a number only.
    const auto num = [](double v, int decimals, const char* unit = "") {
      return std::isfinite(v) ? fmt::format("{:.{}f}{}", v, decimals, unit) : std::string("n/a");
    };
    std::cout << fmt::format("AF: {} episodes, {:.1f} % of {:.0f} s, longest {:.0f} s\n", burden.afib_episodes,
                             burden.afib_percent(), burden.analysed_s, burden.longest_afib_s);
    if (read.has_classes) {
      std::string named;
      for (const Rhythm r : kEctopicRhythms) {
        const auto it = totals.find(r);
        named += fmt::format("{}{} {}", named.empty() ? "" : ", ", rhythm_name(r),
                             it == totals.end() ? std::string("none")
                                                : fmt::format("{} ({:.0f} s)", it->second.episodes, it->second.seconds));
      }
      std::cout << "Other rhythms (from the beats' classes): " << named << '\n';
    }
    const auto episode_line = [&num](const std::string& name, const AfStats& x) {
      return fmt::format("{}: episode Se {} ({}/{}) +P {} ({}/{}); duration Se {} +P {}\n", name,
                         num(100 * x.episode_se(), 1, " %"), x.detected_reference_episodes, x.reference_episodes,
                         num(100 * x.episode_ppv(), 1, " %"), x.true_test_episodes, x.test_episodes,
                         num(100 * x.duration_se(), 1, " %"), num(100 * x.duration_ppv(), 1, " %"));
    };
    if (!a->reference.empty()) std::cout << episode_line("EC57 AF (epicmp -a)", stats);
    // The other rhythms only where either side has an episode, as `eval` lists them.
    for (const RhythmStats& x : rhythm_stats)
      if (x.stats.reference_episodes > 0 || x.stats.test_episodes > 0) std::cout << episode_line(x.rhythm, x.stats);
    // How much time the figures rest on, and whether that is under the Task Force's 5 minutes.
    const std::string nn_time =
        fmt::format("{:.0f} s{}", hrv.nn_seconds,
                    hrv_under_short_term(hrv) ? fmt::format(": under the Task Force's {:.0f} minutes, not comparable with published values",
                                                            kHrvShortTermS / 60.0)
                                              : "");
    std::cout << fmt::format("HRV: {} NN of {} RR intervals ({}); mean NN {}, SDNN {}, SDANN {}, SDNN index {}, RMSSD {}, pNN50 {}\n",
                             hrv.nn_intervals, hrv.rr_intervals, nn_time, num(hrv.mean_nn_ms, 1, " ms"), num(hrv.sdnn_ms, 1, " ms"),
                             num(hrv.sdann_ms, 1, " ms"), num(hrv.sdnn_index_ms, 1, " ms"), num(hrv.rmssd_ms, 1, " ms"),
                             num(hrv.pnn50_percent, 1, " %"));
    std::cout << fmt::format("HRV spectrum ({} 5-min segments): VLF {} LF {} HF {} total {} ms^2, LF/HF {}\n", hrv.segments,
                             num(hrv.vlf_ms2, 0), num(hrv.lf_ms2, 0), num(hrv.hf_ms2, 0), num(hrv.total_ms2, 0), num(hrv.lf_hf, 2));
  });
}

}  // namespace ecgpipe::cli
