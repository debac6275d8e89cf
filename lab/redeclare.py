#!/usr/bin/env python3
"""Copies of the --sweep all files of SRC into DST with each record's between_run set to what bench/*.c
declare now (SMEM_VARIATION_MEASURED): the gate on files as this build would write them.
   lab/redeclare.py SRC DST"""
import json,re,glob,os,sys
ROOT = os.path.join(os.path.dirname(os.path.realpath(__file__)), '..')
decl={}
for f in glob.glob(os.path.join(ROOT, 'bench', '*.c')):
    s=open(f).read()
    m=re.search(r'\.variation = SMEM_VARIATION_MEASURED\(([\d.]+), ([\d.]+), ([\d.]+)\)',s)
    n=re.search(r'\.name = "([a-z_0-9]+)",\n    \.summary',s)
    if m and n: decl[n.group(1)]=tuple(map(float,m.groups()))
for fam,members in [('staging_family.h',['staging_plain','staging_cp_async','staging_bulk']),('sgemm_family.h',['sgemm_tma','sgemm_cp_async'])]:
    m=re.search(r'SMEM_VARIATION_MEASURED\(([\d.]+), ([\d.]+), ([\d.]+)\)',open(os.path.join(ROOT, 'bench', fam)).read())
    for b in members: decl[b]=tuple(map(float,m.groups()))
src,dst=sys.argv[1],sys.argv[2]; os.makedirs(dst,exist_ok=True)
for f in sorted(os.listdir(src)):
    if not (f.startswith('nvidia-h200_') and '_all_' in f and f.endswith('.json')): continue
    d=json.load(open(os.path.join(src,f)))
    for r in d['results']:
        if r['bench'] in decl and isinstance(r.get('between_run'),dict):
            a,b,c=decl[r['bench']]
            r['between_run'].update(run_pct=a,unit_pct=b,layout_pct=c if c else r['between_run'].get('layout_pct'))
            if not c: r['between_run'].pop('layout_pct',None)
    json.dump(d,open(os.path.join(dst,f),'w'))
print(len(decl),'declared')
