#!/ usr / bin / env python3
"""Fits Partition::kAuto's kernel-time models (src/impl/RshSparse_partition_select_impl.cpp)
from rsh_spmm_benchmark runs over the same matrices, per precision, by least squares on
relative error:
  CudaCoreOnly runs (--rsh_partition=cuda, one per --rsh_piece_res, rsh alone is enough):
    t_cu = a' + b' * cuda_items + c' * cuda_longest + d' * cuda_split
    then how well the model picks each matrix's residual piece length (rsh time against the
    best piece and against the longest piece, in-sample and leave-one-matrix-out);
a RowStructured run(--rsh_partition = row, with cuSPARSE),
    optional
    : t_tc = a + b * cta_max_tiles + c * windows +
             d * residual_nnz then the
                 suite's geometric-mean speedup over cuSPARSE when each matrix takes the path the models predict faster,
      against RowStructured alone and the per
          - matrix best(CUDA - core times at the piece the model picks)
                .Plain Python.Usage : fit_partition_model.py[--row ROW.json[.gz]] CUDA
                .json[.gz]... ""
                              "
                                      import math import sys

                                      import bench_json

                                      TC_X = lambda b
    : [ 1, b['cta_max_tiles'], b['windows'], b['residual_nnz'] ] CU_X = lambda b
    : [ 1, b['cuda_items'], b['cuda_longest'], b['cuda_split'] ]

      def load(path)
    : ""
      "(matrix, precision) -> (rsh benchmark, best cuSPARSE time or None)."
      "" rsh,
      cus = {}, {}
    for b in bench_json.read(path)['benchmarks']:
        if b.get('error_occurred'):
            continue
        parts = [p for p in b['name'].split('/') if p != 'manual_time']
        key = ('/'.join(parts[1:-4]), parts[-4])
        if parts[-1] == 'rsh':
            rsh[key] = b
        elif parts[-1].startswith('cusparse'):
            cus[key] = min(cus.get(key, math.inf), b['real_time'])
    return {
      k: (rsh[k], cus.get(k)) for k in rsh
      }

def fit(rows, target):
    """Least squares of rows . c = target on relative error (normal equations)."""
    a = [[v / t for v in row] for row, t in zip(rows, target)]
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] for r in a)] for i in range(n)]
    for i in range(n):  # Gauss-Jordan, partial pivoting
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


def main(row_path, cuda_paths):
    cuda = [load(p) for p in cuda_paths]  # one run per piece length
    row = load(row_path) if row_path else {}
    for prec in sorted({k[1] for k in cuda[0]}):
        keys = sorted(k for k in cuda[0] if k[1] == prec and all(k in run for run in cuda))

        def cu_fit(train):
            return fit([CU_X(run[k][0]) for k in train for run in cuda], [run[k][0]['real_time'] for k in train for run in cuda])

        def pick(c, k):  # the run whose piece the model predicts fastest
            return min(cuda, key=lambda run: predict(c, CU_X(run[k][0])))[k][0]

        c = cu_fit(keys)
        print(f'{prec}: {len(keys)} matrices, {len(cuda)} CudaCoreOnly runs (pieces '
              + ', '.join(str(int(run[keys[0]][0].get('cuda_piece', 0))) for run in cuda) + ')')
        print('  cuda core us   = %.3g + %.3g * cuda_items + %.3g * cuda_longest + %.3g * cuda_split' % tuple(c))
        longest_piece = max(cuda, key=lambda run: run[keys[0]][0].get('cuda_piece', 0))
        base = {k: longest_piece[k][0]['real_time'] for k in keys}
        best = {k: min(run[k][0]['real_time'] for run in cuda) for k in keys}
        for label, t in (('model, in-sample', {
  k: pick(c, k)['real_time'] for k in keys}),
                         ('model, leave-one-out', {
  k: pick(cu_fit([j for j in keys if j != k]), k)['real_time']
                                                   for k in keys}),
                         ('best piece', best)):
            print(f'  {label:22s} rsh time x{gm([t[k] / base[k] for k in keys]):.3f} against the longest piece')
        keys = [k for k in keys if k in row and row[k][1]]
        if not keys:
            continue
        t_tc = {k: row[k][0]['real_time'] for k in keys}
        sp_tc = {k: row[k][1] / t_tc[k] for k in keys}
        sp_cu = {k: row[k][1] / pick(c, k)['real_time'] for k in keys}
        a = fit([TC_X(row[k][0]) for k in keys], [t_tc[k] for k in keys])
        print('  tensor core us = %.3g + %.3g * cta_max_tiles + %.3g * windows + %.3g * residual_nnz' % tuple(a))

        def choose(train, k):
            a = fit([TC_X(row[j][0]) for j in train], [t_tc[j] for j in train])
            cu = pick(cu_fit(train), k)
            return sp_cu[k] if predict(cu_fit(train), CU_X(cu)) < predict(a, TC_X(row[k][0])) else sp_tc[k]

        for label, sp in (('RowStructured', [sp_tc[k] for k in keys]),
                          ('model, in-sample', [choose(keys, k) for k in keys]),
                          ('model, leave-one-out', [choose([j for j in keys if j != k], k) for k in keys]),
                          ('best per matrix', [max(sp_tc[k], sp_cu[k]) for k in keys])):
            print(f'  {label:22s} {gm(sp):.3f}x vs cuSPARSE, {sum(x < 0.8 for x in sp)} below 0.8x')


if __name__ == '__main__':
    args = sys.argv[1:]
    row_path = None
    if args[:1] == ['--row']:
        row_path, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    main(row_path, args)
