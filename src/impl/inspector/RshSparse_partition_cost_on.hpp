#pragma once
// The terms of Partition::kAuto's time models (PartitionCost), gathered on
// the inspector's execution space.
#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"

namespace rsh {
namespace impl {

/// CudaCoreOnly's cost with pieces of piece_nnz, from A's row offsets (num_rows + 1 of them).
template <class ExecSpace, class RowMap>
CudaCoreCost cuda_core_cost_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows, int piece_nnz,
                               int max_len) {
  const Tally t = tally(
      exec, "rsh::inspect::cuda_core_cost", num_rows, KOKKOS_LAMBDA(const int64_t r, Tally& s) {
        const int64_t len = static_cast<int64_t>(row_map(r + 1)) - static_cast<int64_t>(row_map(r));
        const ResidualCut cut = residual_cut(len, piece_nnz, max_len);
        if (cut.pieces == 0) return;  // empty row
        s.sum[0] += cut.pieces;
        const int64_t longest = (len + cut.pieces - 1) / cut.pieces;
        if (longest > s.max[0]) s.max[0] = longest;
        if (cut.atomic) s.max[1] = 1;
      });
  CudaCoreCost c;
  c.piece_nnz = piece_nnz;
  c.nnz = num_rows ? static_cast<int64_t>(read_back(row_map, num_rows)) : 0;
  c.items = t.sum[0];
  c.longest = t.max[0] > 0 ? t.max[0] : 0;
  c.split = t.max[1] == 1;
  return c;
}

/// The piece length of CudaCoreOnly: options.tuning.residual_piece_nnz when set, else the one of 4, 8,
/// max_residual_nnz_per_item and twice that which the model predicts fastest at the multiply's N (FP64's
/// best piece differs between N = 64 and 128: perf_tests/results/MODELS.md).
template <class ExecSpace, class RowMap>
CudaCoreCost best_cuda_core_cost_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows,
                                    const Options& options, Arithmetic arith) {
  const int max_len = options.tuning.max_residual_nnz_per_item;
  if (options.tuning.residual_piece_nnz != 0)
    return cuda_core_cost_on(exec, row_map, num_rows, options.tuning.residual_piece_nnz, max_len);
  const int num_vectors = model_num_vectors(options);
  CudaCoreCost best = cuda_core_cost_on(exec, row_map, num_rows, max_len, max_len);
  for (int piece : {4, 8, 2 * max_len})
    if (piece != max_len) {
      const CudaCoreCost c = cuda_core_cost_on(exec, row_map, num_rows, piece, max_len);
      if (c.us(arith, num_vectors) < best.us(arith, num_vectors)) best = c;
    }
  return best;
}

/// The residual piece length for `partition` (see residual_piece_nnz).
template <class ExecSpace, class RowMap>
int residual_piece_nnz_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows, const Options& options,
                          Partition partition, Arithmetic arith) {
  if (options.tuning.residual_piece_nnz != 0) return options.tuning.residual_piece_nnz;
  if (partition != Partition::kCudaCoreOnly) return options.tuning.max_residual_nnz_per_item;
  return best_cuda_core_cost_on(exec, row_map, num_rows, options, arith).piece_nnz;
}

/// Costs of an m x n matrix with row offsets `row_map` given its scheduled RowStructured pattern `p`
/// (empty where kAuto's choice does without it: choice_needs_row_structured).
template <class ExecSpace, class RowMap>
PartitionCost partition_cost_on(const ExecSpace& exec, int64_t m, int64_t n, const RowMap& row_map,
                                const RsTilePattern<typename ExecSpace::memory_space>& p, const Options& options,
                                Arithmetic arith) {
  PartitionCost c;
  const int items = p.tc_num_items();
  const auto begin = p.tc_item_tile_begin, end = p.tc_item_tile_end;
  const Tally ctas = tally(
      exec, "rsh::inspect::cta_tiles", (items + kWindowsPerCta - 1) / kWindowsPerCta,
      KOKKOS_LAMBDA(const int64_t cta, Tally& s) {
        int longest = 0;
        for (int64_t i = cta * kWindowsPerCta; i < items && i < (cta + 1) * kWindowsPerCta; ++i)
          longest = end(i) - begin(i) > longest ? end(i) - begin(i) : longest;
        s.sum[0] += longest;
      });
  c.cta_max_tiles = ctas.sum[0];
  c.windows = p.num_windows();
  c.dense_slots = DenseBlockLayout::slots(m, n);
  c.residual_nnz = static_cast<int64_t>(p.res_cols.extent(0));
  c.cuda = best_cuda_core_cost_on(exec, row_map, m, options, arith);
  c.nnz = c.cuda.nnz;
  c.rows = m;
  return c;
}

}  // namespace impl
}  // namespace rsh
