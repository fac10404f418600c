"""A 2-layer GCN (hidden 128) trained with rsh against PyG on the same graphs, weights and data:
PyG's GCNConv (message passing) and a torch.sparse_csr adjacency (cuSPARSE). Prints time per epoch and the
loss curves' largest gap.

    python gcn.py --graphs cora.mtx.gz pubmed.mtx.gz --rmat 20 16000000 --epochs 50 --out gcn.json
"""
import copy

import torch
import torch_geometric

import rsh.torch as rt
from gnn_common import TwoLayer, max_relative_gap, node_data, run_examples, train


class TorchSparseConv(torch.nn.Module):
    """GCNConv's computation with a torch.sparse_csr A_hat: A_hat @ (x W) + b (torch.sparse.mm: cuSPARSE)."""

    def __init__(self, features, out):
        super().__init__()
        self.lin = torch.nn.Linear(features, out, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros(out))

    def forward(self, x, adj):
        return torch.sparse.mm(adj, self.lin(x)) + self.bias


def run_graph(name, edge_index, num_nodes, args):
    device = torch.device("cuda")
    edge_index = edge_index.to(device)
    x, y = node_data(num_nodes, args.features, args.classes, seed=1, device=device)
    torch.manual_seed(0)
    pyg = TwoLayer(lambda i, o: torch_geometric.nn.GCNConv(i, o, cached=True), args.features, args.hidden,
              args.classes).to(device)
    initial = copy.deepcopy(pyg.state_dict())  # every model starts from these weights
    rows = [dict(graph=name, impl="pyg_message_passing", nodes=num_nodes, edges=int(edge_index.shape[1]),
                 **train(pyg, lambda: pyg(x, edge_index), y, args.epochs))]

    a_hat = rt.gcn_norm(edge_index, num_nodes)
    sparse = TwoLayer(TorchSparseConv, args.features, args.hidden, args.classes).to(device)
    sparse.load_state_dict(initial)
    csr = a_hat.to_torch()
    rows.append(dict(graph=name, impl="torch_sparse_csr", **train(sparse, lambda: sparse(x, csr), y, args.epochs)))

    for impl, allow_tf32 in (("rsh_fp32", False), ("rsh_tf32", True)):
        model = TwoLayer(rt.GCNConv, args.features, args.hidden, args.classes).to(device)
        model.load_state_dict(initial)
        adj = rt.gcn_norm(edge_index, num_nodes, allow_tf32=allow_tf32)
        rows.append(dict(graph=name, impl=impl, **train(model, lambda: model(x, adj), y, args.epochs)))
    for r in rows[1:]:
        r["loss_gap"] = max_relative_gap(r["losses"], rows[0]["losses"])
        r["speedup_vs_pyg"] = rows[0]["epoch_ms"] / r["epoch_ms"]
    rows[2]["speedup_vs_torch_sparse"] = rows[1]["epoch_ms"] / rows[2]["epoch_ms"]
    rows[3]["speedup_vs_torch_sparse"] = rows[1]["epoch_ms"] / rows[3]["epoch_ms"]
    return rows


if __name__ == "__main__":
    run_examples(run_graph, __doc__, epochs=50)
