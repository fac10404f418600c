#!/usr/bin/env python3
"""How well kAuto's partition models choose at an N other than 128 (FP64 at N = 64): from a
--rsh_partition=row,cuda run and a --rsh_partition=cuda,dense run at that N (rsh:<partition> times) and
runs that hold cuSPARSE times for the same matrices, the geometric-mean speedup over the best cuSPARSE
algorithm when each matrix takes the partition that
  - the N = 128 models pick (as before the models were fitted at other N's),
  - models fitted at this N pick (all three partitions),
  - the N = 128 models pick between the sparse paths, and the fits at this N decide DenseBlocks against
    that pick (PartitionCost::choose),
  - the fastest partition of each matrix,
and the matrices where each loses more than 3% to the fastest. Plain Python.
Usage: choose_at_n.py ROW_CUDA.json[.gz] CUDA_DENSE.json[.gz] CUSPARSE.json[.gz]..."""
import math
import sys

import bench_json
from fit_partition_model import cu_x, fit, predict, tc_x

# The N = 128 fits of FP64 (src/impl/RshSparse_partition_select_impl.cpp).
TC128 = [4.59, 1.62e-2, 3.38e-3, 2.76e-4]
CC128 = [3.11, 9.11e-4, 7.35e-5, 6.32e-2, 0.78]
DENSE128 = [5.98, 1.032e-5]


def by_matrix(path):
    """matrix -> {implementation: benchmark}."""
    runs = {}
    for b in bench_json.read(path)['benchmarks']:
        if b.get('error_occurred'):
            continue
        parts = [p for p in b['name'].split('/') if p != 'manual_time']
        runs.setdefault('/'.join(parts[1:-4]), {})[parts[-1]] = b
    return runs


def dense_x(b):
    return [1, b['dense_slots']]


def main(row_cuda_path, cuda_dense_path, cusparse_paths):
    rc, cd = by_matrix(row_cuda_path), by_matrix(cuda_dense_path)
    cus = {}
    for path in cusparse_paths:
        for m, impls in by_matrix(path).items():
            times = [b['median_us'] for name, b in impls.items() if name.startswith('cusparse')]
            if times:
                cus[m] = min(times + [cus.get(m, math.inf)])
    keys = sorted(m for m in rc if m in cus and 'rsh:RowStructured' in rc[m] and 'rsh:CudaCoreOnly' in rc[m])
    row = {m: rc[m]['rsh:RowStructured'] for m in keys}
    cuda = {m: rc[m]['rsh:CudaCoreOnly'] for m in keys}
    dense = {m: cd[m]['rsh:DenseBlocks'] for m in keys if 'rsh:DenseBlocks' in cd.get(m, {})}
    tc_n = fit([tc_x(row[m]) for m in keys], [row[m]['median_us'] for m in keys])
    cc_n = fit([cu_x(cuda[m]) for m in keys], [cuda[m]['median_us'] for m in keys])
    dense_n = fit([dense_x(dense[m]) for m in dense], [dense[m]['median_us'] for m in dense])

    def pick(m, sparse_models, dense_models):
        tc, cc = sparse_models
        p = 'C' if predict(cc, cu_x(cuda[m])) < predict(tc, tc_x(row[m])) else 'R'
        if m in dense:
            dtc, dcc, dd = dense_models
            sparse_us = predict(dcc, cu_x(cuda[m])) if p == 'C' else predict(dtc, tc_x(row[m]))
            if predict(dd, dense_x(dense[m])) < sparse_us:
                p = 'D'
        return p

    rules = {
        'N = 128 models': lambda m: pick(m, (TC128, CC128), (TC128, CC128, DENSE128)),
        'fits at this N': lambda m: pick(m, (tc_n, cc_n), (tc_n, cc_n, dense_n)),
        'sparse at 128, dense at N': lambda m: pick(m, (TC128, CC128), (tc_n, cc_n, dense_n)),
    }
    print(f'{len(keys)} matrices ({len(dense)} with DenseBlocks runs)')
    for label, rule in [*rules.items(), ('fastest', None)]:
        speedups, losers = [], []
        for m in keys:
            times = {'R': row[m]['median_us'], 'C': cuda[m]['median_us']}
            if m in dense:
                times['D'] = dense[m]['median_us']
            p = rule(m) if rule else min(times, key=times.get)
            speedups.append(cus[m] / times[p])
            if times[p] > 1.03 * min(times.values()):
                losers.append(f'{m} ({p}: x{times[p] / min(times.values()):.2f}, {cus[m] / times[p]:.2f}x)')
        gm = math.exp(sum(map(math.log, speedups)) / len(speedups))
        print(f'{label:26s} {gm:.4f}x cuSPARSE, min {min(speedups):.3f}x')
        for line in losers:
            print('    ' + line)


if __name__ == '__main__':
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
