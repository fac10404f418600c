#!/usr/bin/env python3
"""Fits Partition::kAuto's kernel-time model (src/impl/RshSparse_partition_select_impl.cpp)
from two rsh_spmm_benchmark runs over the same matrices: one with --rsh_partition=row
(Tensor-Core times and the model inputs) and one with --rsh_partition=cuda (CUDA-core times).
Per precision: least squares on relative error of
  t_tc = a + b * cta_max_tiles + c * windows + d * residual_nnz
  t_cu = a' + b' * cuda_items + e' * cuda_split
then the suite's geometric-mean speedup over cuSPARSE when each matrix takes the path the model
predicts faster (in-sample and leave-one-out) against RowStructured alone and the per-matrix best.
Needs numpy. Usage: fit_partition_model.py ROW.json[.gz] CUDA.json[.gz]"""
import math
import sys

import numpy as np

import bench_json


def load(path):
    """(matrix, precision) -> (rsh benchmark, best cuSPARSE time)."""
    data = bench_json.read(path)
    rsh, cus = {}, {}
    for b in data['benchmarks']:
        if b.get('error_occurred'):
            continue
        parts = [p for p in b['name'].split('/') if p != 'manual_time']
        key = ('/'.join(parts[1:-4]), parts[-4])
        if parts[-1] == 'rsh':
            rsh[key] = b
        elif parts[-1].startswith('cusparse'):
            cus[key] = min(cus.get(key, math.inf), b['real_time'])
    return {k: (rsh[k], cus[k]) for k in rsh if k in cus}


def fit(rows, target):
    x = np.array(rows, float)
    y = np.array(target, float)
    coef, *_ = np.linalg.lstsq(x / y[:, None], np.ones_like(y), rcond=None)  # relative error
    return coef


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main(row_path, cuda_path):
    row, cuda = load(row_path), load(cuda_path)
    tc_x = lambda b: [1, b['cta_max_tiles'], b['windows'], b['residual_nnz']]
    cu_x = lambda b: [1, b['cuda_items'], b['cuda_split']]
    for prec in sorted({k[1] for k in row}):
        keys = sorted(k for k in row if k[1] == prec and k in cuda)
        t_tc = {k: row[k][0]['real_time'] for k in keys}
        t_cu = {k: cuda[k][0]['real_time'] for k in keys}
        sp_tc = {k: row[k][1] / t_tc[k] for k in keys}
        sp_cu = {k: cuda[k][1] / t_cu[k] for k in keys}

        def choose(train, k):
            a = fit([tc_x(row[j][0]) for j in train], [t_tc[j] for j in train])
            c = fit([cu_x(row[j][0]) for j in train], [t_cu[j] for j in train])
            return sp_cu[k] if np.dot(c, cu_x(row[k][0])) < np.dot(a, tc_x(row[k][0])) else sp_tc[k]

        a = fit([tc_x(row[k][0]) for k in keys], [t_tc[k] for k in keys])
        c = fit([cu_x(row[k][0]) for k in keys], [t_cu[k] for k in keys])
        print(f'{prec}: {len(keys)} matrices')
        print('  tensor core us = %.3g + %.3g * cta_max_tiles + %.3g * windows + %.3g * residual_nnz' % tuple(a))
        print('  cuda core us   = %.3g + %.3g * cuda_items + %.3g * cuda_split' % tuple(c))
        for label, sp in (('RowStructured', [sp_tc[k] for k in keys]),
                          ('model, in-sample', [choose(keys, k) for k in keys]),
                          ('model, leave-one-out', [choose([j for j in keys if j != k], k) for k in keys]),
                          ('best per matrix', [max(sp_tc[k], sp_cu[k]) for k in keys])):
            print(f'  {label:22s} {gm(sp):.3f}x vs cuSPARSE, {sum(x < 0.8 for x in sp)} below 0.8x')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
