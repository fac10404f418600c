"""rsh.torch on CPU tensors (the portable Kokkos kernels), against a float64 dense reference. Runs without a
GPU (CI)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import rsh  # noqa: E402
import rsh.torch as rt  # noqa: E402
from _matrices import CASES, dense, random_csr, sddmm_reference  # noqa: E402

TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5}


def make(case, dtype=torch.float64):
    name, rows, cols, kwargs = case
    row_map, entries, values = random_csr(rows, cols, **kwargs)
    A = rt.SparseMatrix(row_map, entries, torch.tensor(values, dtype=dtype), (rows, cols))
    return A, dense(row_map, entries, values.astype(np.float64), rows, cols), (row_map, entries, values)


def assert_close(got, ref, scale, tol):
    """|got - ref| <= tol * scale elementwise (scale: the magnitudes summed, e.g. |A| |B|), plus a floor."""
    err = np.abs(got.detach().double().numpy() - ref)
    bound = tol * (scale + 1e-30)
    assert np.all(err <= bound), f"max error {err.max():.3e}, worst ratio {(err / (bound + 1e-300)).max():.3e}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("column_major", [False, True])
def test_mm_matches_reference(case, dtype, column_major):
    A, _, _ = make(case, dtype)
    Ad = dense(*[np.asarray(x) for x in (A.crow_indices, A.col_indices)], A.values.double().numpy(), *A.shape)
    B = torch.randn(A.shape[1], 7, dtype=dtype, generator=torch.Generator().manual_seed(7))
    if column_major:
        B = B.t().contiguous().t()
    out = A.mm(B)
    assert out.shape == (A.shape[0], 7) and out.dtype == dtype
    assert_close(out, Ad @ B.double().numpy(), np.abs(Ad) @ np.abs(B.double().numpy()), TOLERANCE[dtype])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_transpose_and_sddmm(case):
    A, Ad, (row_map, entries, _) = make(case)
    C = torch.randn(A.shape[0], 5, dtype=torch.float64)
    assert_close(A.t().mm(C), Ad.T @ C.numpy(), np.abs(Ad.T) @ np.abs(C.numpy()), 1e-12)
    X = torch.randn(A.shape[0], 6, dtype=torch.float64)
    Y = torch.randn(A.shape[1], 6, dtype=torch.float64)
    ref = sddmm_reference(row_map, entries, X.numpy(), Y.numpy())
    scale = sddmm_reference(row_map, entries, np.abs(X.numpy()), np.abs(Y.numpy()))
    assert_close(A.sddmm(X, Y), ref, scale, 1e-12)


@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[4]], ids=[CASES[i][0] for i in (0, 3, 4)])
def test_gradients(case):
    A, _, _ = make(case)
    v = A.values.clone().requires_grad_(True)
    B = torch.randn(A.shape[1], 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v, B: A.with_values(v).mm(B), (v, B))
    assert torch.autograd.gradcheck(lambda v, B: A.with_values(v).t().mm(B), (v, torch.randn(
        A.shape[0], 2, dtype=torch.float64, requires_grad=True)))
    X = torch.randn(A.shape[0], 4, dtype=torch.float64, requires_grad=True)
    Y = torch.randn(A.shape[1], 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda X, Y: A.sddmm(X, Y), (X, Y))


def test_new_values_are_used():
    A, Ad, _ = make(CASES[1])
    B = torch.randn(A.shape[1], 4, dtype=torch.float64)
    first = A.mm(B)
    A.values.mul_(2.0)  # in place: a new version of the same tensor
    assert_close(A.mm(B), 2 * first.numpy(), np.abs(2 * Ad) @ np.abs(B.numpy()), 1e-12)
    A.update_values(torch.ones(A.nnz, dtype=torch.float64))
    ones = (Ad != 0).astype(np.float64)  # no duplicates in this case
    assert_close(A.mm(B), ones @ B.numpy(), ones @ np.abs(B.numpy()), 1e-12)


class CountingMatrix:
    """Forwards to a compiled matrix and counts its value loads."""

    def __init__(self, matrix):
        self.matrix, self.loads = matrix, 0

    def set_values(self, values):
        self.loads += 1
        self.matrix.set_values(values)

    def __getattr__(self, name):
        return getattr(self.matrix, name)


def test_unchanged_values_are_loaded_once():
    A, Ad, _ = make(CASES[1])
    kernel = A._pattern.kernel(torch.device("cpu"), torch.float64)
    kernel.matrix = counting = CountingMatrix(kernel.matrix)
    B = torch.randn(A.shape[1], 4, dtype=torch.float64, requires_grad=True)
    for _ in range(3):  # each product hands the kernel a new alias of A's values (values.detach())
        out = A.mm(B)
        out.sum().backward()
    assert counting.loads == 1
    assert_close(out, Ad @ B.detach().numpy(), np.abs(Ad) @ np.abs(B.detach().numpy()), 1e-12)
    A.values.mul_(-1.0)  # an in-place change is a new version: loaded again
    assert_close(A.mm(B), -Ad @ B.detach().numpy(), np.abs(Ad) @ np.abs(B.detach().numpy()), 1e-12)
    assert counting.loads == 2
    A.update_values(A.values.clone())  # other memory, same numbers: loaded again
    A.mm(B)
    assert counting.loads == 3


def test_gcn_norm_and_layer_match_the_dense_formula():
    rng = np.random.default_rng(11)
    n = 30
    edges = np.concatenate([rng.integers(0, n, size=(2, 90)), [[4, 4], [4, 4]]], axis=1)  # a double self loop
    edge_index = torch.from_numpy(edges)
    adj = rt.gcn_norm(edge_index, n, dtype=torch.float64)
    Ahat = np.zeros((n, n))
    for s, d in edges.T:
        Ahat[d, s] += 1.0 if s != d else 0.0
    Ahat += np.eye(n)  # one self loop a node, as PyG's add_remaining_self_loops
    deg = Ahat.sum(axis=1)
    Ahat = Ahat / np.sqrt(deg)[:, None] / np.sqrt(deg)[None, :]
    x = torch.randn(n, 5, dtype=torch.float64)
    assert_close(adj.mm(x), Ahat @ x.numpy(), np.abs(Ahat) @ np.abs(x.numpy()), 1e-12)
    conv = rt.GCNConv(5, 3).double()
    torch.nn.init.normal_(conv.bias)
    ref = Ahat @ (x.numpy() @ conv.lin.weight.detach().numpy().T) + conv.bias.detach().numpy()
    assert np.allclose(conv(x, edge_index).detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    conv(x, edge_index).sum().backward()
    assert conv.lin.weight.grad is not None and torch.isfinite(conv.lin.weight.grad).all()


def test_segment_softmax_is_a_softmax_per_row():
    A, _, (row_map, _, _) = make(CASES[3])
    scores = torch.randn(A.nnz, dtype=torch.float64)
    att = rt.segment_softmax(scores, A).numpy()
    for r in range(A.shape[0]):
        lo, hi = row_map[r], row_map[r + 1]
        if hi > lo:
            e = np.exp(scores.numpy()[lo:hi] - scores.numpy()[lo:hi].max())
            assert np.allclose(att[lo:hi], e / e.sum(), rtol=1e-12)


def test_gatconv_matches_the_dense_formula():
    rng = np.random.default_rng(12)
    n = 25
    edges = rng.integers(0, n, size=(2, 80))
    edges = np.concatenate([edges[:, edges[0] != edges[1]], np.stack([np.arange(n)] * 2)], axis=1)
    graph = rt.SparseMatrix.from_edge_index(torch.from_numpy(edges), torch.ones(edges.shape[1],
                                                                               dtype=torch.float64), n)
    conv = rt.GATConv(6, 4).double()
    torch.nn.init.normal_(conv.bias)
    x = torch.randn(n, 6, dtype=torch.float64)
    h = x.numpy() @ conv.lin.weight.detach().numpy().T
    a_src, a_dst = h @ conv.att_src.detach().numpy().ravel(), h @ conv.att_dst.detach().numpy().ravel()
    ref = np.tile(conv.bias.detach().numpy(), (n, 1))
    for i in range(n):
        sources = edges[0, edges[1] == i]
        e = a_dst[i] + a_src[sources]
        e = np.where(e > 0, e, 0.2 * e)
        att = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
        ref[i] += att @ h[sources]
    assert np.allclose(conv(x, graph).detach().numpy(), ref, rtol=1e-12, atol=1e-12)
    v = x.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda v: conv(v, graph), (v,))


def test_from_edge_index_aggregates_at_the_target():
    edge_index = torch.tensor([[0, 1, 2, 2], [1, 2, 0, 1]])
    A = rt.SparseMatrix.from_edge_index(edge_index, torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64))
    x = torch.eye(3, dtype=torch.float64)
    expected = np.array([[0, 0, 3], [1, 0, 4], [0, 2, 0]], dtype=np.float64)
    assert np.array_equal(A.mm(x).numpy(), expected)


def test_raw_binding_takes_numpy_arrays():
    row_map, entries, values = random_csr(10, 8, density=0.4, seed=9)
    m = rsh._rsh.HostMatrixDouble(8, row_map, entries, rsh.make_options(reorder="None"))
    m.set_values(values)
    B = np.random.default_rng(1).standard_normal((8, 3))
    C = np.full((10, 3), np.nan)
    m.spmm("N", 1.0, B, 0.0, C)  # beta = 0 ignores C's NaNs
    assert np.allclose(C, dense(row_map, entries, values, 10, 8) @ B, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("partition", ["RowStructured", "TensorCoreOnly", "CudaCoreOnly", "DenseBlocks", "Libra",
                                       "BalancedBlocks", "Auto"])
def test_every_partition_matches_the_reference(partition):
    row_map, entries, values = random_csr(70, 50, density=0.3, seed=11)
    A = rt.SparseMatrix(row_map, entries, torch.tensor(values), (70, 50), partition=partition)
    B = torch.randn(50, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    Ad = dense(row_map, entries, values, 70, 50)
    assert_close(A.mm(B), Ad @ B.numpy(), np.abs(Ad) @ np.abs(B.numpy()), TOLERANCE[torch.float64])
    ones = np.ones((70, 2))
    assert_close(A.t().mm(torch.tensor(ones)), Ad.T @ ones, np.abs(Ad).T @ ones, TOLERANCE[torch.float64])


def test_bad_input_is_rejected():
    row_map, entries, values = random_csr(10, 8, density=0.4, seed=10)
    with pytest.raises(ValueError):
        rt.SparseMatrix(row_map, np.where(entries == entries[0], 8, entries), values, (10, 8))  # column 8 of 8
    with pytest.raises(ValueError):
        rt.SparseMatrix(row_map[:-1], entries, values, (10, 8))
    with pytest.raises(ValueError):
        rt.SparseMatrix(row_map, entries, values[:-1], (10, 8))
    A = rt.SparseMatrix(row_map, entries, torch.tensor(values), (10, 8))
    with pytest.raises(ValueError):
        A.mm(torch.randn(9, 2, dtype=torch.float64))
    with pytest.raises(TypeError):
        A.mm(torch.randn(8, 2, dtype=torch.float32))
    with pytest.raises(TypeError):
        A.with_values(A.values.half()).mm(torch.randn(8, 2).half())
    with pytest.raises(ValueError):
        A.sddmm(torch.randn(10, 3, dtype=torch.float64), torch.randn(8, 4, dtype=torch.float64))
    with pytest.raises(TypeError):
        rt.SparseMatrix(row_map, entries, values, (10, 8), no_such_option=True)
    with pytest.raises(ValueError):
        negative = rt.SparseMatrix(row_map, entries, values, (10, 8), expected_num_vectors=-1)
        negative.mm(torch.ones(8, 1, dtype=torch.float64))
    with pytest.raises(ValueError):
        rt.SparseMatrix(row_map, entries, values, (10, 8), partition="Diagonal").mm(torch.ones(8, 1,
                                                                                             dtype=torch.float64))
