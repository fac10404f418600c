"""What the GNN examples share: graphs (the shared Matrix Market files, a generated R-MAT graph), random
features and labels with fixed seeds, and a timed training loop."""
import argparse
import gzip
import json
import os
import statistics
import sys
import time

import numpy as np
import torch


class TwoLayer(torch.nn.Module):
    """conv2(relu(conv1(x, graph)), graph), each convolution made by make_conv(in, out)."""

    def __init__(self, make_conv, features, hidden, classes):
        super().__init__()
        self.conv1, self.conv2 = make_conv(features, hidden), make_conv(hidden, classes)

    def forward(self, x, graph):
        return self.conv2(torch.relu(self.conv1(x, graph)), graph)


def read_graph(path):
    """edge_index (2 x E, int64) of a Matrix Market file (.mtx or .mtx.gz), self loops dropped (the layers add
    their own); symmetric files give both directions."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        header = f.readline().lower()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        rows, cols, _ = (int(t) for t in line.split())
        data = np.loadtxt(f, usecols=(0, 1), dtype=np.int64, ndmin=2)
    src, dst = data[:, 1] - 1, data[:, 0] - 1
    if "symmetric" in header:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    keep = src != dst
    return torch.from_numpy(np.stack([src[keep], dst[keep]])), max(rows, cols)


def rmat_graph(scale, num_edges, seed, device, probabilities=(0.57, 0.19, 0.19)):
    """A directed R-MAT graph of 2^scale nodes and num_edges edges (duplicates kept: multi-edges), made on
    `device` (Graph500 probabilities)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    a, b, c = probabilities
    src = torch.zeros(num_edges, dtype=torch.int64, device=device)
    dst = torch.zeros(num_edges, dtype=torch.int64, device=device)
    for bit in range(scale):
        u = torch.rand(num_edges, generator=gen, device=device)
        src += ((u >= a + b)).long() << bit                         # quadrants c and d: lower half
        dst += (((u >= a) & (u < a + b)) | (u >= a + b + c)).long() << bit  # quadrants b and d: right half
    keep = src != dst
    return torch.stack([src[keep], dst[keep]]), 1 << scale


def node_data(num_nodes, features, classes, seed, device):
    """Random features (standard normal) and labels, fixed by `seed`."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(num_nodes, features, generator=gen)
    y = torch.randint(0, classes, (num_nodes,), generator=gen)
    return x.to(device), y.to(device)


def train(model, forward, y, epochs, lr=0.01, warmup=3):
    """Full-batch training with Adam and cross-entropy over every node. Returns the loss of each epoch,
    the median seconds of an epoch (forward + backward + optimizer step) after `warmup` epochs, and the
    seconds of the first epoch (which includes building each library's structures)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses, seconds = [], []
    for _ in range(epochs):
        torch.cuda.synchronize()
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(), y)
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        seconds.append(time.perf_counter() - start)
        losses.append(loss.item())
    steady = seconds[warmup:] if len(seconds) > warmup else seconds
    return {"losses": losses, "epoch_ms": 1e3 * statistics.median(steady), "first_epoch_ms": 1e3 * seconds[0]}


def max_relative_gap(losses, reference):
    """The largest |loss - reference| / |reference| over the epochs."""
    return max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(losses, reference))


def report(rows):
    """Prints one line per (graph, implementation)."""
    for r in rows:
        print(f"{r['graph']:>16} {r['impl']:>22}: {r['epoch_ms']:9.3f} ms/epoch (first {r['first_epoch_ms']:9.1f} ms)"
              f"  loss {r['losses'][0]:.5f} -> {r['losses'][-1]:.5f}  gap to PyG {r.get('loss_gap', 0.0):.2e}"
              f"  speedup vs PyG {r.get('speedup_vs_pyg', 1.0):.2f}x", file=sys.stderr, flush=True)


def write_json(rows, path):
    if path:
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)


def run_examples(run_graph, description, epochs):
    """The examples' command line: graphs from files and/or a generated R-MAT graph, each trained by
    run_graph(name, edge_index, num_nodes, args) -> result rows, printed and written as JSON."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", nargs="*", default=[], help="Matrix Market files (.mtx or .mtx.gz)")
    parser.add_argument("--rmat", nargs=2, type=int, metavar=("SCALE", "EDGES"), help="a generated R-MAT graph")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--classes", type=int, default=16)
    parser.add_argument("--out", help="JSON file of the results")
    args = parser.parse_args()
    rows = []
    graphs = [(os.path.basename(p).split(".")[0], *read_graph(p)) for p in args.graphs]
    if args.rmat:
        graphs.append((f"rmat{args.rmat[0]}", *rmat_graph(args.rmat[0], args.rmat[1], 7, "cuda")))
    for name, edge_index, num_nodes in graphs:
        result = run_graph(name, edge_index, num_nodes, args)
        report(result)
        rows += result
        write_json(rows, args.out)  # after each graph: a run cut short keeps what it measured
