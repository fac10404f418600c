#pragma once
// The terms of Partition::kAuto's time models (PartitionCost), gathered on
// the inspector's execution space.
#include <stdexcept>

#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"
#include "impl/inspector/RshSparse_schedule_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

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
  c.nnz = num_rows ? static_cast<int64_t>(read_back(exec, row_map, num_rows)) : 0;
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

/// The terms of PartitionCost that do not depend on the RowStructured pattern: dense slots and the
/// CUDA-core cost of an m x n matrix with row offsets `row_map`.
template <class ExecSpace, class RowMap>
void add_pattern_free_terms_on(const ExecSpace& exec, int64_t m, int64_t n, const RowMap& row_map,
                               const Options& options, Arithmetic arith, PartitionCost& c) {
  c.dense_slots = DenseBlockLayout::slots(m, n);
  c.cuda = best_cuda_core_cost_on(exec, row_map, m, options, arith);
  c.nnz = c.cuda.nnz;
  c.rows = m;
}

/// Costs of an m x n matrix with row offsets `row_map` given its scheduled RowStructured pattern `p`
/// (empty where kAuto's choice does without it: choice_needs_row_structured).
template <class ExecSpace, class RowMap>
PartitionCost partition_cost_on(const ExecSpace& exec, int64_t m, int64_t n, const RowMap& row_map,
                                const RsTilePattern<typename ExecSpace::memory_space>& p, const Options& options,
                                Arithmetic arith) {
  PartitionCost c;
  c.cta_max_tiles = cta_max_tiles_on(exec, p.tc_num_items(), p.tc_item_tile_begin, p.tc_item_tile_end);
  c.windows = p.num_windows();
  c.residual_nnz = static_cast<int64_t>(p.res_cols.extent(0));
  add_pattern_free_terms_on(exec, m, n, row_map, options, arith, c);
  return c;
}

/// The same costs for sorted A in `order` (empty = identity), counted from its RowStructured partition
/// without building the pattern: each window's distinct columns merged without keeping their ranks, and
/// the Tensor-Core items schedule_on would make of those tiles (tc_items_on). kAuto then builds only the
/// partition it chooses.
template <class ExecSpace>
PartitionCost partition_cost_counted_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                                        const View1<const int, typename ExecSpace::memory_space>& order,
                                        const Options& options, Arithmetic arith) {
  using Mem = typename ExecSpace::memory_space;
  Options row_structured = options;
  row_structured.partition = Partition::kRowStructured;
  const RowRoles<Mem> roles = partition_on(exec, A, order, row_structured);
  if (roles.split || roles.one_entry_per_column)
    throw std::logic_error("rsh::inspect: a RowStructured partition keeps rows whole, a tile column per column");
  const int W = roles.num_windows();
  const auto window_tile_offset = scratch_zeros<int>(exec, "rsh::inspect::counted_tile_offset", W + 1);
  window_ranks_on<false>(
      exec, A, ListedWindows<Mem>{roles.window_rows}, W, long_window_nnz(exec, options, A.nnz),
      KOKKOS_LAMBDA(const int64_t w, const int distinct) { window_tile_offset(w) = (distinct + 7) / 8; });
  scan_offsets(
      exec, "rsh::inspect::counted_tile_offsets", W, window_tile_offset,
      KOKKOS_LAMBDA(const int64_t w) { return int64_t(window_tile_offset(w)); });
  const TcItems<Mem> tc =
      tc_items_on(exec, window_tile_offset, W, options.tuning.max_tiles_per_item, View1<uint8_t, Mem>());
  PartitionCost c;
  c.cta_max_tiles = cta_max_tiles_on(exec, static_cast<int64_t>(tc.window.extent(0)), tc.begin, tc.end);
  c.windows = W;
  c.residual_nnz = residual_nnz_on(exec, A, roles);
  add_pattern_free_terms_on(exec, A.num_rows, A.num_cols, A.row_map, options, arith, c);
  return c;
}

}  // namespace impl
}  // namespace rsh
