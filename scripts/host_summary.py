#!/usr/bin/env python3
"""Turns rsh_host_benchmark JSON into Markdown: per execution space, scalar, layout and N, the geometric-mean
speedup of rsh::spmm (portable kernels) over KokkosSparse::spmv on the same views, the lowest and the count
below 1x. --per-matrix adds the times per matrix.
Usage: host_summary.py host.json[.gz] [more.json ...] [--per-matrix]"""
import math
import sys
from collections import defaultdict

import bench_json


def main(args):
    per_matrix = "--per-matrix" in args
    rows = defaultdict(dict)  # (space, scalar, layout, n, matrix) -> impl -> median ms
    context = {}
    for path in (a for a in args if not a.startswith("--")):
        data = bench_json.read(path)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            if b.get("error_occurred") or b.get("aggregate_name", "median") != "median":
                continue
            parts = b["run_name"].split("/")
            parts = parts[:next(i for i, p in enumerate(parts) if p.startswith("iterations:"))]
            impl, n, layout, scalar, space = parts[-1], int(parts[-2][2:]), parts[-3], parts[-4], parts[-5]
            rows[(space, scalar, layout, n, "/".join(parts[1:-5]))][impl] = b["real_time"]
    print(f"# rsh::spmm (portable kernels) vs KokkosSparse::spmv on host spaces\n\n"
          f"Kokkos {context.get('kokkos_version', '?')}, {context.get('host_threads', '?')} host threads, "
          f"{context.get('num_cpus', '?')} CPUs, date {context.get('date', '?')}\n")
    groups = defaultdict(list)
    for (space, scalar, layout, n, matrix), t in sorted(rows.items()):
        if "rsh" in t and "kk" in t:
            groups[(space, scalar, layout, n)].append((t["kk"] / t["rsh"], matrix))
    print("| space | scalar | layout | N | matrices | geomean speedup | min | below 1x |")
    print("|---|---|---|---|---|---|---|---|")
    for key, vals in sorted(groups.items()):
        g = math.exp(sum(math.log(v) for v, _ in vals) / len(vals))
        worst = min(vals)
        print(f"| {' | '.join(map(str, key))} | {len(vals)} | {g:.3f} | {worst[0]:.2f} ({worst[1]}) | "
              f"{sum(v < 1 for v, _ in vals)} |")
    if per_matrix:
        print("\n| matrix | space | scalar | layout | N | rsh ms | KokkosSparse::spmv ms | speedup |")
        print("|---|---|---|---|---|---|---|---|")
        for (space, scalar, layout, n, matrix), t in sorted(rows.items()):
            if "rsh" in t and "kk" in t:
                print(f"| {matrix} | {space} | {scalar} | {layout} | {n} | {t['rsh']:.3f} | {t['kk']:.3f} | "
                      f"{t['kk'] / t['rsh']:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
