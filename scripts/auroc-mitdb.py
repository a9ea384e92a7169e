#!/usr/bin/env python3
"""Outlier-score AUROC on MIT-BIH DS1 (a side tool; Python 3 stdlib only).

usage: scripts/auroc-mitdb.py [--stream] [ecgpipe run options...]
  env DATA (default ../shared/data/mitdb-ds1), EXE (default build/ecgpipe), OUT (default /tmp/ecgpipe-auroc)
Per record (default): `ecgpipe run RECORD.csv --fs 360 ...` on every record (one model per record,
as a user would run it), then the AUROC of the beats.csv `score` column (recon_error for files
without one) for abnormal (AAMI S, V, F, Q) vs normal (N) beats, per record and pooled over all
records' beats.
--stream: the seed's way: all records concatenated into one recording (one model), one run.
Each detected beat takes the AAMI class of the reference beat within 150 ms (54 samples at 360 Hz,
ANSI/AAMI EC57); unmatched detections are left out. No label is used for training.
"""
import bisect, csv, os, subprocess, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.environ.get('DATA', os.path.join(ROOT, '..', 'shared', 'data', 'mitdb-ds1'))
EXE = os.environ.get('EXE', os.path.join(ROOT, 'build', 'ecgpipe'))
OUT = os.environ.get('OUT', '/tmp/ecgpipe-auroc')
TOLERANCE = 54  # 150 ms at 360 Hz (ANSI/AAMI EC57)
AAMI = {**{c: 'N' for c in 'NLRej'}, **{c: 'S' for c in 'AaJS'}, **{c: 'V' for c in 'VE'}, 'F': 'F',
        **{c: 'Q' for c in '/fQ'}}
args = sys.argv[1:]
stream = '--stream' in args
extra = [a for a in args if a != '--stream']
recs = sorted(f[:3] for f in os.listdir(D) if f.endswith('_beats.csv'))


def auroc(pos, neg):
    """Mann-Whitney U / (|pos| |neg|), ties counted half."""
    if not pos or not neg:
        return float('nan')
    allv = sorted([(v, 1) for v in pos] + [(v, 0) for v in neg])
    rank_sum, i = 0.0, 0
    while i < len(allv):
        j = i
        while j < len(allv) and allv[j][0] == allv[i][0]:
            j += 1
        rank_sum += (i + j + 1) / 2 * sum(1 for k in range(i, j) if allv[k][1])
        i = j
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def reference(rec, offset=0):
    return [(int(r['sample']) + offset, AAMI[r['symbol']]) for r in csv.DictReader(open(f'{D}/{rec}_beats.csv'))
            if r['symbol'] in AAMI]


def classify(beats_csv, ref):
    """{class: [scores]} of the detected beats matched to a reference beat."""
    rs = [s for s, _ in ref]
    per = {c: [] for c in 'NSVFQ'}
    rows = list(csv.DictReader(open(beats_csv)))
    col = 'score' if rows and 'score' in rows[0] else 'recon_error'
    for b in rows:
        p = int(b['r_peak'])
        i = bisect.bisect_left(rs, p)
        near = [k for k in (i - 1, i) if 0 <= k < len(rs)]
        if not near:
            continue
        best = min(near, key=lambda k: abs(rs[k] - p))
        if abs(rs[best] - p) <= TOLERANCE:
            per[ref[best][1]].append(float(b[col]))
    return per


def summary(label, per):
    n = per['N']
    ab = per['S'] + per['V'] + per['F'] + per['Q']
    print(f'{label}: abnormal {auroc(ab, n):.3f}, S {auroc(per["S"], n):.3f}, V {auroc(per["V"], n):.3f}, '
          f'F {auroc(per["F"], n):.3f}  (N {len(n)}, S {len(per["S"])}, V {len(per["V"])}, F {len(per["F"])}, '
          f'Q {len(per["Q"])})', flush=True)


def run(csv_path, out):
    subprocess.run([EXE, '-q', 'run', csv_path, '--fs', '360', '--out', out] + extra, check=True)


if stream:
    # One recording: the records back to back (one header), references shifted by each one's start.
    os.makedirs(OUT, exist_ok=True)
    joined, ref, offset = os.path.join(OUT, 'ds1-stream.csv'), [], 0
    with open(joined, 'w') as f:
        f.write('heartbeats\n')
        for rec in recs:
            lines = open(f'{D}/{rec}.csv').read().split('\n')[1:]
            lines = [l for l in lines if l.strip()]
            f.write('\n'.join(lines) + '\n')
            ref += reference(rec, offset)
            offset += len(lines)
    run(joined, os.path.join(OUT, 'stream'))
    summary('one stream of %d records, one model' % len(recs), classify(os.path.join(OUT, 'stream', 'beats.csv'), ref))
else:
    pooled = {c: [] for c in 'NSVFQ'}
    for rec in recs:
        out = os.path.join(OUT, rec)
        run(f'{D}/{rec}.csv', out)
        per = classify(os.path.join(out, 'beats.csv'), reference(rec))
        for c in per:
            pooled[c] += per[c]
        summary(rec, per)
    summary('pooled over %d records, one model each' % len(recs), pooled)
