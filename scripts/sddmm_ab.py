#!/usr/bin/env python3
"""Compares rsh_sddmm_benchmark JSON files of one suite run in separate processes (variants of an
environment switch or of a build, in the order run: scripts/run_gpu.sh OUT sddmm-ab). Per file and per kernel
rsh ran (its label: dense tiles, spans, format), over the runs every file holds: the geometric mean of
cuSPARSE's time over rsh's, and each side's time against the first file's. cuSPARSE's time against the first
file's is the drift between processes, which a variant's change in rsh's time must exceed to count; run a
variant twice, alternating, to see it.
Usage: sddmm_ab.py first.json[.gz] second.json ... [--impl=NAME (default rsh)]"""
import math
import os
import sys
from collections import defaultdict

import bench_json


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def kernel_of(label):
    """The kernel an rsh run's label names."""
    for words, kernel in (("dense tiles", "tiles"), ("spans", "spans"), ("format", "format")):
        if words in label:
            return kernel
    return "other"


def load(path, impl):
    """(scalar, k, matrix) -> {impl: median us, cusparse: median us}, and -> the kernel impl ran."""
    times, kernels = defaultdict(dict), {}
    for b in bench_json.read(path)["benchmarks"]:
        if b.get("error_occurred") or b.get("run_type") == "aggregate":
            continue
        parts = [p for p in b.get("run_name", b["name"]).split("/") if p != "manual_time"]
        name, k, scalar = parts[-1], int(parts[-2].split("=")[1]), parts[-3]
        key = (scalar, k, "/".join(parts[1:-3]))
        if name in (impl, "cusparse"):
            times[key][name] = b["real_time"]
        if name == impl:
            kernels[key] = kernel_of(b.get("label", ""))
    return times, kernels


def main(args):
    impl = next((a.split("=", 1)[1] for a in args if a.startswith("--impl=")), "rsh")
    paths = [a for a in args if not a.startswith("--")]
    if not paths:
        sys.exit(__doc__)
    runs = [load(p, impl) for p in paths]
    first_times, first_kernels = runs[0]
    keys = [k for k in first_times if all(len(t.get(k, {})) == 2 for t, _ in runs)]
    groups = defaultdict(list)
    for key in keys:
        groups[first_kernels[key]].append(key)
        groups["all"].append(key)
    print(f"| file | kernel (first file's) | runs | cuSPARSE / {impl} | {impl} time / first | cuSPARSE time / first |")
    print("|---|---|---|---|---|---|")
    root = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in paths])
    for path, (times, _) in zip(paths, runs):
        name = os.path.relpath(os.path.abspath(path), root)
        for kernel in sorted(groups, key=lambda g: (g == "all", g)):
            ks = groups[kernel]
            print(f"| {name} | {kernel} | {len(ks)} "
                  f"| {geomean([times[k]['cusparse'] / times[k][impl] for k in ks]):.3f} "
                  f"| {geomean([times[k][impl] / first_times[k][impl] for k in ks]):.3f} "
                  f"| {geomean([times[k]['cusparse'] / first_times[k]['cusparse'] for k in ks]):.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
