#pragma once
// RS-Tile + CSR residual (DESIGN section 3) built on the inspector's
// execution space from a row partition: a thread a window merges its 8
// sorted rows into the window's compacted columns (twice: to count, then to
// fill), a thread a residual row copies it.
#include <string>

#include "impl/RshSparse_rstile_impl.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"

namespace rsh {
namespace impl {

/// The pattern's tiles, residual and value map (no schedule) of a sorted A under `roles`.
template <class ExecSpace>
RsTilePattern<typename ExecSpace::memory_space> rstile_on(const ExecSpace& exec,
                                                          const SortedCrs<typename ExecSpace::memory_space>& A,
                                                          const RowRoles<typename ExecSpace::memory_space>& roles) {
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
  p.window_rows = roles.window_rows, p.res_rows = roles.res_rows;
  const int W = roles.num_windows();
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto window_rows = roles.window_rows;

  // Tiles and distinct (row, column) values of each window; their offsets.
  View1<int64_t, Mem> window_values(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::window_values"), W + 1);
  p.window_tile_offset = typename Pattern::template View1<int>("rsh::window_tile_offset", W + 1);
  const auto window_tile_offset = p.window_tile_offset;
  Kokkos::parallel_for(
      "rsh::inspect::count_tiles", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
        int64_t values = 0;
        const int distinct = merge_window_columns(row_map, entries, &window_rows(8 * w),
                                                  [&](int, int, int64_t, bool first) { values += first; });
        window_tile_offset(w) = (distinct + 7) / 8;
        window_values(w) = values;
      });
  const int T = checked(8 * exclusive_scan(
                                exec, "rsh::inspect::tile_offsets", W, window_tile_offset,
                                KOKKOS_LAMBDA(const int64_t w) { return int64_t(window_tile_offset(w)); }),
                        "8 x tiles") /
                8;
  const int64_t tile_nnz = exclusive_scan(
      exec, "rsh::inspect::value_offsets", W, window_values,
      KOKKOS_LAMBDA(const int64_t w) { return window_values(w); });
  checked(tile_nnz, "tile values");
  // (The scans read their counts before writing the offsets in the same slots: each i reads count(i)
  // in the pass that writes offsets(i), and reads no other slot.)

  // Columns, bitmaps and value offsets of each window's tiles, and every value's slot.
  p.tile_cols = typename Pattern::template View1<int>("rsh::tile_cols", 8 * int64_t(T));
  p.tile_bitmap = typename Pattern::template View1<uint64_t>("rsh::tile_bitmap", T);
  p.tile_val_offset = typename Pattern::template View1<int>("rsh::tile_val_offset", T + 1);
  p.value_dest = typename Pattern::template View1<int64_t>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::value_dest"), A.nnz);
  const auto tile_cols = p.tile_cols;
  const auto tile_bitmap = p.tile_bitmap;
  const auto tile_val_offset = p.tile_val_offset;
  const auto value_dest = p.value_dest;
  const SortedCrs<Mem> a = A;
  Kokkos::parallel_for(
      "rsh::inspect::fill_tiles", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
        const int* rows = &window_rows(8 * w);
        const int t0 = window_tile_offset(w), t1 = window_tile_offset(w + 1);
        for (int64_t j = 8 * int64_t(t0); j < 8 * int64_t(t1); ++j) tile_cols(j) = -1;
        merge_window_columns(row_map, entries, rows, [&](int local, int i, int64_t k, bool) {
          const int t = t0 + local / 8;
          tile_cols(8 * int64_t(t) + local % 8) = entries(k);
          tile_bitmap(t) |= uint64_t(1) << (8 * i + local % 8);
        });
        int64_t offset = window_values(w);
        for (int t = t0; t < t1; ++t) {
          tile_val_offset(t) = static_cast<int>(offset);
          offset += popcount64(tile_bitmap(t));
        }
        merge_window_columns(row_map, entries, rows, [&](int local, int i, int64_t k, bool) {
          const int t = t0 + local / 8, bit = 8 * i + local % 8;
          value_dest(a.user_position(k)) = tile_val_offset(t) + popcount64(tile_bitmap(t) & ((uint64_t(1) << bit) - 1));
        });
        if (w == W - 1) tile_val_offset(t1) = static_cast<int>(offset);
      });

  // Residual CSR: rows in partition order, their slots after the tiles'.
  const int R = static_cast<int>(roles.res_rows.extent(0));
  const auto res_rows = roles.res_rows;
  p.res_ptr = typename Pattern::template View1<int>("rsh::res_ptr", R + 1);
  const auto res_ptr = p.res_ptr;
  const int res_nnz =
      checked(exclusive_scan(
                  exec, "rsh::inspect::residual_offsets", R, res_ptr,
                  KOKKOS_LAMBDA(const int64_t j) { return row_map(res_rows(j) + 1) - row_map(res_rows(j)); }),
              "residual nonzeros");
  p.res_cols =
      typename Pattern::template View1<int>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::res_cols"), res_nnz);
  const auto res_cols = p.res_cols;
  Kokkos::parallel_for(
      "rsh::inspect::fill_residual", Range64<ExecSpace>(exec, 0, R), KOKKOS_LAMBDA(const int64_t j) {
        const int r = res_rows(j);
        for (int64_t k = row_map(r); k < row_map(r + 1); ++k) {
          const int64_t pos = res_ptr(j) + (k - row_map(r));
          res_cols(pos) = entries(k);
          value_dest(a.user_position(k)) = tile_nnz + pos;
        }
      });
  return p;
}

}  // namespace impl
}  // namespace rsh
