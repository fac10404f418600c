#pragma once
// A^T as a CSR on the execution space where A's views live, for mode "T":
// A is checked and row-sorted (sorted_crs), its entries sorted by (column,
// row) in one global sort, and each position of A^T remembers which of A's
// values it holds, so a value refresh of A^T is one gather.
#include <string>

#include "RshSparse_CrsBundle.hpp"
#include "impl/inspector/RshSparse_sort_pairs_on.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// The row of position k of a CSR with n rows (the last row whose offset is <= k; empty rows skipped).
template <class RowMap>
KOKKOS_INLINE_FUNCTION int64_t row_of_position(const RowMap& row_map, int64_t n, int64_t k) {
  int64_t lo = 0, hi = n;  // row_map(lo) <= k < row_map(hi)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(row_map(mid)) <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// The pattern of A^T and, per position, A's value index it holds (duplicates of A stay apart).
template <class MemorySpace>
struct TransposeOf {
  int64_t num_rows = 0, num_cols = 0;  ///< of A^T: A's columns x A's rows
  View1<int64_t, MemorySpace> row_map;
  View1<int, MemorySpace> entries;
  View1<int64_t, MemorySpace> source;  ///< A's value index of each position of A^T
};

/// Checks A (std::invalid_argument naming `who`) and builds A^T's pattern on `exec`: rows of A^T in
/// increasing column order of A, and within each the rows of A in increasing order.
template <class ExecSpace, class RowMap, class Entries>
TransposeOf<typename ExecSpace::memory_space> transpose_on(const ExecSpace& exec, int64_t num_rows, int64_t num_cols,
                                                           const RowMap& row_map, const Entries& entries,
                                                           int64_t num_values, const char* who) {
  using Mem = typename ExecSpace::memory_space;
  const SortedCrs<Mem> A = sorted_crs(exec, num_rows, num_cols, row_map, entries, num_values, who);
  if (A.nnz > INT_MAX)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(A.nnz) +
                                " nonzeros exceed the 32-bit positions of the transpose's sort");
  TransposeOf<Mem> T;
  T.num_rows = num_cols, T.num_cols = num_rows;
  const int64_t nnz = A.nnz;
  // Key (column, row) per entry; the sort leaves A^T's rows in order, each row's columns increasing.
  const auto keys = scratch_view<uint64_t>(exec, "rsh::transpose::keys", nnz);
  const auto from = scratch_view<int>(exec, "rsh::transpose::from", nnz);
  Kokkos::parallel_for(
      "rsh::transpose::keys", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t k) {
        const int64_t r = row_of_position(A.row_map, num_rows, k);
        keys(k) = uint64_t(static_cast<uint32_t>(A.entries(k))) << 32 | uint64_t(r);
        from(k) = static_cast<int>(k);
      });
  sort_pairs(exec, keys, from);
  // Row c of A^T starts at the first sorted key of column >= c: each key writes the starts of the columns
  // from the one after its predecessor's up to its own (empty rows of A^T included), no atomics.
  T.row_map = uninitialized_view<int64_t>(exec, "rsh::transpose::row_map", num_cols + 1);
  const auto t_row_map = T.row_map;
  Kokkos::parallel_for(
      "rsh::transpose::row_map", Range64<ExecSpace>(exec, 0, nnz + 1), KOKKOS_LAMBDA(const int64_t p) {
        const int64_t last = p > 0 ? static_cast<int64_t>(keys(p - 1) >> 32) : -1;
        const int64_t col = p < nnz ? static_cast<int64_t>(keys(p) >> 32) : num_cols;
        for (int64_t c = last + 1; c <= col; ++c) t_row_map(c) = p;
      });
  T.entries = uninitialized_view<int>(exec, "rsh::transpose::entries", nnz);
  T.source = uninitialized_view<int64_t>(exec, "rsh::transpose::source", nnz);
  const auto t_entries = T.entries;
  const auto t_source = T.source;
  Kokkos::parallel_for(
      "rsh::transpose::entries", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t p) {
        t_entries(p) = static_cast<int>(keys(p) & 0xffffffffu);
        t_source(p) = A.user_position(from(p));
      });
  return T;
}

/// out(p) = values(T.source(p)): A's values in A^T's order, on `exec`.
template <class ExecSpace, class MemorySpace, class Values, class Out>
void transposed_values_on(const ExecSpace& exec, const TransposeOf<MemorySpace>& T, const Values& values,
                          const Out& out) {
  const auto source = T.source;
  Kokkos::parallel_for(
      "rsh::transpose::values", Range64<ExecSpace>(exec, 0, static_cast<int64_t>(source.extent(0))),
      KOKKOS_LAMBDA(const int64_t p) { out(p) = values(source(p)); });
}

/// A^T as a CrsBundle in `exec`'s memory space (pattern from T, values gathered from A's).
template <class Scalar, class ExecSpace, class MemorySpace, class Values>
CrsBundle<Scalar, int64_t, MemorySpace> transposed_bundle_on(const ExecSpace& exec, const TransposeOf<MemorySpace>& T,
                                                             const Values& values) {
  CrsBundle<Scalar, int64_t, MemorySpace> At;
  At.num_rows = static_cast<int>(T.num_rows), At.num_cols = static_cast<int>(T.num_cols);
  At.row_map = T.row_map;
  At.entries = T.entries;
  At.values = typename CrsBundle<Scalar, int64_t, MemorySpace>::values_type(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::transpose::values"), T.source.extent(0));
  transposed_values_on(exec, T, values, At.values);
  return At;
}

}  // namespace impl
}  // namespace rsh
