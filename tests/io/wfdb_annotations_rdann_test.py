"""ecgpipe's WFDB annotation file (<record>.ecgpipe) read by wfdb-python's rdann.

Usage: wfdb_annotations_rdann_test.py ECGPIPE SOURCE_DIR

Runs `ecgpipe run` on the bundled sample and, when the MIT-BIH DS1 records are beside the checkout
(SOURCE_DIR/../shared/data/mitdb-ds1/wfdb), on record 201 (atrial fibrillation, flutter, nodal
rhythm), then checks that rdann gives one beat annotation per beats.csv row (same sample, the
class's WFDB symbol) and a '+' annotation per rhythm.csv episode (same start, aux "(" + rhythm).
Exit 77 (skipped) when wfdb cannot be imported.
"""

import csv
import os
import subprocess
import sys
import tempfile

try:
    import wfdb
except ImportError as e:  # the environment of scripts/python-env.sh has it
    print(f"SKIP: cannot import wfdb ({e})")
    sys.exit(77)

SYMBOL = {"N": "N", "S": "A", "V": "V", "F": "F", "Q": "Q"}  # AAMI class -> WFDB symbol


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_run(ecgpipe, recording, out, record, fs, extra=()):
    """Runs ecgpipe on `recording` into `out` and compares rdann(out/record, 'ecgpipe') with the
    CSV outputs. Returns the rhythm aux notes."""
    cmd = [ecgpipe, "-q", "run", recording, "--device", "cpu", "--epochs", "1", "--out", out, *extra]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    ann = wfdb.rdann(os.path.join(out, record), "ecgpipe")
    beats = read_csv(os.path.join(out, "beats.csv"))
    episodes = read_csv(os.path.join(out, "rhythm.csv"))
    errors = []
    if ann.fs != fs:
        errors.append(f"fs {ann.fs}, expected {fs} (from {record}.hea)")
    is_beat = [s not in ("+", "~") for s in ann.symbol]
    got_beats = [(int(s), y) for s, y, b in zip(ann.sample, ann.symbol, is_beat) if b]
    want_beats = [(int(b["r_peak"]), SYMBOL[b["class"]]) for b in beats]
    if got_beats != want_beats:
        first = next((i for i, (g, w) in enumerate(zip(got_beats, want_beats)) if g != w), min(len(got_beats), len(want_beats)))
        errors.append(f"beats: {len(got_beats)} annotations, {len(want_beats)} rows; first difference at {first}: "
                      f"{got_beats[first:first + 1]} vs {want_beats[first:first + 1]}")
    got_rhythm = [(int(s), a) for s, y, a in zip(ann.sample, ann.symbol, ann.aux_note) if y == "+"]
    want_rhythm = [(int(e["start_sample"]), "(" + e["rhythm"]) for e in episodes]
    if got_rhythm != want_rhythm:
        errors.append(f"rhythm: {got_rhythm[:5]}... vs rhythm.csv {want_rhythm[:5]}...")
    # Artefact: '~' subtype -1 at each artefact.csv stretch's start, '~' subtype 0 at its end.
    got_noise = [(int(s), int(t)) for s, y, t in zip(ann.sample, ann.symbol, ann.subtype) if y == "~"]
    want_noise = []
    for a in read_csv(os.path.join(out, "artefact.csv")):
        want_noise += [(int(a["start_sample"]), -1), (int(a["end_sample"]), 0)]
    if got_noise != want_noise:
        errors.append(f"noise: {got_noise[:4]}... vs artefact.csv {want_noise[:4]}...")
    if any(int(c) != 0 or int(n) != 0 or (y != "~" and int(t) != 0)
           for c, n, t, y in zip(ann.chan, ann.num, ann.subtype, ann.symbol)):
        errors.append("chan, num and subtype are 0 for beats and rhythm")
    if errors:
        sys.exit(f"FAIL: {recording}:\n  " + "\n  ".join(errors))
    print(f"ok: {recording}: {len(got_beats)} beats, {len(got_rhythm)} rhythm annotations "
          f"({sorted(set(a for _, a in got_rhythm))})")
    return [a for _, a in got_rhythm]


def main():
    ecgpipe, source = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="ecgpipe_rdann_") as tmp:
        check_run(ecgpipe, os.path.join(source, "data", "sample.csv"), os.path.join(tmp, "sample"), "sample", 250)
        # A name WFDB does not allow becomes one it does.
        odd = os.path.join(tmp, "my sample-1.csv")
        os.symlink(os.path.join(source, "data", "sample.csv"), odd)
        check_run(ecgpipe, odd, os.path.join(tmp, "odd"), "my_sample_1", 250)

        record = os.path.join(source, "..", "shared", "data", "mitdb-ds1", "wfdb", "201")
        if not all(os.path.isfile(record + ext) for ext in (".hea", ".dat", ".atr")):
            print("SKIP part: no MIT-BIH DS1 beside the checkout (../shared/data/mitdb-ds1/wfdb/201): "
                  "the WFDB record was not run")
            return
        notes = check_run(ecgpipe, record + ".hea", os.path.join(tmp, "201"), "201", 360)
        if "(AFIB" not in notes:
            sys.exit(f"FAIL: record 201 (3 AF episodes in its reference) gave no '(AFIB' rhythm annotation: {notes}")


if __name__ == "__main__":
    main()
