#!/usr/bin/env python3
"""Per-reordering summary of rsh_spmm_benchmark runs made with --rsh_reorder=<P>
(one <P>.json per policy in DIR, None among them): rsh kernel speedup over no
reordering, nnz per tile, speedup over the best cuSPARSE algorithm and the
preprocessing time; with --per-matrix also the table per matrix.
Usage: reorder_summary.py DIR [--per-matrix]"""
import json,math,sys,os
pols=['None']+sorted(f[:-5] for f in os.listdir(sys.argv[1]) if f.endswith('.json') and f!='None.json')
d={}
cus={}
for p in pols:
    j=json.load(open(os.path.join(sys.argv[1], p + '.json')))
    for b in j['benchmarks']:
        nm=b['name'].replace('/manual_time','')
        m='/'.join(nm.split('/')[1:-4])
        if nm.endswith('/rsh'):
            d[(m,p)]=b
        elif '/cusparse_alg' in nm and not b.get('error_occurred'):
            cus.setdefault((m,p),[]).append(b['real_time'])
mats=sorted({k[0] for k in d})
graphs=[m for m in mats if not m.startswith(('rn50','transformer'))]
def gm(xs): return math.exp(sum(map(math.log,xs))/len(xs)) if xs else float('nan')
print('| policy | matrices | kernel speedup vs None (all) | graphs/meshes (%d) | nnz/tile vs None (graphs) | vs cuSPARSE (all) | below 1x vs None (graphs) | preprocessing ms total |'%len(graphs))
print('|---|---|---|---|---|---|---|---|')
for p in pols:
    ks=[m for m in mats if (m,p) in d and (m,'None') in d]
    sp=[d[(m,'None')]['real_time']/d[(m,p)]['real_time'] for m in ks]
    spg=[d[(m,'None')]['real_time']/d[(m,p)]['real_time'] for m in ks if m in graphs]
    dens=[d[(m,p)]['nnz_per_tile']/d[(m,'None')]['nnz_per_tile'] for m in ks if m in graphs and d[(m,'None')]['nnz_per_tile']>0]
    cu=[min(cus[(m,p)])/d[(m,p)]['real_time'] for m in ks if (m,p) in cus]
    below=sum(1 for x in spg if x<1)
    pre=sum(d[(m,p)]['inspect_ms'] for m in ks)
    print(f'| {p} | {len(ks)} | {gm(sp):.3f} | {gm(spg):.3f} | {gm(dens):.3f} | {gm(cu):.3f} | {below} | {pre:.0f} |')
if '--per-matrix' in sys.argv:
    print('\n| matrix | nnz | '+' | '.join(f'{p} us' for p in pols)+' | '+' | '.join(f'{p} x' for p in pols[1:])+' | '+' | '.join(f'{p} nnz/tile' for p in pols)+' | Locality pre ms | CtaAware pre ms | Auto pre ms |')
    print('|'+'---|'*(2+len(pols)*3-1+3))
    for m in mats:
        if any((m,p) not in d for p in pols): continue
        t=[d[(m,p)]['real_time'] for p in pols]
        print(f'| {m} | {int(d[(m,"None")]["nnz"])} | '+' | '.join(f'{x:.2f}' for x in t)+' | '+' | '.join(f'{t[0]/x:.2f}' for x in t[1:])+' | '+' | '.join(f'{d[(m,p)]["nnz_per_tile"]:.1f}' for p in pols)+' | '+' | '.join(f'{d[(m,p)]["inspect_ms"]:.0f}' for p in pols[1:])+' |')
