#!/usr/bin/env python3
"""Column-major operands per KernelConfig::column_major mode: rsh's time under each forced mode (1 in place, 2 B
copied, 3 B and C copied) from rsh_spmm_benchmark runs with --rsh_layout=col --rsh_col=M, per matrix, with the best
mode, and the geomean time of each mode, of the oracle and of the planner's run (mode 0) if given.

Usage: scripts/colmajor_modes.py MODE1.json MODE2.json MODE3.json [PLANNER.json]   (plain or .gz)
"""
import math
import sys

import bench_json


def rsh_times(path):
    """matrix -> (median us, benchmark entry) of rsh."""
    out = {}
    for b in bench_json.read(path)['benchmarks']:
        parts = b['name'].split('/')
        if parts[-2] == 'rsh':
            out['/'.join(parts[1:-5])] = (b['median_us'], b)
    return out


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(paths):
    modes = [rsh_times(p) for p in paths[:3]]
    planner = rsh_times(paths[3]) if len(paths) > 3 else {}
    names = sorted(set.intersection(*(set(m) for m in modes)), key=lambda m: modes[0][m][1]['nnz'])
    print('| matrix | rows | cols | nnz | mode 1 us | mode 2 us | mode 3 us | best | planner us |')
    print('|---|---|---|---|---|---|---|---|---|')
    for m in names:
        b = modes[0][m][1]
        t = [mode[m][0] for mode in modes]
        best = 1 + t.index(min(t))
        plan = '%.2f' % planner[m][0] if m in planner else '-'
        print('| %s | %d | %d | %d | %.2f | %.2f | %.2f | %d | %s |' % (m, b['m'], b['k'], b['nnz'], *t, best, plan))
    print()
    for i, mode in enumerate(modes):
        print('mode %d geomean us: %.3f' % (i + 1, geomean([mode[m][0] for m in names])))
    print('oracle geomean us: %.3f' % geomean([min(mode[m][0] for mode in modes) for m in names]))
    if planner:
        print('planner geomean us: %.3f (%d matrices)' % (geomean([planner[m][0] for m in names if m in planner]),
                                                       sum(m in planner for m in names)))


if __name__ == '__main__':
    main(sys.argv[1:])
