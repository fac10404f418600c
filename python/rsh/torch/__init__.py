"""PyTorch front end of rsh: a sparse matrix whose products and SDDMM carry gradients.

    import rsh.torch as rt
    A = rt.SparseMatrix.from_torch(adj_csr)          # or from_edge_index / the CSR tensors
    Y = A.mm(X)                                      # grads flow to X (through A^T) and A.values (SDDMM)
    s = A.sddmm(P, Q)                                # (P Q^T) at A's positions, in A's CSR order

CUDA tensors run the Tensor-Core kernels (float32, float16, bfloat16); CPU tensors the portable Kokkos kernels
(float32, float64).
"""
from ._sparse_matrix import SparseMatrix
from ._gat import GATConv
from ._gcn import GCNConv, gcn_norm, segment_softmax

__all__ = ["SparseMatrix", "GATConv", "GCNConv", "gcn_norm", "segment_softmax"]
