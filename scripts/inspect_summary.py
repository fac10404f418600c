#!/usr/bin/env python3
"""Issue 19's table from rsh_kokkos_benchmark JSON: per matrix, rsh under the default options against the best
cuSPARSE algorithm, the inspection in ms and in multiplies of its plan (with its phases), update_values and the
handle-free call, and, where they ran, the reorderings side by side (kernel gain over rsh_none and the share of
Locality's gain MinHash keeps). Prints the bar figures at the end (the worst matrix of each): the speedup's
geomean over the generated matrices (gen/...), and the shared matrices' worst slowdown of the default options
against rsh_none (no reordering) in the same process.
Usage: inspect_summary.py kokkos.json[.gz] [more.json ...]"""
import math
import sys
from collections import defaultdict

import bench_json


def main(paths):
    rows = defaultdict(dict)  # (matrix, scalar, layout, n) -> impl -> benchmark
    context = {}
    for path in paths:
        data = bench_json.read(path)
        context = data.get("context", context)
        for b in data["benchmarks"]:
            if b.get("error_occurred") or b.get("run_type") == "aggregate":
                continue
            parts = [p for p in b.get("run_name", b["name"]).split("/") if p != "manual_time"]
            rows[("/".join(parts[1:-4]), parts[-4], parts[-3], parts[-2])][parts[-1]] = b
    print(f"GPU: {context.get('gpu', '?')}, git {context.get('git_hash', '?')}, date {context.get('date', '?')}\n")
    print("| matrix | nnz | rsh vs cuSPARSE | chose | inspect ms | multiplies | without reordering: multiplies | phases ms (sort/stats/reorder/"
          "partition/build/schedule/upload) | update mult. | handle-free vs cuSPARSE | gain MinHash | "
          "gain Locality | Locality inspect mult. | MinHash kept |")
    print("|---" * 14 + "|")
    bars = defaultdict(list)
    speedups, generated, slowdowns = [], [], []
    for key, impls in sorted(rows.items()):
        cus = [v["real_time"] for k, v in impls.items() if k.startswith("cusparse")]
        rsh = impls.get("rsh")
        if not rsh or not cus:
            continue
        t, best = rsh["real_time"], min(cus)
        nnz = rsh.get("nnz", 0)
        mult = rsh["inspect_ms"] * 1e3 / t  # the default options' inspection (reordering included)
        plain = impls.get("rsh_none")
        plain_mult = plain["inspect_ms"] * 1e3 / plain["real_time"] if plain else float("nan")
        phases = "/".join(f"{rsh.get(p + '_ms', 0):.1f}" for p in
                          ("sort", "stats", "reorder", "partition", "build", "schedule", "upload"))
        update = (impls["rsh_update"]["real_time"] - t) / t if "rsh_update" in impls else float("nan")
        free = best / impls["rsh_free"]["real_time"] if "rsh_free" in impls else float("nan")
        none = impls.get("rsh_none", {}).get("real_time")
        gain = lambda k: none / impls[k]["real_time"] if none and k in impls else float("nan")
        loc = impls.get("rsh_locality")
        loc_mult = loc["inspect_ms"] * 1e3 / loc["real_time"] if loc else float("nan")
        kept = (gain("rsh_minhash") - 1) / (gain("rsh_locality") - 1) if gain("rsh_locality") > 1 else float("nan")
        chose = rsh.get("label", "").split(" ")[0]
        print(f"| {key[0]} | {nnz / 1e6:.1f}M | {best / t:.2f} | {chose} | {rsh['inspect_ms']:.1f} | {mult:.1f} | {plain_mult:.1f} | "
              f"{phases} | {update:.2f} | {free:.2f} | {gain('rsh_minhash'):.2f} | {gain('rsh_locality'):.2f} | "
              f"{loc_mult:.0f} | {kept:.2f} |")
        speedups.append(best / t)
        if key[0].startswith("gen/"):
            generated.append(best / t)
        elif none:
            slowdowns.append((t / none - 1, key[0]))
        if nnz > 1e6:
            bars["inspect_max_multiplies"].append(plain_mult)
            bars["inspect_reorder_max_multiplies"].append(mult)
            bars["update_values_max_multiplies"].append(update)
            bars["handle_free_min_speedup"].append(free)
    print()
    for k, v in bars.items():
        v = [x for x in v if not math.isnan(x)]
        if v:
            print(f"{k}\t{(min(v) if 'min' in k else max(v)):.3g}")
    geomean = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    if speedups:
        print(f"fp16_geomean\t{geomean(speedups):.3f}")
    if generated:
        print(f"generated_fp16_geomean\t{geomean(generated):.3f}\t({len(generated)} matrices)")
    if slowdowns:
        worst = max(slowdowns)
        print(f"shared_worst_slowdown\t{100 * worst[0]:.2f}%\t({worst[1]}, over {len(slowdowns)} matrices)")


if __name__ == "__main__":
    main(sys.argv[1:])
