"""GATConv (Velickovic et al.) on a SparseMatrix: attention values that change at every step."""
import torch

from ._gcn import segment_softmax


class GATConv(torch.nn.Module):
    """One attention head, no dropout: x'_i = sum_j softmax_j(LeakyReLU(a_dst . h_i + a_src . h_j)) h_j + b
    with h = x W, over the stored positions (i, j) of `graph` (a SparseMatrix with A[target, source], self
    loops included, e.g. SparseMatrix.from_edge_index). Parameters named and shaped as PyG's GATConv(heads=1),
    so its weights load as they are.

    The scores of all edges are one SDDMM with k = 2 (X = [a_dst . h, 1], Y = [1, a_src . h]); the product
    runs on the graph's pattern with the attention as its values (uploaded each call), and the backward pass
    gets the attention's gradient from an SDDMM."""

    def __init__(self, in_channels, out_channels, negative_slope=0.2, bias=True):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, out_channels, bias=False)
        self.att_src = torch.nn.Parameter(torch.empty(1, 1, out_channels))
        self.att_dst = torch.nn.Parameter(torch.empty(1, 1, out_channels))
        self.bias = torch.nn.Parameter(torch.zeros(out_channels)) if bias else None
        self.negative_slope = negative_slope
        self.reset_parameters()

    def reset_parameters(self):
        for p in (self.lin.weight, self.att_src, self.att_dst):
            torch.nn.init.xavier_uniform_(p)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    def attention(self, h, graph):
        """The attention coefficient of each stored position of `graph`, in its CSR order."""
        a_src = h @ self.att_src.view(-1)
        a_dst = h @ self.att_dst.view(-1)
        ones = torch.ones_like(a_src)
        scores = graph.sddmm(torch.stack([a_dst, ones], 1), torch.stack([ones, a_src], 1))
        return segment_softmax(torch.nn.functional.leaky_relu(scores, self.negative_slope), graph)

    def forward(self, x, graph):
        h = self.lin(x)
        out = graph.with_values(self.attention(h, graph)).mm(h)
        return out + self.bias if self.bias is not None else out
