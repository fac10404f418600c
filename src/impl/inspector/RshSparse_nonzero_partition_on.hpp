#pragma once
// Partitions that assign nonzeros, not whole rows, on the inspector's
// execution space. Both take windows of 8 consecutive non-empty rows in
// visiting order and decide each stored entry on its own thread:
// - Libra (2D-aware distribution): an entry goes to Tensor Cores when at
//   least ceil(eta x 8) rows of its window hold its column;
// - BalancedBlocks (BRP-SpMM's block-row partition, one nonzero per tile
//   column): a window's entries in column order fill tiles of 8, and the
//   whole groups of kBalancedGroupTiles tiles go to Tensor Cores, the rest
//   (fewer than one group) to the residual.
// Rows left with entries on both sides are split; rows with none on one
// side leave it (padding slots in windows, no residual row).
#include <cmath>

#include "impl/inspector/RshSparse_partition_on.hpp"
#include "impl/inspector/RshSparse_window_entries_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// BalancedBlocks: tiles per Tensor-Core work item (BRP's TC Block Group, g = 4: 32 nonzeros).
constexpr int kBalancedGroupTiles = 4;

inline bool assigns_nonzeros(Partition p) {
  return p == Partition::kLibra || p == Partition::kBalancedBlocks;
}

/// Libra: the rows of a window that must hold a column for it to go to Tensor Cores.
inline int libra_min_holders(double eta) {
  const int need = static_cast<int>(std::ceil(eta * 8 - 1e-9));
  return need < 1 ? 1 : need > 8 ? 8 : need;
}

/// Windows of 8 consecutive non-empty rows of A visited in `order` (empty = identity), the last padded.
template <class ExecSpace>
View1<int, typename ExecSpace::memory_space> consecutive_windows_on(
    const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
    const View1<const int, typename ExecSpace::memory_space>& order) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows;
  const auto row_map = A.row_map;
  const bool ordered = order.extent(0) != 0;
  auto row_at = KOKKOS_LAMBDA(const int64_t p) {
    return ordered ? order(p) : static_cast<int>(p);
  };
  const auto rank = scratch_view<int64_t>(exec, "rsh::nonzero_partition::rank", n + 1);
  const int64_t rows = exclusive_scan(
      exec, "rsh::inspect::nonempty_rows", n, rank,
      KOKKOS_LAMBDA(const int64_t p) { return int64_t(row_map(row_at(p) + 1) > row_map(row_at(p))); });
  if (8 * ((rows + 7) / 8) > INT_MAX) throw std::invalid_argument("rsh::inspect: 8 x windows overflows 32-bit offsets");
  const auto window_rows = uninitialized_view<int>(exec, "rsh::nonzero_partition::windows", 8 * ((rows + 7) / 8));
  Kokkos::deep_copy(exec, window_rows, -1);
  Kokkos::parallel_for(
      "rsh::inspect::consecutive_windows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        if (rank(p + 1) != rank(p)) window_rows(rank(p)) = row_at(p);
      });
  return window_rows;
}

/// Partitions the nonzeros of a sorted A visited in `order` under options.partition (Libra or
/// BalancedBlocks). Options::deterministic keeps rows whole: a row with any entry for the tiles takes all
/// of its entries there (a split row's two parts add with atomics).
template <class ExecSpace>
RowRoles<typename ExecSpace::memory_space> nonzero_partition_on(
    const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
    const View1<const int, typename ExecSpace::memory_space>& order, const Options& options) {
  using Mem = typename ExecSpace::memory_space;
  if (!assigns_nonzeros(options.partition))
    throw std::invalid_argument(std::string("rsh::inspect: ") + partition_name(options.partition) +
                                " assigns whole rows");
  const int64_t n = A.num_rows;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const View1<int, Mem> candidates = consecutive_windows_on(exec, A, order);
  const View1<int64_t, Mem> slot = window_slots_on(exec, n, candidates);

  // Each entry's side.
  const bool balanced = options.partition == Partition::kBalancedBlocks;
  const int min_holders = libra_min_holders(options.tuning.libra_eta);
  constexpr int64_t kGroupNnz = 8 * kBalancedGroupTiles;
  const auto on_tiles = scratch_view<uint8_t>(exec, "rsh::nonzero_partition::on_tiles", A.nnz);
  Kokkos::parallel_for(
      "rsh::inspect::assign_nonzeros", Range64<ExecSpace>(exec, 0, A.nnz), KOKKOS_LAMBDA(const int64_t k) {
        const EntryAt at = entry_at(row_map, slot, n, k);
        const ColumnInWindow c = column_in_window(row_map, entries, candidates, at.slot, k);
        if (!balanced) {
          on_tiles(k) = c.holders >= min_holders;
          return;
        }
        int rows[8];
        for (int i = 0; i < 8; ++i) rows[i] = candidates(8 * (at.slot / 8) + i);
        const int64_t grouped = window_nnz(row_map, rows) / kGroupNnz * kGroupNnz;
        on_tiles(k) = c.smaller + c.copies_before < grouped;
      });
  if (options.deterministic)
    Kokkos::parallel_for(
        "rsh::inspect::whole_rows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
          bool any = false;
          for (int64_t k = row_map(r); k < row_map(r + 1); ++k) any = any || on_tiles(k);
          for (int64_t k = row_map(r); k < row_map(r + 1); ++k) on_tiles(k) = any;
        });

  RowRoles<Mem> out;
  out.split = true, out.one_entry_per_column = balanced;
  const SplitCrs<Mem> parts = split_crs_on(exec, A, on_tiles);
  out.tiled = parts.kept, out.residual = parts.rest;

  // Windows keep their rows with entries for the tiles (the others become padding); windows left with
  // none are dropped.
  const auto tiled_map = parts.kept.row_map;
  auto tiled_row = KOKKOS_LAMBDA(const int r) {
    return r >= 0 && tiled_map(r + 1) > tiled_map(r);
  };
  const int64_t W = static_cast<int64_t>(candidates.extent(0)) / 8;
  const auto kept_at = scratch_zeros<int64_t>(exec, "rsh::nonzero_partition::kept_at", W + 1);
  const int64_t kept = exclusive_scan(
      exec, "rsh::inspect::kept_windows", W, kept_at, KOKKOS_LAMBDA(const int64_t w) {
        bool any = false;
        for (int i = 0; i < 8; ++i) any = any || tiled_row(candidates(8 * w + i));
        return int64_t(any);
      });
  out.window_rows = zeroed_view<int>(exec, "rsh::window_rows", 8 * kept);
  const auto window_rows = out.window_rows;
  Kokkos::parallel_for(
      "rsh::inspect::keep_windows", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
        if (kept_at(w + 1) == kept_at(w)) return;
        for (int i = 0; i < 8; ++i) {
          const int r = candidates(8 * w + i);
          window_rows(8 * kept_at(w) + i) = tiled_row(r) ? r : -1;
        }
      });

  // Residual rows: those with entries left over, in window order (the visiting order of the rows).
  const auto rest_map = parts.rest.row_map;
  const int64_t C = static_cast<int64_t>(candidates.extent(0));
  const auto res_at = scratch_zeros<int64_t>(exec, "rsh::nonzero_partition::res_at", C + 1);
  auto rest_row = KOKKOS_LAMBDA(const int64_t s) {
    const int r = candidates(s);
    return r >= 0 && rest_map(r + 1) > rest_map(r);
  };
  const int64_t R = exclusive_scan(
      exec, "rsh::inspect::residual_rows", C, res_at, KOKKOS_LAMBDA(const int64_t s) { return int64_t(rest_row(s)); });
  out.res_rows = zeroed_view<int>(exec, "rsh::res_rows", R);
  const auto res_rows = out.res_rows;
  Kokkos::parallel_for(
      "rsh::inspect::list_residual_rows", Range64<ExecSpace>(exec, 0, C), KOKKOS_LAMBDA(const int64_t s) {
        if (rest_row(s)) res_rows(res_at(s)) = candidates(s);
      });
  return out;
}

}  // namespace impl
}  // namespace rsh
