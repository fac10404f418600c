#!/usr/bin/env python3
"""Turns rsh_kokkos_benchmark JSON into Markdown: per scalar, layout and N, the
geometric-mean speedup of rsh::spmm over KokkosSparse::spmv (its default, the
better of default and native, and over the best cuSPARSE algorithm), the lowest
ratio, and the Kokkos path's overhead over the raw CUDA API (device time and
host enqueue time). Mode "T" runs (kokkos_t/...) show as <scalar>/T. --per-matrix adds the table per matrix.
Usage: kokkos_summary.py kokkos.json[.gz] [more.json ...] [--per-matrix]"""
import math
import sys
from collections import defaultdict

import bench_json


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(args):
    per_matrix = "--per-matrix" in args
    rows = defaultdict(dict)  # (scalar, layout, n, matrix) -> impl -> benchmark
    context = {}
    for path in (a for a in args if not a.startswith("--")):
        data = bench_json.read(path)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            if b.get("error_occurred") or (b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median"):
                continue
            parts = [p for p in b.get("run_name", b["name"]).split("/") if p != "manual_time"]
            impl, n, layout, scalar = parts[-1], int(parts[-2].split("=")[1]), parts[-3], parts[-4]
            if parts[0] == "kokkos_t":  # C = A^T B
                scalar += "/T"
            rows[(scalar, layout, n, "/".join(parts[1:-4]))][impl] = b
    print(f"# rsh::spmm on Kokkos::Cuda vs KokkosSparse::spmv and cuSPARSE\n\nGPU: {context.get('gpu', '?')}, "
          f"CUDA runtime {context.get('cuda_runtime', '?')}, Kokkos {context.get('kokkos_version', '?')}, "
          f"KokkosKernels {context.get('kokkoskernels_version', '?')}, git {context.get('git_hash', '?')}, "
          f"timing {context.get('timing', '?')}, date {context.get('date', '?')}\n")
    groups = defaultdict(lambda: defaultdict(list))
    table = []
    for (scalar, layout, n, matrix), impls in sorted(rows.items()):
        rsh = impls.get("rsh")
        if not rsh:
            continue
        t = rsh["real_time"]
        g = groups[(scalar, layout, n)]
        kk = [impls[k]["real_time"] for k in ("kk_default", "kk_native") if k in impls]
        cus = [v["real_time"] for k, v in impls.items() if k.startswith("cusparse")]
        if "kk_default" in impls:
            g["kk_default"].append((impls["kk_default"]["real_time"] / t, matrix))
        if kk:
            g["kk_best"].append((min(kk) / t, matrix))
        if cus:
            g["cusparse"].append((min(cus) / t, matrix))
        if "rsh_raw" in impls:
            raw = impls["rsh_raw"]
            g["overhead_pct"].append((100 * (t / raw["real_time"] - 1), matrix))
            g["overhead_us"].append((t - raw["real_time"], matrix))
            g["host_overhead_us"].append((rsh.get("host_us", 0) - raw.get("host_us", 0), matrix))
        table.append(f"| {matrix} | {scalar} | {layout} | {n} | {t:.2f} | "
                     + " | ".join(f"{impls[k]['real_time']:.2f}" if k in impls else "-"
                                  for k in ("rsh_raw", "kk_default", "kk_native"))
                     + (f" | {min(cus):.2f} |" if cus else " | - |"))
    print("| scalar | layout | N | matrices | vs KK default: geomean | min | vs best KK: geomean | min | "
          "vs best cuSPARSE: geomean | min | overhead over raw API: median % | max % | max us | host us (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (scalar, layout, n), g in sorted(groups.items()):
        def stat(key):
            vals = g.get(key, [])
            if not vals:
                return "-", "-"
            worst = min(vals)
            return f"{geomean([v for v, _ in vals]):.3f}", f"{worst[0]:.2f} ({worst[1]})"
        over = sorted(v for v, _ in g.get("overhead_pct", []))
        over_us = [v for v, _ in g.get("overhead_us", [])]
        host = sorted(v for v, _ in g.get("host_overhead_us", []))
        med = lambda v: v[len(v) // 2] if v else float("nan")
        print(f"| {scalar} | {layout} | {n} | {len(g.get('kk_default', g.get('cusparse', [])))} | "
              + " | ".join(" | ".join(stat(k)) for k in ("kk_default", "kk_best", "cusparse"))
              + f" | {med(over):.2f} | {max(over, default=float('nan')):.2f} | {max(over_us, default=float('nan')):.2f}"
              f" | {med(host):.2f} |")
    if per_matrix:
        print("\n| matrix | scalar | layout | N | rsh us | rsh_raw us | kk_default us | kk_native us | best cuSPARSE us |")
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(table))


if __name__ == "__main__":
    main(sys.argv[1:])
