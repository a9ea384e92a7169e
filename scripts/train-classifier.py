#!/usr/bin/env python3
"""Train ecgpipe's AAMI beat classifier on MIT-BIH DS1 (and with --train-svdb the SVDB development
records) and write data/beat-classifier.json. What ships (since 2026-11-27) is
`scripts/train-classifier.py --svdb ../shared/data/svdb-dev --train-svdb` (docs/accuracy.md, "Beat classes").

    scripts/train-classifier.py [--data ../shared/data/mitdb-ds1] [--ecgpipe build/ecgpipe] [--cv [--svdb ../shared/data/svdb-dev]] [--out data/beat-classifier.json]
        [--class-weights 1,15,10,2] [--balance none|database|record] [--rounds 60] [--min-samples-leaf 200]
        [--s-bias 0|B|auto [--inner-folds 4]] [--train-svdb]

Beats are ecgpipe's own detections (`ecgpipe detect --fs 360`) matched to the reference within
150 ms (unmatched detections and Q beats are not used for training). Features: features() below,
the same definitions and order as src/classify/beat_features.cpp. Model: scikit-learn's
HistGradientBoostingClassifier (depth 3, 60 rounds, class weights N 1, S 15, V 10, F 2), exported as
plain trees. --cv prints the inter-patient figures: record-wise 11-fold cross-validation (two
records per fold; no beat of a record is ever in both training and evaluation), VEB/SVEB Se/+P as
EC57 counts them (a reference F labelled V is not a VEB false positive), the 5x5 confusion matrix,
AUROC of each class's probability, and per-record S/V results. The SVEB/VEB figures are printed
twice: as the model gives them, and as `run` writes them, where a predicted S inside the atrial
fibrillation that `ecgpipe analyze` detects is N (in_detected_af()).

Two models are written to the one file: one of the primary lead (MLII; the SVDB's ECG1) for every
recording, and its `lead2` model, the same features and the second lead's QRS correlation (l2cq:
lead2_qrs_correlation() below, src/classify/beat_features.cpp), for recordings with another ECG lead
(DS1's V1/V2/V4/V5 from wfdb/REC, the SVDB's ECG2). --cv prints the figures of both.

The options after --out change the model (their defaults give today's): the class weights, sample
weights that make each database (DS1, SVDB) or each record weigh the same, the rounds and leaf size,
and an S bias: a constant added to the S class's summed score before the argmax (exported in the
S baseline, so the C++ argmax applies it unchanged). --s-bias auto chooses it by an inner record-wise
CV on the training records only (the bias of the best SVEB F1 = 2 Se +P / (Se + P)); under --cv
every outer fold chooses its own, so the figures printed are nested. --train-svdb trains what is
written on DS1 and the --svdb records.

Data: MIT-BIH Arrhythmia Database and MIT-BIH Supraventricular Arrhythmia Database (PhysioNet), Open
Data Commons Attribution License 1.0; Moody GB, Mark RG, IEEE Eng Med Biol 20(3):45-50 (2001);
Greenwald SD, Patil RS, Mark RG, Computers in Cardiology 1990:461-464.
Needs numpy and scikit-learn (pip install scikit-learn).
"""
import argparse, json, math, os, subprocess, sys, tempfile
import numpy as np

RECS = '101 106 108 109 112 114 115 116 118 119 122 124 201 203 205 207 208 209 215 220 223 230'.split()
AAMI = {**{c: 0 for c in 'NLRej'}, **{c: 1 for c in 'AaJS'}, **{c: 2 for c in 'VE'}, 'F': 3, **{c: 4 for c in '/fQ'}}
CLASSES = ['N', 'S', 'V', 'F']
NAMES = ('lpre lpost lprepost lpreloc lprerec lloc lprep80 lpostloc width dwidth awid dawid eqn ampn '
         'cq cw cp ct cq2 cw2 dq lirr dprem pctx ltrend cplong dcplong').split()
MODEL_VERSION = 3  # 3: the lead2 model (the second lead's QRS correlation appended: l2cq)
LEAD2_NAME = 'l2cq'
DENSITY_CONTEXT, PREMATURE_LOG_RATIO = 64, -0.1  # the premature-beat density (dprem): see src/classify/beat_features.cpp
P_CONTEXT, P_PERCENTILE = 32, 80  # the P-wave context (pctx): see src/classify/beat_features.cpp
LONG_CYCLE_PERCENTILE = 80  # cplong's template: the beats whose RR before is at least this percentile


def samples_in(seconds, fs):  # rounded half up, as src/classify/beat_features.cpp
    return int(math.floor(seconds * fs + 0.5))


def windows(x, R, fs):
    """Each beat's window R - 0.25 s .. R + 0.45 s (zero outside the signal) less its median: feature_window and
    CenteredRow of src/classify/beat_features.cpp."""
    b = samples_in(0.25, fs); a = samples_in(0.45, fs)
    W = np.zeros((len(R), b + a))
    for i, r in enumerate(R):
        lo = r - b; hi = r + a
        s = x[max(0, lo):min(len(x), hi)]
        W[i, max(0, -lo):max(0, -lo) + len(s)] = s
    return W - np.median(W, axis=1, keepdims=True)


def features(x, R, fs):
    """Per-beat features; src/classify/beat_features.cpp computes the same (keep them in step)."""
    n = len(R)
    F = np.zeros((n, len(NAMES)))
    long_cycle = np.ones(n, dtype=bool)  # without an RR (one beat): every beat
    if n >= 2:
        rr = np.diff(R) / fs
        pre = np.empty(n); post = np.empty(n)
        pre[1:] = rr; pre[0] = rr[0]; post[:-1] = rr; post[-1] = rr[-1]
        K = 10
        locmed = np.empty(n); locp80 = np.empty(n); irr = np.empty(n)
        step = np.empty(n); step[1:] = np.abs(np.diff(np.log(pre))); step[0] = step[1] if n > 2 else 0.0
        for i in range(n):
            w = pre[max(0, i - K):i + K + 1]
            locmed[i] = np.median(w); locp80[i] = np.percentile(w, 80)
            irr[i] = np.median(step[max(0, i - K):i + K + 1])
        F[:, 21] = irr
        premature = (np.log(pre / locmed) < PREMATURE_LOG_RATIO).astype(np.float64)
        F[:, 22] = [premature[max(0, i - DENSITY_CONTEXT):i + DENSITY_CONTEXT + 1].mean() for i in range(n)]
        recmed = np.median(pre)
        F[:, :8] = np.column_stack([np.log(pre), np.log(post), np.log(pre / post), np.log(pre / locmed),
                                    np.log(pre / recmed), np.log(locmed), np.log(pre / locp80), np.log(post / locmed)])
        lp = np.log(pre)  # the trend (ltrend): ln RR against the median of the up to 3 RR before it
        F[1:, 24] = [lp[i] - np.median(lp[max(0, i - 3):i]) for i in range(1, n)]
        long_cycle = pre >= np.percentile(pre, LONG_CYCLE_PERCENTILE)  # the beats that end the longest cycles
    b = samples_in(0.25, fs); q = samples_in(0.08, fs); h = samples_in(0.1, fs)
    W = windows(x, R, fs)
    T = np.median(W, axis=0)
    qs = slice(b - q, b + q + 1)

    def corr(A, t):
        A = A - A.mean(1, keepdims=True); t = t - t.mean()
        return (A @ t) / (np.linalg.norm(A, axis=1) * np.linalg.norm(t) + 1e-9)
    cq = corr(W[:, qs], T[qs]); cw = corr(W, T); cp = corr(W[:, :b - q], T[:b - q]); ct = corr(W[:, b + q:], T[b + q:])
    T2 = np.median(W[cq >= np.median(cq)], axis=0)  # the dominant beat: the half most like the median beat
    cq2 = corr(W[:, qs], T2[qs]); cw2 = corr(W, T2)
    dq = np.log(np.sum((W[:, qs] - T2[qs]) ** 2, 1) / (np.sum(T2[qs] ** 2) + 1e-9) + 1e-6)
    eq = np.sum(W[:, qs] ** 2, 1); eqn = np.log(eq / np.median(eq) + 1e-9)
    amp = W[:, b]; ampn = amp / (np.median(np.abs(amp)) + 1e-9)
    seg = W[:, b - h:b + h + 1]; dx = np.abs(np.diff(seg, axis=1))
    m = dx > 0.25 * dx.max(1, keepdims=True)
    first = m.argmax(1); last = m.shape[1] - 1 - m[:, ::-1].argmax(1)
    flat = ~m.any(1); first[flat] = 0; last[flat] = m.shape[1] - 1
    width = (last - first + 1) / fs
    awid = np.sum(np.abs(seg), 1) / fs / (np.abs(seg).max(1) + 1e-9)
    F[:, 8:21] = np.column_stack([width, width - np.median(width), awid, awid - np.median(awid), eqn, ampn,
                                cq, cw, cp, ct, cq2, cw2, dq])
    F[:, 23] = [np.percentile(cp[max(0, i - P_CONTEXT):i + P_CONTEXT + 1], P_PERCENTILE) for i in range(n)]
    TL = np.median(W[long_cycle], axis=0)  # the P wave of the beats after the longest cycles (cplong)
    cplong = corr(W[:, :b - q], TL[:b - q])
    F[:, 25] = cplong; F[:, 26] = cplong - cp
    return F


def lead2_qrs_correlation(x2, R, fs):
    """The second lead's feature (src/classify/beat_features.cpp, lead2_qrs_correlation): cq of the other lead,
    each beat's QRS (R +- 0.08 s) against that lead's median beat, the windows as features() cuts them."""
    b = samples_in(0.25, fs); q = samples_in(0.08, fs)
    W = windows(x2, R, fs)
    T = np.median(W, axis=0)
    A = W[:, b - q:b + q + 1]; t = T[b - q:b + q + 1]
    A = A - A.mean(1, keepdims=True); t = t - t.mean()
    return (A @ t) / (np.linalg.norm(A, axis=1) * np.linalg.norm(t) + 1e-9)


def other_lead(path, primary):
    """A WFDB record's signal other than `primary` (a name or an index), the first such, and the record's rate."""
    import wfdb
    rec = wfdb.rdrecord(path)
    names = list(rec.sig_name)
    p = names.index(primary) if isinstance(primary, str) else primary
    other = [k for k in range(len(names)) if k != p][0]
    return rec.p_signal[:, other].astype(np.float64), float(rec.fs)


def load(data, rec, ecgpipe, tmp):
    """A DS1 record: its CSV (MLII), ecgpipe's detections, the reference labels, whether each beat lies in detected AF
    and the second lead's feature (the other signal of wfdb/REC: V1, V2, V4 or V5)."""
    x = np.loadtxt(f'{data}/{rec}.csv', skiprows=1, dtype=np.float32)
    det_path = os.path.join(tmp, f'{rec}.csv')
    subprocess.run([ecgpipe, '-q', 'detect', f'{data}/{rec}.csv', '--fs', '360', '--out', det_path], check=True)
    R = np.loadtxt(det_path, delimiter=',', skiprows=1, dtype=np.int64, ndmin=2)[:, 1]
    ref = np.genfromtxt(f'{data}/{rec}_beats.csv', delimiter=',', skip_header=1, dtype=None, encoding=None)
    rs = np.array([int(s) for s, _ in ref]); rc = np.array([AAMI.get(str(c), -1) for _, c in ref])
    x2, _ = other_lead(f'{data}/wfdb/{rec}', 'MLII')
    return (*label(x, R, rs, rc, 360.0), in_detected_af(ecgpipe, [f'{data}/{rec}.csv', '--fs', '360'], R, tmp, rec),
            lead2_qrs_correlation(x2, R, 360.0), (R, 360.0))


def load_wfdb(path, ecgpipe, tmp):
    """A WFDB record (the SVDB's: 128 Hz, lead ECG1 = signal 0, the lead ecgpipe reads by default, ECG2 the second):
    its samples, ecgpipe's detections and the reference labels, as load() does for DS1's CSVs."""
    import wfdb
    rec = wfdb.rdrecord(path, channels=[0])
    x, fs = rec.p_signal[:, 0].astype(np.float32), float(rec.fs)
    det_path = os.path.join(tmp, os.path.basename(path) + '.csv')
    subprocess.run([ecgpipe, '-q', 'detect', path + '.hea', '--out', det_path], check=True)
    R = np.loadtxt(det_path, delimiter=',', skiprows=1, dtype=np.int64, ndmin=2)[:, 1]
    ann = wfdb.rdann(path, 'atr')
    rs = np.asarray(ann.sample, dtype=np.int64); rc = np.array([AAMI.get(str(c), -1) for c in ann.symbol])
    x2, _ = other_lead(path, 0)
    return (*label(x, R, rs, rc, fs), in_detected_af(ecgpipe, [path + '.hea'], R, tmp, os.path.basename(path)),
            lead2_qrs_correlation(x2, R, fs), (R, fs))


def in_detected_af(ecgpipe, args, R, tmp, name):
    """Whether each detected beat lies in atrial fibrillation as `ecgpipe analyze` detects it (beats.csv
    `rhythm` AFIB). `run` and `analyze` label a predicted S beat there N (docs/accuracy.md, "S beats in
    AF"), so the cross-validated figures are printed both before and after that rule. The detector
    learned nothing from these labels, but it leaves out the beats that the shipped classifier calls V,
    a classifier trained on all of DS1: on a DS1 record that is not a held-out prediction (only which
    intervals the irregularity skips depends on it)."""
    out = os.path.join(tmp, name + '.analyze')
    subprocess.run([ecgpipe, '-q', 'analyze', *args, '--out', out], check=True)
    with open(os.path.join(out, 'beats.csv')) as f:
        head = f.readline().strip().split(',')
        rows = [line.strip().split(',') for line in f]
    r, h = head.index('r_peak'), head.index('rhythm')
    af = {int(row[r]) for row in rows if row[h] == 'AFIB'}
    return np.array([int(p) in af for p in R])


def label(x, R, rs, rc, fs):
    """Features of the detected beats R, each labelled with its reference class within 150 ms (-1: none)."""
    rs, rc = rs[rc >= 0], rc[rc >= 0]
    tol = int(0.15 * fs)
    j = np.searchsorted(rs, R); lab = np.full(len(R), -1)
    for i, d in enumerate(R):
        best, bd = -1, tol + 1
        for k in (j[i] - 1, j[i]):
            if 0 <= k < len(rs) and abs(rs[k] - d) < bd: bd, best = abs(rs[k] - d), k
        if best >= 0: lab[i] = rc[best]
    return features(x.astype(np.float64), R, fs), lab


def as_run_labels(p, af, R, fs):
    """The classes `run` writes for every detected beat: a predicted S inside detected atrial fibrillation is N,
    then the N beats that continue a run of SVT begun by an S are S, and the S beats of a run as irregular as AF
    are N (continue_svt_runs)."""
    return continue_svt_runs(np.where((p == 1) & af, 0, p), R, fs, af)


def interval_irregularity(rr):
    """src/rhythm/af_detect.cpp's: the smallest over lags 1-3 of the median |RR(j) - RR(j - lag)| over the median
    RR; NaN with fewer than 4 intervals."""
    if len(rr) <= 3: return np.nan
    return min(np.median(np.abs(rr[lag:] - rr[:-lag])) for lag in (1, 2, 3)) / np.median(rr)


def continue_svt_runs(p, R, fs, af, faster=0.85, max_rr_s=0.6, abrupt=0.9, rhythm_before=8, min_beats=3, max_beats=100,
                      s_within=3, min_irregular_beats=7, irregular=0.07):
    """src/rhythm/svt_runs.cpp (include/ecgpipe/rhythm/svt_runs.hpp; keep them in step): from an abrupt onset
    (an interval under `faster` x the median of the `rhythm_before` intervals before it and under `max_rr_s`, and
    at most `abrupt` x the interval before it), the beats while the intervals stay under that limit (no V, no
    AF); a run of at least `min_irregular_beats` whose own intervals' irregularity is above `irregular` (the AF
    detector's threshold): a burst of AF, its S beats are N; else a run of `min_beats` to `max_beats` beats with
    an S among its first `s_within`: its N beats are S."""
    n = len(R); pre = np.full(n, np.inf); pre[1:] = np.diff(R)
    out = p.copy(); outside = lambda k: af[k] or out[k] == 2
    i = 2
    while i < n:
        limit = min(faster * np.median(pre[max(1, i - rhythm_before):i]), max_rr_s * fs)
        if outside(i) or not (pre[i] < limit and pre[i] <= abrupt * pre[i - 1]):
            i += 1; continue
        end = i
        while end < n and not outside(end) and pre[end] < limit: end += 1
        if end - i >= min_irregular_beats and interval_irregularity(pre[i + 1:end]) > irregular:
            run = out[i:end]; run[run == 1] = 0
        elif min_beats <= end - i <= max_beats and np.any(out[i:min(end, i + s_within)] == 1):
            run = out[i:end]; run[run == 0] = 1
        i = end
    return out


# The model's settings; main() sets them from the command line (these defaults: what ships).
CFG = argparse.Namespace(class_weights=[1, 15, 10, 2], balance='none', rounds=60, min_samples_leaf=200,
                         s_bias='0', inner_folds=4)
S_BIAS_GRID = np.round(np.arange(-4.0, 3.0001, 0.1), 2)


def make_model():
    from sklearn.ensemble import HistGradientBoostingClassifier
    return HistGradientBoostingClassifier(max_iter=CFG.rounds, max_depth=3, min_samples_leaf=CFG.min_samples_leaf,
                                          l2_regularization=1.0, learning_rate=0.1,
                                          class_weight=dict(enumerate(CFG.class_weights)), random_state=0)


def training_set(data, recs):
    X = np.vstack([data[r][0][data[r][1] >= 0] for r in recs]); y = np.concatenate([data[r][1][data[r][1] >= 0] for r in recs])
    keep = y < 4  # Q: 5 beats in DS1, too few to learn
    return X[keep], y[keep]


def balance_weights(data, recs):
    """Sample weights (mean 1, before the class weights) under --balance, in training_set()'s order; None: none."""
    if CFG.balance == 'none': return None
    n = {r: int(((data[r][1] >= 0) & (data[r][1] < 4)).sum()) for r in recs}
    per_db = {}
    for r in recs: per_db[r in RECS] = per_db.get(r in RECS, 0) + n[r]
    w = np.concatenate([np.full(n[r], 1.0 / (n[r] if CFG.balance == 'record' else per_db[r in RECS])) for r in recs])
    return w / w.mean()


def fit(data, recs):
    X, y = training_set(data, recs)
    return make_model().fit(X, y, sample_weight=balance_weights(data, recs))


def decide(m, X, bias):
    """The classes the exported model gives: the argmax of the summed scores, the S score plus bias."""
    if bias == 0: return m.predict(X)
    d = m.decision_function(X); d[:, list(m.classes_).index(1)] += bias
    return m.classes_[d.argmax(1)]


def folds_of(recs, k):
    """k record-wise folds, each DS1 record and each other record dealt round-robin."""
    a = [r for r in recs if r in RECS]; b = [r for r in recs if r not in RECS]
    return [a[i::k] + b[i::k] for i in range(k)]


def choose_s_bias(data, recs):
    """--s-bias: a number as given, or (auto) the best SVEB F1 of an inner record-wise CV on recs."""
    if CFG.s_bias != 'auto': return float(CFG.s_bias)
    Y, D = [], []
    for fold in folds_of(recs, CFG.inner_folds):
        m = fit(data, [r for r in recs if r not in fold]); s = list(m.classes_).index(1)
        for r in fold:
            X, y = data[r][:2]; keep = (y >= 0) & (y < 4)
            Y.append(y[keep]); D.append(m.decision_function(X[keep]))
    Y, D = np.concatenate(Y), np.concatenate(D)

    def f1(b):
        d = D.copy(); d[:, s] += b; p = m.classes_[d.argmax(1)]
        tp = np.sum((Y == 1) & (p == 1)); return 2 * tp / max(1, np.sum(Y == 1) + np.sum(p == 1))
    return float(max(S_BIAS_GRID, key=lambda b: (f1(b), -abs(b))))


def ec57(y, p):
    C = np.zeros((5, 5), int)
    for a, b in zip(y, p): C[a, b] += 1
    vse = C[2, 2] / max(1, C[2].sum()); vpp = C[2, 2] / max(1, C[:, 2].sum() - C[3, 2])
    sse = C[1, 1] / max(1, C[1].sum()); spp = C[1, 1] / max(1, C[:, 1].sum())
    return C, vse, vpp, sse, spp


def cross_validate(data):
    from sklearn.metrics import roc_auc_score
    Y, P, PR, PA, per = [], [], [], [], {}
    biases = []
    for fold in [RECS[i::11] for i in range(11)]:
        train = [r for r in RECS if r not in fold]
        m = fit(data, train); bias = choose_s_bias(data, train); biases.append(bias)
        for r in fold:
            X, y, af, (R, fs) = data[r]; keep = y >= 0
            pr = np.zeros((len(y), 4)); pr[:, m.classes_] = m.predict_proba(X)
            p = pr.argmax(1) if bias == 0 else decide(m, X, bias)
            pa = as_run_labels(p, af, R, fs)[keep]; pr, p = pr[keep], p[keep]
            Y.append(y[keep]); PR.append(pr); P.append(p); PA.append(pa)
            per[r] = (y[keep], p, PA[-1])
    if any(biases): print(f'S bias of each fold (--s-bias {CFG.s_bias}): {biases}')
    Y, P, PR = np.concatenate(Y), np.concatenate(P), np.concatenate(PR)
    C, vse, vpp, sse, spp = ec57(Y, P)
    print(f'record-wise 11-fold CV, {len(Y)} matched beats: VEB Se {100*vse:.1f} % +P {100*vpp:.1f} %; '
          f'SVEB Se {100*sse:.1f} % +P {100*spp:.1f} %')
    print('confusion (rows reference N S V F Q, columns predicted):'); print(C)
    CA, vse, vpp, sse, spp = ec57(Y, np.concatenate(PA))
    print(f'as run labels them (a predicted S in detected AF is N, SVT runs continued): VEB Se {100*vse:.1f} % +P {100*vpp:.1f} %; '
          f'SVEB Se {100*sse:.1f} % +P {100*spp:.1f} % (N labelled S {C[0, 1]} -> {CA[0, 1]})')
    for c in (1, 2, 3):
        m = (Y == 0) | (Y == c)
        print(f'AUROC {CLASSES[c]} vs N of p({CLASSES[c]}): {roc_auc_score(Y[m] == c, PR[m][:, c]):.3f}, '
              f'of 1 - p(N): {roc_auc_score(Y[m] == c, 1 - PR[m][:, 0]):.3f}')
    m = Y < 4
    print(f'AUROC abnormal vs N of 1 - p(N): {roc_auc_score(Y[m] > 0, 1 - PR[m][:, 0]):.3f}')
    for r in RECS: print_record(r, *per[r])


def print_record(r, y, p, p_as_run):
    """One record's EC57 figures, as predicted, and its N labelled S as predicted -> as run labels them."""
    C, vse, vpp, sse, spp = ec57(y, p)
    print(f'{r}: S {C[1].sum():4d} Se {100*sse:5.1f} +P {100*spp:5.1f} | V {C[2].sum():4d} Se {100*vse:5.1f} +P {100*vpp:5.1f}'
          f' | N labelled S {C[0,1]} -> {ec57(y, p_as_run)[0][0, 1]}')


def cross_database(data, ds1, svdb):
    """The figures per database (issue 24): the DS1-only model (what shipped until 2026-11-27) on the SVDB records, a
    database it never saw; and a model of both databases under record-wise CV (11 folds, each
    holding out 2 DS1 records and every 11th SVDB record), per database and pooled."""
    def report(name, Y, P, PA):
        Y, P, PA = np.concatenate(Y), np.concatenate(P), np.concatenate(PA)
        for how, p in (('', P), (', as run labels them (S in detected AF -> N, SVT runs continued)', PA)):
            C, vse, vpp, sse, spp = ec57(Y, p)
            print(f'{name}{how}: {C.sum()} matched beats (S {C[1].sum()}, V {C[2].sum()}): VEB Se {100*vse:.1f} % '
                  f'+P {100*vpp:.1f} %; SVEB Se {100*sse:.1f} % +P {100*spp:.1f} %')

    def predict(m, bias, r):
        """A record's matched beats: labels, predictions and the classes `run` writes (from all its beats)."""
        X, y, af, (R, fs) = data[r]; keep = y >= 0
        p = decide(m, X, bias)
        return y[keep], p[keep], as_run_labels(p, af, R, fs)[keep]
    m = fit(data, ds1); bias = choose_s_bias(data, ds1)
    report('DS1 model on the 40 SVDB records (never trained on)', *zip(*(predict(m, bias, r) for r in svdb)))
    folds = [ds1[i::11] + svdb[i::11] for i in range(11)]
    by_db = {'DS1': ([], [], []), 'SVDB': ([], [], [])}
    biases, per = [], {}
    for fold in folds:
        train = [r for r in ds1 + svdb if r not in fold]
        m = fit(data, train); bias = choose_s_bias(data, train); biases.append(bias)
        for r in fold:
            per[r] = predict(m, bias, r)
            for into, got in zip(by_db['SVDB' if r in svdb else 'DS1'], per[r]): into.append(got)
    if any(biases): print(f'S bias of each DS1 + SVDB fold (--s-bias {CFG.s_bias}): {biases}')
    for name, lists in by_db.items(): report(f'DS1 + SVDB model, record-wise CV, on {name}', *lists)
    report('DS1 + SVDB model, record-wise CV, pooled', *(by_db['DS1'][k] + by_db['SVDB'][k] for k in range(3)))
    print('DS1 + SVDB model, record-wise CV, per record:')
    for r in ds1 + svdb: print_record(r, *per[r])


def export_model(model, bias, names):
    """One model as ecgpipe reads it (src/classify/classify.cpp): its features, classes, baseline and trees."""
    trees = []
    for iteration in model._predictors:
        for target, pred in enumerate(iteration):
            nd = pred.nodes
            leaf = nd['is_leaf'].astype(bool)
            trees.append({'target': target,
                          'feature': [int(f) if not l else 0 for f, l in zip(nd['feature_idx'], leaf)],
                          'threshold': [float(t) if not l else 0.0 for t, l in zip(nd['num_threshold'], leaf)],
                          'left': [int(v) if not l else -1 for v, l in zip(nd['left'], leaf)],
                          'right': [int(v) if not l else -1 for v, l in zip(nd['right'], leaf)],
                          'value': [float(v) if l else 0.0 for v, l in zip(nd['value'], leaf)]})
    return {'features': names, 'classes': [CLASSES[c] for c in model.classes_],
            'baseline': [float(v) + (bias if c == 1 else 0.0)
                         for v, c in zip(np.ravel(model._baseline_prediction), model.classes_)],
            'trees': trees}


def check_export(j, model, bias, X):
    """The export must reproduce scikit-learn's decisions (a C++-style walk over the JSON)."""
    raw = np.tile(np.array(j['baseline']), (len(X), 1))
    for t in j['trees']:
        for i, x in enumerate(X):
            k = 0
            while t['left'][k] >= 0: k = t['left'][k] if x[t['feature'][k]] <= t['threshold'][k] else t['right'][k]
            raw[i, t['target']] += t['value'][k]
    assert (np.asarray(j['classes'])[raw.argmax(1)] == np.asarray(CLASSES)[decide(model, X, bias)]).all(), \
        'exported trees disagree with scikit-learn'


def one_lead(data):
    """The records' features without the second lead's (load() appends it as a fourth field), labels, AF and
    (R peaks, rate)."""
    return {r: (d[0], d[1], d[2], d[4]) for r, d in data.items()}


def two_leads(data):
    """The records' features with the second lead's appended (the lead2 model's columns), as one_lead()."""
    return {r: (np.column_stack([d[0], d[3]]), d[1], d[2], d[4]) for r, d in data.items()}


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--data', default=os.path.join(here, '..', '..', 'shared', 'data', 'mitdb-ds1'))
    ap.add_argument('--ecgpipe', default=os.path.join(here, '..', 'build', 'ecgpipe'))
    ap.add_argument('--out', default=os.path.join(here, '..', 'data', 'beat-classifier.json'))
    ap.add_argument('--cv', action='store_true', help='print the record-wise cross-validated figures too')
    ap.add_argument('--svdb', help='the SVDB development records (../shared/data/svdb-dev; needs wfdb-python): with '
                                   '--cv the figures per database, the DS1 model on them and a DS1 + SVDB model under '
                                   'record-wise CV; with --train-svdb also trained on (what ships since 2026-11-27)')
    ap.add_argument('--class-weights', default='1,15,10,2', metavar='N,S,V,F',
                    help='class weights of N, S, V and F (default 1,15,10,2: V 10 since the two-database model of 2026-11-27)')
    ap.add_argument('--balance', default='none', choices=['none', 'database', 'record'],
                    help='sample weights (times the class weights) so that each database (DS1, the --svdb '
                         'records) or each record weighs the same in training (default none: each beat 1)')
    ap.add_argument('--rounds', type=int, default=60, help='boosting rounds (default 60)')
    ap.add_argument('--min-samples-leaf', type=int, default=200, help='fewest beats in a leaf (default 200)')
    ap.add_argument('--s-bias', default='0', help='added to the S score before the argmax, and to the S baseline '
                    'of what is written (default 0); auto: chosen by an inner record-wise CV of the training '
                    'records (best SVEB F1), per fold under --cv (nested figures)')
    ap.add_argument('--inner-folds', type=int, default=4, help='folds of the inner CV of --s-bias auto (default 4)')
    ap.add_argument('--train-svdb', action='store_true', help='with --svdb: train what is written on DS1 and the '
                                                              'SVDB records (default: DS1 only)')
    a = ap.parse_args()
    CFG.class_weights = [float(v) for v in a.class_weights.split(',')]
    if len(CFG.class_weights) != 4: ap.error('--class-weights: four numbers, N,S,V,F')
    if a.s_bias != 'auto':
        try: float(a.s_bias)
        except ValueError: ap.error('--s-bias: a number or auto')
    if a.train_svdb and not a.svdb: ap.error('--train-svdb needs --svdb')
    CFG.balance, CFG.rounds, CFG.min_samples_leaf, CFG.s_bias, CFG.inner_folds = (
        a.balance, a.rounds, a.min_samples_leaf, a.s_bias, a.inner_folds)
    with tempfile.TemporaryDirectory() as tmp:
        data = {r: load(a.data, r, a.ecgpipe, tmp) for r in RECS}
        svdb = []
        if a.svdb:
            svdb = sorted(os.path.splitext(f)[0] for f in os.listdir(a.svdb) if f.endswith('.hea'))
            data.update({r: load_wfdb(os.path.join(a.svdb, r), a.ecgpipe, tmp) for r in svdb})
    recs = RECS + svdb if a.train_svdb else RECS
    # Two models: one from the primary lead (MLII, ECG1) for every recording, and the lead2 model for
    # recordings with a second lead (V1/V2/V4/V5, ECG2), each cross-validated alike.
    models = {}
    for name, d in (('one lead', one_lead(data)), ('two leads', two_leads(data))):
        if a.cv:
            print(f'== {name} ==')
            cross_validate(d)
            if svdb: cross_database(d, RECS, svdb)
        model = fit(d, recs); bias = choose_s_bias(d, recs)
        if bias: print(f'{name}: S bias {bias:+.2f} (--s-bias {a.s_bias})', file=sys.stderr)
        j = export_model(model, bias, NAMES if name == 'one lead' else NAMES + [LEAD2_NAME])
        check_export(j, model, bias, training_set(d, recs)[0][:2000])
        models[name] = j
    trained_on = 'MIT-BIH Arrhythmia Database DS1 (de Chazal 2004), ODC-By 1.0'
    if a.train_svdb: trained_on += f'; MIT-BIH Supraventricular Arrhythmia Database ({len(svdb)} records), ODC-By 1.0'
    j = {'format': 'ecgpipe-beat-classifier', 'version': MODEL_VERSION, 'trained_on': trained_on,
         **models['one lead'], 'lead2': models['two leads']}
    with open(a.out, 'w') as f: json.dump(j, f, separators=(',', ':'))
    print(f'wrote {a.out}: {len(j["trees"])} + {len(j["lead2"]["trees"])} trees, {os.path.getsize(a.out)} bytes', file=sys.stderr)


if __name__ == '__main__':
    main()
