"""The Python package against the command line: the same R peaks, beats, classes, scores and
figures, byte for byte where the command line writes bytes (issue 28); and its own contract:
inputs, errors, progress, the GIL, models."""
import io
import json
import os
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import ecgpipe
from conftest import REPO, SAMPLE, ds1_records, read_json

FS = 250.0  # data/sample.csv carries no rate: the CLI is given --fs 250 as the package is


@pytest.fixture(scope="module")
def sample():
    signal, fs = ecgpipe.read(SAMPLE, fs=FS)
    return signal, fs


def cli_peaks(path) -> np.ndarray:
    return pd.read_csv(path)["r_peak"].to_numpy(np.int64)


# --- read -------------------------------------------------------------------------------------

def test_read_sample_is_the_csv_column(sample):
    signal, fs = sample
    assert signal.dtype == np.float32 and signal.ndim == 1 and fs == FS
    expected = pd.read_csv(SAMPLE)["heartbeats"].to_numpy(np.float64)
    assert signal.shape == expected.shape
    # The reader parses each decimal straight to float32; pandas parses to float64 first: the two
    # roundings agree but for rare halfway cases, which may differ in the last float32 bit.
    np.testing.assert_array_max_ulp(signal, expected.astype(np.float32), maxulp=1)


def test_read_without_rate_warns_and_says_so():
    with pytest.warns(ecgpipe.EcgpipeWarning, match="250 Hz"):
        rec = ecgpipe.read(SAMPLE)
    assert rec.fs == 250.0 and rec.info["fs_is_default"] and rec.info["column"] == "0"


def test_read_missing_file_is_input_error(tmp_path):
    with pytest.raises(ecgpipe.InputError) as e:
        ecgpipe.read(tmp_path / "nope.csv")
    assert e.value.exit_code == 3 and "nope.csv" in str(e.value)


# --- detect -----------------------------------------------------------------------------------

def test_detect_equals_cli_on_sample(sample, cli, tmp_path):
    signal, fs = sample
    cli("detect", SAMPLE, "--fs", FS, "--device", "cpu", "--out", tmp_path / "b.csv")
    peaks, info = ecgpipe.detect(signal, fs, device="cpu", return_info=True)
    assert peaks.dtype == np.int64
    np.testing.assert_array_equal(peaks, cli_peaks(tmp_path / "b.csv"))
    assert info["device"] == "cpu" and info["samples"] == signal.size


def test_detect_seed_preset_equals_cli(sample, cli, tmp_path):
    signal, fs = sample
    cli("detect", SAMPLE, "--fs", FS, "--preset", "seed", "--device", "cpu", "--out", tmp_path / "b.csv")
    np.testing.assert_array_equal(ecgpipe.detect(signal, fs, device="cpu", preset="seed"), cli_peaks(tmp_path / "b.csv"))


@pytest.mark.parametrize("hea", ds1_records(22), ids=lambda p: getattr(p, "stem", "none"))
def test_detect_and_analyze_equal_cli_on_ds1(hea, cli, tmp_path):
    rec = ecgpipe.read(hea)
    assert rec.fs == 360.0 and rec.info["fs_source"] == "WFDB header"
    cli("detect", hea, "--device", "cpu", "--out", tmp_path / "b.csv")
    np.testing.assert_array_equal(ecgpipe.detect(rec.signal, rec.fs, device="cpu"), cli_peaks(tmp_path / "b.csv"))
    cli("analyze", hea, "--device", "cpu", "--out", tmp_path / "a")
    # The record's other lead (V1, V2, V4 or V5) is read as the command line reads it, and handed over.
    assert rec.lead2 is not None and rec.lead2.shape == rec.signal.shape and rec.info["lead2_name"].endswith("(1)")
    a = ecgpipe.analyze(rec.signal, rec.fs, device="cpu", name=hea.stem, lead2=rec.lead2)
    assert a.beats_csv == (tmp_path / "a" / "beats.csv").read_bytes()
    report = read_json(tmp_path / "a" / "report.json")
    assert a.holter == report["holter"]
    assert a.report["quality"] == report["quality"] and a.report["classes"] == report["classes"]


# --- analyze, run, score ----------------------------------------------------------------------

def test_analyze_equals_cli_byte_for_byte(sample, cli, tmp_path):
    signal, fs = sample
    cli("analyze", SAMPLE, "--fs", FS, "--device", "cpu", "--out", tmp_path / "cli")
    a = ecgpipe.analyze(signal, fs, device="cpu", name="sample")
    assert a.beats_csv == (tmp_path / "cli" / "beats.csv").read_bytes()
    cli_report = read_json(tmp_path / "cli" / "report.json")
    # Everything but where the signal came from and how long each stage took.
    for key in set(cli_report) - {"input", "seconds"}:
        assert a.report[key] == cli_report[key], key
    assert a.report["input"]["format"] == "array" and a.report["input"]["fs_source"] == "given"
    # The DataFrame is beats.csv read back: same columns, same values.
    expected = pd.read_csv(tmp_path / "cli" / "beats.csv")
    assert list(a.beats.columns) == list(expected.columns)
    for column in ("r_peak", "time_s", "rr_before_s", "rr_after_s"):
        np.testing.assert_array_equal(a.beats[column].to_numpy(), expected[column].to_numpy())
    assert (a.beats["class"].astype(str) == expected["class"]).all()
    beats, holter = a  # unpacks as the "(DataFrame, dict)"
    assert holter["beats"] == len(beats)


def test_analyze_out_writes_the_cli_folder(sample, tmp_path):
    signal, fs = sample
    a = ecgpipe.analyze(signal, fs, device="cpu", name="sample", out=tmp_path / "o")
    files = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert {"beats.csv", "report.json", "report.html", "rhythm.csv", "artefact.csv"} <= set(files)
    assert (tmp_path / "o" / "beats.csv").read_bytes() == a.beats_csv


def test_run_and_score_equal_cli(sample, cli, tmp_path):
    signal, fs = sample
    cli("run", SAMPLE, "--fs", FS, "--device", "cpu", "--epochs", 3, "--seed", 7, "--out", tmp_path / "cli")
    # The model records what it was trained on (its meta's "trained_on"): the same name, the same bytes.
    r = ecgpipe.run(signal, fs, epochs=3, seed=7, device="cpu", name=str(SAMPLE))
    assert r.beats_csv == (tmp_path / "cli" / "beats.csv").read_bytes()
    assert r.model.data == (tmp_path / "cli" / "model.safetensors").read_bytes()
    assert r.beats["score"].notna().all() and r.beats["outlier"].sum() > 0

    r.model.save(tmp_path / "m.safetensors")
    cli("score", SAMPLE, "--model", tmp_path / "m.safetensors", "--device", "cpu", "--out", tmp_path / "s")
    loaded = ecgpipe.Model.load(tmp_path / "m.safetensors")
    assert loaded.data == r.model.data and loaded.meta["fs"] == FS
    s = loaded.score(signal, fs, device="cpu", name="sample")
    assert s.beats_csv == (tmp_path / "s" / "beats.csv").read_bytes()


def test_score_at_another_rate_is_refused(sample, tmp_path):
    signal, fs = sample
    model = ecgpipe.run(signal, fs, epochs=1, device="cpu").model
    with pytest.raises(ecgpipe.UsageError, match="trained at 250"):
        model.score(signal, 360.0, device="cpu")


def test_model_save_is_whole_or_nothing(sample, tmp_path):
    signal, fs = sample
    model = ecgpipe.run(signal, fs, epochs=1, device="cpu").model
    (tmp_path / "m.safetensors").write_bytes(b"an earlier file")
    with pytest.raises(ecgpipe.OutputError):
        model.save(tmp_path / "missing-folder" / "m.safetensors")
    (tmp_path / "d").mkdir()
    with pytest.raises(ecgpipe.OutputError):
        model.save(tmp_path / "d")  # a directory is not replaced
    model.save(tmp_path / "m.safetensors")
    assert (tmp_path / "m.safetensors").read_bytes() == model.data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "m.safetensors"], "no temporary left"


def test_model_load_refuses_damaged_files(tmp_path):
    (tmp_path / "junk.safetensors").write_bytes(b"\xff" * 100)
    with pytest.raises(ecgpipe.InputError):
        ecgpipe.Model.load(tmp_path / "junk.safetensors")
    with pytest.raises(ecgpipe.InputError):
        ecgpipe.Model.load(tmp_path)  # a directory


def test_model_bytes_that_are_no_model_are_said_as_such():
    # Model(data) is checked when used: the message names the bytes, not the private temporary
    # file they were checked in (it named /tmp/ecgpipe-XXXX/model.safetensors); text is no bytes.
    with pytest.raises(ecgpipe.InputError, match=r"^model Model\.data: not a safetensors file") as e:
        ecgpipe.Model(b"garbage").meta
    assert "/tmp" not in str(e.value)
    with pytest.raises(ecgpipe.InputError, match="Model.data"):
        ecgpipe.Model(b"garbage").score(np.zeros(5000, np.float32), FS, device="cpu")
    for not_bytes in ("garbage", None, 5):
        with pytest.raises(ecgpipe.UsageError, match="Model.load"):
            ecgpipe.Model(not_bytes)


def test_a_recording_brings_its_rate_units_and_path(cli, tmp_path):
    rec = ecgpipe.read(SAMPLE, fs=FS)
    assert rec.info["path"] == str(SAMPLE)
    cli("run", SAMPLE, "--fs", FS, "--device", "cpu", "--epochs", 2, "--out", tmp_path / "cli")
    r = ecgpipe.run(rec, epochs=2, device="cpu")  # named by its path, as the command line names it
    assert r.beats_csv == (tmp_path / "cli" / "beats.csv").read_bytes()
    assert r.model.data == (tmp_path / "cli" / "model.safetensors").read_bytes()
    with pytest.raises(ecgpipe.UsageError, match="fs"):
        ecgpipe.analyze(rec.signal)  # a bare array needs its rate


@pytest.mark.parametrize("hea", ds1_records(1), ids=lambda p: getattr(p, "stem", "none"))
def test_a_wfdb_recording_keeps_its_units(hea, tmp_path):
    rec = ecgpipe.read(hea)
    assert rec.info["units"] == "mV"
    a = ecgpipe.analyze(rec, device="cpu", out=tmp_path / "o")
    assert a.report["input"]["units"] == "mV" and a.report["input"]["path"] == str(hea)
    assert a.report["input"]["format"] == "WFDB" and a.report["input"]["fs_source"] == "WFDB header"
    # Another rate than the recording's: the report says it was given.
    b = ecgpipe.analyze(rec, fs=rec.fs * 2, device="cpu")
    assert b.report["input"]["fs_source"] == "given" and b.report["input"]["fs"] == rec.fs * 2


@pytest.mark.parametrize("hea", ds1_records(1), ids=lambda p: getattr(p, "stem", "none"))
def test_a_recordings_second_lead_is_read_as_the_command_line_reads_it(hea, cli, tmp_path):
    rec = ecgpipe.read(hea)
    cli("analyze", hea, "--device", "cpu", "--out", tmp_path / "auto")
    cli("analyze", hea, "--device", "cpu", "--lead2", "none", "--out", tmp_path / "none")
    a = ecgpipe.analyze(rec, device="cpu")
    assert a.beats_csv == (tmp_path / "auto" / "beats.csv").read_bytes()
    assert a.report["input"]["lead2"] == rec.info["lead2_name"]
    one = ecgpipe.analyze(rec, device="cpu", lead2=False)  # the primary lead alone
    assert one.beats_csv == (tmp_path / "none" / "beats.csv").read_bytes() and one.report["input"]["lead2"] is None
    assert ecgpipe.read(hea, lead2="none").lead2 is None
    with pytest.raises(ecgpipe.UsageError, match="lead2: 10 samples"):
        ecgpipe.analyze(rec, device="cpu", lead2=np.zeros(10, dtype=np.float32))
    bad = rec.lead2.copy()
    bad[7] = np.nan  # named as the second lead's, not the signal's (before: "signal: sample 7")
    with pytest.raises(ecgpipe.InputError, match="^lead2: sample 7 is not a finite"):
        ecgpipe.analyze(rec, device="cpu", lead2=bad)
    with pytest.raises(ecgpipe.UsageError, match="--lead2"):
        ecgpipe.read(hea, lead2="no-such-lead")


def test_a_csvs_second_lead_is_read_in_one_pass_and_named_in_its_errors(tmp_path):
    rows = ["time,MLII,V1"] + [f"{i / 360:.6f},{np.sin(i / 10):.4f},{-0.5 * np.cos(i / 10):.4f}" for i in range(3000)]
    (tmp_path / "two.csv").write_text("\n".join(rows) + "\n")
    rec = ecgpipe.read(tmp_path / "two.csv")
    # The rate from the time column's 6-decimal steps: 360 Hz to their rounding.
    assert rec.fs == pytest.approx(360.0, rel=1e-6) and rec.info["lead2_name"] == "column 'V1' (2)"
    np.testing.assert_array_equal(rec.signal, ecgpipe.read(tmp_path / "two.csv", lead2="none").signal)
    np.testing.assert_array_equal(rec.lead2, ecgpipe.read(tmp_path / "two.csv", column="V1", lead2="none").signal)
    rows[2001] = rows[2001].rsplit(",", 1)[0] + ",abc"
    (tmp_path / "bad.csv").write_text("\n".join(rows) + "\n")
    # As the command line says it: the line, and that it is the second lead's (before: the line alone).
    # and how to do without it in Python's words, not the command line's "--lead2 none".
    with pytest.raises(ecgpipe.InputError, match=r"bad\.csv:2002: cannot parse \"abc\".*\(the second lead, column 'V1' \(2\); "
                                                 r"lead2=\"none\" reads the primary lead alone\)$"):
        ecgpipe.read(tmp_path / "bad.csv")
    assert ecgpipe.read(tmp_path / "bad.csv", lead2="none").lead2 is None


def test_a_wfdb_second_leads_errors_are_named_as_the_second_leads(tmp_path):
    # Two signals in two files, the second's file cut short: the primary reads, the second lead
    # fails, and the error says which lead it is and how to do without it, as `analyze` on the
    # command line says it (before: the reader's message alone, as if the recording were broken).
    n = 3000
    t = np.arange(n)
    (tmp_path / "two_a.dat").write_bytes((200 * np.sin(t / 10)).astype("<i2").tobytes())
    (tmp_path / "two_b.dat").write_bytes((100 * np.cos(t / 10)).astype("<i2")[: n // 2].tobytes() + b"\x01")
    (tmp_path / "two.hea").write_text(f"two 2 360 {n}\ntwo_a.dat 16 200 16 0 0 0 0 MLII\ntwo_b.dat 16 200 16 0 0 0 0 V1\n")
    assert ecgpipe.read(tmp_path / "two.hea", lead2="none").signal.shape == (n,)
    with pytest.raises(ecgpipe.InputError, match=r"two_b\.dat.*\(the second lead, .*V1.*; lead2=\"none\" reads the primary "
                                                 r"lead alone\)$"):
        ecgpipe.read(tmp_path / "two.hea")


def test_a_recording_without_rate_keeps_the_readers_warning():
    with pytest.warns(ecgpipe.EcgpipeWarning):
        rec = ecgpipe.read(SAMPLE)
    with pytest.warns(ecgpipe.EcgpipeWarning, match="250 Hz"):
        a = ecgpipe.analyze(rec, device="cpu")
    assert a.report["input"]["fs_source"].startswith("default") and any("250 Hz" in w for w in a.report["warnings"])


@pytest.mark.parametrize("kwargs", [dict(seed=-1), dict(seed=2**64), dict(seed=1.5), dict(epochs=0),
                                    dict(epochs=100001), dict(epochs=2**40), dict(epochs="3")])
def test_bad_training_options_are_usage_errors(sample, kwargs):
    signal, fs = sample
    with pytest.raises(ecgpipe.UsageError):
        ecgpipe.run(signal, fs, device="cpu", **kwargs)


def test_ctrl_c_stops_training_without_a_callback(sample):
    import signal as signals
    signal, fs = sample
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signals.SIGINT))
    start = time.perf_counter()
    timer.start()
    # 100000 epochs would take many minutes; the interrupt is seen after the epoch under way.
    with pytest.raises(KeyboardInterrupt):
        ecgpipe.run(signal, fs, epochs=100000, device="cpu")
    timer.join()
    assert time.perf_counter() - start < 30


def test_run_progress_callback_and_its_errors(sample):
    signal, fs = sample
    seen = []
    ecgpipe.run(signal, fs, epochs=3, device="cpu", progress=lambda e, n, loss: seen.append((e, n, loss)))
    assert [(e, n) for e, n, _ in seen] == [(1, 3), (2, 3), (3, 3)] and all(np.isfinite(l) for _, _, l in seen)

    def stop(epoch, epochs, loss):
        raise KeyboardInterrupt  # what Ctrl-C raises in a callback: training stops there

    with pytest.raises(KeyboardInterrupt):
        ecgpipe.run(signal, fs, epochs=5, device="cpu", progress=stop)


def test_the_gil_is_released_while_it_works(sample):
    signal, fs = sample
    long = np.tile(signal, 8)  # 80 minutes: a call of a few hundred ms
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    start = time.perf_counter()
    ecgpipe.analyze(long, fs, device="cpu")
    end = time.perf_counter()
    done.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    # With the GIL held the ticker could not run at all during the call; released, it ticks
    # about every millisecond (at least a few dozen times in a call of 0.1 s or more).
    assert end - start > 0.05 and len(during) >= 10, (end - start, len(during))


def test_calls_from_several_threads_give_the_results_of_one(sample):
    signal, fs = sample
    expected = ecgpipe.analyze(signal, fs, device="cpu").beats_csv
    results = [None] * 4

    def work(i):
        results[i] = ecgpipe.analyze(signal, fs, device="cpu").beats_csv

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4


# --- evaluate ---------------------------------------------------------------------------------

def test_evaluate_equals_cli(sample, cli, tmp_path):
    signal, fs = sample
    cli("detect", SAMPLE, "--fs", FS, "--device", "cpu", "--out", tmp_path / "b.csv")
    reference = REPO / "data" / "sample_beats.csv"
    expected = ecgpipe_json(cli("eval", "--reference", reference, tmp_path / "b.csv", "--fs", FS, "--json").stdout)
    got = ecgpipe.evaluate(reference, ecgpipe.detect(signal, fs, device="cpu"), fs)
    assert got["detections"] == "" and expected["detections"] == str(tmp_path / "b.csv")  # an array has no path
    del got["detections"], expected["detections"]
    assert got == expected
    ref = pd.read_csv(reference)
    from_arrays = ecgpipe.evaluate((ref["sample"], ref["symbol"]), cli_peaks(tmp_path / "b.csv"), fs)
    assert {k: from_arrays[k] for k in ("se", "ppv", "tp", "fp", "fn")} == {k: expected[k] for k in ("se", "ppv", "tp", "fp", "fn")}


def ecgpipe_json(text):
    import json
    return json.loads(text)


def test_evaluate_with_classes(sample):
    signal, fs = sample
    a = ecgpipe.analyze(signal, fs, device="cpu")
    ref = pd.read_csv(REPO / "data" / "sample_beats.csv")
    e = ecgpipe.evaluate((ref["sample"], ref["symbol"]), a.beats["r_peak"], fs, classes=a.beats["class"].astype(str))
    assert e["classes"]["V"]["reference"] == int((ref["class"] == "V").sum()) and e["ec57"] is not None


def test_evaluate_takes_a_reference_data_frame():
    # pd.read_csv of a sample,symbol file (data/sample_beats.csv's columns) is what a notebook has.
    ref = pd.read_csv(REPO / "data" / "sample_beats.csv")
    peaks = ref["sample"].to_numpy()
    from_frame = ecgpipe.evaluate(ref, peaks, FS)
    from_pair = ecgpipe.evaluate((ref["sample"], ref["symbol"]), peaks, FS)
    assert from_frame == from_pair and from_frame["tp"] == len(peaks) and from_frame["fp"] == 0


REFERENCE = ([100, 460, 820], "NNV")


@pytest.mark.parametrize("call, error, match", [
    # What a notebook hands over by mistake: each is the caller's error, said as one, with the argument
    # named (found by a hostile tour: they were ValueError / TypeError from unpacking, and a class
    # letter outside N S V F Q an InternalError).
    (lambda: ecgpipe.evaluate([100, 460, 820], [100], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate(None, [100], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate({"a": 1, "b": 2}, [100], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate(np.array([1, 2]), [1], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate(pd.DataFrame({"time": [1.0]}), [1], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate(([100.5, 460], "NN"), [100], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate(([-3, 460], "NN"), [100], FS), ecgpipe.UsageError, "reference"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100, float("nan")], FS), ecgpipe.UsageError, "detections"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100.7, 460.2], FS), ecgpipe.UsageError, "detections"),
    (lambda: ecgpipe.evaluate(REFERENCE, ["a"], FS), ecgpipe.UsageError, "detections"),
    (lambda: ecgpipe.evaluate(REFERENCE, [True, False], FS), ecgpipe.UsageError, "detections"),
    (lambda: ecgpipe.evaluate(REFERENCE, [-5, 100], FS), ecgpipe.UsageError, "detections"),
    (lambda: ecgpipe.evaluate(REFERENCE, [2**62], FS), ecgpipe.UsageError, "detections"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100], None), ecgpipe.UsageError, "fs"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100], "abc"), ecgpipe.UsageError, "fs"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100], FS, tolerance_ms="x"), ecgpipe.UsageError, "tolerance_ms"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100], FS, tolerance_ms=1e300), ecgpipe.UsageError, r"got 1e\+300$"),
    (lambda: ecgpipe.evaluate(REFERENCE, [100, 460, 820], FS, classes="NXV"), ecgpipe.UsageError,
     "classes: 'X' .detection 1. is not a beat label"),
    (lambda: ecgpipe.analyze(str(SAMPLE), FS), ecgpipe.UsageError, r"ecgpipe\.read"),
    (lambda: ecgpipe.detect(SAMPLE, FS), ecgpipe.UsageError, r"ecgpipe\.read"),
])
def test_evaluate_and_signal_mistakes_are_usage_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_recordings_info_of_other_types_is_a_usage_error(sample):
    # Recording.info is the caller's dict: a value of another type was a RuntimeError
    # (std::bad_cast) from the native side; None is a value left out.
    signal, fs = sample
    rec = ecgpipe.read(SAMPLE, fs=fs)
    for key, value in (("start_time", 5), ("fs_source", 1.5), ("fs_is_default", "yes"), ("warnings", "text"),
                       ("warnings", [1, 2])):
        bad = ecgpipe.Recording(rec.signal, rec.fs, {**rec.info, key: value}, rec.lead2)
        with pytest.raises(ecgpipe.UsageError, match=rf"info\['{key}'\]"):
            ecgpipe.analyze(bad, device="cpu")
    cleared = ecgpipe.Recording(rec.signal, rec.fs, {**rec.info, "start_time": None, "warnings": ()}, rec.lead2)
    assert ecgpipe.analyze(cleared, device="cpu").report["input"]["start"] is None


def test_start_gives_an_array_its_clock_time(sample, cli, tmp_path):
    # start= is the command line's --start: the same report times, checked as it checks them.
    signal, fs = sample
    cli("analyze", SAMPLE, "--fs", FS, "--device", "cpu", "--start", "2026-11-26 08:50:00", "--out", tmp_path / "cli")
    a = ecgpipe.analyze(signal, fs, device="cpu", start="2026-11-26 08:50:00", name=str(SAMPLE))
    expected = json.loads((tmp_path / "cli" / "report.json").read_text())
    assert a.report["input"]["start"] == expected["input"]["start"] == "2026-11-26 08:50:00"
    assert a.holter["hour_phase_s"] == expected["holter"]["hour_phase_s"] == 3000.0
    assert a.holter["per_hour"] == expected["holter"]["per_hour"]
    rec = ecgpipe.read(SAMPLE, fs=fs)
    assert ecgpipe.analyze(rec, device="cpu", start="23:59:30").report["input"]["start"] == "23:59:30"
    for bad in ("08:50", "25:00:00", "yesterday", "", 5):
        with pytest.raises(ecgpipe.UsageError, match="start"):
            ecgpipe.analyze(signal, fs, device="cpu", start=bad)
    # A recording whose file gives its start: another start is refused, the same one taken.
    own = ecgpipe.Recording(rec.signal, rec.fs, {**rec.info, "start_time": "2003-02-01 10:20:30"})
    with pytest.raises(ecgpipe.UsageError, match="2003-02-01 10:20:30"):
        ecgpipe.analyze(own, device="cpu", start="2003-02-01 11:00:00")
    assert ecgpipe.analyze(own, device="cpu", start="10:20:30").report["input"]["start"] == "2003-02-01 10:20:30"


def test_lead2_names_belong_to_read():
    # lead2="auto" is read()'s (a signal name); analyze takes an array, False or None.
    x = np.zeros(5000, np.float32)
    for value in ("auto", True):
        with pytest.raises(ecgpipe.UsageError, match="ecgpipe.read"):
            ecgpipe.analyze(x, FS, device="cpu", lead2=value)


def test_paths_and_rates_of_other_types_are_usage_errors():
    with pytest.raises(ecgpipe.UsageError, match="out"):
        ecgpipe.analyze(np.zeros(5000, np.float32), FS, device="cpu", out=5)
    with pytest.raises(ecgpipe.UsageError, match="fs"):
        ecgpipe.read(SAMPLE, fs="x")


def test_evaluate_whole_float_indices_are_read_as_indices():
    # Sample indices held as floats (a pandas column that had a missing value upstream): a whole
    # number is the same index, as the command line's CSV reader takes "100.0" and refuses "100.7".
    as_ints = ecgpipe.evaluate(REFERENCE, [100, 460, 820], FS, classes="NNV")
    as_floats = ecgpipe.evaluate(([100.0, 460.0, 820.0], "NNV"), np.array([100.0, 460.0, 820.0]), FS, classes="NNV")
    assert as_ints == as_floats and as_ints["ec57"]["veb"]["tp"] == 1


# --- hostile inputs and errors ----------------------------------------------------------------

@pytest.mark.parametrize("bad, error", [
    (np.zeros(0, np.float32), ecgpipe.InputError),
    (np.array([0.0, np.nan, 1.0]), ecgpipe.InputError),
    (np.array([0.0, np.inf]), ecgpipe.InputError),
    (np.array([1e39]), ecgpipe.InputError),  # beyond float32
    (np.zeros((3, 4), np.float32), ecgpipe.UsageError),
    (["a", "b"], ecgpipe.UsageError),
    (object(), ecgpipe.UsageError),
])
def test_bad_signals(bad, error):
    for call in (lambda: ecgpipe.detect(bad, FS), lambda: ecgpipe.analyze(bad, FS)):
        with pytest.raises(error):
            call()


@pytest.mark.parametrize("kwargs, match", [
    (dict(fs=1e9), "fs"), (dict(fs=float("nan")), "fs"), (dict(fs=-1.0), "fs"),
    (dict(fs=FS, device="tpu"), "device"), (dict(fs=FS, preset="fast"), "preset"),
])
def test_bad_options_are_usage_errors(sample, kwargs, match):
    signal, _ = sample
    with pytest.raises(ecgpipe.UsageError, match=match) as e:
        ecgpipe.detect(signal, **kwargs)
    assert e.value.exit_code == 2 and isinstance(e.value, ecgpipe.Error)


def test_other_dtypes_and_containers_are_read_as_float32(sample):
    signal, fs = sample
    head = signal[:20000]
    expected = ecgpipe.detect(head, fs, device="cpu")
    # A list, a Series, float64 values that are float32 values, a torch CPU tensor: the same peaks.
    for x in (list(head), pd.Series(head), head.astype(np.float64)):
        np.testing.assert_array_equal(ecgpipe.detect(x, fs, device="cpu"), expected)
    strided = np.repeat(head, 2)[::2]  # not contiguous: copied, same values
    np.testing.assert_array_equal(ecgpipe.detect(strided, fs, device="cpu"), expected)


def test_nul_in_a_path_or_name_is_a_usage_error(sample, tmp_path):
    signal, fs = sample
    with pytest.raises(ecgpipe.UsageError, match="NUL"):
        ecgpipe.analyze(signal, fs, device="cpu", out=str(tmp_path / "o") + "\0x")
    with pytest.raises(ecgpipe.UsageError, match="NUL"):
        ecgpipe.analyze(signal, fs, device="cpu", name="a\0b")
    with pytest.raises(ecgpipe.UsageError, match="NUL"):
        ecgpipe.read(str(SAMPLE) + "\0.hea")
    assert not (tmp_path / "o").exists()


def test_a_path_or_name_that_is_not_utf8_is_a_usage_error(sample, tmp_path):
    # A Latin-1 file name: bytes the binding cannot take as text (it raised a TypeError,
    # "incompatible function arguments").
    signal, fs = sample
    latin1 = os.fsdecode(b"M\xfcller.csv")
    with pytest.raises(ecgpipe.UsageError, match="not UTF-8"):
        ecgpipe.read(tmp_path / latin1)
    with pytest.raises(ecgpipe.UsageError, match="not UTF-8"):
        ecgpipe.read(os.fsencode(str(tmp_path)) + b"/M\xfcller.csv")
    with pytest.raises(ecgpipe.UsageError, match="not UTF-8"):
        ecgpipe.analyze(signal, fs, device="cpu", out=tmp_path / latin1)
    with pytest.raises(ecgpipe.UsageError, match="not UTF-8"):
        ecgpipe.analyze(signal, fs, device="cpu", name=latin1)
    assert list(tmp_path.iterdir()) == []


def test_output_errors(sample, tmp_path):
    signal, fs = sample
    (tmp_path / "file").write_text("x")
    with pytest.raises(ecgpipe.OutputError) as e:
        ecgpipe.analyze(signal, fs, device="cpu", out=tmp_path / "file" / "o")
    assert e.value.exit_code == 4
    with pytest.raises(ecgpipe.UsageError):
        ecgpipe.analyze(signal, fs, device="cpu", out="")


def test_cuda_without_a_gpu_is_a_device_error(sample):
    if ecgpipe.cuda_available():
        pytest.skip("a GPU is usable here: tests/test_gpu.py covers it")
    with pytest.raises(ecgpipe.DeviceError) as e:
        ecgpipe.detect(sample[0], FS, device="cuda")
    assert e.value.exit_code == 5


def test_warnings_of_the_report_are_python_warnings():
    # 10 minutes of a flat line at 250 Hz: no beats, which the report warns of.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = ecgpipe.analyze(np.zeros(150000, np.float32), FS, device="cpu")
    assert a.report["warnings"] and [str(w.message) for w in caught if w.category is ecgpipe.EcgpipeWarning] == a.report["warnings"]


# --- beside PyTorch ---------------------------------------------------------------------------

@pytest.mark.parametrize("first", ["torch", "ecgpipe"])
def test_import_beside_torch_in_either_order(first):
    pytest.importorskip("torch", reason="no torch package in this environment (Debian: python3-torch)")
    second = "ecgpipe" if first == "torch" else "torch"
    code = (f"import {first}, {second}, numpy as np\n"
            "sig, fs = ecgpipe.read(r'%s', fs=250)\n"
            "t = torch.from_numpy(sig)\n"
            "p = ecgpipe.detect(t, fs, device='cpu')\n"
            "m = torch.nn.Conv1d(1, 2, 5)(t[None, None, :1000])\n"
            "print(len(p), tuple(m.shape), torch.__version__)\n") % SAMPLE
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == str(len(ecgpipe.detect(ecgpipe.read(SAMPLE, fs=250).signal, 250, device="cpu")))
