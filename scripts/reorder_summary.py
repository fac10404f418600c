#!/usr/bin/env python3
"""Per-reordering summary of rsh_spmm_benchmark runs: rsh kernel speedup over
no reordering, nnz per tile, speedup over the best cuSPARSE algorithm and the
preprocessing time, over all matrices and over matrix groups.

Input: JSON files of runs with several policies (--rsh_reorder=all: names
end in rsh:<policy>; several files are merged, e.g. the shared suite and a
generated matrix), or a folder with one <policy>.json per single-policy run
(names end in rsh; None.json among them).
Groups: "graphs" are the GNN graphs (gnn/ in MANIFEST.tsv), the power-law
graphs PGPgiantcompo and karate, and the generated R-MAT graphs; "other
non-DLMC" are the remaining SuiteSparse matrices (meshes, circuits, LP).
Usage: reorder_summary.py JSON [JSON ...]|DIR [--per-matrix]"""
import math
import os
import sys

import bench_json

POWER_LAW = ('PGPgiantcompo', 'karate')
GNN = ('cora', 'citeseer', 'pubmed', 'PROTEINS_full', 'ogbl-ddi', 'tolokers', 'squirrel', 'chameleon', 'actor',
       'minesweeper')


def load(paths):
    """(rsh[(matrix, policy)] -> benchmark, best cuSPARSE seconds per (matrix, policy or None))."""
    rsh, cus = {}, {}

    def take(data, policy_of_file):
        for b in data['benchmarks']:
            if b.get('error_occurred'):
                continue
            parts = [p for p in b['name'].split('/') if p != 'manual_time']
            impl, matrix = parts[-1], '/'.join(parts[1:-4])
            if impl.startswith('rsh'):
                policy = impl.split(':', 1)[1] if ':' in impl else policy_of_file
                rsh[(matrix, policy)] = b
            elif impl.startswith('cusparse'):
                key = (matrix, policy_of_file)
                cus[key] = min(cus.get(key, math.inf), b['real_time'])

    for path in paths:
        if os.path.isdir(path):
            for f in sorted(os.listdir(path)):
                if f.endswith('.json'):
                    take(bench_json.read(os.path.join(path, f)), f[:-5])
        else:
            take(bench_json.read(path), None)
    return rsh, cus


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


def group_of(m):
    if m in GNN or m in POWER_LAW or m.startswith('gen/rmat'):
        return 'graphs'
    if m.startswith(('rn50', 'transformer')):
        return 'dlmc'
    return 'other'


def main(paths, per_matrix):
    rsh, cus = load(paths)
    policies = sorted({p for _, p in rsh}, key=lambda p: (p != 'None', p))
    mats = sorted({m for m, _ in rsh})
    groups = {g: [m for m in mats if group_of(m) == g] for g in ('graphs', 'other', 'dlmc')}
    base = {m: rsh[(m, 'None')] for m in mats if (m, 'None') in rsh}

    def best_cusparse(m, p):
        return cus.get((m, None), cus.get((m, p)))

    def speedups(p, ms):
        return [base[m]['real_time'] / rsh[(m, p)]['real_time'] for m in ms if (m, p) in rsh and m in base]

    print(f'| policy | matrices | kernel speedup vs None (all) | graphs ({len(groups["graphs"])}) | '
          f'other non-DLMC ({len(groups["other"])}) | DLMC ({len(groups["dlmc"])}) | nnz/tile vs None (graphs) | '
          f'below 1x vs None (graphs) | vs cuSPARSE (all) | preprocessing s (all) |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for p in policies:
        ms = [m for m in mats if (m, p) in rsh and m in base]
        g = speedups(p, groups['graphs'])
        dens = [rsh[(m, p)]['nnz_per_tile'] / base[m]['nnz_per_tile'] for m in groups['graphs']
                if (m, p) in rsh and m in base and base[m]['nnz_per_tile'] > 0]
        cu = [best_cusparse(m, p) / rsh[(m, p)]['real_time'] for m in ms if best_cusparse(m, p)]
        pre = sum(rsh[(m, p)]['inspect_ms'] for m in ms) / 1e3
        print(f'| {p} | {len(ms)} | {gm(speedups(p, ms)):.3f} | {gm(g):.3f} | {gm(speedups(p, groups["other"])):.3f} | '
              f'{gm(speedups(p, groups["dlmc"])):.3f} | {gm(dens):.3f} | {sum(x < 1 for x in g)} | {gm(cu):.3f} | '
              f'{pre:.1f} |')
    if per_matrix:
        print('\nKernel speedup over None per matrix (nnz per tile under the policy in brackets), graphs and other non-DLMC:\n')
        print('| matrix | nnz | None us | ' + ' | '.join(policies[1:]) + ' |')
        print('|' + '---|' * (len(policies) + 2))
        for m in groups['graphs'] + groups['other']:
            if m not in base:
                continue
            cells = [f'{base[m]["real_time"] / rsh[(m, p)]["real_time"]:.2f} ({rsh[(m, p)]["nnz_per_tile"]:.1f})'
                     if (m, p) in rsh else '-' for p in policies[1:]]
            print(f'| {m} | {int(base[m]["nnz"])} | {base[m]["real_time"]:.2f} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main([a for a in sys.argv[1:] if a != '--per-matrix'], '--per-matrix' in sys.argv)
