// `ecgpipe synth OUT.csv`: writes a synthetic ECG and its ground-truth beats (issue 4).
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "common/text.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/eval/synth.hpp"

namespace ecgpipe::cli {

namespace {
struct SynthArgs {
  SynthOptions options;
  std::string out;
  std::string truth;
  int digits = 0;
  double duration_s = 600.0;
  CLI::Option* duration = nullptr;
  CLI::Option* samples = nullptr;
  CLI::Option* heart_rate = nullptr;
  std::string scenario = "none";
};
}  // namespace

void add_synth_command(CLI::App& app) {
  auto args = std::make_shared<SynthArgs>();
  SynthOptions& o = args->options;
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Write a synthetic ECG (sum of Gaussian P/Q/R/S/T waves per beat, with HRV, PVCs, PACs and "
      "dropped beats, baseline wander, mains hum and noise) and its ground-truth beats");
  cmd->add_option("OUT", args->out, "signal CSV to write (header 'heartbeats', mV, %.4f)")
      ->required();
  cmd->add_option("--truth", args->truth,
                  "ground-truth CSV (sample,symbol,class; symbols N, V, A, F, j; AAMI class N, S, V, F) [default: OUT_beats.csv]");
  cmd->add_option("--fs", o.fs, "sampling rate, Hz")->capture_default_str();
  args->duration =
      cmd->add_option("--duration", args->duration_s, "length in seconds")->capture_default_str();
  args->samples = cmd->add_option("--samples", o.samples, "length in samples (instead of --duration)");
  args->samples->excludes(args->duration);
  args->heart_rate = cmd->add_option("--heart-rate", o.heart_rate,
                                     "mean sinus rate, bpm [default: 70; 45 with --scenario apc-bradycardia]");
  cmd->add_option("--hrv", o.hrv, "RR standard deviation as a fraction of the mean RR")
      ->capture_default_str();
  cmd->add_option("--wander-mv", o.wander_mv, "baseline wander amplitude, mV (<= 100)")->capture_default_str();
  cmd->add_option("--mains-hz", o.mains_hz, "mains hum frequency, Hz")->capture_default_str();
  cmd->add_option("--mains-mv", o.mains_mv, "mains hum amplitude, mV (0: none; <= 100)")->capture_default_str();
  cmd->add_option("--snr", o.snr_db,
                  "white noise level: 20 log10(R amplitude / noise RMS) in dB, >= -60; inf: no noise")
      ->capture_default_str();
  cmd->add_option("--abnormal-rate", o.abnormal_rate,
                  "probability that a beat is abnormal (50% PVC, 35% PAC, 15% dropped)")
      ->capture_default_str();
  cmd->add_option("--scenario", args->scenario,
                  "rhythm: none (random PVC/PAC/dropped at --abnormal-rate), apc-bradycardia (APCs in most "
                  "cycles of a sinus bradycardia with long pauses), bigeminy (ventricular), vt-runs (3-10 PVCs at "
                  "160 bpm), fusion (F beats), junctional-escape (j beats after sinus arrest), paroxysmal-af (AF "
                  "episodes between sinus stretches; rhythm truth in OUT_rhythm.csv), af (AF throughout), flutter (atrial "
                  "flutter episodes, 2:1 and 4:1 conduction, between sinus stretches; rhythm truth in OUT_rhythm.csv), "
                  "af-aberrant (paroxysmal-af with Ashman beats: a beats with right bundle branch block after a "
                  "long-short cycle), svta-runs (runs of 3-15 APCs at 150-200 bpm; rhythm truth in OUT_rhythm.csv), svta-long (runs of 20-80 APCs), "
                  "noise (sinus "
                  "rhythm with bursts of muscle noise, electrode motion and baseline wander; truth in OUT_noise.csv)")
      ->capture_default_str();
  add_seed_option(*cmd, o.seed, "random seed (same seed, same files)");
  cmd->add_option("--digits", args->digits, "0: values as %.4f mV; 1..17: significant digits (%.Ne, the seed's files use 17)")
      ->capture_default_str();

  cmd->callback([args]() {
    SynthOptions options = args->options;
    if (args->samples->count() == 0)
      options.samples = synth_samples_for_duration(args->duration_s, options.fs);
    options.scenario = parse_synth_scenario(args->scenario);
    if (options.scenario == SynthScenario::apc_bradycardia && args->heart_rate->count() == 0)
      options.heart_rate = kApcBradycardiaHeartRate;
    validate(options);
    const std::string truth = args->truth.empty() ? default_truth_path(args->out) : args->truth;
    const SynthRecord record = synthesize(options);
    write_synth_files(record, args->out, truth, args->digits);
    // A log line as every command's: the names shown, not obeyed (text::visible), and quiet under -q.
    std::string wrote = text::visible(args->out) + " and " + text::visible(truth);
    if (!record.rhythm.empty()) wrote += " and " + text::visible(rhythm_truth_path(args->out));
    if (!record.noise.empty()) wrote += " and " + text::visible(noise_truth_path(args->out));
    spdlog::info("synth: wrote {}: {}", wrote, synth_summary(record, options));
  });
}

}  // namespace ecgpipe::cli
