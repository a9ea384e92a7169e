// ecgpipe's Python face (python/ecgpipe, `pip install ./python`): the native module
// ecgpipe._ecgpipe, a thin layer over the same pipeline functions the command line calls, so that
// both give the same results. python/ecgpipe/__init__.py turns what these return into NumPy
// arrays, pandas DataFrames and dicts; docs/python.md is the API reference.
//
// Signals come in as nanobind ndarrays (the buffer protocol and DLPack: NumPy, PyTorch, CuPy, JAX),
// float32 and contiguous. `detect` reads a CUDA array in place; the other calls classify beats on
// the host and take a host copy. Each call releases the GIL while it works. Errors are the
// pipeline's own exceptions, raised as ecgpipe.UsageError / InputError / OutputError /
// DeviceError / InternalError with the command line's messages and an exit_code attribute.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/log_format.hpp"
#include "ecgpipe/common/error.hpp"
#include "ecgpipe/common/sample_rate.hpp"
#include "ecgpipe/config.hpp"
#include "ecgpipe/eval/eval_json.hpp"
#include "ecgpipe/eval/evaluate.hpp"
#include "ecgpipe/io/csv.hpp"
#include "ecgpipe/io/signal_input.hpp"
#include "ecgpipe/io/signal_source.hpp"
#include "ecgpipe/model/model_file.hpp"
#include "ecgpipe/model/vae_types.hpp"
#include "ecgpipe/pipeline/detect_run.hpp"
#include "ecgpipe/pipeline/pipeline.hpp"
#include "ecgpipe/pipeline/second_lead.hpp"
#include "ecgpipe/pipeline/segment.hpp"
#include "common/json_text.hpp"
#ifdef ECGPIPE_WITH_CUDA
#include "ecgpipe/pipeline/segment_cuda.hpp"
#endif

namespace nb = nanobind;

namespace ecgpipe::python {
namespace {

// Any 1-D float32 array, on the host or a GPU.
using Signal = nb::ndarray<const float, nb::ndim<1>, nb::c_contig>;
template <class T>
using NumpyVector = nb::ndarray<nb::numpy, T, nb::ndim<1>>;

// A NumPy array that owns `values` (no copy: the vector moves into the array's capsule).
template <class T>
NumpyVector<T> to_numpy(std::vector<T> values) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return NumpyVector<T>(owned->data(), {owned->size()}, owner);
}

bool on_cuda(const Signal& s) { return s.device_type() == nb::device::cuda::value; }

// The signal on the host, shared by the pipeline's stages: one copy out of the caller's array
// (the stages own their vector, RunOptions::samples), or down from a GPU.
std::shared_ptr<const std::vector<float>> host_samples(const Signal& s) {
  if (on_cuda(s)) {
#ifdef ECGPIPE_WITH_CUDA
    return std::make_shared<const std::vector<float>>(
        copy_to_host_cuda(DeviceSpan<const float>{s.data(), s.shape(0)}, s.device_id()));
#else
    throw DeviceError("a CUDA array was given, but this ecgpipe was built without CUDA");
#endif
  }
  if (s.device_type() != nb::device::cpu::value) throw UsageError("the signal must be a host (CPU) or CUDA array");
  return std::make_shared<const std::vector<float>>(s.data(), s.data() + s.shape(0));
}

template <class E>
E named(const EnumNames<E>& names, const std::string& name, const char* what) {
  if (const auto v = value_named(names, name)) return *v;
  throw UsageError(std::string(what) + " must be one of " + braced_names(names) + ", got '" + name + "'");
}

// What the command line's --fs takes, for a signal given with its rate.
SignalSource given_source(double fs) {
  validate_fs(fs);
  SignalSource s;
  s.format = "array";
  s.fs = fs;
  s.fs_source = "given";
  return s;
}

// A Recording's info (ecgpipe.read; empty for a bare array) into the SignalSource the command
// line would have for that file: the report then says where the rate, the column and the units
// came from, and repeats the reader's warnings (a guessed rate).
// The dict is the caller's to change: a value of another type is a UsageError naming its key (it
// was a RuntimeError, std::bad_cast); None is a value left out.
template <typename T>
std::optional<T> info_value(const nb::dict& info, const char* key, const char* what) {
  if (!info.contains(key) || info[key].is_none()) return std::nullopt;
  T v{};
  if (!nb::try_cast(info[key], v, /*convert=*/false))
    throw UsageError(std::string("Recording.info['") + key + "']: " + what + ", got " +
                     nb::cast<std::string>(nb::handle(info[key]).type().attr("__name__")));
  return v;
}

void apply_recording_info(const nb::dict& info, SignalSource& s) {
  const auto text = [&info](const char* key) { return info_value<std::string>(info, key, "text").value_or(""); };
  if (info.size() == 0) return;
  s.format = text("format");
  s.fs_source = text("fs_source");
  s.column = text("column");
  s.signal_name = text("signal_name");
  s.units = text("units");
  s.start_time = text("start_time");
  s.lead2_name = text("lead2_name");
  s.fs_is_default = info_value<bool>(info, "fs_is_default", "True or False").value_or(false);
  s.warnings = info_value<std::vector<std::string>>(info, "warnings", "a list of text").value_or(std::vector<std::string>{});
}

// The options of `run` / `analyze` / `score` for an in-memory signal, the windows scaled to fs
// as the command line scales them. `start`: the start= keyword (empty: none), as --start.
RunOptions run_options(const Signal& signal, double fs, const std::string& name, const std::string& device,
                       const std::string& out, const nb::dict& info, const std::optional<Signal>& lead2,
                       const std::optional<std::string>& start) {
  RunOptions o;
  o.source = given_source(fs);
  apply_recording_info(info, o.source);
  if (start) apply_given_start(*start, "start", name, o.source);
  if (!lead2) o.source.lead2_name.clear();  // not handed over: not read
  if (lead2 && lead2->shape(0) != signal.shape(0))
    throw UsageError("lead2: " + std::to_string(lead2->shape(0)) + " samples, the signal has " + std::to_string(signal.shape(0)) +
                     " (two leads of one recording)");
  if (lead2 && o.source.lead2_name.empty()) o.source.lead2_name = "given";
  o.fs = fs;
  const SampleWindows w = seed_windows(fs);
  o.ricker_width = w.ricker_width;
  o.nms_window = w.nms_window;
  o.limits.min_length = w.min_length;
  o.limits.max_length = w.max_length;
  check_windows(w, fs);
  o.device = named(device_names(), device, "device");
  o.input = name;
  o.out_dir = out;
  o.samples = host_samples(signal);
  if (lead2) o.lead2_samples = host_samples(*lead2);
  return o;
}

// beats.csv's text and report.json's, the run's two results a Python caller reads.
nb::tuple run_outputs(const RunOptions& o) {
  RunResult r;
  std::string beats, report;
  {
    nb::gil_scoped_release release;
    r = run_pipeline(o);
    beats = run_beats_csv(o, r);
    report = run_report_json(o, r);
  }
  return nb::make_tuple(nb::bytes(beats.data(), beats.size()), report,
                        nb::bytes(r.model.model_file.data(), r.model.model_file.size()));
}

nb::tuple read(const std::string& path, std::optional<std::string> column, std::optional<double> fs, const std::string& lead2) {
  CsvOptions csv;
  if (column) csv.column = *column;
  csv.lead2 = lead2;
  SignalSource source;
  std::vector<float> samples, lead2_samples;
  {
    nb::gil_scoped_release release;
    source = resolve_signal_source(path, csv, fs, kSeedFs);
    csv.column = source.column;
    // The second lead, as the command line reads it (second_lead.hpp): a CSV's in the primary's
    // pass, its errors named as the second lead's.
    SecondLead lead{path, csv, source.fs, source.lead2_name, nullptr};
    lead.csv.column = source.lead2_column;
    lead.without = "lead2=\"none\"";
    const std::optional<CsvSecondColumn> column2 =
        source.lead2_column.empty() ? std::nullopt : csv_second_column(std::optional<SecondLead>(lead));
    if (column2) {
      CsvColumns both = read_csv_columns(path, csv, *column2);
      samples = std::move(both.first);
      lead2_samples = std::move(both.second);
    } else {
      samples = read_signal(path, csv, source.fs);
      if (!source.lead2_column.empty()) {
        try {
          lead2_samples = read_signal(path, lead.csv, source.fs);
        } catch (const InputError& e) {
          // The primary lead was read: say that this is the other one, as the command line does.
          throw InputError(std::string(e.what()) + second_lead_note(lead));
        }
      }
    }
  }
  nb::dict info;
  info["path"] = path;
  info["format"] = source.format;
  info["fs_source"] = source.fs_source;
  info["fs_is_default"] = source.fs_is_default;
  info["column"] = source.column;
  info["signal_name"] = source.signal_name;
  info["start_time"] = source.start_time;
  info["units"] = source.units;
  info["lead2_name"] = source.lead2_name;
  info["description"] = source.description();
  nb::list warnings;
  for (const auto& w : source.warnings) warnings.append(w);
  info["warnings"] = warnings;
  nb::object second = nb::none();
  if (!source.lead2_column.empty()) second = nb::cast(to_numpy(std::move(lead2_samples)));
  return nb::make_tuple(to_numpy(std::move(samples)), source.fs, info, second);
}

nb::tuple detect(const Signal& signal, double fs, const std::string& device, const std::string& preset) {
  DetectFileOptions o;
  o.source = given_source(fs);
  o.fs = fs;
  o.windows = seed_windows(fs);
  check_windows(o.windows, fs);
  o.preset = named(preset_names(), preset, "preset");
  o.device = named(device_names(), device, "device");
  o.input = "signal";
  DetectFileResult r;
  const void* read_from = nullptr;
  if (on_cuda(signal)) {
    if (o.device == Device::cpu) throw UsageError("device='cpu' for a CUDA array: pass it to the host first, or use device='cuda'");
#ifdef ECGPIPE_WITH_CUDA
    nb::gil_scoped_release release;
    resolve_device(Device::cuda);  // a DeviceError when the GPU is not usable
    const DeviceSpan<const float> span{signal.data(), signal.shape(0)};
    PeakDetection found = detect_peaks_cuda(span, signal.device_id(), o.preset, fs, o.windows);
    r.device = "cuda";
    r.samples = found.samples;
    r.candidates = found.candidates;
    r.r_peaks = std::move(found.r_peaks);
    read_from = found.input_address;
#else
    throw DeviceError("a CUDA array was given, but this ecgpipe was built without CUDA");
#endif
  } else {
    o.samples = host_samples(signal);
    nb::gil_scoped_release release;
    r = detect_file(o);
  }
  nb::dict info;
  info["device"] = r.device;
  info["samples"] = r.samples;
  info["candidates"] = r.candidates;
  info["seconds"] = r.seconds;
  info["input_address"] = reinterpret_cast<std::uintptr_t>(read_from);
  return nb::make_tuple(to_numpy(std::move(r.r_peaks)), info);
}

nb::tuple analyze(const Signal& signal, double fs, const std::string& name, const std::string& device,
                  const std::string& out, const nb::dict& info, const std::optional<Signal>& lead2,
                  const std::optional<std::string>& start) {
  RunOptions o = run_options(signal, fs, name, device, out, info, lead2, start);
  o.analyze_only = true;
  validate(o);
  return run_outputs(o);
}

nb::tuple run(const Signal& signal, double fs, const std::string& name, const std::string& device,
              const std::string& out, const nb::dict& info, const std::optional<Signal>& lead2,
              const std::optional<std::string>& start, int epochs, std::uint64_t seed, const std::string& model,
              std::optional<nb::callable> progress) {
  RunOptions o = run_options(signal, fs, name, device, out, info, lead2, start);
  o.train.epochs = epochs;
  o.train.seed = seed;
  o.model = named(model_names(), model, "model");
  if (o.model == Model::seed) o.train.batch_size = kSeedBatch;
  // Called from the training loop on this thread after each epoch, with the GIL taken back for
  // it: a Ctrl-C (or an exception in the progress callback) stops the training there, with or
  // without a callback (the GIL is released while it trains, so Python sees the signal only here).
  // The callable is held through a shared_ptr: the pipeline copies its options while the GIL is
  // released, and copying a shared_ptr touches no Python reference count; the last owner is `o`,
  // destroyed here with the GIL held.
  const auto callback = progress ? std::make_shared<nb::callable>(std::move(*progress)) : nullptr;
  o.train.on_epoch = [callback, epochs](int epoch, double loss, double) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
    if (callback) (*callback)(epoch, epochs, loss);
  };
  validate(o);
  return run_outputs(o);
}

nb::tuple score(const Signal& signal, double fs, const std::string& model_path, const std::string& name,
                const std::string& device, const std::string& out, const nb::dict& info, const std::optional<Signal>& lead2,
                const std::optional<std::string>& start) {
  RunOptions o = run_options(signal, fs, name, device, out, info, lead2, start);
  std::string meta;
  {
    nb::gil_scoped_release release;
    meta = read_model_meta(model_path);
  }
  apply_model_meta(meta, model_path, o);
  check_model_parameters(o, model_path);
  // The model's windows are durations at the rate it was trained at (the command line refuses a
  // WFDB record at another rate for the same reason).
  if (!same_declared_fs(o.fs, fs)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the model was trained at %g Hz; this signal is at %g Hz", o.fs, fs);
    throw UsageError(buf);
  }
  o.source.fs = o.fs;
  validate(o);
  return run_outputs(o);
}

// UsageError unless every value is a sample index as the command line's readers take one (0 to
// kMaxSampleIndex): the package's arrays are the caller's, as a CSV's cells are.
void check_sample_indices(const char* what, const std::int64_t* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (v[i] < 0 || v[i] > kMaxSampleIndex)
      throw UsageError(std::string(what) + ": " + std::to_string(v[i]) + " (at " + std::to_string(i) +
                       ") is not a sample index (0 to 2**53)");
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// reference: a file (CSV sample,symbol or WFDB .atr) or, with path empty, `samples` and `symbols`.
std::string evaluate(const std::string& reference_path, const nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>& samples,
                     const std::string& symbols, const nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>& detections,
                     const std::string& classes, double fs, double tolerance_ms) {
  if (!(std::isfinite(fs) && fs > 0)) throw UsageError("fs must be a positive rate, got " + number_text(fs));
  if (!(std::isfinite(tolerance_ms) && tolerance_ms > 0 && tolerance_ms <= 1000))
    throw UsageError("tolerance_ms must lie in (0, 1000], got " + number_text(tolerance_ms));
  validate_fs(fs);
  ReferenceBeats reference;
  if (!reference_path.empty()) {
    nb::gil_scoped_release release;
    reference = read_reference(reference_path);
  } else {
    if (symbols.size() != samples.shape(0)) throw UsageError("reference: one symbol per sample");
    check_sample_indices("reference", samples.data(), samples.shape(0));
    reference.samples.assign(samples.data(), samples.data() + samples.shape(0));
    reference.symbols.assign(symbols.begin(), symbols.end());
    for (std::size_t i = 1; i < reference.samples.size(); ++i)
      if (reference.samples[i] < reference.samples[i - 1]) throw InputError("reference: samples must be ascending");
  }
  check_sample_indices("detections", detections.data(), detections.shape(0));
  std::vector<std::int64_t> peaks(detections.data(), detections.data() + detections.shape(0));
  for (std::size_t i = 1; i < peaks.size(); ++i)
    if (peaks[i] < peaks[i - 1]) throw InputError("detections: R peaks must be ascending");
  if (!classes.empty() && classes.size() != peaks.size()) throw UsageError("classes: one letter per detection");
  // As the command line's class column: a letter the EC57 matrix counts (N S V F Q, or a MIT-BIH
  // beat symbol), else the matrix would meet it as an internal error.
  for (std::size_t i = 0; i < classes.size(); ++i)
    if (ec57_detected_class(classes[i]) == 0)
      throw UsageError("classes: '" + std::string(1, classes[i]) + "' (detection " + std::to_string(i) +
                       ") is not a beat label (N, S, V, F, Q)");
  EvalOptions eo;
  eo.fs = fs;
  eo.tolerance_ms = tolerance_ms;
  nb::gil_scoped_release release;
  EvalReport report = evaluate_detections(reference, peaks, {}, eo, std::vector<char>(classes.begin(), classes.end()));
  report.reference_path = reference_path;  // the detections are the caller's array: no path
  return json_text(eval_report_json(report));
}

void set_log_level(const std::string& level) {
  const auto l = spdlog::level::from_str(level);
  if (l == spdlog::level::off && level != "off")
    throw UsageError("log level must be one of trace, debug, info, warning, error, critical, off; got '" + level + "'");
  spdlog::set_level(l);
}

// Each ecgpipe::Error subclass as a Python exception of the same name under ecgpipe.Error, with
// the command line's exit code as a class attribute.
void register_errors(nb::module_& m) {
  static nb::object base = nb::exception<Error>(m, "Error");
  base.attr("exit_code") = static_cast<int>(ExitCode::internal);
  static nb::object usage = nb::exception<UsageError>(m, "UsageError", base.ptr());
  static nb::object input = nb::exception<InputError>(m, "InputError", base.ptr());
  static nb::object output = nb::exception<OutputError>(m, "OutputError", base.ptr());
  static nb::object device = nb::exception<DeviceError>(m, "DeviceError", base.ptr());
  static nb::object internal = nb::exception<InternalError>(m, "InternalError", base.ptr());
  usage.attr("exit_code") = static_cast<int>(ExitCode::usage);
  input.attr("exit_code") = static_cast<int>(ExitCode::input);
  output.attr("exit_code") = static_cast<int>(ExitCode::output);
  device.attr("exit_code") = static_cast<int>(ExitCode::device);
  internal.attr("exit_code") = static_cast<int>(ExitCode::internal);
}

}  // namespace
}  // namespace ecgpipe::python

NB_MODULE(_ecgpipe, m) {
  using namespace ecgpipe::python;
  namespace eg = ecgpipe;
  m.doc() = "ecgpipe's native module; use the ecgpipe package (python/ecgpipe/__init__.py)";
  // Warnings and errors only: a notebook's cell is not a log. set_log_level("info") for the lines
  // the command line prints.
  spdlog::set_level(spdlog::level::warn);
  spdlog::set_formatter(eg::visible_log_formatter("ecgpipe: %^%l%$: %*"));  // input quoted in a log: made visible
  register_errors(m);
  m.attr("__version__") = ECGPIPE_VERSION;
#ifdef ECGPIPE_WITH_CUDA
  m.attr("cuda_built") = true;
#else
  m.attr("cuda_built") = false;
#endif
  m.def("read", &ecgpipe::python::read, nb::arg("path"), nb::arg("column").none() = nb::none(), nb::arg("fs").none() = nb::none(),
        nb::arg("lead2") = "auto");
  m.def("detect", &ecgpipe::python::detect, nb::arg("signal"), nb::arg("fs"), nb::arg("device"), nb::arg("preset"));
  m.def("analyze", &ecgpipe::python::analyze, nb::arg("signal"), nb::arg("fs"), nb::arg("name"), nb::arg("device"),
        nb::arg("out"), nb::arg("info"), nb::arg("lead2").none(), nb::arg("start").none());
  m.def("run", &ecgpipe::python::run, nb::arg("signal"), nb::arg("fs"), nb::arg("name"), nb::arg("device"), nb::arg("out"),
        nb::arg("info"), nb::arg("lead2").none(), nb::arg("start").none(), nb::arg("epochs"), nb::arg("seed"),
        nb::arg("model"), nb::arg("progress").none());
  m.def("score", &ecgpipe::python::score, nb::arg("signal"), nb::arg("fs"), nb::arg("model_path"), nb::arg("name"),
        nb::arg("device"), nb::arg("out"), nb::arg("info"), nb::arg("lead2").none(), nb::arg("start").none());
  m.def("evaluate", &ecgpipe::python::evaluate, nb::arg("reference_path"), nb::arg("samples"), nb::arg("symbols"), nb::arg("detections"),
        nb::arg("classes"), nb::arg("fs"), nb::arg("tolerance_ms"));
  m.def("model_meta", [](const std::string& path) {
    nb::gil_scoped_release release;
    return eg::read_model_meta(path);
  }, nb::arg("path"));
  m.def("set_log_level", &ecgpipe::python::set_log_level, nb::arg("level"));
  m.def("cuda_available", [] {
    try {
      return eg::resolve_device(eg::Device::automatic) == eg::Device::cuda;
    } catch (const eg::Error&) {
      return false;
    }
  });
}
