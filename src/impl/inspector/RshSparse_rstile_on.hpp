#pragma once
// RS-Tile + CSR residual (DESIGN section 3) built on the inspector's
// execution space from a partition: a thread a window merges its 8 sorted
// rows once into the window's compacted columns, keeping each entry's rank,
// and passes a row a thread fill the tiles and place the values from those
// ranks (a thread an entry in long windows); or (one entry per tile column)
// a thread an entry ranks it among the window's entries; a thread a
// residual row copies it.
#include <string>

#include "impl/RshSparse_rstile_impl.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"
#include "impl/inspector/RshSparse_window_entries_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// The pattern's tiles, residual and value map (no schedule) of a sorted A under `roles`; windows of more
/// than `longer_than` nonzeros ranked an entry a thread.
template <class ExecSpace>
RsTilePattern<typename ExecSpace::memory_space> rstile_on(const ExecSpace& exec,
                                                          const SortedCrs<typename ExecSpace::memory_space>& A,
                                                          const RowRoles<typename ExecSpace::memory_space>& roles,
                                                          int64_t longer_than) {
  using Mem = typename ExecSpace::memory_space;
  using Pattern = RsTilePattern<Mem>;
  auto checked = [](int64_t v, const char* what) {
    if (v > INT_MAX)
      throw std::invalid_argument(std::string("rsh::inspect: ") + what + " = " + std::to_string(v) +
                                  " overflows the format's 32-bit offsets");
    return static_cast<int>(v);
  };
  Pattern p;
  p.num_rows = static_cast<int>(A.num_rows), p.num_cols = static_cast<int>(A.num_cols), p.nnz = A.nnz;
  p.window_rows = roles.window_rows, p.res_rows = roles.res_rows, p.rows_split = roles.split;
  const int W = roles.num_windows();
  // The entries the tiles take and those the residual takes.
  const SortedCrs<Mem> tiled = roles.split ? roles.tiled : A;
  const SortedCrs<Mem> residual = roles.split ? roles.residual : A;
  const auto row_map = tiled.row_map;
  const auto entries = tiled.entries;
  const auto window_rows = roles.window_rows;

  p.value_dest = uninitialized_view<int>(exec, "rsh::value_dest", A.nnz);
  const auto value_dest = p.value_dest;
  int64_t tile_nnz = 0;
  if (W == 0) {  // no windows (the all-residual partitions): no tiles, and none of the window passes
    p.window_tile_offset = zeroed_view<int>(exec, "rsh::window_tile_offset", 1);
    p.tile_cols = uninitialized_view<int>(exec, "rsh::tile_cols", 0);
    p.tile_bitmap = uninitialized_view<uint64_t>(exec, "rsh::tile_bitmap", 0);
    p.tile_val_offset = zeroed_view<int>(exec, "rsh::tile_val_offset", 1);
  } else {
    // Tiles of each window and their offsets. Compacted columns: short windows merged a window a thread,
    // long ones ranked an entry a thread (window_ranks_on). One entry per tile column: as many tile columns
    // as entries.
    const ListedWindows<Mem> windows{window_rows};
    const bool ranked = roles.one_entry_per_column;
    const View1<int64_t, Mem> slot =
        ranked ? window_slots_on(exec, tiled.num_rows, window_rows) : View1<int64_t, Mem>{};
    p.window_tile_offset = zeroed_view<int>(exec, "rsh::window_tile_offset", W + 1);
    const auto window_tile_offset = p.window_tile_offset;
    WindowRanks<Mem> ranks;
    if (ranked)
      Kokkos::parallel_for(
          "rsh::inspect::count_tiles", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
            int rows[8];
            windows(w, rows);
            window_tile_offset(w) = static_cast<int>((window_nnz(row_map, rows) + 7) / 8);
          });
    else
      ranks = window_ranks_on(
          exec, tiled, windows, W, longer_than,
          KOKKOS_LAMBDA(const int64_t w, const int distinct) { window_tile_offset(w) = (distinct + 7) / 8; });
    const int T = checked(8 * exclusive_scan(
                                  exec, "rsh::inspect::tile_offsets", W, window_tile_offset,
                                  KOKKOS_LAMBDA(const int64_t w) { return int64_t(window_tile_offset(w)); }),
                          "8 x tiles") /
                  8;
    // (The scans read their counts before writing the offsets in the same slots: each i reads count(i)
    // in the pass that writes offsets(i), and reads no other slot.)

    // Columns and bitmaps of each window's tiles, the tiles' value offsets, then every value's slot.
    p.tile_cols = uninitialized_view<int>(exec, "rsh::tile_cols", 8 * int64_t(T));
    Kokkos::deep_copy(exec, p.tile_cols, -1);
    p.tile_bitmap = zeroed_view<uint64_t>(exec, "rsh::tile_bitmap", T);
    p.tile_val_offset = zeroed_view<int>(exec, "rsh::tile_val_offset", T + 1);
    const auto tile_cols = p.tile_cols;
    const auto tile_bitmap = p.tile_bitmap;
    const auto tile_val_offset = p.tile_val_offset;
    // Entry (window slot i, position k) with its tile column's rank `local` in window w.
    auto place = KOKKOS_LAMBDA(const int64_t w, int local, int i, int64_t k, bool first) {
      const int t = window_tile_offset(w) + local / 8;
      if (first) Kokkos::atomic_or(&tile_bitmap(t), uint64_t(1) << (8 * i + local % 8));
      tile_cols(8 * int64_t(t) + local % 8) = entries(k);  // (the entries of one column write the same)
    };
    auto slot_of = KOKKOS_LAMBDA(const int64_t w, int local, int i, int64_t k, bool) {
      const int t = window_tile_offset(w) + local / 8, bit = 8 * i + local % 8;
      value_dest(tiled.user_position(k)) =
          tile_val_offset(t) + static_cast<int>(popcount64(tile_bitmap(t) & ((uint64_t(1) << bit) - 1)));
    };
    auto visit = [&](const char* label, const auto& f) {
      if (ranked)
        for_each_ranked_entry(exec, label, tiled, window_rows, slot, f);
      else
        for_each_window_entry(exec, label, tiled, windows, W, ranks, f);
    };
    visit("rsh::inspect::fill_tiles", place);
    tile_nnz = exclusive_scan(
        exec, "rsh::inspect::value_offsets", T, tile_val_offset,
        KOKKOS_LAMBDA(const int64_t t) { return int64_t(popcount64(tile_bitmap(t))); });
    checked(tile_nnz, "tile values");
    visit("rsh::inspect::value_slots", slot_of);
  }

  // Residual CSR: rows in partition order, their slots after the tiles'.
  const int R = static_cast<int>(roles.res_rows.extent(0));
  const auto res_rows = roles.res_rows;
  const auto res_row_map = residual.row_map;
  const auto res_entries = residual.entries;
  // The residual's offsets where the partition has them (every row residual), else a scan writes them.
  p.res_ptr = roles.res_ptr.extent(0) ? roles.res_ptr : uninitialized_view<int>(exec, "rsh::res_ptr", R + 1);
  const auto res_ptr = p.res_ptr;
  auto residual_row_nnz = KOKKOS_LAMBDA(const int64_t j) {
    return res_row_map(res_rows(j) + 1) - res_row_map(res_rows(j));
  };
  // Without windows, whole rows put every nonzero in the residual: its size is known without a wait.
  int64_t residual_total = A.nnz;
  if (W == 0 && !roles.split) {
    if (roles.res_ptr.extent(0) == 0)
      scan_offsets(exec, "rsh::inspect::residual_offsets", R, res_ptr, residual_row_nnz);
  } else {
    residual_total = exclusive_scan(exec, "rsh::inspect::residual_offsets", R, res_ptr, residual_row_nnz);
  }
  const int res_nnz = checked(residual_total, "residual nonzeros");
  p.res_cols = uninitialized_view<int>(exec, "rsh::res_cols", res_nnz);
  const auto res_cols = p.res_cols;
  // A thread a residual entry, its row found by a binary search over res_ptr: a thread a row would make the
  // longest (hub) row the kernel's critical path.
  Kokkos::parallel_for(
      "rsh::inspect::fill_residual", Range64<ExecSpace>(exec, 0, res_nnz), KOKKOS_LAMBDA(const int64_t pos) {
        const int64_t j = row_of(res_ptr, R, pos);
        const int64_t k = res_row_map(res_rows(j)) + (pos - res_ptr(j));
        res_cols(pos) = res_entries(k);
        value_dest(residual.user_position(k)) = static_cast<int>(tile_nnz + pos);
      });
  return p;
}

}  // namespace impl
}  // namespace rsh
