#pragma once
// The terms of Partition::kAuto's time models (PartitionCost), gathered on
// the inspector's execution space.
#include <stdexcept>
#include <vector>

#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"
#include "impl/inspector/RshSparse_schedule_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// The most piece lengths cuda_core_costs_on counts in one pass.
constexpr int kMaxCostPieces = 4;

/// Per piece length: CudaCoreOnly's work items, its longest item's nonzeros, and whether a row is cut into
/// pieces that add with atomics; and the nonzeros.
struct PieceTally {
  int64_t items[kMaxCostPieces], longest[kMaxCostPieces], split[kMaxCostPieces];
  int64_t nnz;
};

template <class RowMap>
struct PieceTallyFunctor {
  using value_type = PieceTally;
  RowMap row_map;
  int piece_nnz[kMaxCostPieces];
  int count, max_len;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t r, value_type& t) const {
    const int64_t len = static_cast<int64_t>(row_map(r + 1)) - static_cast<int64_t>(row_map(r));
    t.nnz += len;
    for (int j = 0; j < count; ++j) {
      const ResidualCut cut = residual_cut(len, piece_nnz[j], max_len);
      if (cut.pieces == 0) continue;  // empty row
      t.items[j] += cut.pieces;
      const int64_t longest = (len + cut.pieces - 1) / cut.pieces;
      if (longest > t.longest[j]) t.longest[j] = longest;
      if (cut.atomic) t.split[j] = 1;
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& t) const {
    for (int j = 0; j < kMaxCostPieces; ++j) t.items[j] = 0, t.longest[j] = 0, t.split[j] = 0;
    t.nnz = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(RSH_JOIN_VOLATILE value_type& dst, const RSH_JOIN_VOLATILE value_type& src) const {
    for (int j = 0; j < kMaxCostPieces; ++j) {
      dst.items[j] += src.items[j];
      dst.longest[j] = dst.longest[j] < src.longest[j] ? src.longest[j] : dst.longest[j];
      dst.split[j] = dst.split[j] | src.split[j];
    }
    dst.nnz += src.nnz;
  }
};

/// CudaCoreOnly's cost with pieces of each of piece_nnz[0 .. count) (count <= kMaxCostPieces) nonzeros,
/// from A's row offsets (num_rows + 1 of them), in one pass over the rows.
template <class ExecSpace, class RowMap>
std::vector<CudaCoreCost> cuda_core_costs_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows,
                                             const int* piece_nnz, int count, int max_len) {
  if (count < 1 || count > kMaxCostPieces) throw std::logic_error("rsh::inspect: piece lengths to cost");
  PieceTallyFunctor<RowMap> f{row_map, {}, count, max_len};
  for (int j = 0; j < count; ++j) f.piece_nnz[j] = piece_nnz[j];
  PieceTally t;
  Kokkos::parallel_reduce("rsh::inspect::cuda_core_cost", Range64<ExecSpace>(exec, 0, num_rows), f, t);
  std::vector<CudaCoreCost> costs(static_cast<size_t>(count));
  for (int j = 0; j < count; ++j) {
    CudaCoreCost& c = costs[static_cast<size_t>(j)];
    c.piece_nnz = piece_nnz[j], c.nnz = t.nnz, c.items = t.items[j], c.longest = t.longest[j];
    c.split = t.split[j] != 0;
  }
  return costs;
}

/// CudaCoreOnly's cost with pieces of piece_nnz.
template <class ExecSpace, class RowMap>
CudaCoreCost cuda_core_cost_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows, int piece_nnz,
                               int max_len) {
  return cuda_core_costs_on(exec, row_map, num_rows, &piece_nnz, 1, max_len).front();
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
  const int pieces[kMaxCostPieces] = {max_len, 4, 8, 2 * max_len};
  const std::vector<CudaCoreCost> costs = cuda_core_costs_on(exec, row_map, num_rows, pieces, kMaxCostPieces, max_len);
  CudaCoreCost best = costs.front();
  for (const CudaCoreCost& c : costs)
    if (c.piece_nnz != max_len && c.us(arith, num_vectors) < best.us(arith, num_vectors)) best = c;
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
  // The Tensor-Core term (cta_max_tiles_on) and the residual's nonzeros (residual_nnz_on) in one pass.
  const int64_t items = static_cast<int64_t>(tc.window.extent(0)), ctas = tc_ctas(items);
  const int64_t R = static_cast<int64_t>(roles.res_rows.extent(0));
  const auto row_map = A.row_map;
  const auto res_rows = roles.res_rows;
  const auto item_begin = tc.begin, item_end = tc.end;
  const Tally terms = tally(
      exec, "rsh::inspect::counted_terms", ctas > R ? ctas : R, KOKKOS_LAMBDA(const int64_t i, Tally& t) {
        if (i < ctas) t.sum[0] += cta_longest_item(i, items, item_begin, item_end);
        if (i < R) t.sum[1] += row_map(res_rows(i) + 1) - row_map(res_rows(i));
      });
  PartitionCost c;
  c.cta_max_tiles = terms.sum[0];
  c.windows = W;
  c.residual_nnz = terms.sum[1];
  add_pattern_free_terms_on(exec, A.num_rows, A.num_cols, A.row_map, options, arith, c);
  return c;
}

}  // namespace impl
}  // namespace rsh
