#!/usr/bin/env python3
"""Fits the DenseBlocks time model of Partition::kAuto
(PartitionCost::dense_blocks_us in src/impl/RshSparse_partition_select_impl.cpp)
from an rsh_spmm_benchmark run with --rsh_partition=dense (alone, or beside others: rsh:DenseBlocks): per precision, least
squares on relative error (as fit_partition_model.py) of the rsh time (us) on the
dense layout's value slots,
  t = a + b * slots,  slots = ceil(m / 64) * 64 * ceil(k / 16) * 16.
Plain Python. Usage: fit_dense_model.py DENSE.json[.gz]"""
import sys

import bench_json
from fit_partition_model import fit, predict


def main(path):
    points = {}  # precision -> [(slots, us)]
    for b in bench_json.read(path)['benchmarks']:
        parts = [p for p in b['name'].split('/') if p != 'manual_time']
        if b.get('error_occurred') or parts[-1] not in ('rsh', 'rsh:DenseBlocks'):
            continue
        m, k = int(b['m']), int(b['k'])
        slots = (m + 63) // 64 * 64 * ((k + 15) // 16 * 16)
        points.setdefault(parts[-4], []).append((slots, b['real_time']))
    for prec, pts in sorted(points.items()):
        a, b = fit([[1, x] for x, _ in pts], [y for _, y in pts])
        worst = max(abs(predict([a, b], [1, x]) / y - 1) for x, y in pts)
        print(f'{prec}: {len(pts)} matrices, t = {a:.2f} + {b:.3e} * slots us, max relative error {worst:.0%}')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
