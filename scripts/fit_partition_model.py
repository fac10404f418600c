#!/usr/bin/env python3
"""Fits Partition::kAuto's kernel-time models (src/impl/RshSparse_partition_select_impl.cpp)
from rsh_spmm_benchmark runs over the same matrices, per precision, by least squares on
relative error:
  CudaCoreOnly runs (--rsh_partition=cuda, one per --rsh_piece_res, or one of several pieces, which is read
  as one run per piece; rsh alone is enough; a run of several partitions is read for its rsh:CudaCoreOnly,
  and --row for its rsh:RowStructured, so that one --rsh_partition=row,cuda run can serve as both):
    t_cu = a' + b' * cuda_items + c' * nnz + d' * cuda_longest + e' * cuda_split
    then how well the model picks each matrix's residual piece length (rsh time against pieces
    of 16, in-sample and leave-one-matrix-out, and the best piece);
  a RowStructured run (--rsh_partition=row), optional:
    t_tc = a + b * cta_max_tiles + c * windows + d * residual_nnz
    and, where the runs hold cuSPARSE times (or --cusparse names a run that does), the suite's
    geometric-mean speedup over cuSPARSE when each matrix takes the path the models predict
    faster, against RowStructured alone and the per-matrix best.
Plain Python.
Usage: fit_partition_model.py [--row ROW.json[.gz]] [--cusparse RUN.json[.gz]] CUDA.json[.gz]..."""
import math
import sys

import bench_json


def tc_x(b):
    return [1, b['cta_max_tiles'], b['windows'], b['residual_nnz']]


def cu_x(b):
    return [1, b['cuda_items'], b['nnz'], b['cuda_longest'], b['cuda_split']]


CU_TERMS = 5


def load_pieces(path, partition):
    """Residual piece length (0: one length, or none named) -> (matrix, precision) -> (rsh benchmark under
    `partition`, best cuSPARSE time or None). A benchmark rsh:<variant> is read where its variant names
    `partition` or none, and a piece length P<p> or none."""
    rsh, cus = {}, {}
    for b in bench_json.read(path)['benchmarks']:
        if b.get('error_occurred'):
            continue
        parts = [p for p in b['name'].split('/') if p != 'manual_time']
        key = ('/'.join(parts[1:-4]), parts[-4])
        impl = parts[-1]
        if impl.startswith('cusparse'):
            cus[key] = min(cus.get(key, math.inf), b['real_time'])
        elif impl == 'rsh' or impl.startswith('rsh:'):
            variant = impl[4:].split('+') if impl != 'rsh' else []
            pieces = [int(v[1:]) for v in variant if v[:1] == 'P' and v[1:].isdigit()]
            others = [v for v in variant if not (v[:1] == 'P' and v[1:].isdigit())]
            if others in ([], [partition]):
                rsh.setdefault(pieces[0] if pieces else 0, {})[key] = b
    return {piece: {k: (runs.get(k), cus.get(k)) for k in set(runs) | set(cus)}
            for piece, runs in (rsh or {0: {}}).items()}


def load(path, partition):
    """(matrix, precision) -> (rsh benchmark under `partition`, best cuSPARSE time or None), for a run of one
    piece length."""
    runs = load_pieces(path, partition)
    if len(runs) > 1:
        sys.exit(f'{path}: several piece lengths; expected one')
    return next(iter(runs.values()))


def fit(rows, target):
    """Least squares of rows . c = target on relative error (normal equations, Gauss-Jordan)."""
    a = [[v / t for v in row] for row, t in zip(rows, target)]
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] for r in a)] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda q: abs(m[q][i]))
        m[i], m[p] = m[p], m[i]
        for q in range(n):
            if q != i and m[i][i]:
                f = m[q][i] / m[i][i]
                m[q] = [x - f * y for x, y in zip(m[q], m[i])]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def predict(c, x):
    return sum(a * b for a, b in zip(c, x))


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def main(row_path, cusparse_path, cuda_paths):
    cuda = [run for p in cuda_paths for _, run in sorted(load_pieces(p, 'CudaCoreOnly').items())]  # one per piece
    row = load(row_path, 'RowStructured') if row_path else {}
    cus = load(cusparse_path, 'RowStructured') if cusparse_path else {}
    for prec in sorted({k[1] for k in cuda[0]}):
        keys = sorted(k for k in cuda[0] if k[1] == prec and all(run.get(k, (None,))[0] for run in cuda))

        def cu_fit(train):
            return fit([cu_x(run[k][0]) for k in train for run in cuda],
                       [run[k][0]['real_time'] for k in train for run in cuda])

        def pick(c, k):  # the run whose piece the model predicts fastest
            return min(cuda, key=lambda run: predict(c, cu_x(run[k][0])))[k][0]

        if len(keys) < 2 * CU_TERMS:  # a fit needs well more matrices than terms
            print(f'{prec}: {len(keys)} matrices under every CudaCoreOnly run: too few to fit')
            continue
        c = cu_fit(keys)
        pieces = [int(run[keys[0]][0].get('cuda_piece', 0)) for run in cuda]
        print(f'{prec}: {len(keys)} matrices, CudaCoreOnly runs at pieces {pieces}')
        print('  cuda core us   = %.3g + %.3g * cuda_items + %.3g * nnz + %.3g * cuda_longest + %.3g * cuda_split'
              % tuple(c))
        base_piece = 16 if 16 in pieces else max(pieces)  # Options' max_residual_nnz_per_item
        base = {k: cuda[pieces.index(base_piece)][k][0]['real_time'] for k in keys}
        for label, t in (('model, in-sample', {k: pick(c, k)['real_time'] for k in keys}),
                         ('model, leave-one-out', {k: pick(cu_fit([j for j in keys if j != k]), k)['real_time']
                                                   for k in keys}),
                         ('best piece', {k: min(run[k][0]['real_time'] for run in cuda) for k in keys})):
            print(f'  {label:22s} rsh time x{gm([t[k] / base[k] for k in keys]):.3f} against pieces of {base_piece}')
        keys = [k for k in keys if row.get(k, (None,))[0]]
        if not keys:
            continue
        t_tc = {k: row[k][0]['real_time'] for k in keys}
        a = fit([tc_x(row[k][0]) for k in keys], [t_tc[k] for k in keys])
        print('  tensor core us = %.3g + %.3g * cta_max_tiles + %.3g * windows + %.3g * residual_nnz' % tuple(a))
        ref = {k: next((run[k][1] for run in (cus, row, *cuda) if run.get(k, (None, None))[1]), None) for k in keys}
        keys = [k for k in keys if ref[k]]  # best cuSPARSE time
        if not keys:
            continue

        def choose(train, k):  # speedup of the path the models fitted on `train` pick for k
            a, c = fit([tc_x(row[j][0]) for j in train], [t_tc[j] for j in train]), cu_fit(train)
            cu = pick(c, k)
            t = cu['real_time'] if predict(c, cu_x(cu)) < predict(a, tc_x(row[k][0])) else t_tc[k]
            return ref[k] / t

        best_cu = {k: min(run[k][0]['real_time'] for run in cuda) for k in keys}
        for label, sp in (('RowStructured', [ref[k] / t_tc[k] for k in keys]),
                          ('model, in-sample', [choose(keys, k) for k in keys]),
                          ('model, leave-one-out', [choose([j for j in keys if j != k], k) for k in keys]),
                          ('best per matrix', [ref[k] / min(t_tc[k], best_cu[k]) for k in keys])):
            print(f'  {label:22s} {gm(sp):.3f}x vs cuSPARSE, {sum(x < 0.8 for x in sp)} below 0.8x')


if __name__ == '__main__':
    args, row_path, cusparse_path = sys.argv[1:], None, None
    while args[:1] in (['--row'], ['--cusparse']):
        if args[0] == '--row':
            row_path = args[1]
        else:
            cusparse_path = args[1]
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    main(row_path, cusparse_path, args)
