"""rsh.torch on CUDA tensors (the Tensor-Core kernels through the raw CUDA API), against a float64 reference
of the same rounded inputs. Skips without a GPU."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import rsh  # noqa: E402
import rsh.torch as rt  # noqa: E402
from _matrices import CASES, dense, random_csr, sddmm_reference  # noqa: E402

pytestmark = pytest.mark.skipif(not (rsh.cuda_device_available() and torch.cuda.is_available()),
                                reason="no CUDA device")

# (dtype, allow_tf32) -> bound on |error| relative to |A| |B| (inputs rounded to dtype first).
PRECISIONS = {
    (torch.float32, False): 1e-5,  # 3xTF32 Tensor Cores, FP32 CUDA cores
    (torch.float32, True): 4e-3,   # TF32 operands (10 mantissa bits)
    # FP16 operands, FP32 accumulation, FP16 output; pieces of split rows add FP16-rounded partial sums
    (torch.float16, False): 8e-3,
    (torch.bfloat16, False): 5e-2,  # BF16: 8 mantissa bits, the same scheme
}
IDS = ["fp32", "tf32", "fp16", "bf16"]


def make(case, dtype, allow_tf32=False, device="cuda"):
    name, rows, cols, kwargs = case
    row_map, entries, values = random_csr(rows, cols, **kwargs)
    A = rt.SparseMatrix(row_map, entries, torch.tensor(values, dtype=dtype, device=device), (rows, cols),
                        allow_tf32=allow_tf32)
    Ad = dense(row_map, entries, A.values.double().cpu().numpy(), rows, cols)
    return A, Ad, (row_map, entries)


def check(got, ref, scale, tol):
    err = np.abs(got.detach().double().cpu().numpy() - ref)
    bound = tol * scale + 1e-6 * tol  # the floor covers FP16 subnormal outputs
    assert np.all(err <= bound), f"max error {err.max():.3e}, worst ratio {(err / bound).max():.3e}"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("precision", list(PRECISIONS), ids=IDS)
@pytest.mark.parametrize("column_major", [False, True])
def test_mm_matches_reference(case, precision, column_major):
    dtype, allow_tf32 = precision
    A, Ad, _ = make(case, dtype, allow_tf32)
    for n in (1, 8, 33):
        B = torch.randn(A.shape[1], n, device="cuda").to(dtype)
        if column_major:
            B = B.t().contiguous().t()
        out = A.mm(B)
        assert out.dtype == dtype and out.shape == (A.shape[0], n)
        Bd = B.double().cpu().numpy()
        check(out, Ad @ Bd, np.abs(Ad) @ np.abs(Bd), PRECISIONS[precision])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("precision", list(PRECISIONS), ids=IDS)
def test_transpose_and_sddmm(case, precision):
    dtype, allow_tf32 = precision
    A, Ad, (row_map, entries) = make(case, dtype, allow_tf32)
    C = torch.randn(A.shape[0], 16, device="cuda").to(dtype)
    Cd = C.double().cpu().numpy()
    check(A.t().mm(C), Ad.T @ Cd, np.abs(Ad.T) @ np.abs(Cd), PRECISIONS[precision])
    for k in (1, 16, 40):
        X = torch.randn(A.shape[0], k, device="cuda").to(dtype)
        Y = torch.randn(A.shape[1], k, device="cuda").to(dtype)
        Xd, Yd = X.double().cpu().numpy(), Y.double().cpu().numpy()
        check(A.sddmm(X, Y), sddmm_reference(row_map, entries, Xd, Yd),
              sddmm_reference(row_map, entries, np.abs(Xd), np.abs(Yd)), PRECISIONS[precision])


@pytest.mark.parametrize("case", [CASES[1], CASES[3]], ids=[CASES[1][0], CASES[3][0]])
def test_gradients_match_the_double_host_path(case):
    """Gradients on the GPU (FP32-level) against the same graph on the CPU in float64 (which test_host
    gradchecks)."""
    results = []
    for device, dtype in (("cuda", torch.float32), ("cpu", torch.float64)):
        A, _, _ = make(case, dtype, device=device)
        gen = torch.Generator().manual_seed(3)
        v = A.values.detach().clone().requires_grad_(True)
        B = torch.randn(A.shape[1], 24, generator=gen, dtype=torch.float64).to(device, dtype).requires_grad_(True)
        X = torch.randn(A.shape[0], 8, generator=gen, dtype=torch.float64).to(device, dtype).requires_grad_(True)
        Y = torch.randn(A.shape[1], 8, generator=gen, dtype=torch.float64).to(device, dtype).requires_grad_(True)
        W = torch.randn(A.shape[0], 24, generator=gen, dtype=torch.float64).to(device, dtype)
        loss = (A.with_values(v).mm(B) * W).sum() + (A.with_values(v).t().mm(W) * B).sum()
        loss = loss + (A.sddmm(X, Y) * v.detach()).sum()
        loss.backward()
        results.append([t.grad.double().cpu().numpy() for t in (v, B, X, Y)])
    for got, ref in zip(*results):
        assert np.allclose(got, ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def test_values_changing_every_call():
    """As attention does: a new values tensor per step on one pattern (uploaded on each product)."""
    A, _, (row_map, entries) = make(CASES[1], torch.float32)
    B = torch.randn(A.shape[1], 32, device="cuda")
    for step in range(4):
        values = torch.randn(A.nnz, device="cuda")
        Ad = dense(row_map, entries, values.double().cpu().numpy(), *A.shape)
        Bd = B.double().cpu().numpy()
        check(A.with_values(values).mm(B), Ad @ Bd, np.abs(Ad) @ np.abs(Bd), 1e-5)


def test_runs_on_the_current_stream():
    A, Ad, _ = make(CASES[1], torch.float16)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        B = torch.randn(A.shape[1], 64, device="cuda").half()
        out = A.mm(B)
    side.synchronize()
    Bd = B.double().cpu().numpy()
    check(out, Ad @ Bd, np.abs(Ad) @ np.abs(Bd), PRECISIONS[(torch.float16, False)])


def test_raw_binding_takes_cupy_arrays():
    cp = pytest.importorskip("cupy")
    row_map, entries, values = random_csr(64, 48, density=0.1, seed=21, block=(0, 16, 0, 16))
    m = rsh._rsh.CudaMatrixFloat(48, row_map, entries, rsh.make_options(), 0)
    slots = cp.zeros(m.num_slots, dtype=cp.float32)
    cp.add.at(slots, cp.asarray(m.slot_of_entry()), cp.asarray(values, dtype=cp.float32))
    stream = cp.cuda.get_current_stream().ptr
    m.set_slots(slots, stream)
    B = cp.asarray(np.random.default_rng(2).standard_normal((48, 16)), dtype=cp.float32)
    C = cp.zeros((64, 16), dtype=cp.float32)
    m.spmm(1.0, B, 0.0, C, stream)
    Ad = dense(row_map, entries, values.astype(np.float32).astype(np.float64), 64, 48)
    Bd = cp.asnumpy(B).astype(np.float64)
    check(torch.from_numpy(cp.asnumpy(C)), Ad @ Bd, np.abs(Ad) @ np.abs(Bd), 1e-5)


def test_gcnconv_matches_pyg():
    pyg = pytest.importorskip("torch_geometric")
    from torch_geometric.nn import GCNConv
    rng = np.random.default_rng(5)
    n = 500
    edge_index = torch.from_numpy(rng.integers(0, n, size=(2, 4000))).cuda()
    x = torch.randn(n, 32, device="cuda")
    ref_conv = GCNConv(32, 16).cuda()
    conv = rt.GCNConv(32, 16).cuda()
    conv.load_state_dict(ref_conv.state_dict())
    assert torch.allclose(conv(x, edge_index), ref_conv(x, edge_index), rtol=1e-4, atol=1e-5)
    del pyg


@pytest.mark.parametrize("device,dtype,tol", [("cpu", torch.float64, 1e-12), ("cuda", torch.float32, 2e-6)])
def test_gatconv_matches_pyg(device, dtype, tol):
    """One GAT layer and its gradients against PyG's GATConv(heads=1) with the same weights."""
    pytest.importorskip("torch_geometric")
    from torch_geometric.nn import GATConv
    rng = np.random.default_rng(8)
    n = 400
    edges = rng.integers(0, n, size=(2, 3000))
    edge_index = torch.from_numpy(edges[:, edges[0] != edges[1]]).to(device)
    loops = torch.arange(n, device=device)
    graph = rt.SparseMatrix.from_edge_index(torch.cat([edge_index, torch.stack([loops, loops])], 1),
                                            torch.ones(edge_index.shape[1] + n, dtype=dtype, device=device), n)
    torch.manual_seed(0)
    ref = GATConv(24, 16, heads=1).to(device, dtype)
    conv = rt.GATConv(24, 16).to(device, dtype)
    conv.load_state_dict(ref.state_dict())
    x = torch.randn(n, 24, dtype=dtype, device=device, requires_grad=True)
    w = torch.randn(n, 16, dtype=dtype, device=device)
    out_ref, out = ref(x, edge_index), conv(x, graph)
    grads_ref = torch.autograd.grad((out_ref * w).sum(), [x, ref.lin.weight, ref.att_src, ref.att_dst])
    grads = torch.autograd.grad((out * w).sum(), [x, conv.lin.weight, conv.att_src, conv.att_dst])
    for got, expected in zip((out, *grads), (out_ref, *grads_ref)):
        assert ((got - expected).norm() / expected.norm()).item() <= tol


def test_bad_input_is_rejected():
    A, _, _ = make(CASES[0], torch.float32)
    with pytest.raises(TypeError):
        A.with_values(A.values.double()).mm(torch.randn(A.shape[1], 2, device="cuda", dtype=torch.float64))
    with pytest.raises(ValueError):
        A.mm(torch.randn(A.shape[1], 2))  # B on the CPU
    with pytest.raises(ValueError):
        A.mm(torch.randn(A.shape[1] + 1, 2, device="cuda"))
    m = rsh._rsh.CudaMatrixFloat(A.shape[1], A.crow_indices.numpy(), A.col_indices.numpy(), rsh.make_options(), 0)
    with pytest.raises(ValueError):
        m.set_slots(torch.zeros(m.num_slots + 1, device="cuda"), 0)
    with pytest.raises(ValueError):
        m.spmm(1.0, torch.zeros(A.shape[1], 4, device="cuda").half(), 0.0, torch.zeros(A.shape[0], 4, device="cuda"), 0)
    with pytest.raises(ValueError):
        m.spmm(1.0, torch.zeros(A.shape[1], 8, device="cuda")[:, ::2], 0.0,
               torch.zeros(A.shape[0], 4, device="cuda"), 0)
