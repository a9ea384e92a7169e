#!/usr/bin/env python3
"""`ecgpipe view` in a real browser (headless Chromium through Selenium).

Runs the pipeline on the bundled sample (data/sample.csv, one epoch, with its reference beats),
serves the folder with `ecgpipe view --port 0`, and checks in the page:
  1. the first picture's envelope covers the whole recording (sample 0 to the last);
  2. zoomed to one beat, its R-peak marker is drawn at the peak sample, in the beat's colour;
  3. a click on an outlier row centres the view on that beat;
  4. the "n" key goes to the next outlier;
  5. the reference lane marks the beats the detector missed;
  6. each meaning has its own colour (classes, FN, FP) and the legend names them; the outlier list
     shows each beat's class;
  7. zoomed to seconds the ECG grid and an mV scale are drawn (square boxes where the signal fits
     ECG paper's 25 mm/s, 10 mm/mV), zoomed out neither;
  8. a folder without a model (beats.csv's model columns empty, no outliers.csv, as `analyze`
     writes) opens and says "no model: analysis only";
  9. times are elapsed without a start time (a CSV) and the title says so; with one (report.json's
     input.start, a header's date and time) the title, status line and time axis read the clock,
     its ticks on round clock times, wrapping at midnight.
Takes a screenshot (--screenshot PATH; the README's docs/view.png comes from here).

usage: test_view.py ECGPIPE_EXE SOURCE_DIR WORK_DIR [--screenshot PATH]
Exit 77 (CTest's SKIP_RETURN_CODE) with the reason when Chromium, its driver or Selenium is absent.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import time

SKIP = 77


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.chrome.service import Service
except ImportError:
    skip("python3-selenium is not installed (apt-get install python3-selenium)")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
if not CHROMIUM or not DRIVER:
    skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")


def start_view(exe, out_dir, extra=()):
    """Starts `ecgpipe view OUT --port 0`; returns (process, url)."""
    proc = subprocess.Popen([exe, "-q", "view", out_dir, "--port", "0", *extra], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        proc.kill()
        raise SystemExit("ecgpipe view printed no URL: %r" % url)
    return proc, url


def make_driver(width=1400, height=820):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=%d,%d" % (width, height), "--force-device-scale-factor=1"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def wait_settled(driver, timeout=20.0):
    """Waits until the page has drawn the current view completely (window.ecgview.settled)."""
    end = time.time() + timeout
    while time.time() < end:
        if driver.execute_script("return !!(window.ecgview && window.ecgview.settled)"):
            return
        time.sleep(0.02)
    raise AssertionError("the view did not settle within %.0f s" % timeout)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok: " + what)


def pixel(driver, x, y):
    return driver.execute_script(
        "const c = document.getElementById('signal').getContext('2d');"
        "return Array.from(c.getImageData(arguments[0], arguments[1], 1, 1).data);", int(round(x)), int(round(y)))


def rgb(colour):
    """'#rrggbb' or 'rgb(r,g,b)' -> [r, g, b]."""
    if colour.startswith("#"):
        return [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return [int(v) for v in colour[colour.index("(") + 1:-1].split(",")[:3]]


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    exe, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else os.path.join(work, "view.png")
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "out")
    sample, ref = os.path.join(source, "data", "sample.csv"), os.path.join(source, "data", "sample_beats.csv")
    subprocess.run([exe, "-q", "run", sample, "--epochs", "1", "--device", "cpu", "--reference", ref, "--out", out],
                   check=True)
    with open(os.path.join(out, "beats.csv")) as f:
        beats = [int(r["r_peak"]) for r in csv.DictReader(f)]
    with open(os.path.join(out, "outliers.csv")) as f:
        rows_csv = list(csv.DictReader(f))
    outliers = [int(r["r_peak"]) for r in rows_csv]
    outlier_classes = [r["class"] for r in rows_csv]

    proc, url = start_view(exe, out)
    driver = make_driver()
    try:
        driver.get(url)
        wait_settled(driver)
        meta = driver.execute_script("return window.ecgview.meta")
        env = driver.execute_script("return window.ecgview.drawn.envelope")
        width = driver.execute_script("return document.getElementById('signal').width")
        check(env["from"] == 0 and env["to"] == meta["samples"],
              "first view's envelope covers samples 0..%d (drew %d..%d)" % (meta["samples"], env["from"], env["to"]))
        check(env["columns"] >= 0.95 * width, "envelope fills the canvas (%d of %d columns)" % (env["columns"], width))
        check(driver.execute_script("return window.ecgview.drawn.grid") is None, "the whole recording: no ECG grid")

        colours = driver.execute_script("return window.ecgview.colours")
        meaning = dict(colours["classes"], FN=colours["fn"], FP=colours["fp"])
        check(len(set(c.lower() for c in meaning.values())) == len(meaning),
              "every class, FN and FP has its own colour (%s)" % meaning)
        legend = driver.find_element(By.ID, "legend").text
        for words in ("N normal", "S supraventricular", "V ventricular", "F fusion", "Q unclassifiable",
                      "FN: reference beat missed", "FP: detection without a reference beat", "grid 1 mm = 40 ms"):
            check(words in legend, "the legend names '%s'" % words)

        # Zoom to one beat: 0.8 s around the 50th detected beat.
        r, fs = beats[50], meta["fs"]
        driver.execute_script("window.ecgview.setView(arguments[0], arguments[1])", r - 0.4 * fs, r + 0.4 * fs)
        wait_settled(driver)
        markers = driver.execute_script("return window.ecgview.drawn.markers")
        hit = [m for m in markers if m["sample"] == r]
        check(len(hit) == 1, "zoomed to beat 50 (sample %d): its marker is drawn" % r)
        m = hit[0]
        check(abs(m["x"] - width / 2) <= 2, "the marker sits at the view's centre (x %.1f of %d)" % (m["x"], width))
        check(m["y"] is not None, "the marker is on the peak sample")
        grid, scale = driver.execute_script("return [window.ecgview.drawn.grid, window.ecgview.drawn.scale]")
        check(grid is not None and grid["minor"], "0.8 s visible: the ECG grid with its 1 mm lines (%s)" % grid)
        check(abs(grid["minor_x_px"] - 0.04 * width / 0.8) < 0.5, "a minor box is 40 ms wide (%.1f px)" % grid["minor_x_px"])
        check(scale is not None and scale["px"] > 0, "an mV scale bar is drawn (%s)" % scale)
        px = pixel(driver, m["x"], m["y"])
        want = rgb(m["colour"])
        check(all(abs(a - b) <= 8 for a, b in zip(px[:3], want)),
              "the canvas shows the marker's colour %s at the peak (pixel %s)" % (want, px[:3]))
        span = driver.execute_script("return window.ecgview.t1 - window.ecgview.t0")
        driver.find_element(By.TAG_NAME, "body").send_keys("+")
        wait_settled(driver)
        span2 = driver.execute_script("return window.ecgview.t1 - window.ecgview.t0")
        check(abs(span2 - span / 2) < 1e-6, "'+' halves the visible span (%.1f -> %.1f samples)" % (span, span2))

        # Click the third outlier row: the view centres on it.
        rows = driver.find_elements(By.CSS_SELECTOR, "#outlier-rows tr")
        check(len(rows) == len(outliers), "the outlier list has outliers.csv's %d rows" % len(outliers))
        shown = [r.find_element(By.CSS_SELECTOR, "td.cls").text for r in rows]
        check(shown == outlier_classes, "each outlier row shows its beat's class (%s...)" % "".join(shown[:10]))
        check("times elapsed" in driver.find_element(By.ID, "title").text, "a CSV has no start: the title says times are elapsed")
        check(rows[0].find_elements(By.TAG_NAME, "td")[1].text == driver.execute_script(
            "return window.ecgview.clock(arguments[0], 1)", outliers[0] / fs), "an outlier's time is elapsed h:mm:ss.s")
        rows[2].click()
        wait_settled(driver)
        t0, t1 = driver.execute_script("return [window.ecgview.t0, window.ecgview.t1]")
        check(abs((t0 + t1) / 2 - outliers[2]) <= 0.5, "clicking outlier #3 centres the view on sample %d" % outliers[2])
        drawn = [m["sample"] for m in driver.execute_script("return window.ecgview.drawn.markers")]
        check(outliers[2] in drawn, "outlier #3's beat is marked")

        # "n": the next outlier.
        driver.find_element(By.TAG_NAME, "body").send_keys("n")
        wait_settled(driver)
        t0, t1 = driver.execute_script("return [window.ecgview.t0, window.ecgview.t1]")
        check(abs((t0 + t1) / 2 - outliers[3]) <= 0.5, "'n' moves to outlier #4 at sample %d" % outliers[3])
        current = driver.find_elements(By.CSS_SELECTOR, "#outlier-rows tr.current")
        check(len(current) == 1 and current[0].get_attribute("data-rank") == "4", "row #4 is highlighted")
        driver.find_element(By.TAG_NAME, "body").send_keys("p")
        wait_settled(driver)
        t0, t1 = driver.execute_script("return [window.ecgview.t0, window.ecgview.t1]")
        check(abs((t0 + t1) / 2 - outliers[2]) <= 0.5, "'p' goes back to outlier #3")

        # The reference lane: each missed reference beat is marked as FN where it is.
        ref = meta["reference"]
        check(ref["tp"] > 0, "the run's reference is shown (TP %d, FN %d, FP %d)" % (ref["tp"], ref["fn"], ref["fp"]))
        if ref["fn"] > 0:
            misses = driver.execute_script(
                "return fetch('/api/beats?from=0&to=' + window.ecgview.meta.samples).then(r => r.json())")
            miss = [s for s, k in zip(misses["reference"]["sample"], misses["reference"]["matched"]) if not k][0]
            driver.execute_script("window.ecgview.centreOn(arguments[0], 4 * arguments[1])", miss, fs)
            wait_settled(driver)
            lane = driver.execute_script("return window.ecgview.drawn.reference")
            check(any(x["sample"] == miss and x["miss"] for x in lane), "the missed reference beat at %d is marked FN" % miss)

        # Screenshot for the README: outlier #1 with its neighbours, 10 s.
        driver.execute_script("window.ecgview.goToOutlier(0); window.ecgview.centreOn(arguments[0], 10 * arguments[1])",
                              outliers[0], fs)
        wait_settled(driver)
        grid = driver.execute_script("return window.ecgview.drawn.grid")
        check(grid is not None, "10 s visible: the ECG grid")
        if grid["paper"]:
            check(abs(grid["minor_x_px"] - grid["minor_y_px"]) < 0.01,
                  "at ECG paper's proportions the boxes are square (%.2f x %.2f px)" % (grid["minor_x_px"], grid["minor_y_px"]))
        driver.save_screenshot(shot)
        print("screenshot: " + shot)
    finally:
        driver.quit()
        proc.send_signal(2)  # Ctrl-C
        code = proc.wait(timeout=10)
    check(code == 0, "ecgpipe view exits 0 on Ctrl-C")

    # No model (`ecgpipe analyze`'s folder): the model's columns are empty cells, no outliers.csv.
    bare = os.path.join(work, "no-model")
    shutil.rmtree(bare, ignore_errors=True)
    os.makedirs(bare)
    for name in ("report.json", "rhythm.csv"):
        if os.path.exists(os.path.join(out, name)):
            shutil.copy(os.path.join(out, name), bare)
    model_columns = ("recon_error", "neg_elbo", "template_distance", "prematurity", "score", "outlier")
    with open(os.path.join(out, "beats.csv")) as f, open(os.path.join(bare, "beats.csv"), "w", newline="") as g:
        reader = csv.DictReader(f)
        writer = csv.DictWriter(g, fieldnames=reader.fieldnames, lineterminator="\n")
        writer.writeheader()
        for row in reader:
            for k in row:
                if k in model_columns or k.startswith("latent_mu"):
                    row[k] = ""
            writer.writerow(row)
    # 30 s before midnight: the clock's times, wrapping to 00:00 within the sample's minute.
    with open(os.path.join(bare, "report.json")) as f:
        report = json.load(f)
    report["input"]["start"] = "2026-11-26 23:59:30"
    with open(os.path.join(bare, "report.json"), "w") as f:
        json.dump(report, f)
    proc, url = start_view(exe, bare)
    driver = make_driver()
    try:
        driver.get(url)
        wait_settled(driver)
        check("started 2026-11-26 23:59:30 \u00b7 clock times" in driver.find_element(By.ID, "title").text,
              "the title gives the start and says times are the clock's")
        check(driver.find_element(By.ID, "status").text.startswith("23:59:30.000 \u2013 "),
              "the status line starts at the clock's 23:59:30 (%s)" % driver.find_element(By.ID, "status").text)
        check(" \u2013 00:09:30.000 (day 2)" in driver.find_element(By.ID, "status").text,
              "past midnight the status line says the day")
        ticks = driver.execute_script("return window.ecgview.drawn.ticks")
        of_day = [int(a[0:2]) * 3600 + int(a[3:5]) * 60 + float(a[6:]) for a in ticks["labels"]]
        check(ticks["step"] >= 1 and ticks["labels"] and all(abs(t / ticks["step"] - round(t / ticks["step"])) < 1e-9 for t in of_day),
              "the axis ticks fall on round clock times every %s s (%s)" % (ticks["step"], ticks["labels"][:4]))
        check("00:00:00" in ticks["labels"], "the axis wraps at midnight (%s)" % ticks["labels"])
        check("no model: analysis only" in driver.find_element(By.ID, "counts").text, "no model: the page says so")
        check(not driver.find_elements(By.CSS_SELECTOR, "#outlier-rows tr"), "no model: no outlier list")
        driver.execute_script("window.ecgview.setView(arguments[0], arguments[1])", beats[50] - 2 * fs, beats[50] + 2 * fs)
        wait_settled(driver)
        drawn = [m["sample"] for m in driver.execute_script("return window.ecgview.drawn.markers")]
        check(beats[50] in drawn, "no model: the beats are still drawn, by class")
    finally:
        driver.quit()
        proc.send_signal(2)
        code = proc.wait(timeout=10)
    check(code == 0, "ecgpipe view (no model) exits 0 on Ctrl-C")
    print("PASS")


if __name__ == "__main__":
    main()
