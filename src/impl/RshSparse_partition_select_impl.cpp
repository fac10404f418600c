#include "impl/RshSparse_partition_select_impl.hpp"

#include <algorithm>

#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

double PartitionCost::tensor_core_us(int value_bytes) const {
  if (value_bytes == 2) return 5.41 + 5.13e-3 * cta_max_tiles + 8.87e-4 * windows + 1.16e-4 * residual_nnz;
  return 5.33 + 9.77e-3 * cta_max_tiles + 1.41e-3 * windows + 1.8e-4 * residual_nnz;
}

double PartitionCost::cuda_core_us(int value_bytes) const {
  if (value_bytes == 2) return 6.04 + 6.27e-4 * cuda_items + (cuda_split ? 2.99 : 0.0);
  return 6.10 + 8.83e-4 * cuda_items + (cuda_split ? 3.66 : 0.0);
}

bool PartitionCost::prefer_cuda_core(int value_bytes) const {
  return nnz <= kPartitionModelMaxNnz && cuda_core_us(value_bytes) < tensor_core_us(value_bytes);
}

PartitionCost partition_cost(const HostCrs& A, const HostPattern& p, const Options& options) {
  PartitionCost c;
  for (int first = 0; first < p.tc_num_items(); first += kWindowsPerCta) {
    int longest = 0;
    for (int i = first; i < std::min(p.tc_num_items(), first + kWindowsPerCta); ++i)
      longest = std::max(longest, p.tc_item_tile_end(i) - p.tc_item_tile_begin(i));
    c.cta_max_tiles += longest;
  }
  c.windows = p.num_windows();
  c.nnz = A.nnz();
  c.residual_nnz = static_cast<int64_t>(p.res_cols.extent(0));
  const int per_item = options.max_residual_nnz_per_item;
  for (int64_t r = 0; r < A.num_rows; ++r) {
    const ResidualCut cut = residual_cut(A.row_map[r + 1] - A.row_map[r], per_item);
    c.cuda_items += cut.pieces;
    c.cuda_split = c.cuda_split || cut.atomic;
  }
  return c;
}

}  // namespace impl
}  // namespace rsh
