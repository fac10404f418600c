#!/usr/bin/env python3
"""Estimate of the one-wave rule of 44d8148 from two whole-suite runs: for each (matrix, k) the batched spans
kernel's time (f1d3039, batched everywhere) where its grid fits one wave (264 blocks: two blocks an SM of 132),
else the one-load-at-a-time kernel's (3994140), each against cusparseSDDMM's time of the 3994140 run.
Usage: one_wave_estimate.py OLD.json.gz NEW(.json.gz|.log) V   (V = features a lane: 4 float, 8 half)"""
import gzip, json, math, re, sys


def load(path):
    t = {}
    if path.endswith('.log') or path.endswith('.log.gz'):
        op = gzip.open if path.endswith('.gz') else open
        for line in op(path, 'rt'):
            m = re.match(r'^(sddmm/\S+)/manual_time\s+([0-9.]+) us', line)
            if m:
                p = m.group(1).split('/')
                t.setdefault('/'.join(p[1:-1]), {})[p[-1]] = (float(m.group(2)), line)
        return t
    for b in json.load(gzip.open(path) if path.endswith('.gz') else open(path))['benchmarks']:
        if b.get('error_occurred'):
            continue
        p = b['name'].split('/')[:-1]
        t.setdefault('/'.join(p[1:-1]), {})[p[-1]] = (b['real_time'], b.get('label', ''), b['nnz'])
    return t


old, new, V = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
logs = {'3994140': [], 'batched': [], 'rule': []}
for key, o in old.items():
    n = new.get(key, {})
    if 'rsh' not in o or 'rsh' not in n or 'cusparse' not in n:
        continue
    k, nnz = int(key.split('k=')[1]), o['rsh'][2]
    G = 4
    while G < 32 and G * V < k:
        G *= 2
    blocks = -(-((nnz + 7) // 8) // (256 // G))
    tiles = 'tiles' in n['rsh'][1]
    rule = n['rsh'][0] if not tiles and blocks <= 264 else o['rsh'][0]
    cus = o['cusparse'][0]
    logs['3994140'].append(math.log(cus / o['rsh'][0]))
    logs['batched'].append(math.log(n['cusparse'][0] / n['rsh'][0]))
    logs['rule'].append(math.log(cus / rule))
print('runs', len(logs['rule']), ' '.join('%s %.3f' % (k, math.exp(sum(v) / len(v))) for k, v in logs.items()))
