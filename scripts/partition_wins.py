#!/usr/bin/env python3
"""Where each partition is the fastest: from rsh_spmm_benchmark runs with several partitions timed in one
process (--rsh_partition=row,cuda,dense,libra,balanced), per arithmetic, the matrices each partition wins,
its time over the best of the others there, and over all matrices the geomean of its time over the best.
Plain Python.
Usage: partition_wins.py RUN.json[.gz]..."""
import sys

import fit_selector


def geomean(xs):
    import math
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(paths):
    data = fit_selector.load(paths)
    print("| arithmetic | partition | matrices timed | wins | geomean time / best | wins: matrix (time / best other) |")
    print("|---|---|---|---|---|---|")
    for arith, samples in sorted(data.items()):
        for p in fit_selector.PARTITIONS:
            timed = [s for s in samples if p in s.times]
            wins = []
            for s in timed:
                others = [t for q, t in s.times.items() if q != p]
                if others and s.times[p] < min(others):
                    wins.append((s.times[p] / min(others), s.matrix))
            wins.sort()
            listed = ", ".join(f"{m} ({r:.2f})" for r, m in wins[:12]) + (" ..." if len(wins) > 12 else "")
            print(f"| {arith} | {p} | {len(timed)} | {len(wins)} | "
                  f"{geomean([s.times[p] / s.best for s in timed]):.3f} | {listed} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
