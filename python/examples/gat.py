"""A 2-layer GAT (one head, hidden 128) trained with rsh.torch.GATConv against PyG's GATConv on the same
graphs, weights and data. The attention values change at every step (see GATConv: an SDDMM for the scores,
a per-row softmax, a product with the attention as the values; SDDMM again in the backward pass).

    python gat.py --graphs cora.mtx.gz --rmat 20 16000000 --epochs 30 --out gat.json
"""
import copy

import torch
import torch_geometric

import rsh.torch as rt
from gnn_common import TwoLayer, max_relative_gap, node_data, run_examples, train


def with_self_loops(edge_index, num_nodes):
    loops = torch.arange(num_nodes, device=edge_index.device)
    return torch.cat([edge_index, torch.stack([loops, loops])], dim=1)


def run_graph(name, edge_index, num_nodes, args):
    device = torch.device("cuda")
    edge_index = edge_index.to(device)
    x, y = node_data(num_nodes, args.features, args.classes, seed=1, device=device)
    torch.manual_seed(0)
    pyg = TwoLayer(lambda i, o: torch_geometric.nn.GATConv(i, o, heads=1), args.features, args.hidden,
              args.classes).to(device)
    initial = copy.deepcopy(pyg.state_dict())
    rows = [dict(graph=name, impl="pyg_message_passing", nodes=num_nodes, edges=int(edge_index.shape[1]),
                 **train(pyg, lambda: pyg(x, edge_index), y, args.epochs))]
    # PyG again from the same weights: its gap to the first run is the float32 noise floor of the loss curve
    # (attention amplifies rounding differences, e.g. the order of PyG's atomic sums, over the epochs).
    again = TwoLayer(lambda i, o: torch_geometric.nn.GATConv(i, o, heads=1), args.features, args.hidden,
                args.classes).to(device)
    again.load_state_dict(initial)
    rows.append(dict(graph=name, impl="pyg_repeat", **train(again, lambda: again(x, edge_index), y, args.epochs)))
    for impl, allow_tf32 in (("rsh_fp32", False), ("rsh_tf32", True)):
        model = TwoLayer(rt.GATConv, args.features, args.hidden, args.classes).to(device)
        model.load_state_dict(initial)
        graph = rt.SparseMatrix.from_edge_index(with_self_loops(edge_index, num_nodes), num_nodes=num_nodes,
                                                allow_tf32=allow_tf32)
        rows.append(dict(graph=name, impl=impl, **train(model, lambda: model(x, graph), y, args.epochs)))
    for r in rows[1:]:
        r["loss_gap"] = max_relative_gap(r["losses"], rows[0]["losses"])
        r["speedup_vs_pyg"] = rows[0]["epoch_ms"] / r["epoch_ms"]
    return rows


if __name__ == "__main__":
    run_examples(run_graph, __doc__, epochs=30)
