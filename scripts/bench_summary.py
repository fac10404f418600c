#!/usr/bin/env python3
"""Turns rsh_spmm_benchmark JSON into a Markdown table: per matrix, precision
and N, the rsh time, the best cuSPARSE time and algorithm, the speedup, and
rsh's GFLOP/s and GB/s; then the geometric-mean speedup per precision and N; and, where the run
had --rsh_row_error, rsh's largest row error against the fastest cuSPARSE algorithm's (and against the
most accurate one's) per precision and N; and where two precisions of PRECISION_PAIRS ran on the same
matrices, the geometric mean of rsh's time in the first over its time in the second.
Usage: bench_summary.py bench.json[.gz] [more.json ...]"""
import math
import sys
from collections import defaultdict

import bench_json

# (precision, baseline precision) whose rsh times are compared matrix by matrix.
PRECISION_PAIRS = [("bf16", "fp16"), ("fp32", "tf32")]


def main(paths):
    rows = defaultdict(dict)  # (matrix, prec, n) -> impl -> benchmark
    context = {}
    for path in paths:
        data = bench_json.read(path)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            if b.get("error_occurred"):
                continue
            name = b.get("run_name", b["name"])
            parts = [p for p in name.split("/") if p != "manual_time"]
            impl, n, prec = parts[-1], int(parts[-2].split("=")[1]), parts[-4]
            matrix = "/".join(parts[1:-4])
            rows[(matrix, prec, n)][impl] = b
    print(f"# rsh vs cuSPARSE SpMM\n\nGPU: {context.get('gpu', '?')}, CUDA runtime {context.get('cuda_runtime', '?')}, "
          f"git {context.get('git_hash', '?')}, partition {context.get('partition', '?')}, timing {context.get('timing', 'stream')}, "
          f"date {context.get('date', '?')}\n")
    print("| matrix | prec | N | nnz | rsh us | cuSPARSE best us | alg | speedup | rsh GFLOP/s | rsh GB/s | nnz/tile | TC frac |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    speedups = defaultdict(list)
    for (matrix, prec, n), impls in sorted(rows.items()):
        rsh = impls.get("rsh")
        cus = {k: v for k, v in impls.items() if k.startswith("cusparse")}
        if not rsh or not cus:
            continue
        alg, best = min(cus.items(), key=lambda kv: kv[1]["real_time"])
        s = best["real_time"] / rsh["real_time"]
        speedups[(prec, n)].append((s, matrix))
        print(f"| {matrix} | {prec} | {n} | {int(rsh['nnz'])} | {rsh['real_time']:.2f} | {best['real_time']:.2f} | "
              f"{alg.replace('cusparse_', '')} | {s:.2f} | {rsh['GFLOP/s']:.0f} | {rsh['GB/s']:.0f} | {rsh.get('nnz_per_tile', 0):.1f} | "
              f"{rsh.get('tc_fraction', 0):.2f} |")
    print_row_errors(rows)
    print_precision_ratios(rows)
    print("\n| prec | N | matrices | geomean speedup | min | below 1x | below 0.8x |")
    print("|---|---|---|---|---|---|---|")
    for (prec, n), vals in sorted(speedups.items()):
        g = math.exp(sum(math.log(s) for s, _ in vals) / len(vals))
        worst = min(vals)
        print(f"| {prec} | {n} | {len(vals)} | {g:.3f} | {worst[0]:.2f} ({worst[1]}) | "
              f"{sum(1 for s, _ in vals if s < 1)} | {sum(1 for s, _ in vals if s < 0.8)} |")


def error_ratio(mine, theirs):
    """mine / theirs, 1 where both are exact, inf where only theirs is."""
    if theirs > 0:
        return mine / theirs
    return 1.0 if mine == 0 else math.inf


def print_row_errors(rows):
    ratios = defaultdict(list)  # (prec, n) -> (vs fastest, vs most accurate, matrix, rsh error, fastest's error)
    for (matrix, prec, n), impls in sorted(rows.items()):
        rsh = impls.get("rsh")
        cus = {k: v for k, v in impls.items() if k.startswith("cusparse") and "row_error" in v}
        if not rsh or "row_error" not in rsh or not cus:
            continue
        fastest = min(cus.values(), key=lambda b: b["real_time"])
        accurate = min(b["row_error"] for b in cus.values())
        ratios[(prec, n)].append((error_ratio(rsh["row_error"], fastest["row_error"]),
                                  error_ratio(rsh["row_error"], accurate), matrix, rsh["row_error"],
                                  fastest["row_error"]))
    if not ratios:
        return
    print("\n| prec | N | matrices | max row error / fastest cuSPARSE's | matrix (rsh, cuSPARSE) | "
          "max / most accurate cuSPARSE's | above 2x fastest's |")
    print("|---|---|---|---|---|---|---|")
    for (prec, n), vals in sorted(ratios.items()):
        worst = max(vals)
        print(f"| {prec} | {n} | {len(vals)} | {worst[0]:.2f} | {worst[2]} ({worst[3]:.2e}, {worst[4]:.2e}) | "
              f"{max(v[1] for v in vals):.2f} | {sum(1 for v in vals if v[0] > 2)} |")


def print_precision_ratios(rows):
    ratios = defaultdict(list)  # (prec, baseline, n) -> (time ratio, matrix)
    for (matrix, prec, n), impls in rows.items():
        for first, baseline in PRECISION_PAIRS:
            other = rows.get((matrix, baseline, n), {}).get("rsh")
            if prec == first and "rsh" in impls and other:
                ratios[(first, baseline, n)].append((impls["rsh"]["real_time"] / other["real_time"], matrix))
    if not ratios:
        return
    print("\n| rsh time of | over | N | matrices | geomean ratio | max (matrix) | min (matrix) |")
    print("|---|---|---|---|---|---|---|")
    for (first, baseline, n), vals in sorted(ratios.items()):
        g = math.exp(sum(math.log(r) for r, _ in vals) / len(vals))
        hi, lo = max(vals), min(vals)
        print(f"| {first} | {baseline} | {n} | {len(vals)} | {g:.3f} | {hi[0]:.2f} ({hi[1]}) | {lo[0]:.2f} ({lo[1]}) |")


if __name__ == "__main__":
    main(sys.argv[1:])
