#include "impl/RshSparse_partition_select_impl.hpp"

#include <algorithm>

#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

double PartitionCost::tensor_core_us(int value_bytes) const {
  if (value_bytes == 2) return 4.97 + 4.88e-3 * cta_max_tiles + 1.10e-3 * windows + 6.28e-5 * residual_nnz;
  return 4.50 + 9.16e-3 * cta_max_tiles + 1.14e-3 * windows + 1.23e-4 * residual_nnz;
}

double CudaCoreCost::us(int value_bytes) const {
  // Least squares over the 95 shared matrices under CudaCoreOnly at pieces of 4, 8, 16 and 32 (H100,
  // N = 128; scripts/fit_partition_model.py): picking the piece by it gives x0.953 FP16 / x0.942 TF32
  // rsh time against pieces of 16 (best piece x0.941 / x0.923). FP16: perf_tests/results/h100_2026-11-23e.md;
  // TF32 refit with FP32 lanes of 4 features: h100_2026-11-23g.md.
  if (value_bytes == 2) return 2.64 + 2.87e-4 * items + 1.78e-5 * nnz + 0.139 * longest + (split ? 0.171 : 0.0);
  return 2.53 + 4.35e-4 * items + 2.81e-5 * nnz + 0.125 * longest + (split ? 0.255 : 0.0);
}

double PartitionCost::cuda_core_us(int value_bytes) const {
  return cuda.us(value_bytes);
}

CudaCoreCost cuda_core_cost(const HostCrs& A, int piece_nnz, int max_len) {
  CudaCoreCost c;
  c.piece_nnz = piece_nnz;
  c.nnz = A.nnz();
  for (int64_t r = 0; r < A.num_rows; ++r) {
    const int64_t len = A.row_map[r + 1] - A.row_map[r];
    const ResidualCut cut = residual_cut(len, piece_nnz, max_len);
    if (cut.pieces == 0) continue;  // empty row
    c.items += cut.pieces;
    c.longest = std::max(c.longest, (len + cut.pieces - 1) / cut.pieces);
    c.split = c.split || cut.atomic;
  }
  return c;
}

CudaCoreCost best_cuda_core_cost(const HostCrs& A, const Options& options, int value_bytes) {
  const int max_len = options.max_residual_nnz_per_item;
  if (options.residual_piece_nnz != 0) return cuda_core_cost(A, options.residual_piece_nnz, max_len);
  CudaCoreCost best = cuda_core_cost(A, max_len, max_len);
  for (int piece : {4, 8, 2 * max_len})
    if (piece != max_len) {
      const CudaCoreCost c = cuda_core_cost(A, piece, max_len);
      if (c.us(value_bytes) < best.us(value_bytes)) best = c;
    }
  return best;
}

int residual_piece_nnz(const HostCrs& A, const Options& options, Partition partition, int value_bytes) {
  if (options.residual_piece_nnz != 0) return options.residual_piece_nnz;
  if (partition != Partition::kCudaCoreOnly) return options.max_residual_nnz_per_item;
  return best_cuda_core_cost(A, options, value_bytes).piece_nnz;
}

double PartitionCost::dense_blocks_us(int value_bytes) const {
  // Least squares on relative error over the 59 DLMC layers and ogbl-ddi run under DenseBlocks (H100,
  // N = 128, perf_tests/results/h100_2026-11-23e.md; scripts/fit_dense_model.py): max error 8% FP16, 16% TF32.
  if (value_bytes == 2) return 4.76 + 3.30e-6 * dense_slots;
  return 5.05 + 5.45e-6 * dense_slots;
}

bool PartitionCost::prefer_cuda_core(int value_bytes) const {
  if (!choice_needs_row_structured(nnz, value_bytes)) return true;  // TF32 past the model's range
  if (nnz > kPartitionModelMaxNnz) return false;                    // FP16 past it
  return cuda_core_us(value_bytes) < tensor_core_us(value_bytes);
}

Partition PartitionCost::choose(int value_bytes) const {
  const Partition sparse = prefer_cuda_core(value_bytes) ? Partition::kCudaCoreOnly : Partition::kRowStructured;
  if (dense_slots > kDenseModelMaxSlots) return sparse;
  const double sparse_us = sparse == Partition::kCudaCoreOnly ? cuda_core_us(value_bytes) : tensor_core_us(value_bytes);
  return dense_blocks_us(value_bytes) < sparse_us ? Partition::kDenseBlocks : sparse;
}

PartitionCost partition_cost(const HostCrs& A, const HostPattern& p, const Options& options, int value_bytes) {
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
  c.cuda = best_cuda_core_cost(A, options, value_bytes);
  return c;
}

}  // namespace impl
}  // namespace rsh
