#!/usr/bin/env python3
"""Turns rsh_sddmm_benchmark JSON into Markdown: per scalar and k, the
geometric-mean speedup of rsh::sddmm (with a handle on its default kernels,
on each CSR kernel: spans in C's order, dense tiles, spans in panel order of
16, 64 and 256 rows; through its format, and handle-free) over cusparseSDDMM, the lowest ratio and its matrix,
and the matrices each ran on: a column for each implementation the files hold.
--per-matrix adds the table per matrix.
Usage: sddmm_summary.py sddmm.json[.gz] [more.json ...] [--per-matrix]"""
import math
import sys
from collections import defaultdict

import bench_json


# Implementations timed against cuSPARSE, and their column names (staged panels: in result files before they
# were removed).
ALL_IMPLS = {"rsh": "rsh", "rsh_spans": "rsh (spans)", "rsh_tiles": "rsh (dense tiles)",
         "rsh_panels16": "rsh (panels of 16)", "rsh_panels64": "rsh (panels of 64)",
         "rsh_panels256": "rsh (panels of 256)", "rsh_staged16": "rsh (staged panels of 16)",
         "rsh_staged64": "rsh (staged panels of 64)", "rsh_format": "rsh (format)", "rsh_free": "handle-free"}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(args):
    per_matrix = "--per-matrix" in args
    rows = defaultdict(dict)  # (scalar, k, matrix) -> impl -> median microseconds
    context = {}
    for path in (a for a in args if not a.startswith("--")):
        data = bench_json.read(path)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            if b.get("error_occurred") or b.get("run_type") == "aggregate":
                continue
            parts = [p for p in b.get("run_name", b["name"]).split("/") if p != "manual_time"]
            impl, k, scalar = parts[-1], int(parts[-2].split("=")[1]), parts[-3]
            rows[(scalar, k, "/".join(parts[1:-3]))][impl] = b["real_time"]
    print(f"# rsh::sddmm on Kokkos::Cuda vs cusparseSDDMM\n\nGPU: {context.get('gpu', '?')}, "
          f"CUDA runtime {context.get('cuda_runtime', '?')}, Kokkos {context.get('kokkos_version', '?')}, "
          f"git {context.get('git_hash', '?')}, timing {context.get('timing', '?')}, date {context.get('date', '?')}\n")
    present = {impl for impls in rows.values() for impl in impls}
    columns = {impl: name for impl, name in ALL_IMPLS.items() if impl in present}
    ratios = defaultdict(lambda: defaultdict(list))  # (scalar, k) -> impl -> [(ratio, matrix)]
    table = []
    for (scalar, k, matrix), impls in sorted(rows.items()):
        base = impls.get("cusparse")
        if not base:
            continue
        line = [matrix, scalar, str(k), f"{base:.1f}"]
        for impl in columns:
            if impl in impls:
                ratios[(scalar, k)][impl].append((base / impls[impl], matrix))
                line.append(f"{base / impls[impl]:.2f}x")
            else:
                line.append("-")
        table.append(line)
    print("| scalar | k | matrices | " + " | ".join(f"{n} geomean | {n} min (matrix)" for n in columns.values()) + " |")
    print("|---|---|---|" + "---|---|" * len(columns))
    for (scalar, k), impls in sorted(ratios.items()):
        cells = []
        for impl in columns:
            r = impls.get(impl, [])
            if r:
                worst = min(r)
                cells += [f"{geomean([x for x, _ in r]):.3f}x", f"{worst[0]:.2f}x ({worst[1]})"]
            else:
                cells += ["-", "-"]
        print(f"| {scalar} | {k} | {len(impls.get('rsh', []))} | " + " | ".join(cells) + " |")
    for scalar in sorted({scalar for scalar, _ in ratios}):  # the bar's figure: every k at once
        cells = []
        for impl in columns:
            r = [x for (s, _), impls in ratios.items() if s == scalar for x in impls.get(impl, [])]
            cells += [f"{geomean([x for x, _ in r]):.3f}x", f"{min(r)[0]:.2f}x ({min(r)[1]})"] if r else ["-", "-"]
        count = sum(len(impls.get("rsh", [])) for (s, _), impls in ratios.items() if s == scalar)
        print(f"| {scalar} | all | {count} | " + " | ".join(cells) + " |")
    if per_matrix:
        print("\n| matrix | scalar | k | cuSPARSE us | " + " | ".join(columns.values()) + " |\n|---|---|---|---|" +
              "---|" * len(columns))
        for line in table:
            print("| " + " | ".join(line) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
