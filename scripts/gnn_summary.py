#!/usr/bin/env python3
"""Tables of the GNN examples' JSON (python/examples/gcn.py, gat.py): time per epoch of each implementation,
rsh's speedup over PyG's fastest backend on the graph, and the loss curves' largest gap to PyG (with PyG's
gap to itself, where the run has it, as the noise floor).
Usage: scripts/gnn_summary.py gcn.json [gat.json ...]"""
import json
import math
import sys
from collections import defaultdict


def table(path):
    rows = json.load(open(path))
    graphs = defaultdict(dict)
    for r in rows:
        graphs[r["graph"]][r["impl"]] = r
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    pyg = [i for i in impls if not i.startswith("rsh") and i != "pyg_repeat"]
    rsh = [i for i in impls if i.startswith("rsh")]
    print(f"### {path}\n")
    print("| graph | nodes | edges | " + " | ".join(f"{i} ms" for i in impls) + " | " +
          " | ".join(f"{i} vs fastest PyG" for i in rsh) + " | " + " | ".join(f"{i} loss gap" for i in impls[1:]) + " |")
    print("|" + "---|" * (3 + len(impls) + len(rsh) + len(impls) - 1))
    speedups = defaultdict(list)
    for g, by in graphs.items():
        fastest = min(by[i]["epoch_ms"] for i in pyg)
        first = by[impls[0]]
        cells = [g, str(first.get("nodes", "")), str(first.get("edges", ""))]
        cells += [f"{by[i]['epoch_ms']:.2f}" for i in impls]
        for i in rsh:
            speedups[i].append(fastest / by[i]["epoch_ms"])
            cells.append(f"{fastest / by[i]['epoch_ms']:.2f}x")
        cells += [f"{by[i].get('loss_gap', 0):.1e}" for i in impls[1:]]
        print("| " + " | ".join(cells) + " |")
    print()
    for i in rsh:
        s = speedups[i]
        print(f"- {i}: geomean {math.exp(sum(map(math.log, s)) / len(s)):.3f}x PyG's fastest backend over "
              f"{len(s)} graphs (min {min(s):.2f}x, max {max(s):.2f}x)")
    print()


for p in sys.argv[1:]:
    table(p)
