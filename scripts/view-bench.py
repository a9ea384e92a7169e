#!/usr/bin/env python3
"""Times `ecgpipe view` on a long recording in headless Chromium and prints the issue's targets:
first paint <= 1 s after the page is requested, a zoom or pan step <= 100 ms, data sent for the
first view <= 2 MB, and the pyramid's cost beside `run`'s.

usage: scripts/view-bench.py [--exe build/ecgpipe] [--duration 72000] [--work /tmp/ecgpipe-view-bench]
The recording (`ecgpipe synth --duration D`, 250 Hz) and the run (`--epochs 1 --device cpu`) are
made once in WORK and reused. Needs chromium, chromium-driver and python3-selenium (Debian), run
with the system python3 (/usr/bin/python3) where another python3 comes first on PATH.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "browser"))
import test_view as tv  # noqa: E402  (the browser test's helpers: driver, start, wait)


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t


def main():
    sys.stdout.reconfigure(line_buffering=True)
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="build/ecgpipe")
    ap.add_argument("--duration", type=int, default=72000, help="seconds of recording (72000 = 20 h)")
    ap.add_argument("--work", default="/tmp/ecgpipe-view-bench")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rec = os.path.join(a.work, "rec%d.csv" % a.duration)
    out = os.path.join(a.work, "out%d" % a.duration)
    if not os.path.exists(rec):
        print("synth: %.1f s" % timed([a.exe, "-q", "synth", rec, "--duration", str(a.duration), "--seed", "1"]))
    run_s = None
    report = os.path.join(out, "report.json")
    if not os.path.exists(report):
        run_s = timed([a.exe, "-q", "run", rec, "--epochs", "1", "--device", "cpu", "--out", out])
        print("run --epochs 1 --device cpu: %.1f s (wall)" % run_s)
    import json
    with open(report) as f:
        rj = json.load(f)
    run_total = rj["seconds"]["total"]

    # Start the viewer: the log line gives the reading and pyramid times.
    t = time.perf_counter()
    proc = subprocess.Popen([a.exe, "view", out, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    start_s = time.perf_counter() - t
    log = ""
    while "serving" not in log:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("ecgpipe view did not start: " + log)
        log += line
    m = re.search(r"(\d+) samples read in ([\d.]+) s, pyramid of (\d+) levels in ([\d.]+) s", log)
    samples, read_s, levels, pyramid_s = int(m.group(1)), float(m.group(2)), int(m.group(3)), float(m.group(4))

    print("view: %s after %.2f s" % (url, start_s))
    driver = tv.make_driver(1400, 820)
    try:
        driver.get(url)
        tv.wait_settled(driver, 60)
        first_paint_ms = driver.execute_script("return window.ecgview.firstPaintMs")
        # Bytes of every response so far (page, script, API), as the browser received them.
        entries = driver.execute_script(
            "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
            ".map(e => [e.name, e.transferSize, e.encodedBodySize])")
        sent = sum(max(e[1], e[2]) for e in entries)
        # Zoom and pan steps: in from 20 h towards 2 s around the middle, pans, then back out.
        steps = []
        for _ in range(16):
            driver.execute_script("window.ecgview.zoom(0.5)")
            tv.wait_settled(driver)
            steps.append(("zoom in", driver.execute_script("return window.ecgview.lastStepMs")))
        for _ in range(6):
            driver.execute_script("window.ecgview.pan(0.25)")
            tv.wait_settled(driver)
            steps.append(("pan", driver.execute_script("return window.ecgview.lastStepMs")))
        for _ in range(16):
            driver.execute_script("window.ecgview.zoom(2)")
            tv.wait_settled(driver)
            steps.append(("zoom out", driver.execute_script("return window.ecgview.lastStepMs")))
    finally:
        driver.quit()
        proc.send_signal(2)
        proc.wait(timeout=10)
    ms = [s for _, s in steps]
    print("responses for the first view: " + ", ".join("%s %d B" % (e[0].split("/", 3)[-1] or "/", max(e[1], e[2]))
                                                       for e in entries))
    print("steps (ms): " + " ".join("%s %.0f" % (k[0:4], v) for k, v in steps))
    worst = max(steps, key=lambda s: s[1])
    print("recording: %d samples (%.1f h at %g Hz), %d pyramid levels" % (samples, samples / rj["parameters"]["fs"] / 3600,
                                                                         rj["parameters"]["fs"], levels))
    print("view start-up: %.2f s to the URL (reading the recording %.2f s, pyramid %.3f s)" % (start_s, read_s, pyramid_s))
    print("first paint:   %.0f ms after the page was requested (target <= 1000)" % first_paint_ms)
    print("first view:    %.0f kB sent (target <= 2048)" % (sent / 1024))
    print("zoom/pan step: median %.1f ms, max %.1f ms (%s) over %d steps (target <= 100)" % (
        statistics.median(ms), worst[1], worst[0], len(ms)))
    print("pyramid vs run: %.3f s = %.2f %% of run's %.1f s (target <= 10 %%)" % (pyramid_s, 100 * pyramid_s / run_total, run_total))


if __name__ == "__main__":
    main()
