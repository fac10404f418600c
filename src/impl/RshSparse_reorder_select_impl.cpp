#include "impl/RshSparse_reorder_select_impl.hpp"

#include "impl/RshSparse_partition_impl.hpp"
#include "impl/RshSparse_reorder_impl.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

OrderCost order_cost(const HostCrs& A, const Options& options, const std::vector<int>& order) {
  const RowPartition part = partition_rows(A, options, order);
  OrderCost c;
  c.windows = part.num_windows();
  WindowColumnCounter columns(A.num_cols);
  for (int w = 0; w < part.num_windows(); ++w)
    c.tiles += (columns.count(A, part.window_rows.data() + kWindowRows * w) + kTileCols - 1) / kTileCols;
  c.residual_rows = static_cast<int64_t>(part.residual_rows.size());
  for (int r : part.residual_rows) c.residual_nnz += A.row_map[r + 1] - A.row_map[r];
  return c;
}

ReorderChoice select_reorder(const HostCrs& A, const Options& options) {
  ReorderChoice best;
  double best_cost = 0, identity_cost = 0;
  for (Reorder policy : kAutoCandidates) {
    Options o = options;
    o.reorder = policy;
    std::vector<int> order = row_order(A, o);
    const OrderCost c = order_cost(A, options, order);
    best.considered.push_back({policy, c});
    if (policy == Reorder::kNone) {
      identity_cost = best_cost = c.cost();
      continue;
    }
    if (c.cost() < best_cost && c.cost() < (1.0 - kAutoMinGain) * identity_cost) {
      best_cost = c.cost();
      best.policy = policy;
      best.order = std::move(order);
    }
  }
  return best;
}

}  // namespace impl
}  // namespace rsh
