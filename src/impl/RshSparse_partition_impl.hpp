#pragma once
// Row partition: which rows form Tensor-Core windows and which go to the
// CUDA-core residual (DESIGN section 4).
#include <vector>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace impl {

struct RowPartition {
  std::vector<int> window_rows;    ///< 8 per window, original row ids, -1 = padding
  std::vector<int> residual_rows;  ///< non-empty rows for the CSR residual, in order
  int num_windows() const { return static_cast<int>(window_rows.size() / 8); }
};

/// Partitions the rows of A (columns sorted within rows) visited in `row_order`
/// (a permutation of [0, num_rows); empty = identity). Empty rows never start
/// a window and never enter the residual. Partition::kAuto partitions as
/// kRowStructured (what costs orders, e.g. Reorder::kAuto, sees that format).
RowPartition partition_rows(const HostCrs& A, const Options& options, const std::vector<int>& row_order = {});

}  // namespace impl
}  // namespace rsh
