"""Test matrices as CSR arrays (NumPy) and the double-precision dense reference they are checked against."""
import numpy as np


def random_csr(rows, cols, density, seed, dense_rows=(), block=None, shuffle=False, duplicates=0):
    """A random CSR: `density` of the positions, full rows `dense_rows`, a dense `block` (r0, r1, c0, c1)
    (so that Tensor-Core windows form), rows unsorted when `shuffle`, `duplicates` repeated positions."""
    rng = np.random.default_rng(seed)
    mask = rng.random((rows, cols)) < density
    for r in dense_rows:
        mask[r, :] = True
    if block is not None:
        r0, r1, c0, c1 = block
        mask[r0:r1, c0:c1] |= rng.random((r1 - r0, c1 - c0)) < 0.7
    row_lists = [list(np.nonzero(mask[r])[0]) for r in range(rows)]
    for _ in range(duplicates):
        r = int(rng.integers(rows))
        if row_lists[r]:
            row_lists[r].append(row_lists[r][int(rng.integers(len(row_lists[r])))])
    if shuffle:
        for lst in row_lists:
            rng.shuffle(lst)
    row_map = np.concatenate(([0], np.cumsum([len(lst) for lst in row_lists]))).astype(np.int64)
    entries = np.array([c for lst in row_lists for c in lst], dtype=np.int32)
    values = rng.uniform(-1, 1, entries.shape[0])
    return row_map, entries, values


def dense(row_map, entries, values, rows, cols):
    """The CSR as a dense float64 array, duplicates summed."""
    out = np.zeros((rows, cols))
    for r in range(rows):
        for k in range(row_map[r], row_map[r + 1]):
            out[r, entries[k]] += values[k]
    return out


def sddmm_reference(row_map, entries, X, Y):
    """X[r] . Y[c] at each stored position (r, c), in CSR order, in float64."""
    rows = np.repeat(np.arange(len(row_map) - 1), np.diff(row_map))
    return np.einsum("ij,ij->i", X[rows].astype(np.float64), Y[entries].astype(np.float64))


# Shapes the suite runs: (name, rows, cols, kwargs of random_csr).
CASES = [
    ("small", 13, 9, dict(density=0.3, seed=1)),
    ("windows", 96, 80, dict(density=0.05, seed=2, block=(8, 40, 16, 48))),
    ("hub_rows", 70, 300, dict(density=0.02, seed=3, dense_rows=(5, 31))),
    ("unsorted_duplicates", 40, 33, dict(density=0.2, seed=4, shuffle=True, duplicates=12)),
    ("empty_rows", 20, 20, dict(density=0.0, seed=5, dense_rows=(3,))),
    ("no_entries", 6, 4, dict(density=0.0, seed=6)),
]
