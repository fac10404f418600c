#include "impl/RshSparse_reorder_select_impl.hpp"

#include "impl/RshSparse_reorder_impl.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/RshSparse_window_columns.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"

namespace rsh {
namespace impl {

OrderCost order_cost(const HostCrs& A, const Options& options, const std::vector<int>& order) {
  using HostExec = Kokkos::DefaultHostExecutionSpace;
  const HostExec exec;
  const SortedCrs<Kokkos::HostSpace> S = sorted_view_of(A);
  const RowRoles<Kokkos::HostSpace> roles = partition_on(exec, S, host_array(order), options);
  const auto row_map = S.row_map;
  const auto entries = S.entries;
  const auto window_rows = roles.window_rows;
  const auto res_rows = roles.res_rows;
  OrderCost c;
  c.windows = roles.num_windows();
  c.tiles = tally(
                exec, "rsh::order_cost::tiles", c.windows,
                KOKKOS_LAMBDA(const int64_t w, Tally& t) {
                  t.sum[0] +=
                      (merge_window_columns(row_map, entries, &window_rows(8 * w), [](int, int, int64_t, bool) {}) +
                       kTileCols - 1) /
                      kTileCols;
                })
                .sum[0];
  c.residual_rows = static_cast<int64_t>(res_rows.extent(0));
  c.residual_nnz =
      tally(
          exec, "rsh::order_cost::residual", c.residual_rows,
          KOKKOS_LAMBDA(const int64_t j, Tally& t) { t.sum[0] += row_map(res_rows(j) + 1) - row_map(res_rows(j)); })
          .sum[0];
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
