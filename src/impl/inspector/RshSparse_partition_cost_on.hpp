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
#include "impl/inspector/RshSparse_window_counts_on.hpp"
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

/// CudaCoreOnly's costs from a PieceTally of the piece lengths of `f`.
template <class RowMap>
std::vector<CudaCoreCost> cuda_core_costs_of(const PieceTallyFunctor<RowMap>& f, const PieceTally& t) {
  std::vector<CudaCoreCost> costs(static_cast<size_t>(f.count));
  for (int j = 0; j < f.count; ++j) {
    CudaCoreCost& c = costs[static_cast<size_t>(j)];
    c.piece_nnz = f.piece_nnz[j], c.nnz = t.nnz, c.items = t.items[j], c.longest = t.longest[j];
    c.split = t.split[j] != 0;
  }
  return costs;
}

/// The piece lengths CudaCoreOnly's cost is counted at under `options`: options.tuning.residual_piece_nnz
/// when set, else max_residual_nnz_per_item, 4, 8 and twice the first (best_cuda_core_cost_of picks one).
template <class RowMap>
PieceTallyFunctor<RowMap> cuda_core_pieces(const RowMap& row_map, const Options& options) {
  const int max_len = options.tuning.max_residual_nnz_per_item;
  PieceTallyFunctor<RowMap> f{row_map, {max_len, 4, 8, 2 * max_len}, kMaxCostPieces, max_len};
  if (options.tuning.residual_piece_nnz != 0) f.piece_nnz[0] = options.tuning.residual_piece_nnz, f.count = 1;
  return f;
}

/// The fastest of `costs` by the model at the multiply's N (FP64's best piece differs between N = 64 and
/// 128: perf_tests/results/MODELS.md), the first of equals.
inline CudaCoreCost best_cuda_core_cost_of(const std::vector<CudaCoreCost>& costs, const Options& options,
                                           Arithmetic arith) {
  const int num_vectors = model_num_vectors(options);
  CudaCoreCost best = costs.front();
  for (const CudaCoreCost& c : costs)
    if (c.us(arith, num_vectors) < best.us(arith, num_vectors)) best = c;
  return best;
}

/// CudaCoreOnly's costs at the piece lengths of `f` over A's row offsets (num_rows + 1 of them), in one
/// pass over the rows.
template <class ExecSpace, class RowMap>
std::vector<CudaCoreCost> cuda_core_costs_on(const ExecSpace& exec, const PieceTallyFunctor<RowMap>& f,
                                             int64_t num_rows) {
  if (f.count < 1 || f.count > kMaxCostPieces) throw std::logic_error("rsh::inspect: piece lengths to cost");
  PieceTally t;
  Kokkos::parallel_reduce("rsh::inspect::cuda_core_cost", Range64<ExecSpace>(exec, 0, num_rows), f, t);
  return cuda_core_costs_of(f, t);
}

/// CudaCoreOnly's cost with pieces of piece_nnz.
template <class ExecSpace, class RowMap>
CudaCoreCost cuda_core_cost_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows, int piece_nnz,
                               int max_len) {
  return cuda_core_costs_on(exec, PieceTallyFunctor<RowMap>{row_map, {piece_nnz}, 1, max_len}, num_rows).front();
}

/// The piece length of CudaCoreOnly: options.tuning.residual_piece_nnz when set, else the one of 4, 8,
/// max_residual_nnz_per_item and twice that which the model predicts fastest at the multiply's N.
template <class ExecSpace, class RowMap>
CudaCoreCost best_cuda_core_cost_on(const ExecSpace& exec, const RowMap& row_map, int64_t num_rows,
                                    const Options& options, Arithmetic arith) {
  return best_cuda_core_cost_of(cuda_core_costs_on(exec, cuda_core_pieces(row_map, options), num_rows), options, arith);
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
/// CUDA-core cost `cuda` of an m x n matrix.
inline void add_pattern_free_terms(int64_t m, int64_t n, const CudaCoreCost& cuda, PartitionCost& c) {
  c.dense_slots = DenseBlockLayout::slots(m, n);
  c.cuda = cuda;
  c.nnz = cuda.nnz;
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
  add_pattern_free_terms(m, n, best_cuda_core_cost_on(exec, row_map, m, options, arith), c);
  return c;
}

/// What the last pass of partition_cost_counted_on gathers: CudaCoreOnly's piece tally over the rows, and
/// RowStructured's windows, residual nonzeros and CTAs' longest items summed.
struct CountedTally {
  PieceTally piece;
  int64_t windows, residual_nnz, cta_tiles;
};

template <class RowMap, class MemorySpace>
struct CountedTermsFunctor {
  using value_type = CountedTally;
  PieceTallyFunctor<RowMap> rows;
  View1<int64_t, MemorySpace> place;  ///< walk_rows_queued's, per visiting position
  VisitOrder<MemorySpace> row_at;
  View1<int, MemorySpace> cta_max;  ///< per CTA: its longest item's tiles
  int64_t num_rows, ctas;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, value_type& t) const {
    if (i < num_rows) {
      rows(i, t.piece);
      const int64_t at = place(i);
      if (at >= 0 && at % 8 == 0) t.windows += 1;
      if (at <= -2) t.residual_nnz += rows.row_map(row_at(i) + 1) - rows.row_map(row_at(i));
    }
    if (i < ctas) t.cta_tiles += cta_max(i);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& t) const {
    rows.init(t.piece);
    t.windows = 0, t.residual_nnz = 0, t.cta_tiles = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(RSH_JOIN_VOLATILE value_type& dst, const RSH_JOIN_VOLATILE value_type& src) const {
    rows.join(dst.piece, src.piece);
    dst.windows += src.windows, dst.residual_nnz += src.residual_nnz, dst.cta_tiles += src.cta_tiles;
  }
};

/// The same costs for sorted A in `order` (empty = identity), counted from its RowStructured walk without
/// listing its windows or building the pattern: each window's distinct columns (window_distinct_on), the
/// Tensor-Core items schedule_on would cut of its tiles (tc_items_on) and the CTAs' longest items
/// (cta_max_tiles_on). Every count stays on the device but the last pass's, whose result is the one wait
/// after the walk; the views are indexed by visiting position, not by window, whose number the host never
/// learns. kAuto then builds only the partition it chooses. `max_row_nnz`: see window_distinct_on.
template <class ExecSpace>
PartitionCost partition_cost_counted_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                                        const View1<const int, typename ExecSpace::memory_space>& order,
                                        const Options& options, Arithmetic arith, int64_t max_row_nnz = -1) {
  using Mem = typename ExecSpace::memory_space;
  Options row_structured = options;
  row_structured.partition = Partition::kRowStructured;
  const int64_t n = A.num_rows, nnz = A.nnz;
  const RowPlaces<Mem> walk = walk_partition_on(exec, A, order, row_structured);
  const auto place = walk.place;
  const auto row_map = A.row_map;
  const VisitOrder<Mem> row_at{order};
  auto opens_window = KOKKOS_LAMBDA(const int64_t p) {
    return place(p) >= 0 && place(p) % 8 == 0;
  };
  const View1<int, Mem> distinct =
      window_distinct_on(exec, A, order, walk, long_window_nnz(exec, options, nnz), max_row_nnz);

  // Tensor-Core items: whole windows first, in window (= position) order, then the pieces (tc_items_on).
  const int max_tiles = options.tuning.max_tiles_per_item;
  auto pieces_at = KOKKOS_LAMBDA(const int64_t p) {
    return window_pieces((distinct(p) + 7) / 8, max_tiles, false);
  };
  const auto item_at = scratch_view<int64_t>(exec, "rsh::counted::item_at", n + 1);
  scan_offsets(
      exec, "rsh::inspect::counted_items", n, item_at, KOKKOS_LAMBDA(const int64_t p) {
        if (!opens_window(p)) return int64_t(0);
        return pieces_at(p) == 0 ? PackedCounts::pack(1, 0) : PackedCounts::pack(0, pieces_at(p));
      });
  // Each CTA's longest item. An item holds a tile or more, and a window of z nonzeros at most z / 8 + 1
  // tiles (one window an 8 rows), so the items are at most nnz / 8 + n / 8 + 1; CTAs past the last item
  // stay 0.
  const int64_t ctas = tc_ctas(nnz / 8 + n / 8 + 1);
  const auto cta_max = scratch_zeros<int>(exec, "rsh::counted::cta_max", ctas);
  Kokkos::parallel_for(
      "rsh::inspect::counted_ctas", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        if (!opens_window(p)) return;
        const int tiles = (distinct(p) + 7) / 8, pieces = pieces_at(p);
        if (pieces == 0) {
          Kokkos::atomic_fetch_max(&cta_max(PackedCounts::low(item_at(p)) / kWindowsPerCta), tiles);
          return;
        }
        const int64_t first = PackedCounts::low(item_at(n)) + PackedCounts::high(item_at(p));
        for (int j = 0; j < pieces; ++j) {
          int b, e;
          piece_of(0, tiles, j, pieces, b, e);
          Kokkos::atomic_fetch_max(&cta_max((first + j) / kWindowsPerCta), e - b);
        }
      });

  const CountedTermsFunctor<decltype(A.row_map), Mem> f{
      cuda_core_pieces(row_map, options), place, row_at, cta_max, n, ctas};
  CountedTally t;
  Kokkos::parallel_reduce("rsh::inspect::counted_terms", Range64<ExecSpace>(exec, 0, n > ctas ? n : ctas), f, t);
  PartitionCost c;
  c.cta_max_tiles = t.cta_tiles;
  c.windows = t.windows;
  c.residual_nnz = t.residual_nnz;
  add_pattern_free_terms(A.num_rows, A.num_cols,
                         best_cuda_core_cost_of(cuda_core_costs_of(f.rows, t.piece), options, arith), c);
  return c;
}

}  // namespace impl
}  // namespace rsh
