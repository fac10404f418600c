#!/usr/bin/env python3
"""Fits Partition::kAuto's learned plan selector (src/impl/RshSparse_plan_selector_impl.hpp): a decision
tree per arithmetic that picks RowStructured, CudaCoreOnly, DenseBlocks, Libra or BalancedBlocks from the
features the inspector computes (the benchmark's feature_* counters), trained offline on H100 runs of
rsh_spmm_benchmark with --rsh_partition=row,cuda,dense,libra,balanced (every partition timed in one process,
N = 128; a partition a run lacks counts as MISSING_REGRET).

The tree is cost sensitive: a leaf picks the partition of least summed log-regret (log of its time over the
matrix's best), and a split is the one that lowers that sum most. It is judged on matrices it did not see:
grouped K-fold cross-validation (a DLMC layer at every sparsity is one group, so that no fold trains on
the layer it is tested on), against the cost models' pick and the oracle (the best partition per matrix).
With --write, the trees fitted on all matrices go to RshSparse_plan_selector_trees.inc for the arithmetics
where cross-validation found the tree closer to the oracle than the cost models by more than --min-gain
(a share of the oracle's geomean: the cost models' score is in sample, the tree's held out, and a smaller
gain does not pay for changing kAuto's picks); the others keep the cost models.
Plain Python.
Usage: fit_selector.py [--depth D] [--min-leaf L] [--folds K] [--min-gain G] [--write] RUN.json[.gz]..."""
import argparse
import datetime
import math
import random
import re
from collections import defaultdict

import bench_json

# The order of rsh::impl::kSelectorFeatureNames (checked against the runs' counters).
FEATURES = ["log_nnz", "row_mean", "longest_item", "residual_fraction", "tiles_per_window",
            "nnz_per_window_row", "log_tc_over_cc", "log_dense_over", "density", "cuda_split"]
PARTITIONS = {"RowStructured": "kRowStructured", "CudaCoreOnly": "kCudaCoreOnly", "DenseBlocks": "kDenseBlocks",
              "Libra": "kLibra", "BalancedBlocks": "kBalancedBlocks"}
PARTITION_ENUM = ["RowStructured", "TensorCoreOnly", "CudaCoreOnly", "DenseBlocks", "Libra", "BalancedBlocks",
                  "Auto"]  # rsh::Partition, in order
ARITHMETIC = {"fp16": "kFp16", "bf16": "kFp16", "tf32": "kTf32", "fp32": "kFp32", "fp64": "kFp64"}
MISSING_REGRET = math.log(10.0)  # a partition that failed or was not run counts as 10x slower
TREES = "src/impl/RshSparse_plan_selector_trees.inc"


class Sample:
    def __init__(self, matrix, features, times, cost_model, cusparse):
        self.matrix, self.features, self.times = matrix, features, times
        self.cost_model, self.cusparse = cost_model, cusparse
        self.best = min(times.values())
        self.regret = {p: math.log(times[p] / self.best) if p in times else MISSING_REGRET for p in PARTITIONS}


def load(paths):
    """arithmetic -> [Sample] for every (matrix, precision, N) with a RowStructured run (its features)."""
    runs = defaultdict(dict)  # (matrix, prec, n) -> impl -> benchmark
    for path in paths:
        for b in bench_json.read(path)["benchmarks"]:
            if b.get("error_occurred") or (b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median"):
                continue
            parts = [p for p in b.get("run_name", b["name"]).split("/") if p != "manual_time"]
            runs[("/".join(parts[1:-4]), parts[-4], int(parts[-2].split("=")[1]))][parts[-1]] = b
    out = defaultdict(list)
    for (matrix, prec, n), impls in sorted(runs.items()):
        row = impls.get("rsh:RowStructured")
        if row is None:
            continue
        names = sorted(k[len("feature_"):] for k in row if k.startswith("feature_"))
        if names != sorted(FEATURES):
            raise SystemExit(f"{matrix}: the run's features {names} are not this script's {FEATURES}")
        times = {p: impls["rsh:" + p]["real_time"] for p in PARTITIONS if "rsh:" + p in impls}
        cus = [b["real_time"] for k, b in impls.items() if k.startswith("cusparse")]
        cost_model = PARTITION_ENUM[int(row["pick_cost_model"])]
        out[ARITHMETIC[prec]].append(Sample(matrix, [row["feature_" + f] for f in FEATURES], times, cost_model,
                                            min(cus) if cus else None))
    return out


def leaf_of(samples):
    """The partition of least summed regret, and that sum."""
    sums = {p: sum(s.regret[p] for s in samples) for p in PARTITIONS}
    p = min(sums, key=sums.get)
    return p, sums[p]


def grow(samples, depth, min_leaf):
    """A tree as nested tuples: ("leaf", partition) or ("split", feature, threshold, left, right)."""
    leaf, cost = leaf_of(samples)
    best = None
    if depth > 0 and len(samples) >= 2 * min_leaf:
        for f in range(len(FEATURES)):
            order = sorted(samples, key=lambda s: s.features[f])
            left = {p: 0.0 for p in PARTITIONS}
            total = {p: sum(s.regret[p] for s in samples) for p in PARTITIONS}
            for i in range(len(order) - 1):
                for p in PARTITIONS:
                    left[p] += order[i].regret[p]
                lo, hi = order[i].features[f], order[i + 1].features[f]
                if i + 1 < min_leaf or len(order) - i - 1 < min_leaf or lo == hi:
                    continue
                split_cost = min(left.values()) + min(total[p] - left[p] for p in PARTITIONS)
                if split_cost < cost - 1e-9 and (best is None or split_cost < best[0]):
                    best = (split_cost, f, (lo + hi) / 2)
    if best is None:
        return ("leaf", leaf)
    _, f, threshold = best
    left = [s for s in samples if s.features[f] < threshold]
    right = [s for s in samples if s.features[f] >= threshold]
    return ("split", f, threshold, grow(left, depth - 1, min_leaf), grow(right, depth - 1, min_leaf))


def pick(tree, features):
    while tree[0] == "split":
        tree = tree[3] if features[tree[1]] < tree[2] else tree[4]
    return tree[1]


def group_of(matrix):
    """DLMC layers at every sparsity and pruning method form one group (the layer)."""
    return re.sub(r"/(magnitude_pruning|random_pruning|variational_dropout|l0_regularization|extended_magnitude_pruning)"
                  r"/[0-9.]+/", "/", matrix)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def cross_validate(samples, depth, min_leaf, folds, seed=1):
    """The held-out pick of every sample (grouped K-fold)."""
    groups = sorted({group_of(s.matrix) for s in samples})
    random.Random(seed).shuffle(groups)
    fold_of = {g: i % folds for i, g in enumerate(groups)}
    picks = {}
    for k in range(folds):
        train = [s for s in samples if fold_of[group_of(s.matrix)] != k]
        tree = grow(train, depth, min_leaf)
        for s in samples:
            if fold_of[group_of(s.matrix)] == k:
                picks[id(s)] = pick(tree, s.features)
    return [picks[id(s)] for s in samples]


def time_of(s, partition):
    return s.times.get(partition, s.best * math.exp(MISSING_REGRET))


def report(arith, samples, cv_picks):
    """Geomean of oracle time / picked time, and speedups over cuSPARSE where the runs have it."""
    model = geomean([s.best / time_of(s, s.cost_model) for s in samples])
    tree = geomean([s.best / time_of(s, p) for s, p in zip(samples, cv_picks)])
    line = (f"| {arith} | {len(samples)} | {tree:.3f} | {model:.3f} | "
            f"{sum(p == s.cost_model for s, p in zip(samples, cv_picks))} |")
    with_cus = [(s, p) for s, p in zip(samples, cv_picks) if s.cusparse]
    if with_cus:
        line += (f" {geomean([s.cusparse / s.best for s, _ in with_cus]):.3f} |"
                 f" {geomean([s.cusparse / time_of(s, p) for s, p in with_cus]):.3f} |"
                 f" {geomean([s.cusparse / time_of(s, s.cost_model) for s, _ in with_cus]):.3f} |")
    else:
        line += " - | - | - |"
    for p in PARTITIONS:
        line += f" {sum(1 for s in samples if s.regret[p] == 0)} |"
    return line, tree, model


def emit(tree, name):
    """The tree as SelectorNode initialisers, root first."""
    nodes = []

    def visit(t):
        index = len(nodes)
        nodes.append(None)
        if t[0] == "leaf":
            nodes[index] = f"{{-1, 0.0, -1, -1, Partition::{PARTITIONS[t[1]]}}}"
        else:
            left, right = visit(t[3]), visit(t[4])
            nodes[index] = f"{{{t[1]}, {t[2]!r}, {left}, {right}, Partition::kAuto}}  /* {FEATURES[t[1]]} */"
        return index

    visit(tree)
    body = ",\n    ".join(nodes)
    return f"constexpr SelectorNode {name}[] = {{\n    {body}}};\n", len(nodes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--min-leaf", type=int, default=4)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--min-gain", type=float, default=0.005)
    ap.add_argument("--write", action="store_true", help=f"write {TREES}")
    args = ap.parse_args()
    data = load(args.runs)
    print("| arithmetic | matrices | tree / oracle (held out) | cost models / oracle | same pick | "
          "oracle vs cuSPARSE | tree vs cuSPARSE | cost models vs cuSPARSE | best " + " | best ".join(PARTITIONS) + " |")
    print("|" + "---|" * (9 + len(PARTITIONS)))
    shipped, tables = [], []
    for arith, samples in sorted(data.items()):
        cv = cross_validate(samples, args.depth, args.min_leaf, args.folds)
        line, tree_score, model_score = report(arith, samples, cv)
        print(line)
        if tree_score > model_score + args.min_gain:
            name = "kTree" + arith[1:].capitalize()
            text, size = emit(grow(samples, args.depth, args.min_leaf), name)
            tables.append(f"// {arith}: held out, {tree_score:.3f} of the oracle against the cost models' "
                          f"{model_score:.3f} ({len(samples)} matrices).\n" + text)
            shipped.append(f"{{Arithmetic::{arith}, {name}, {size}}}")
    for depth in range(1, 5):
        scores = [report(a, s, cross_validate(s, depth, args.min_leaf, args.folds))[1] for a, s in sorted(data.items())]
        print(f"\ndepth {depth}: held-out tree / oracle " + ", ".join(f"{x:.3f}" for x in scores), end="")
    print()
    if args.write:
        with open(TREES, "w") as f:
            f.write("// The plan selector's trees: written by scripts/fit_selector.py (do not edit by hand) on "
                    f"{datetime.date.today()}\n// from {', '.join(args.runs)};\n// depth {args.depth}, leaves of "
                    f"at least {args.min_leaf} matrices, {args.folds}-fold grouped cross-validation.\n")
            f.write("struct FittedTree {\n  Arithmetic arith;\n  const SelectorNode* nodes;\n  int size;\n};\n")
            f.write("\n".join(tables))
            if not shipped:
                shipped.append("{Arithmetic::kFp16, nullptr, 0}")
            f.write("constexpr FittedTree kSelectorTrees[] = {" + ", ".join(shipped) + "};\n")
        print(f"wrote {TREES}: " + (", ".join(shipped)))


if __name__ == "__main__":
    main()
