#include "impl/RshSparse_partition_select_impl.hpp"

#include <algorithm>

#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

double PartitionCost::tensor_core_us(int value_bytes) const {
  if (value_bytes == 2) return 4.85 + 5.26e-3 * cta_max_tiles + 8.28e-4 * windows + 6.53e-5 * residual_nnz;
  return 4.51 + 9.61e-3 * cta_max_tiles + 8.79e-4 * windows + 1.45e-4 * residual_nnz;
}

double PartitionCost::cuda_core_us(int value_bytes) const {
  if (value_bytes == 2) return 4.39 + 4.66e-4 * cuda_items + (cuda_split ? 2.88 : 0.0);
  return 4.33 + 7.89e-4 * cuda_items + (cuda_split ? 3.29 : 0.0);
}

double PartitionCost::dense_blocks_us(int value_bytes) const {
  // Least squares over the 59 DLMC layers run under DenseBlocks (H100, N = 128,
  // perf_tests/results/h100_2026-11-23d.md; scripts/fit_dense_model.py): max residual 1.2 us FP16, 2.1 us TF32.
  if (value_bytes == 2) return 4.88 + 2.98e-6 * dense_slots;
  return 5.00 + 5.97e-6 * dense_slots;
}

bool PartitionCost::prefer_cuda_core(int value_bytes) const {
  return nnz <= kPartitionModelMaxNnz && cuda_core_us(value_bytes) < tensor_core_us(value_bytes);
}

Partition PartitionCost::choose(int value_bytes) const {
  const Partition sparse = prefer_cuda_core(value_bytes) ? Partition::kCudaCoreOnly : Partition::kRowStructured;
  if (dense_slots > kDenseModelMaxSlots) return sparse;
  const double sparse_us = sparse == Partition::kCudaCoreOnly ? cuda_core_us(value_bytes) : tensor_core_us(value_bytes);
  return dense_blocks_us(value_bytes) < sparse_us ? Partition::kDenseBlocks : sparse;
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
  c.dense_slots = DenseBlockLayout::slots(A.num_rows, A.num_cols);
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
