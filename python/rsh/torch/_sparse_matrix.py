"""rsh.torch.SparseMatrix: a CSR matrix whose products with dense tensors run rsh's kernels."""
import numpy as np
import torch

from .. import make_options
from ._autograd import SDDMM, SpMM
from ._pattern import Pattern


class SparseMatrix:
    """A sparse matrix (CSR) for `A @ B`, `A.t() @ B` and `A.sddmm(X, Y)`, differentiable in its values and
    in the dense operands. The pattern is inspected once per device and dtype and shared by `t()`,
    `with_values()` and the gradients; new values (`update_values`, or a new values tensor each step, as
    attention has) are uploaded on the next product.

    Options (keywords, or `options=rsh.make_options(...)`): partition, reorder, allow_tf32 (float32 on CUDA
    may use TF32 Tensor-Core operands; the default keeps FP32-level accuracy with 3xTF32), deterministic,
    expected_multiplies, expected_num_vectors (the columns of the products the partition is chosen for; 0 means
    128: the pattern is inspected before the first product).
    """

    def __init__(self, crow_indices, col_indices, values, size, *, options=None, **option_kwargs):
        if options is None:
            options = make_options(**option_kwargs)
        elif option_kwargs:
            raise TypeError("rsh: pass options either as `options` or as keywords")
        if isinstance(crow_indices, Pattern):  # internal: a shared pattern
            self._pattern = crow_indices
        else:
            self._pattern = Pattern(torch.as_tensor(crow_indices).cpu().numpy(),
                                    torch.as_tensor(col_indices).cpu().numpy(), size, options)
        values = torch.as_tensor(values)
        if values.shape != (self._pattern.nnz,):
            raise ValueError(f"rsh: {self._pattern.nnz} stored positions but values of shape {tuple(values.shape)}")
        self.values = values

    # ---- construction -------------------------------------------------------------------------------
    @classmethod
    def from_torch(cls, A, **options):
        """From a torch sparse CSR or COO tensor (COO is coalesced: duplicates summed)."""
        if A.layout == torch.sparse_coo:
            A = A.coalesce().to_sparse_csr()
        if A.layout != torch.sparse_csr:
            raise TypeError(f"rsh: from_torch takes a sparse CSR or COO tensor, got layout {A.layout}")
        return cls(A.crow_indices(), A.col_indices(), A.values(), tuple(A.shape), **options)

    @classmethod
    def from_edge_index(cls, edge_index, values=None, num_nodes=None, **options):
        """The aggregation matrix of a PyG-style edge_index (2 x E, source row 0, target row 1): A[target,
        source] = value (1 by default), so A @ X sums each node's incoming messages. Duplicates are kept
        and summed by the products. Values follow the CSR order: `A.values` is reordered, and
        `A.edge_order` gives the edge each stored position came from."""
        edge_index = torch.as_tensor(edge_index)
        if edge_index.dim() != 2 or edge_index.shape[0] != 2:
            raise ValueError(f"rsh: edge_index must be 2 x E, got {tuple(edge_index.shape)}")
        src, dst = edge_index[0].cpu().numpy(), edge_index[1].cpu().numpy()
        n = int(num_nodes) if num_nodes is not None else int(max(src.max(initial=-1), dst.max(initial=-1)) + 1)
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
            raise ValueError(f"rsh: edge_index has a node outside [0, {n})")
        order = np.lexsort((src, dst))
        row_map = np.concatenate(([0], np.cumsum(np.bincount(dst, minlength=n)))).astype(np.int64)
        if values is None:
            values = torch.ones(src.size, device=edge_index.device)
        order_t = torch.from_numpy(order).to(torch.as_tensor(values).device)
        matrix = cls(row_map, src[order].astype(np.int32), torch.as_tensor(values)[order_t], (n, n), **options)
        matrix.edge_order = order_t
        return matrix

    def with_values(self, values):
        """The same pattern (and compiled kernels) with other values, e.g. attention coefficients."""
        return SparseMatrix(self._pattern, None, values, self.shape)

    def update_values(self, values):
        """Replaces the values (same pattern); the next product uses them."""
        values = torch.as_tensor(values)
        if values.shape != self.values.shape:
            raise ValueError(f"rsh: expected {self.values.shape[0]} values, got shape {tuple(values.shape)}")
        self.values = values

    # ---- products -----------------------------------------------------------------------------------
    def mm(self, B):
        """A @ B for a dense B (num_cols x n); differentiable in B and in A's values."""
        return SpMM.apply(self.values, B, self._pattern)

    __matmul__ = mm

    def t(self):
        """A^T, sharing A's values through a differentiable gather (the transposed pattern is built once)."""
        pattern_t, _ = self._pattern.transposed()
        return SparseMatrix(pattern_t, None, self.values[self._pattern.transpose_perm(self.values.device)],
                            (self.shape[1], self.shape[0]))

    def sddmm(self, X, Y):
        """(X @ Y^T) at A's stored positions, in A's CSR order (A's values are not read): X is num_rows x k,
        Y num_cols x k. Differentiable in X and Y."""
        return SDDMM.apply(X, Y, self._pattern)

    # ---- inspection ---------------------------------------------------------------------------------
    @property
    def shape(self):
        return (self._pattern.num_rows, self._pattern.num_cols)

    @property
    def nnz(self):
        return self._pattern.nnz

    @property
    def crow_indices(self):
        return torch.from_numpy(self._pattern.row_map)

    @property
    def col_indices(self):
        return torch.from_numpy(self._pattern.entries)

    def row_of_entry(self):
        """Row of each stored position, on the values' device."""
        return self._pattern.row_of_entry(self.values.device)

    def to_torch(self):
        """As a torch sparse CSR tensor on the values' device."""
        device = self.values.device
        return torch.sparse_csr_tensor(self.crow_indices.to(device), self.col_indices.to(torch.int64).to(device),
                                       self.values.detach(), self.shape)

    def describe(self, device=None, dtype=None):
        """How the products run on a device and dtype (default: the values'): partition, order, kernels."""
        device = torch.device(device) if device is not None else self.values.device
        return self._pattern.kernel(device, dtype or self.values.dtype).describe()

    def __repr__(self):
        return (f"rsh.torch.SparseMatrix(shape={self.shape}, nnz={self.nnz}, dtype={self.values.dtype}, "
                f"device={self.values.device})")
