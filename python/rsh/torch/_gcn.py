"""GNN building blocks on SparseMatrix: GCN normalisation, a GCNConv layer, and a per-row softmax for
attention (GAT)."""
import torch

from ._sparse_matrix import SparseMatrix


def gcn_norm(edge_index, num_nodes=None, edge_weight=None, add_self_loops=True, dtype=torch.float32, **options):
    """D^-1/2 (A + I) D^-1/2 as a SparseMatrix, with A[target, source] = weight and D the weighted in-degree
    (self loops included), as PyG's gcn_norm for flow source_to_target: with add_self_loops, every node gets
    one self loop, of weight 1 unless it had one (its weight is kept; repeated self loops count once)."""
    edge_index = torch.as_tensor(edge_index)
    n = int(num_nodes) if num_nodes is not None else int(edge_index.max()) + 1 if edge_index.numel() else 0
    device = edge_index.device
    weight = (torch.ones(edge_index.shape[1], dtype=dtype, device=device) if edge_weight is None
              else torch.as_tensor(edge_weight, dtype=dtype, device=device))
    if add_self_loops:
        is_loop = edge_index[0] == edge_index[1]
        loop_weight = torch.ones(n, dtype=dtype, device=device)
        loop_weight[edge_index[0, is_loop]] = weight[is_loop]
        loops = torch.arange(n, device=device)
        edge_index = torch.cat([edge_index[:, ~is_loop], torch.stack([loops, loops])], dim=1)
        weight = torch.cat([weight[~is_loop], loop_weight])
    src, dst = edge_index[0], edge_index[1]
    deg = torch.zeros(n, dtype=dtype, device=device).index_add_(0, dst, weight)
    inv_sqrt = deg.pow(-0.5).masked_fill_(deg == 0, 0)
    return SparseMatrix.from_edge_index(edge_index, inv_sqrt[src] * weight * inv_sqrt[dst], num_nodes=n, **options)


class GCNConv(torch.nn.Module):
    """X' = A_hat (X W) + b (Kipf & Welling), with A_hat = gcn_norm(edge_index) or a given SparseMatrix.
    The layout of PyG's GCNConv (a bias-free `lin`, then `bias`), so its weights can be loaded as they are.
    forward(x, adj): adj is a SparseMatrix (used as is) or an edge_index (normalised; cached after the first
    call when cached=True, as PyG's transductive setting does)."""

    def __init__(self, in_channels, out_channels, bias=True, cached=True, add_self_loops=True, **options):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, out_channels, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros(out_channels)) if bias else None
        self.cached, self.add_self_loops, self.options = cached, add_self_loops, options
        self._cached_adj = None
        self.reset_parameters()

    def reset_parameters(self):
        torch.nn.init.xavier_uniform_(self.lin.weight)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)
        self._cached_adj = None

    def normalized(self, x, edge_index):
        if self._cached_adj is not None:
            return self._cached_adj
        adj = gcn_norm(edge_index, x.shape[0], add_self_loops=self.add_self_loops, dtype=x.dtype, **self.options)
        if self.cached:
            self._cached_adj = adj
        return adj

    def forward(self, x, adj):
        if not isinstance(adj, SparseMatrix):
            adj = self.normalized(x, adj)
        out = adj.mm(self.lin(x))
        return out + self.bias if self.bias is not None else out


def segment_softmax(scores, A):
    """Softmax of per-position scores over each row of A's pattern (the neighbours a node attends to)."""
    rows = A.row_of_entry()
    n = A.shape[0]
    row_max = torch.full((n,), float("-inf"), dtype=scores.dtype, device=scores.device)
    row_max = row_max.scatter_reduce(0, rows, scores.detach(), reduce="amax", include_self=True)
    e = torch.exp(scores - row_max[rows])
    total = torch.zeros(n, dtype=scores.dtype, device=scores.device).index_add_(0, rows, e)
    return e / total[rows]
