#pragma once
// Row permutations of "Learning Sparse Matrix Row Permutations" (DESIGN
// section 5), mapped onto the RS-Tile kernel: the paper's warp is one 8-row
// window and its CTA 8 consecutive windows (see rsh::Reorder). Load
// balancing sorts use a row's nonzero count as its warp load; cache-aware
// sorts compare bit masks (the column blocks a row touches) by Hamming
// distance, finding near rows through an inverted index with bounded work
// per row so that they scale to millions of rows.
#include <vector>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

/// The order (position -> original row) of one of the load-balancing or
/// Hamming policies (kPlainSort .. kHybrid2_3) for a sorted-rows CSR.
/// Throws std::invalid_argument for other policies or bad options.
std::vector<int> permutation_order(const HostCrs& A, Reorder policy, const ReorderOptions& options);

}  // namespace impl
}  // namespace rsh
