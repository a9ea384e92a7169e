#!/usr/bin/env python3
"""Outlier-score AUROC on MIT-BIH DS1, one model per record (a side tool; Python 3 stdlib only).

usage: scripts/auroc-mitdb.py [ecgpipe run options...]
  env DATA (default ../shared/data/mitdb-ds1), EXE (default build/ecgpipe), OUT (default /tmp/ecgpipe-auroc)
Runs `ecgpipe run RECORD.csv --fs 360 ...` per record, matches each beat's r_peak to the nearest
reference beat within 150 ms (54 samples at 360 Hz), maps WFDB symbols to AAMI classes and prints
the AUROC of recon_error for abnormal (S, V, F, Q) vs normal (N) beats per record, then pooled
over all records (scores of different per-record models pooled: a rough summary only).
"""
import bisect, csv, os, subprocess, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.environ.get('DATA', os.path.join(ROOT, '..', 'shared', 'data', 'mitdb-ds1'))
EXE = os.environ.get('EXE', os.path.join(ROOT, 'build', 'ecgpipe'))
OUT = os.environ.get('OUT', '/tmp/ecgpipe-auroc')
TOLERANCE = 54  # 150 ms at 360 Hz (ANSI/AAMI EC57)
recs=sorted(f[:3] for f in os.listdir(D) if f.endswith('_beats.csv'))
AAMI={**{c:'N' for c in 'NLRej'},**{c:'S' for c in 'AaJS'},**{c:'V' for c in 'VE'},'F':'F',**{c:'Q' for c in '/fQ'}}
extra=sys.argv[1:]
def auroc(pos,neg):
    allv=sorted([(v,1) for v in pos]+[(v,0) for v in neg]); ranks={}; i=0
    r=[0]*len(allv)
    while i<len(allv):
        j=i
        while j<len(allv) and allv[j][0]==allv[i][0]: j+=1
        for k in range(i,j): r[k]=(i+j+1)/2
        i=j
    sp=sum(r[k] for k in range(len(allv)) if allv[k][1]==1)
    return (sp-len(pos)*(len(pos)+1)/2)/(len(pos)*len(neg)) if pos and neg else float('nan')
tot={c:[] for c in 'NSVFQ'}
for rec in recs:
    out=os.path.join(OUT, rec)
    subprocess.run([EXE,'-q','run',f'{D}/{rec}.csv','--fs','360','--device','cpu','--out',out]+extra,check=True)
    ref=[(int(r['sample']),r['symbol']) for r in csv.DictReader(open(f'{D}/{rec}_beats.csv')) if r['symbol'] in AAMI]
    rs=[s for s,_ in ref]
    per={c:[] for c in 'NSVFQ'}
    for b in csv.DictReader(open(f'{out}/beats.csv')):
        p=int(b['r_peak']); i=bisect.bisect_left(rs,p)
        best=min([k for k in (i-1,i) if 0<=k<len(rs)], key=lambda k:abs(rs[k]-p))
        if abs(rs[best]-p)<=TOLERANCE: per[AAMI[ref[best][1]]].append(float(b['recon_error']))
    for c in per: tot[c]+=[(rec,v) for v in per[c]]
    ab=per['S']+per['V']+per['F']+per['Q']
    print(rec, {c:len(per[c]) for c in per}, 'AUROC abn %.3f'%auroc(ab,per['N']) if ab else '', flush=True)
# pooled across records (scores from per-record models)
N=[v for _,v in tot['N']]
print('pooled per-record-model AUROC: abnormal %.3f, S %.3f, V %.3f, F %.3f'%(auroc([v for c in 'SVFQ' for _,v in tot[c]],N), auroc([v for _,v in tot['S']],N), auroc([v for _,v in tot['V']],N), auroc([v for _,v in tot['F']],N)))
