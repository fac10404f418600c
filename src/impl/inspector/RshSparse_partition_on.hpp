#pragma once
// Row partition (DESIGN section 4) on the inspector's execution space: the
// rows, visited in a given order, open 8-row windows or go to the residual.
// RSH-SpMM Alg. 1 walks the rows in sequence (a window takes the next 8 rows
// whatever they are); here each row's own choice is made in parallel and the
// walk is a scan over maps of the walk's state (rows of the current window
// still to come), which compose associatively.
#include "RshSparse_spmm_options.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"

namespace rsh {
namespace impl {

template <class MemorySpace>
struct RowRoles {
  View1<int, MemorySpace> window_rows;  ///< 8 per window, original row ids, -1 = padding
  View1<int, MemorySpace> res_rows;     ///< non-empty rows for the CSR residual, in visiting order
  int num_windows() const { return static_cast<int>(window_rows.extent(0) / 8); }
};

/// What a row does when the walk reaches it outside a window.
enum class RowChoice : uint8_t { kSkip, kResidual, kWindow };

/// The walk over a range of rows, for each state it may enter in: the state it leaves in, and the
/// windows it opens and residual rows it takes.
struct WalkMap {
  uint8_t exit[8];
  int windows[8], residual[8];
};

/// parallel_scan functor of the walk: row p's map is s -> s - 1 inside a window, and from 0 to 7 where
/// it opens one. Writes each row's place: window index * 8 (window start), -2 - residual index, or -1.
template <class Choices>
struct WalkScan {
  using value_type = WalkMap;
  Choices choice;
  View1<int64_t, typename Choices::memory_space> place;
  View1<int64_t, typename Choices::memory_space> totals;  ///< windows, residual rows
  int64_t n;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int s = 0; s < 8; ++s) v.exit[s] = static_cast<uint8_t>(s), v.windows[s] = 0, v.residual[s] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(RSH_JOIN_VOLATILE value_type& dst, const RSH_JOIN_VOLATILE value_type& src) const {
    for (int s = 0; s < 8; ++s) {
      const int e = dst.exit[s];
      dst.windows[s] += src.windows[e];
      dst.residual[s] += src.residual[e];
      dst.exit[s] = src.exit[e];
    }
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t p, value_type& v, const bool final) const {
    const RowChoice c = static_cast<RowChoice>(choice(p));
    if (final) {
      if (v.exit[0] != 0)
        place(p) = -1;  // inside a window
      else if (c == RowChoice::kWindow)
        place(p) = 8 * int64_t(v.windows[0]);
      else
        place(p) = c == RowChoice::kResidual ? -2 - int64_t(v.residual[0]) : -1;
    }
    for (int s = 0; s < 8; ++s) {
      const int e = v.exit[s];
      const bool free = e == 0;
      v.windows[s] += free && c == RowChoice::kWindow;
      v.residual[s] += free && c == RowChoice::kResidual;
      v.exit[s] = static_cast<uint8_t>(free ? (c == RowChoice::kWindow ? 7 : 0) : e - 1);
    }
    if (final && p == n - 1) totals(0) = v.windows[0], totals(1) = v.residual[0];
  }
};

/// Partitions the rows of a sorted A visited in `order` (a permutation of its rows; empty = identity).
/// Empty rows never start a window and never enter the residual. Partition::kAuto partitions as
/// kRowStructured.
template <class ExecSpace>
RowRoles<typename ExecSpace::memory_space> partition_on(const ExecSpace& exec,
                                                        const SortedCrs<typename ExecSpace::memory_space>& A,
                                                        const View1<const int, typename ExecSpace::memory_space>& order,
                                                        const Options& options) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const bool ordered = order.extent(0) != 0;
  auto row_at = KOKKOS_LAMBDA(const int64_t p) {
    return ordered ? order(p) : static_cast<int>(p);
  };
  const bool tiles = options.partition != Partition::kCudaCoreOnly && options.partition != Partition::kDenseBlocks;
  const bool route = options.partition == Partition::kRowStructured || options.partition == Partition::kAuto;
  const int tau_nnz = options.tau_nnz, tau_inc = options.tau_inc;

  // Each row's choice. Alg. 1, line 16: a short row whose columns the next 7 rows mostly lack (|U_full| -
  // |U_excl| >= tau_inc new columns) gains nothing in a window.
  View1<uint8_t, Mem> choice(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::partition::choice"), n);
  Kokkos::parallel_for(
      "rsh::inspect::row_choice", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        const int r = row_at(p);
        const int64_t begin = row_map(r), end = row_map(r + 1), nz = end - begin;
        RowChoice c = nz == 0 ? RowChoice::kSkip : tiles ? RowChoice::kWindow : RowChoice::kResidual;
        if (c == RowChoice::kWindow && route && nz <= tau_nnz) {
          int fresh = 0;
          for (int64_t k = begin; k < end; ++k) {
            const int col = entries(k);
            if (k > begin && col == entries(k - 1)) continue;  // duplicate entry
            bool shared = false;
            for (int64_t q = p + 1; q < n && q < p + 8 && !shared; ++q) {
              const int other = row_at(q);
              int64_t lo = row_map(other), hi = row_map(other + 1);  // binary search for col
              while (lo < hi) {
                const int64_t mid = (lo + hi) / 2;
                if (entries(mid) < col)
                  lo = mid + 1;
                else
                  hi = mid;
              }
              shared = lo < row_map(other + 1) && entries(lo) == col;
            }
            fresh += !shared;
          }
          if (fresh < tau_inc) c = RowChoice::kResidual;
        }
        choice(p) = static_cast<uint8_t>(c);
      });

  View1<int64_t, Mem> place(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::partition::place"), n);
  View1<int64_t, Mem> totals("rsh::partition::totals", 2);
  Kokkos::parallel_scan("rsh::inspect::walk", Range64<ExecSpace>(exec, 0, n),
                        WalkScan<View1<uint8_t, Mem>>{choice, place, totals, n});
  const auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), totals);
  if (8 * t(0) > INT_MAX) throw std::invalid_argument("rsh::inspect: 8 x windows overflows 32-bit offsets");

  RowRoles<Mem> out;
  out.window_rows = View1<int, Mem>("rsh::window_rows", 8 * t(0));
  out.res_rows = View1<int, Mem>("rsh::res_rows", t(1));
  const auto window_rows = out.window_rows;
  const auto res_rows = out.res_rows;
  Kokkos::parallel_for(
      "rsh::inspect::place_rows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        const int64_t at = place(p);
        if (at >= 0)
          for (int i = 0; i < 8; ++i) window_rows(at + i) = p + i < n ? row_at(p + i) : -1;
        else if (at <= -2)
          res_rows(-2 - at) = row_at(p);
      });
  return out;
}

}  // namespace impl
}  // namespace rsh
