#pragma once
// Reorder::kAuto's locality term: the B rows a row order fetches from memory past a cache of B rows. The
// kernels walk row windows in order and load the B rows of each window's distinct columns, so a window finds
// a B row still cached when fewer loads than the cache holds rows lie between the row's last use and it (an
// LRU cache approximated by reuse distance, counted in loads from the start of each window). On a graph whose
// given order scatters rows that share columns (shuffled communities, a point cloud in random order) these
// misses, not the tiles, decide which order runs faster.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "RshSparse_spmm_options.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_sort_pairs_on.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
#include "cuda/RshSparse_spmm_cuda.hpp"
#endif

namespace rsh {
namespace impl {

/// Bytes of the B row the default cache size is counted in: 128 FP16 features (the design's reference width;
/// the analysis does not know the multiplies' widths).
constexpr int64_t kReferenceBRowBytes = 128 * 2;

/// Tuning::reorder_cache_rows on ExecSpace: the device's L2 in reference B rows on a GPU, 0 on host spaces.
template <class ExecSpace>
int64_t reorder_cache_rows(const Options& options) {
  const int64_t rows = options.tuning.reorder_cache_rows;
  if (rows < -1)
    throw std::invalid_argument("rsh::Options: tuning.reorder_cache_rows = " + std::to_string(rows) +
                                " must be -1 (the execution space's choice) or >= 0");
  if (rows >= 0) return rows;
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) return cuda::device_l2_bytes() / kReferenceBRowBytes;
#endif
  return 0;
}

/// B rows fetched from memory when A's rows are taken in `order` (position -> row; empty: identity), in
/// windows of 8 consecutive positions, past an LRU cache of `cache_rows` B rows; first uses count. A load
/// misses when more than `cache_rows` loads lie between the start of the window that last loaded its row and
/// the start of its own window.
template <class ExecSpace>
int64_t b_row_misses_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                        const View1<const int, typename ExecSpace::memory_space>& order, int64_t cache_rows) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows, nnz = A.nnz;
  if (nnz == 0) return 0;
  const auto window_of = scratch_view<int64_t>(exec, "rsh::inspect::window_of", n);
  Kokkos::parallel_for(
      "rsh::inspect::window_of", Range64<ExecSpace>(exec, 0, n),
      KOKKOS_LAMBDA(const int64_t p) { window_of(order.extent(0) ? order(p) : p) = p / 8; });
  // One key a nonzero: (column, window), so that sorted keys list each column's uses window by window.
  const auto uses = scratch_view<uint64_t>(exec, "rsh::inspect::column_uses", nnz);
  const auto unused =
      scratch_zeros<int>(exec, "rsh::inspect::column_uses_payload", nnz);  // sort_pairs moves a payload alongside
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  Kokkos::parallel_for(
      "rsh::inspect::column_uses", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t k) {
        uses(k) = uint64_t(entries(k)) << 32 | uint64_t(window_of(row_of(row_map, n, k)));
      });
  sort_pairs(exec, uses, unused);
  // A load: a column's first nonzero in a window (the window loads its B row once). Loads before each window:
  const auto loads_before = scratch_zeros<int64_t>(exec, "rsh::inspect::loads_before", (n + 7) / 8 + 1);
  Kokkos::parallel_for(
      "rsh::inspect::window_loads", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t i) {
        if (i == 0 || uses(i) != uses(i - 1))
          Kokkos::atomic_add(&loads_before(int64_t(uses(i) & 0xffffffffu) + 1), int64_t(1));
      });
  Kokkos::parallel_scan(
      "rsh::inspect::loads_before", Range64<ExecSpace>(exec, 0, (n + 7) / 8 + 1),
      KOKKOS_LAMBDA(const int64_t w, int64_t& sum, const bool last) {
        sum += loads_before(w);
        if (last) loads_before(w) = sum;
      });
  return tally(
             exec, "rsh::inspect::b_row_misses", nnz,
             KOKKOS_LAMBDA(const int64_t i, Tally& t) {
               if (i > 0 && uses(i) == uses(i - 1)) return;  // the same window's B row again
               const bool first_use = i == 0 || uses(i) >> 32 != uses(i - 1) >> 32;
               t.sum[0] += first_use ||
                           loads_before(uses(i) & 0xffffffffu) - loads_before(uses(i - 1) & 0xffffffffu) > cache_rows;
             })
      .sum[0];
}

}  // namespace impl
}  // namespace rsh
