#!/usr/bin/env python3
"""fit_selector.py on synthetic runs whose best partition follows known rules: the tree must find the rules,
cross-validation must score it near the oracle, the run reader must refuse features it does not know, and
the emitted C++ must hold one initialiser per node. Plain Python (CI runs it through ctest)."""
import gzip
import json
import math
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import fit_selector as fs  # noqa: E402


def best_partition(features):
    if features[3] < 0.3:
        return "DenseBlocks"
    return "RowStructured" if features[0] > 12 else "CudaCoreOnly"


def synthetic(count, seed):
    rng = random.Random(seed)
    samples = []
    for i in range(count):
        f = [rng.uniform(8, 16)] + [rng.uniform(0, 1) for _ in fs.FEATURES[1:]]
        winner = best_partition(f)
        times = {p: 10.0 * (1.0 if p == winner else rng.uniform(1.2, 2.0)) for p in fs.PARTITIONS}
        samples.append(fs.Sample(f"m{i}", f, times, "CudaCoreOnly", 20.0))
    return samples


def test_tree_recovers_the_rules():
    samples = synthetic(120, 1)
    tree = fs.grow(samples, 2, 4)
    wrong = [s.matrix for s in samples if fs.pick(tree, s.features) != best_partition(s.features)]
    assert len(wrong) <= 3, wrong  # thresholds fall between samples
    held_out = fs.cross_validate(samples, 2, 4, 5)
    score = fs.geomean([s.best / fs.time_of(s, p) for s, p in zip(samples, held_out)])
    assert score > 0.97, score
    line, tree_score, model_score = fs.report("kFp16", samples, held_out)
    assert math.isclose(tree_score, score) and model_score < 0.9, (tree_score, model_score)


def test_emitted_tree_has_one_node_per_initialiser():
    tree = fs.grow(synthetic(60, 2), 2, 4)
    text, size = fs.emit(tree, "kTreeFp16")
    assert text.startswith("constexpr SelectorNode kTreeFp16[] = {")
    assert text.count("Partition::") == size and size >= 3


def test_groups_keep_a_layer_together():
    a = fs.group_of("rn50/magnitude_pruning/0.7/bottleneck_1_block_group1_1_1")
    b = fs.group_of("rn50/random_pruning/0.9/bottleneck_1_block_group1_1_1")
    assert a == b and fs.group_of("cora") == "cora"


def run_file(benchmarks):
    f = tempfile.NamedTemporaryFile(suffix=".json.gz", delete=False)
    with gzip.open(f.name, "wt") as out:
        json.dump({"context": {}, "benchmarks": benchmarks}, out)
    return f.name


def bench(impl, time, **counters):
    return dict(name=f"spmm/cora/fp16/row/n=128/{impl}/manual_time", real_time=time, **counters)


def test_reads_runs_and_refuses_unknown_features():
    features = {"feature_" + f: float(i) for i, f in enumerate(fs.FEATURES)}
    path = run_file([bench("rsh:RowStructured", 5.0, pick_cost_model=2, **features),
                     bench("rsh:CudaCoreOnly", 4.0), bench("cusparse_alg1", 8.0)])
    data = fs.load([path])
    (s,) = data["kFp16"]
    assert s.features == [float(i) for i in range(len(fs.FEATURES))] and s.cost_model == "CudaCoreOnly"
    assert s.best == 4.0 and s.cusparse == 8.0 and s.regret["DenseBlocks"] == fs.MISSING_REGRET
    features["feature_unknown"] = 1.0
    try:
        fs.load([run_file([bench("rsh:RowStructured", 5.0, pick_cost_model=2, **features)])])
    except SystemExit:
        return
    raise AssertionError("an unknown feature was accepted")


if __name__ == "__main__":
    for name, fn in sorted(globals().items()):
        if name.startswith("test_"):
            fn()
            print("ok", name)
