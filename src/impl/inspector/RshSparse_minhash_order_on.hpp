#pragma once
// Reorder::kMinHash on the inspector's execution space: rows sorted by a
// MinHash signature of their column sets. Two rows get the same minimum of a
// random hash over their columns with probability equal to their Jaccard
// similarity, so sorting by it brings rows that share columns next to each
// other, into the same 8-row windows: each row joins the cluster of its
// column with the smallest hash, as in a random-pivot clustering of the rows.
// Equal signatures keep the given order, which keeps what locality the given
// order has inside each cluster. Linear in the nonzeros plus one sort of the
// rows.
#include "impl/inspector/RshSparse_sort_pairs_on.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"

namespace rsh {
namespace impl {

/// A row's minimum of the column hash h over its columns; 2^31 - 1 + 1 for an empty row (sorts last).
template <class RowMap, class Entries, class Hash>
KOKKOS_INLINE_FUNCTION uint64_t row_min_hash(const RowMap& row_map, const Entries& entries, int64_t r, const Hash& h) {
  uint64_t m = uint64_t(1) << 31;
  for (int64_t k = row_map(r); k < row_map(r + 1); ++k) {
    const uint64_t v = h(entries(k));
    m = v < m ? v : m;
  }
  return m;
}

/// The rows of sorted A in MinHash order (position -> row); empty rows last, in their given order.
/// The primary key is a two-hop MinHash: the smallest one-hop signature among the rows that share a
/// column with the row, so rows joined by shared columns (a community, a group of rows drawing on the same
/// columns, a neighbourhood of a mesh) sort together even where no single column is in all of them; the
/// one-hop signature orders each such cluster, rows sharing their minimum column side by side.
template <class ExecSpace>
View1<int, typename ExecSpace::memory_space> minhash_order_on(const ExecSpace& exec,
                                                              const SortedCrs<typename ExecSpace::memory_space>& A) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows;
  View1<uint64_t, Mem> one_hop(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::minhash::one_hop"), n);
  View1<uint64_t, Mem> signature(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::minhash::signature"), n);
  View1<uint64_t, Mem> column_min("rsh::minhash::column_min", A.num_cols);
  View1<int, Mem> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::minhash::order"), n);
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  Kokkos::deep_copy(exec, column_min, uint64_t(1) << 31);
  Kokkos::parallel_for(
      "rsh::inspect::minhash", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        const uint64_t h = row_min_hash(row_map, entries, r, [](int col) {
          return mix64(uint64_t(static_cast<uint32_t>(col)) + 0x9E3779B97F4A7C15ULL) >> 33;
        });
        one_hop(r) = h;
        for (int64_t k = row_map(r); k < row_map(r + 1); ++k) Kokkos::atomic_fetch_min(&column_min(entries(k)), h);
        order(r) = static_cast<int>(r);
      });
  Kokkos::parallel_for(
      "rsh::inspect::minhash_two_hops", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        const uint64_t h = row_min_hash(row_map, entries, r, [&](int col) { return column_min(col); });
        signature(r) = h << 32 | one_hop(r);
      });
  sort_pairs(exec, signature, order);
  return order;
}

}  // namespace impl
}  // namespace rsh
