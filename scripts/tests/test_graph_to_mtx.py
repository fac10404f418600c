#!/usr/bin/env python3
"""graph_to_mtx.py on small graphs whose matrices are written out by hand: METIS lists with a self-loop and a
repeated neighbour, an edge list with comments and sparse ids (directed and undirected), the file it writes read
back, and the inputs it must refuse. Plain Python (CI runs it through ctest)."""
import gzip
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "graph_to_mtx.py")
sys.path.insert(0, os.path.join(HERE, ".."))
import graph_to_mtx as g2m  # noqa: E402

# Vertices 1..4: 1-2, 1-3, 2-3, 3-4, vertex 2 lists itself and vertex 1 twice.
METIS = """% a comment
4 4
2 3
1 3 2 1
1 2 4
3
"""
# The same graph's matrix, 0-based, both directions, no diagonal.
METIS_ENTRIES = sorted({(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1), (2, 3), (3, 2)})

EDGES = """# ids 10, 20, 35: renumbered 0, 1, 2 in increasing order
10\t20
35\t10
20\t20
35\t10
"""


def read_mtx(path):
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    assert lines[0] == "%%MatrixMarket matrix coordinate pattern general", lines[0]
    body = [l for l in lines[1:] if not l.startswith("%")]
    rows, cols, nnz = map(int, body[0].split())
    entries = [tuple(int(x) - 1 for x in l.split()) for l in body[1:]]
    assert len(entries) == nnz, (len(entries), nnz)
    return rows, cols, entries


def convert(fmt, text, *flags):
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in"), os.path.join(d, "out.mtx.gz")
        with open(src, "w") as f:
            f.write(text)
        subprocess.run([sys.executable, SCRIPT, fmt, src, out, *flags], check=True, capture_output=True)
        return read_mtx(out)


def expect_refused(reader, text, words):
    try:
        reader(text.splitlines())
    except ValueError as e:
        assert words in str(e), str(e)
        return
    raise AssertionError(f"accepted: {text!r}")


def main():
    rows, cols, entries = convert("metis", METIS)
    assert (rows, cols) == (4, 4)
    assert entries == METIS_ENTRIES, entries

    n, edges, _ = g2m.read_edgelist(EDGES.splitlines())
    assert n == 3 and edges == [(0, 1), (2, 0), (1, 1), (2, 0)], (n, edges)
    assert convert("edgelist", EDGES, "--directed")[2] == [(0, 1), (2, 0)]
    assert convert("edgelist", EDGES)[2] == [(0, 1), (0, 2), (1, 0), (2, 0)]

    expect_refused(g2m.read_metis, "2 1 1\n2 5\n1 5\n", "weights")
    expect_refused(g2m.read_metis, "2 1\n3\n1\n", "out of range")
    expect_refused(g2m.read_metis, "3 1\n2\n1\n", "adjacency lines")
    print("graph_to_mtx: ok")


if __name__ == "__main__":
    main()
