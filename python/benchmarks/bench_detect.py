"""What calling ecgpipe from Python costs over the C++ call (issue 28's targets), printed:
    python bench_detect.py [ECGPIPE_EXE] [--samples N]
 - detect on a 30-minute record (MIT-BIH 119 when ../shared/data has it, else the bundled sample
   repeated to 30 minutes at 250 Hz) on the CPU: the Python call's wall time against the time the
   C++ detection itself reports (DetectFileResult::seconds), medians of 7;
 - with a GPU: a CUDA tensor (PyTorch) of N samples (default 20 M) through detect, read in place,
   against `ecgpipe detect --device cuda` on the same samples written as a CSV (whole process, and
   the in-process seconds of its report.json).
"""
import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import ecgpipe

REPO = Path(__file__).resolve().parents[2]


def median_time(f, n=7):
    times, result = [], None
    for _ in range(n):
        t = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe", nargs="?", default=str(REPO / "build" / "ecgpipe"))
    ap.add_argument("--samples", type=int, default=20_000_000)
    a = ap.parse_args()

    record = REPO.parent / "shared" / "data" / "mitdb-ds1" / "wfdb" / "119.hea"
    if record.is_file():
        signal, fs = ecgpipe.read(record)
        name = "MIT-BIH 119 (30 min, 360 Hz)"
    else:
        base = ecgpipe.read(REPO / "data" / "sample.csv", fs=250).signal
        fs, name = 250.0, "data/sample.csv x3 (30 min, 250 Hz)"
        signal = np.tile(base, 3)
    inner = []

    def call():
        peaks, info = ecgpipe.detect(signal, fs, device="cpu", return_info=True)
        inner.append(info["seconds"])
        return peaks

    wall, peaks = median_time(call)
    c = statistics.median(inner)
    print(f"CPU detect, {name}: {signal.size} samples, {peaks.size} R peaks")
    print(f"  Python call {wall * 1e3:.2f} ms, C++ detection {c * 1e3:.2f} ms: +{100 * (wall / c - 1):.1f} %")

    if not ecgpipe.cuda_available():
        print("GPU: none usable here")
        return
    import torch
    reps = -(-a.samples // signal.size)
    host = np.tile(signal, reps)[: a.samples]
    x = torch.from_numpy(host).cuda()
    ecgpipe.detect(x, fs)  # warm-up: CUDA context, cuFFT plans
    inner = []

    def gpu_call():
        peaks, info = ecgpipe.detect(x, fs, return_info=True)
        assert info["input_address"] == x.data_ptr()
        inner.append(info["seconds"])
        return peaks

    wall, peaks = median_time(gpu_call)
    print(f"GPU detect, CUDA tensor of {host.size} samples read in place: {peaks.size} R peaks, "
          f"{wall:.3f} s per Python call (median of 7)")
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "long.csv"
        import pandas as pd
        pd.DataFrame({"heartbeats": host}).to_csv(csv, index=False, float_format="%.4f")
        times = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([a.exe, "-q", "detect", str(csv), "--fs", str(fs), "--device", "cuda", "--out",
                            str(Path(d) / "o")], check=True)
            times.append(time.perf_counter() - t)
        print(f"  CLI `detect --device cuda` on the same samples as a CSV: {statistics.median(times):.3f} s "
              "whole process (median of 3, reading the CSV included)")


if __name__ == "__main__":
    main()
