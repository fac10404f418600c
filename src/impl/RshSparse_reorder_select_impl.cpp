#include "impl/RshSparse_reorder_select_impl.hpp"

#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_reorder_on.hpp"

namespace rsh {
namespace impl {

OrderCost order_cost(const HostCrs& A, const Options& options, const std::vector<int>& order) {
  return order_cost_on(Kokkos::DefaultHostExecutionSpace(), sorted_view_of(A), host_array(order), options);
}

int64_t b_row_misses(const HostCrs& A, const std::vector<int>& order, int64_t cache_rows) {
  return b_row_misses_on(Kokkos::DefaultHostExecutionSpace(), sorted_view_of(A), host_array(order), cache_rows);
}

ReorderChoice select_reorder(const HostCrs& A, const Options& options) {
  const RowOrderOf<Kokkos::HostSpace> chosen =
      select_reorder_on(Kokkos::DefaultHostExecutionSpace(), sorted_view_of(A), options, /*try_minhash*/ true);
  ReorderChoice c;
  c.policy = chosen.policy;
  c.order.assign(chosen.order.data(), chosen.order.data() + chosen.order.extent(0));
  c.considered = chosen.considered;
  return c;
}

}  // namespace impl
}  // namespace rsh
