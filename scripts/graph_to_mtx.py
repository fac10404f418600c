#!/usr/bin/env python3
"""Converts a graph file to the shared matrices' Matrix Market convention (matrices/README): coordinate
pattern general, 1-based, entries sorted by (row, col), no duplicates, no self-loops, an undirected graph
stored in both directions. For benchmarking matrices outside the suite (issue 22's unseen matrices).

Formats:
  metis     METIS / Chaco adjacency lists (".graph"): a header "n m [fmt]" (fmt 0 or absent: no weights),
            then line i lists vertex i's neighbours, 1-based. Undirected.
  edgelist  one "u v" pair a line (SNAP / tab-separated; lines starting with # or % are comments). Vertex ids
            are renumbered 0..n-1 in increasing order of id. Undirected unless --directed.

Usage: graph_to_mtx.py {metis|edgelist} IN OUT.mtx.gz [--directed] [--name NAME] [--source TEXT]
"""
import argparse
import gzip
import sys


def read_metis(lines):
    body = [l for l in lines if not l.startswith('%')]
    header = body[0].split()
    n, m = int(header[0]), int(header[1])
    if len(header) > 2 and header[2] not in ('0', '000'):
        raise ValueError(f'METIS format {header[2]} (weights) is not supported')
    if len(body) - 1 < n:
        raise ValueError(f'{n} vertices declared, {len(body) - 1} adjacency lines')
    edges = []
    for i in range(n):
        for tok in body[1 + i].split():
            j = int(tok) - 1
            if not 0 <= j < n:
                raise ValueError(f'vertex {i + 1}: neighbour {j + 1} out of range 1..{n}')
            edges.append((i, j))
    return n, edges, m


def read_edgelist(lines):
    pairs = []
    for l in lines:
        if not l.strip() or l[0] in '#%':
            continue
        u, v = l.split()[:2]
        pairs.append((int(u), int(v)))
    ids = sorted({x for p in pairs for x in p})
    index = {x: k for k, x in enumerate(ids)}
    return len(ids), [(index[u], index[v]) for u, v in pairs], None


def matrix_entries(edges, directed):
    """The (row, col) entries of a graph's edges: sorted, no duplicates, no self-loops, both directions unless
    directed."""
    entries = set()
    for u, v in edges:
        if u == v:
            continue
        entries.add((u, v))
        if not directed:
            entries.add((v, u))
    return sorted(entries)


def write_mtx(path, n, entries, name='', source=''):
    with gzip.open(path, 'wt') as out:
        out.write('%%MatrixMarket matrix coordinate pattern general\n')
        if name:
            out.write(f'% name: {name}\n')
        if source:
            out.write(f'% source: {source}\n')
        out.write(f'{n} {n} {len(entries)}\n')
        out.writelines(f'{u + 1} {v + 1}\n' for u, v in entries)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('format', choices=['metis', 'edgelist'])
    ap.add_argument('input')
    ap.add_argument('output')
    ap.add_argument('--directed', action='store_true', help='edge list: keep u -> v only')
    ap.add_argument('--name', default='')
    ap.add_argument('--source', default='')
    a = ap.parse_args()
    with open(a.input, errors='replace') as f:
        lines = f.read().splitlines()
    n, edges, declared = read_metis(lines) if a.format == 'metis' else read_edgelist(lines)
    entries = matrix_entries(edges, a.directed and a.format == 'edgelist')
    if declared is not None and len(entries) != 2 * declared:
        print(f'warning: {declared} edges declared, {len(entries) // 2} distinct undirected edges read',
              file=sys.stderr)
    write_mtx(a.output, n, entries, a.name, a.source)
    print(f'{a.output}: {n} x {n}, {len(entries)} nonzeros', file=sys.stderr)


if __name__ == '__main__':
    main()
