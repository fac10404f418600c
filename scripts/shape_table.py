#!/usr/bin/env python3
"""Side-by-side rsh times by matrix shape: one column per rsh_spmm_benchmark
JSON (named after its file), one row per precision and shape (m x k), each
cell the fastest rsh time (us) of that shape in the file. For runs where the
time depends on the shape alone (--rsh_partition=dense), e.g. the DenseBlocks
stage and cluster sweeps. Plain Python.
Usage: shape_table.py RUN.json[.gz] [more runs ...]"""
import os
import sys

import bench_json


def label(path):
    name = os.path.basename(path)
    for suffix in ('.gz', '.json'):
        name = name[:-len(suffix)] if name.endswith(suffix) else name
    return name


def main(paths):
    times = {}  # (precision, m, k) -> column -> us
    for path in paths:
        for b in bench_json.read(path)['benchmarks']:
            parts = [p for p in b['name'].split('/') if p != 'manual_time']
            if b.get('error_occurred') or parts[-1] != 'rsh':
                continue
            key = (parts[-4], int(b['m']), int(b['k']))
            cell = times.setdefault(key, {})
            cell[label(path)] = min(cell.get(label(path), float('inf')), b['real_time'])
    columns = [label(p) for p in paths]
    print('| prec | shape | ' + ' | '.join(columns) + ' |')
    print('|---|---|' + '---|' * len(columns))
    for (prec, m, k), cell in sorted(times.items()):
        print(f'| {prec} | {m} x {k} | ' + ' | '.join(f'{cell[c]:.2f}' if c in cell else '' for c in columns) + ' |')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
