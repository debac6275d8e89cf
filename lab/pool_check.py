#!/usr/bin/env python3
"""The runner-pool check of the gate on one folder of --sweep all files (nvidia-h200_*_all_*.json: results/gate/session2_20261201/, session3_20261202/):
every ordered pair with one base (compare.py BASE NEW), then each file against the history of the
others (compare.py --history); counts of slower, faster, same, uncertain, the moved points, the
uncertain points by benchmark.   lab/pool_check.py DIR [compare.py options]"""
import subprocess, itertools, os, re, sys, collections, tempfile
os.chdir(sys.argv[1])
files=sorted(f for f in os.listdir('.') if f.startswith('nvidia-h200_') and '_all_' in f and f.endswith('.json'))
py=sys.executable; cmp=os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "scripts", "compare.py")
extra=sys.argv[2:]
def run(args):
    p=subprocess.run([py,cmp,*args,*extra],capture_output=True,text=True)
    out=p.stdout
    m=re.search(r'(\d+) points compared: (\d+) slower, (\d+) faster, (\d+) same, (\d+) uncertain',out)
    moved=[l.split()[0] for l in out.splitlines() if re.search(r'\s(slower|faster)(\s|$)',l) and '/' in l.split()[0]]
    unc=[l.split()[0] for l in out.splitlines() if ' uncertain (' in l]
    return p.returncode, m.groups() if m else None, moved, unc
tot=collections.Counter(); movedc=collections.Counter(); uncc=collections.Counter(); fails=0; n=0
for b,nw in itertools.permutations(files,2):
    rc,g,moved,unc=run([b,nw]); n+=1; fails+= rc!=0
    for x in moved: movedc[x]+=1
    for x in unc: uncc[x.split('/')[0]]+=1
    if g: tot['slower']+=int(g[1]); tot['faster']+=int(g[2]); tot['uncertain']+=int(g[4]); tot['same']+=int(g[3])
    print('PAIR',b[26:-5],nw[26:-5],rc,g[1:] if g else None, moved[:6])
print('pairs',n,'failing',fails,dict(tot)); print('moved points',movedc.most_common(20)); print('uncertain by bench',uncc.most_common(30))
for nw in files:
    with tempfile.TemporaryDirectory() as h:
        for o in files:
            if o!=nw: os.symlink(os.path.abspath(o),os.path.join(h,o))
        rc,g,moved,unc=run(['--history',h,nw])
        u=collections.Counter(x.split('/')[0] for x in unc)
        print('HIST',nw[26:-5],rc,g[1:] if g else None,moved[:8],dict(u))
