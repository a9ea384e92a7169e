"""ecgpipe from Python: ECG signals to R peaks, beat classes, rhythm, a Holter summary and VAE
outlier scores, on the GPU or the CPU, with the same results as the ``ecgpipe`` command line
(one implementation, two faces: this package calls the same C++ pipeline).

    import ecgpipe
    signal, fs = ecgpipe.read("100.hea")             # CSV, WFDB or EDF
    peaks = ecgpipe.detect(signal, fs)               # R peaks, NumPy int64
    beats, holter = ecgpipe.analyze(signal, fs)      # DataFrame, Holter summary dict
    result = ecgpipe.run(signal, fs, epochs=30)      # + VAE scores and the trained model

Signals are 1-D arrays of samples: NumPy arrays, lists, pandas Series, or any array that speaks
DLPack (a PyTorch tensor, a CuPy array). ``detect`` reads a CUDA array in place, with no copy;
the other calls classify beats on the host and copy a CUDA array down once. The API reference is
docs/python.md.
"""
from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, Optional, Tuple, Union

import numpy as np
import pandas as pd

from . import _build

if _build.TORCH_FIRST:
    # This build links the LibTorch inside the torch package: torch loads it first, its own way,
    # whichever of the two the user imports first (src/python/CMakeLists.txt says why).
    import torch  # noqa: F401

from . import _ecgpipe as _native
from ._ecgpipe import DeviceError, Error, InputError, InternalError, OutputError, UsageError, __version__

__all__ = [
    "read", "detect", "analyze", "run", "evaluate", "Model", "Recording", "Analysis", "Run",
    "Error", "UsageError", "InputError", "OutputError", "DeviceError", "InternalError", "EcgpipeWarning",
    "set_log_level", "cuda_available", "cuda_built", "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
Progress = Union[bool, Callable[[int, int, float], Any], None]


class EcgpipeWarning(UserWarning):
    """What the command line says as a warning (an implausible rate, beats that cannot be right):
    the results are made, but may be wrong."""


# beats.csv's text columns, read as categories: a few values each, no Python string per beat.
_CATEGORIES = {"split": "category", "class": "category", "rhythm": "category", "quality": "category"}


@dataclass(frozen=True)
class Recording:
    """A recording read from a file: ``signal`` (float32 samples), ``fs`` (Hz), ``info``
    (format, which column or signal was read and where the rate came from) and ``lead2``, the
    second ECG lead the beat classes read (float32, as many samples; None when the file has none
    or ``read(..., lead2="none")``). Unpacks as ``signal, fs = ecgpipe.read(path)``."""

    signal: np.ndarray
    fs: float
    info: Dict[str, Any] = field(default_factory=dict)
    lead2: Optional[np.ndarray] = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.signal, self.fs))


@dataclass(frozen=True)
class Analysis:
    """``analyze``'s (and ``Model.score``'s) result: ``beats`` (one row per beat, the columns of
    the command line's beats.csv), ``holter`` (report.json's Holter summary), ``report`` (the whole
    report.json) and ``beats_csv`` (beats.csv's bytes, as the command line writes them). Unpacks as
    ``beats, holter = ecgpipe.analyze(signal, fs)``."""

    beats: pd.DataFrame
    holter: Dict[str, Any]
    report: Dict[str, Any]
    beats_csv: bytes

    def __iter__(self) -> Iterator[Any]:
        return iter((self.beats, self.holter))


@dataclass(frozen=True)
class Run(Analysis):
    """``run``'s result: an Analysis whose beats carry the VAE's scores, and the trained ``model``."""

    model: Optional["Model"] = None


class Model:
    """A trained model: the bytes of the command line's model.safetensors (parameters and how its
    beats were made). ``save`` writes it, ``Model.load`` reads one (checked as ``ecgpipe score``
    checks it), ``score`` scores another signal with it without training."""

    def __init__(self, data: bytes):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise UsageError(f"Model(data): the bytes of a model file, got {type(data).__name__} "
                             "(Model.load(path) reads a file)")
        self._data = bytes(data)

    @property
    def data(self) -> bytes:
        return self._data

    @property
    def meta(self) -> Dict[str, Any]:
        """The model's record of how its beats were made (preset, rate, windows, beat length)."""
        with _model_file(self._data) as path:
            return json.loads(_model_file.said(path, _native.model_meta, path))

    def save(self, path: PathLike) -> None:
        """Writes the model to ``path`` whole or not at all: a temporary file beside it, named as
        the command line names its temporaries (``.NAME.ecgpipe-tmp.PID``, so that a later run
        removes one left by a killed process), flushed to disk and renamed into place. OutputError
        when it cannot be written."""
        path = _path("path", path)
        folder = os.path.dirname(os.path.abspath(path))
        tmp = os.path.join(folder, f".{os.path.basename(path)}.ecgpipe-tmp.{os.getpid()}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except OSError as e:
            raise OutputError(f"cannot write {path}: {e.strerror} ({tmp})") from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self._data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException as e:
            if os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(e, OSError):
                raise OutputError(f"cannot write {path}: {e.strerror}") from None
            raise

    @classmethod
    def load(cls, path: PathLike) -> "Model":
        """Reads a model file; InputError for anything that is not a whole ecgpipe model (checked
        as ``ecgpipe score`` checks it: the file first, so that the message names it, then the bytes
        read, in case the file changed in between)."""
        path = _path("path", path)
        _native.model_meta(path)
        with open(path, "rb") as f:
            model = cls(f.read())
        model.meta  # the bytes held are a whole model too
        return model

    def score(self, signal: Any, fs: Optional[float] = None, *, device: str = "auto", name: Optional[str] = None,
              out: Optional[PathLike] = None, lead2: Any = None, start: Optional[str] = None) -> Analysis:
        """Scores every beat of ``signal`` (sampled at ``fs``, the model's rate; a Recording brings
        its own) with this model: ``ecgpipe score``. With ``out``, also writes the command line's
        output folder there. ``lead2`` and ``start`` as for ``analyze``."""
        x, rate, name, info = _signal_args(signal, fs, name)
        with _model_file(self._data) as path:
            beats_csv, report, _ = _model_file.said(path, _native.score, x, rate, path, name, device, _out(out), info,
                                                    _lead2(signal, lead2), _start(start))
        return _analysis(Analysis, beats_csv, report)

    def __repr__(self) -> str:
        return f"<ecgpipe.Model, {len(self._data)} bytes>"


class _model_file:
    """The model's bytes in a private temporary file (the native reader checks files)."""

    def __init__(self, data: bytes):
        self._data = data

    def __enter__(self) -> str:
        self._dir = tempfile.TemporaryDirectory(prefix="ecgpipe-")
        path = os.path.join(self._dir.name, "model.safetensors")
        with open(path, "wb") as f:
            f.write(self._data)
        return path

    def __exit__(self, *exc: Any) -> None:
        self._dir.cleanup()

    @staticmethod
    def said(path: str, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, its InputError naming the bytes (``Model.data``) instead of the private
        temporary file ``path`` they were checked in."""
        try:
            return call(*args)
        except InputError as e:
            if path not in str(e):
                raise
            raise InputError(str(e).replace(path, "Model.data")) from None


def read(path: PathLike, column: Optional[Union[str, int]] = None, fs: Optional[float] = None,
         lead2: Union[str, int] = "auto") -> Recording:
    """Reads a recording as the command line does: a CSV column, a WFDB record (the .hea, or the
    record's path without extension) or an EDF/BDF signal. ``column``: a CSV header name or 0-based
    index, a WFDB/EDF signal name or index (default: ``heartbeats``, else the first that is not a
    time or an index column). The rate: ``fs`` if given (it must agree with a header's), else the
    header's, else a CSV time column's, else 250 Hz with an EcgpipeWarning. ``lead2``: the second
    lead, as the command line's ``--lead2`` (auto: another signal named as an ECG lead; none; a
    name or index), in the Recording's ``lead2``."""
    path = _path("path", path)
    if not os.path.splitext(path)[1] and os.path.exists(path + ".hea"):
        path += ".hea"  # a WFDB record named as wfdb-python names it
    signal, rate, info, second = _native.read(path, None if column is None else str(column),
                                              None if fs is None else _rate(fs), str(lead2))
    for w in info["warnings"]:
        warnings.warn(w, EcgpipeWarning, stacklevel=2)
    return Recording(signal, rate, info, second)


def detect(signal: Any, fs: Optional[float] = None, *, device: str = "auto", preset: str = "robust",
           return_info: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, Dict[str, Any]]]:
    """The R peaks of ``signal`` (sample indices, ascending, NumPy int64), as ``ecgpipe detect``.
    A CUDA array (float32, 1-D, contiguous) is read in place on its GPU; ``device``: auto, cpu or
    cuda. ``return_info``: also a dict (device, samples, candidates, seconds, and the device
    address the detector read, ``input_address``, for a CUDA array). A Recording brings its rate."""
    if isinstance(signal, Recording):
        signal, fs = signal.signal, signal.fs if fs is None else fs
    x = _cuda_signal(signal)
    if x is None:
        x = _host_signal(signal)
    peaks, info = _native.detect(x, _rate(fs), device, preset)
    return (peaks, info) if return_info else peaks


def analyze(signal: Any, fs: Optional[float] = None, *, device: str = "auto", name: Optional[str] = None,
            out: Optional[PathLike] = None, lead2: Any = None, start: Optional[str] = None) -> Analysis:
    """Everything but the VAE, as ``ecgpipe analyze``: the beats (R peaks, classes, rhythm,
    quality) and the Holter summary. ``signal`` may be a Recording (``ecgpipe.read``): then its
    rate, path and what the reader said of it (format, column, rate source, units, warnings) come
    with it. ``name`` names the recording in the report and
    its output files (default: the Recording's path, else "signal"); with ``out``, the command
    line's output folder is also written there (report.html, beats.csv, ...). ``lead2``: a second
    lead for the beat classes (an array as long as ``signal``); default: a Recording's own
    ``lead2``, as the command line reads that file; False: the primary lead alone. ``start``:
    when the recording started, 'YYYY-MM-DD hh:mm:ss' or 'hh:mm:ss', as ``--start`` (the report's
    hourly table and times then read clock time; a Recording whose file gives another is refused)."""
    x, rate, name, info = _signal_args(signal, fs, name)
    beats_csv, report, _ = _native.analyze(x, rate, name, device, _out(out), info, _lead2(signal, lead2),
                                           _start(start))
    return _analysis(Analysis, beats_csv, report)


def run(signal: Any, fs: Optional[float] = None, *, epochs: int = 30, seed: int = 42, model: str = "rr",
        device: str = "auto", name: Optional[str] = None, out: Optional[PathLike] = None,
        progress: Progress = None, lead2: Any = None, start: Optional[str] = None) -> Run:
    """The whole ``ecgpipe run``: the beats with the VAE's scores and outlier flags, the trained
    ``model``, the report (``signal``, ``name``, ``out``, ``lead2``, ``start`` as for ``analyze``). ``epochs``: 1 to
    100000; ``seed``: 0 to 2**64-1. ``progress``: True for a line per epoch on stderr (a tqdm bar
    when tqdm is installed), or a callable ``f(epoch, epochs, loss)``. Ctrl-C stops the training
    after the current epoch (KeyboardInterrupt), with or without ``progress``."""
    epochs = _whole("epochs", epochs, 1, 100000)
    seed = _whole("seed", seed, 0, 2**64 - 1)
    x, rate, name, info = _signal_args(signal, fs, name)
    callback = _progress_callback(progress, epochs)
    try:
        beats_csv, report, model_bytes = _native.run(x, rate, name, device, _out(out), info, _lead2(signal, lead2),
                                                     _start(start), epochs, seed, model, callback)
    finally:
        if callback is not None and hasattr(callback, "close"):
            callback.close()
    return _analysis(Run, beats_csv, report, model=Model(model_bytes))


def evaluate(reference: Any, detections: Any, fs: float, *, classes: Optional[Any] = None,
             tolerance_ms: float = 150.0) -> Dict[str, Any]:
    """Beat-by-beat evaluation (ANSI/AAMI EC57), as ``ecgpipe eval --json``: ``reference`` is an
    annotation file (WFDB .atr or a sample,symbol CSV), a pair ``(samples, symbols)`` or a
    DataFrame with ``sample`` and ``symbol`` columns (``pd.read_csv`` of such a CSV);
    ``detections`` the R peaks (sample indices: whole numbers from 0, ascending); ``classes``
    optionally one of N S V F Q per detection (then the class figures too)."""
    det = _sample_indices("detections", detections)
    letters = "" if classes is None else "".join(str(c) for c in classes)
    rate, tolerance = _rate(fs), _number("tolerance_ms", tolerance_ms)
    empty = np.zeros(0, dtype=np.int64)
    if isinstance(reference, (str, os.PathLike)):
        text = _native.evaluate(_path("reference", reference), empty, "", det, letters, rate, tolerance)
    else:
        samples, symbols = _reference_pair(reference)
        ref = _sample_indices("reference", samples)
        sym = "".join(str(s) for s in symbols)
        if len(sym) != ref.size:
            raise UsageError("reference: (samples, symbols), one symbol per sample")
        text = _native.evaluate("", ref, sym, det, letters, rate, tolerance)
    return json.loads(text)


def set_log_level(level: str) -> None:
    """The native pipeline's log lines on stderr: warning (default), info (what the command line
    prints), debug, error or off."""
    _native.set_log_level("warn" if level == "warning" else level)


cuda_built: bool = bool(_native.cuda_built)  # this build has the CUDA kernels (a GPU may still be absent)


def cuda_available() -> bool:
    """True when this build has CUDA and a usable GPU (what device='auto' picks)."""
    return bool(_native.cuda_available())


# --- helpers ---------------------------------------------------------------------------------

def _rate(fs: Optional[float]) -> float:
    if fs is None:
        raise UsageError("fs: the sampling rate in Hz is needed for an array (a Recording from ecgpipe.read carries its own)")
    try:
        return float(fs)
    except (TypeError, ValueError):
        raise UsageError(f"fs: a rate in Hz, got {fs!r}") from None


def _number(what: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{what}: a number, got {value!r}") from None


_REFERENCE_FORMS = ("an annotation file (WFDB .atr or a sample,symbol CSV), a pair (samples, symbols) "
                    "or a DataFrame with sample and symbol columns")


def _reference_pair(reference: Any) -> Tuple[Any, Any]:
    """(samples, symbols) of an evaluate() reference that is not a file (a pair or a DataFrame)."""
    columns = getattr(reference, "columns", None)
    if columns is not None:
        if "sample" not in columns or "symbol" not in columns:
            raise UsageError(f"reference: a DataFrame without sample and symbol columns (has {list(columns)}); "
                             f"give {_REFERENCE_FORMS}")
        return reference["sample"], reference["symbol"]
    if isinstance(reference, (tuple, list)) and len(reference) == 2:
        return reference[0], reference[1]
    raise UsageError(f"reference: {_REFERENCE_FORMS}; got {type(reference).__name__}"
                     + (f" of {len(reference)}" if isinstance(reference, (tuple, list)) else ""))


def _array_1d(what: str, values: Any, of: str) -> np.ndarray:
    """``values`` as a 1-D NumPy array (no copy where it is one); UsageError naming ``what`` and
    what it should hold (``of``) for anything else."""
    try:
        a = np.asarray(values)
    except Exception as e:
        raise UsageError(f"{what}: not an array of {of} ({type(values).__name__}): {e}") from None
    if a.ndim != 1:
        raise UsageError(f"{what}: a 1-D array of {of}, got shape {a.shape}")
    return a


_MAX_SAMPLE_INDEX = 2**53  # the readers' bound (kMaxSampleIndex, include/ecgpipe/eval/evaluate.hpp)


def _sample_indices(what: str, values: Any) -> np.ndarray:
    """Sample indices as the native side takes them (int64, 1-D, contiguous), as the command line's
    readers take a sample cell: a whole number, a float included when its fraction is zero ("100.0"
    is sample 100); a fraction, NaN, a bool or text is refused rather than cut to an integer. The
    range (0 to 2**53) and the order are checked on the native side."""
    a = _array_1d(what, values, "sample indices")
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind == "f":
        whole = np.isfinite(a) & (a == np.floor(a)) & (np.abs(a) <= _MAX_SAMPLE_INDEX)
        if not whole.all():
            i = int(np.argmin(whole))
            raise UsageError(f"{what}: {a[i]!r} (at {i}) is not a sample index (a whole number from 0 to 2**53); "
                             "round times x fs with np.rint first")
    elif a.dtype.kind == "u":
        if (a > _MAX_SAMPLE_INDEX).any():
            i = int(np.argmax(a > _MAX_SAMPLE_INDEX))
            raise UsageError(f"{what}: {a[i]} (at {i}) is not a sample index (0 to 2**53)")
    elif a.dtype.kind != "i":
        raise UsageError(f"{what}: sample indices (whole numbers), got dtype {a.dtype}")
    return np.ascontiguousarray(a.astype(np.int64))


def _whole(what: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= int(value) <= hi:
        raise UsageError(f"{what} must be a whole number in {lo}..{hi}, got {value!r}")
    return int(value)


def _signal_args(signal: Any, fs: Optional[float], name: Optional[str]) -> Tuple[Any, float, str, Dict[str, Any]]:
    """(samples, rate, name, info) for the native calls: a Recording gives its own rate (unless
    ``fs`` overrides it), path, and its info (format, column, where the rate came from, units,
    start time, the reader's warnings), so that the report says what the command line's says."""
    info: Dict[str, Any] = {}
    if isinstance(signal, Recording):
        if fs is None or float(fs) == signal.fs:
            fs, info = signal.fs, dict(signal.info)
        if name is None:
            name = signal.info.get("path", "")
        signal = signal.signal
    name = "signal" if name is None else str(name)
    if "\0" in name:
        raise UsageError(f"name: a NUL character in {name!r}")
    _utf8("name", name)
    return _host_signal(signal), _rate(fs), name, info


def _start(start: Optional[str]) -> Optional[str]:
    """The start= keyword for the native calls (checked there as --start is)."""
    if start is None:
        return None
    if not isinstance(start, str):
        raise UsageError(f"start: 'YYYY-MM-DD hh:mm:ss' or 'hh:mm:ss' text, got {type(start).__name__}")
    return start


def _lead2(signal: Any, lead2: Any) -> Optional[np.ndarray]:
    """The second lead for the native calls: ``lead2`` when an array is given, none for False,
    else (None) a Recording's own."""
    if lead2 is False:
        return None
    if lead2 is None:
        return signal.lead2 if isinstance(signal, Recording) else None
    if lead2 is True or isinstance(lead2, str):
        raise UsageError(f"lead2: an array as long as the signal, False (the primary lead alone) or None "
                         f"(a Recording's own), got {lead2!r}; a signal's name or 'auto' is ecgpipe.read's lead2")
    return _host_signal(lead2, "lead2")


def _path(what: str, path: PathLike) -> str:
    """A path as the native side takes it: text without NUL (the C library would cut it there
    and read or write another file than the one named)."""
    try:
        text = os.fspath(path)
    except TypeError:
        raise UsageError(f"{what}: a path (str or os.PathLike), got {type(path).__name__}") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise UsageError(f"{what}: a path with a NUL character: {text!r}")
    _utf8(what, text)
    return text


def _utf8(what: str, text: str) -> None:
    """The native side takes UTF-8 text. A file name of other bytes (a Latin-1 b"M\\xfcller.csv")
    comes from os.fsdecode with lone surrogates, which have no UTF-8: said here, instead of the
    binding's "incompatible function arguments" TypeError."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(f"{what}: {text!r} is not UTF-8 (a file name in another encoding?); "
                         "rename it, or link it under a UTF-8 name") from None


def _out(out: Optional[PathLike]) -> str:
    if out is None:
        return ""
    text = _path("out", out)
    if not text:
        raise UsageError("out: an empty folder name (None writes nothing)")
    return text


def _device_type(x: Any) -> Optional[int]:
    """The DLPack device type of an array that has one (1 CPU, 2 CUDA), else None."""
    probe = getattr(x, "__dlpack_device__", None)
    if probe is None:
        return None
    try:
        return int(probe()[0])
    except Exception:  # an object that only claims the protocol
        return None


def _cuda_signal(x: Any, what: str = "signal") -> Optional[Any]:
    """``x`` itself when it is a CUDA array fit to be read in place, else None (host arrays)."""
    if _device_type(x) != 2:
        return None
    shape = tuple(getattr(x, "shape", ()))
    if len(shape) != 1:
        raise UsageError(f"{what}: a 1-D array of samples, got shape {shape}")
    if shape[0] == 0:
        raise InputError(f"{what}: no samples (the command line refuses an empty recording alike)")
    if "float32" not in str(getattr(x, "dtype", "")):
        raise UsageError(f"{what}: a CUDA array must be float32 to be read in place, got {x.dtype} "
                         "(convert it on the GPU first, e.g. x.float() or x.astype('float32'))")
    if not _all_finite_on_device(x):
        raise InputError(f"{what}: the CUDA array holds a value that is not a finite number (nan or inf)")
    return x


def _all_finite_on_device(x: Any) -> bool:
    """One reduction on the array's own device (no copy of the signal to the host)."""
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        import torch
        return bool(torch.isfinite(x).all().item())
    if module == "cupy":
        import cupy
        return bool(cupy.isfinite(x).all().item())
    return True  # another framework: the detector's results are its own business then


def _host_signal(signal: Any, what: str = "signal") -> Any:
    """A CUDA array as is (the native side copies it down once), anything else as a contiguous
    float32 NumPy array (no copy when it already is one), checked finite as the CSV reader
    checks its cells. ``what`` names the argument in the errors ("signal", "lead2")."""
    if _device_type(signal) == 2:
        return _cuda_signal(signal, what)
    if isinstance(signal, (str, bytes, os.PathLike)):
        raise UsageError(f"{what}: a file name ({os.fsdecode(signal)!r}), not samples: read it with "
                         "ecgpipe.read(path) and pass the Recording (it brings the file's rate and leads)")
    a = _array_1d(what, signal, "samples")
    if a.dtype.kind not in "biuf":
        raise UsageError(f"{what}: numbers, got dtype {a.dtype}")
    if a.size == 0:
        raise InputError(f"{what}: no samples (the command line refuses an empty recording alike)")
    with np.errstate(over="ignore"):  # a value beyond float32 becomes inf, refused just below
        a = np.ascontiguousarray(a, dtype=np.float32)
    finite = np.isfinite(a)
    if not finite.all():
        first = int(np.argmin(finite))
        raise InputError(f"{what}: sample {first} is not a finite float32 number ({a[first]}; "
                         "values beyond 3.4e38 overflow float32)")
    return a


def _analysis(kind: type, beats_csv: bytes, report_json: str, **extra: Any) -> Any:
    report = json.loads(report_json)
    for w in report.get("warnings", []):
        warnings.warn(w, EcgpipeWarning, stacklevel=3)
    beats = pd.read_csv(io.BytesIO(beats_csv), dtype=_CATEGORIES, keep_default_na=False, na_values=["", "nan"])
    return kind(beats=beats, holter=report.get("holter", {}), report=report, beats_csv=beats_csv, **extra)


class _EpochLines:
    """progress=True without tqdm: a line per epoch on stderr."""

    def __init__(self, epochs: int):
        self._epochs = epochs

    def __call__(self, epoch: int, epochs: int, loss: float) -> None:
        print(f"ecgpipe: epoch {epoch}/{epochs}: train loss {loss:.6f}", file=sys.stderr, flush=True)


class _TqdmBar:
    def __init__(self, epochs: int):
        from tqdm.auto import tqdm
        self._bar = tqdm(total=epochs, desc="training", unit="epoch")

    def __call__(self, epoch: int, epochs: int, loss: float) -> None:
        self._bar.update(1)
        self._bar.set_postfix(loss=f"{loss:.5f}")

    def close(self) -> None:
        self._bar.close()


def _progress_callback(progress: Progress, epochs: int) -> Optional[Callable[[int, int, float], Any]]:
    if progress is None or progress is False:
        return None
    if progress is True:
        try:
            return _TqdmBar(epochs)
        except ImportError:
            return _EpochLines(epochs)
    if not callable(progress):
        raise UsageError("progress: True, False, None or a callable f(epoch, epochs, loss)")
    return progress
