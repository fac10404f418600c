#pragma once
// Matrix statistics (MatrixStats) computed on the inspector's execution space.
#include "impl/RshSparse_stats_impl.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// Row-length histogram, longest row and empty rows of a sorted A, and, when `count_windows`
/// (Options::window_statistics), the distinct columns and tiles of its natural 8-row windows (windows of
/// more than `longer_than` nonzeros ranked an entry a thread).
template <class ExecSpace>
MatrixStats stats_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A, int64_t longer_than,
                     bool count_windows) {
  constexpr int kBuckets = 64;  // lengths below 2^63
  MatrixStats s;
  s.num_rows = A.num_rows, s.num_cols = A.num_cols, s.nnz = A.nnz;
  const auto row_map = A.row_map;
  // The histogram's buckets, then the longest row: one pass with atomics and one copy back, where a reduce
  // for the maximum would wait for its own result first.
  const auto counts = scratch_zeros<int64_t>(exec, "rsh::stats::histogram", kBuckets + 1);
  Kokkos::parallel_for(
      "rsh::inspect::row_lengths", Range64<ExecSpace>(exec, 0, A.num_rows), KOKKOS_LAMBDA(const int64_t r) {
        const int64_t len = row_map(r + 1) - row_map(r);
        int bucket = 0;
        while (bucket < kBuckets - 1 && (int64_t(1) << bucket) <= len) ++bucket;
        Kokkos::atomic_add(&counts(bucket), int64_t(1));
        Kokkos::atomic_fetch_max(&counts(kBuckets), len);
      });
  const auto h = host_copy(exec, counts);
  s.max_row_nnz = h[kBuckets];
  int used = 1;
  for (int b = 0; b < kBuckets; ++b)
    if (h[b]) used = b + 1;
  s.row_length_histogram.assign(h.data(), h.data() + used);
  s.empty_rows = s.row_length_histogram[0];
  s.mean_row_nnz = A.num_rows ? double(A.nnz) / double(A.num_rows) : 0.0;

  s.natural_windows = (A.num_rows + 7) / 8;
  if (!count_windows) return s;
  s.windows_counted = true;
  const auto windows = window_tiles_on(exec, A, NaturalWindows{A.num_rows}, s.natural_windows, longer_than);
  s.mean_window_distinct_cols = s.natural_windows ? double(windows.second) / double(s.natural_windows) : 0.0;
  s.mean_nnz_per_tile = windows.first ? double(A.nnz) / double(windows.first) : 0.0;
  return s;
}

}  // namespace impl
}  // namespace rsh
