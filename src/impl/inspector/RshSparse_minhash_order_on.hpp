#pragma once
// Reorder::kMinHash on the inspector's execution space: rows sorted by a
// MinHash signature of their column sets. Two rows get the same minimum of a
// random hash over their columns with probability equal to their Jaccard
// similarity, so sorting by it brings rows that share columns next to each
// other, into the same 8-row windows: each row joins the cluster of its
// column with the smallest hash, as in a random-pivot clustering of the rows.
// Equal keys keep the given order. Linear in the nonzeros plus one sort of
// the rows. On a square A, rounds of label propagation can refine the
// clusters (ReorderOptions::minhash_label_rounds): the two-hop minimum
// reaches past a community through its few outside edges and merges
// unrelated ones, where the label most of a row's neighbours hold does not.
#include <stdexcept>
#include <string>

#include "impl/inspector/RshSparse_sort_pairs_on.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"
#include "impl/inspector/RshSparse_window_regroup_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// The minimum of h(col) over a row's columns; 2^63 for an empty row (sorts last).
template <class RowMap, class Entries, class Hash>
KOKKOS_INLINE_FUNCTION uint64_t row_min(const RowMap& row_map, const Entries& entries, int64_t r, const Hash& h) {
  uint64_t m = uint64_t(1) << 63;
  for (int64_t k = row_map(r); k < row_map(r + 1); ++k) {
    const uint64_t v = h(entries(k));
    m = v < m ? v : m;
  }
  return m;
}

/// Columns of a row whose labels propagate_labels counts: a bounded local array a thread (hub rows sampled).
constexpr int kLabelSample = 32;
/// The most rounds ReorderOptions::minhash_label_rounds takes (each reads every nonzero once).
constexpr int kMaxLabelRounds = 64;

/// Label propagation over the graph of a square A's rows (row r's columns read as rows), `rounds` rounds from
/// `label`: each row takes the label most of its columns hold, counted over at most kLabelSample of them (spread
/// over a longer row), its own where that ties. Returns the labels (row ids, as the initial ones are).
template <class ExecSpace>
View1<int64_t, typename ExecSpace::memory_space> propagate_labels(
    const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
    View1<int64_t, typename ExecSpace::memory_space> label, int rounds) {
  using Mem = typename ExecSpace::memory_space;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  auto next = scratch_view<int64_t>(exec, "rsh::minhash::next_label", A.num_rows);  // swapped with label
  for (int round = 0; round < rounds; ++round) {
    const View1<int64_t, Mem> from = label, to = next;
    Kokkos::parallel_for(
        "rsh::inspect::minhash_label_round", Range64<ExecSpace>(exec, 0, A.num_rows), KOKKOS_LAMBDA(const int64_t r) {
          int64_t held[kLabelSample];
          const int64_t len = row_map(r + 1) - row_map(r);
          const int m = len < kLabelSample ? static_cast<int>(len) : kLabelSample;
          for (int i = 0; i < m; ++i)
            held[i] = from(entries(row_map(r) + (len <= kLabelSample ? i : i * len / kLabelSample)));
          for (int i = 1; i < m; ++i)  // insertion sort: runs of equal labels
            for (int j = i; j > 0 && held[j - 1] > held[j]; --j) {
              const int64_t t = held[j];
              held[j] = held[j - 1], held[j - 1] = t;
            }
          int64_t best = from(r);
          int best_count = 0, own_count = 0;
          for (int i = 0; i < m;) {
            int j = i;
            while (j < m && held[j] == held[i]) ++j;
            if (held[i] == from(r)) own_count = j - i;
            if (j - i > best_count) best_count = j - i, best = held[i];
            i = j;
          }
          to(r) = own_count == best_count ? from(r) : best;
        });
    next = label, label = to;
  }
  return label;
}

/// The rows of sorted A in MinHash order (position -> row); empty rows last, in their given order.
/// A row's one-hop signature is its column of smallest hash; its cluster is the smallest one-hop signature
/// among the rows that share a column with it (two hops), so rows joined by shared columns (a community, a
/// group of rows drawing on the same columns, a neighbourhood of a mesh) cluster together even where no
/// single column is in all of them. Clusters keep the place of their first row in the given order (what
/// locality between windows the given order has, say blocks of a block-diagonal matrix, survives); inside
/// a cluster, rows sharing their one-hop column sit side by side. With `label_rounds` > 0 on a square A,
/// the clusters are refined by that many rounds of label propagation (propagate_labels) from them. With
/// `window_chunk` > 0 the windows of each chunk of that many positions are dealt again (regroup_windows_on).
template <class ExecSpace>
View1<int, typename ExecSpace::memory_space> minhash_order_on(const ExecSpace& exec,
                                                              const SortedCrs<typename ExecSpace::memory_space>& A,
                                                              int label_rounds = 0, int window_chunk = 0) {
  if (label_rounds < 0 || label_rounds > kMaxLabelRounds)
    throw std::invalid_argument("rsh::ReorderOptions: minhash_label_rounds = " + std::to_string(label_rounds) +
                                " outside [0, " + std::to_string(kMaxLabelRounds) + "]");
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows;
  constexpr uint64_t kNone = uint64_t(1) << 63;
  // Signatures are (31-bit hash of a column) << 32 | column: the column that attains the minimum.
  const auto one_hop = scratch_view<uint64_t>(exec, "rsh::minhash::one_hop", n);
  const auto column_min = scratch_zeros<uint64_t>(exec, "rsh::minhash::column_min", A.num_cols);
  const auto cluster_first = scratch_zeros<int64_t>(exec, "rsh::minhash::cluster_first", A.num_cols);
  const auto key = scratch_view<uint64_t>(exec, "rsh::minhash::key", n);
  const auto order = uninitialized_view<int>(exec, "rsh::minhash::order", n);
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  Kokkos::deep_copy(exec, column_min, kNone);
  Kokkos::deep_copy(exec, cluster_first, int64_t(n));
  Kokkos::parallel_for(
      "rsh::inspect::minhash", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        const uint64_t h = row_min(row_map, entries, r, [](int col) {
          const uint64_t c = static_cast<uint32_t>(col);
          return (mix64(c + 0x9E3779B97F4A7C15ULL) >> 33) << 32 | c;
        });
        one_hop(r) = h;
        for (int64_t k = row_map(r); k < row_map(r + 1); ++k) Kokkos::atomic_fetch_min(&column_min(entries(k)), h);
        order(r) = static_cast<int>(r);
      });
  // key(r): the cluster's anchor column for now; each anchor's first row.
  Kokkos::parallel_for(
      "rsh::inspect::minhash_two_hops", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        const uint64_t h = row_min(row_map, entries, r, [&](int col) { return column_min(col); });
        key(r) = h;
        if (h != kNone) Kokkos::atomic_fetch_min(&cluster_first(static_cast<uint32_t>(h)), r);
      });
  // The cluster of each row: its anchor's first row (a row id; a row of no column its own), refined where asked.
  auto cluster = scratch_view<int64_t>(exec, "rsh::minhash::cluster", n);  // refined by propagate_labels
  Kokkos::parallel_for(
      "rsh::inspect::minhash_clusters", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        cluster(r) = key(r) == kNone ? r : cluster_first(static_cast<uint32_t>(key(r)));
      });
  if (label_rounds > 0 && A.num_rows == A.num_cols) cluster = propagate_labels(exec, A, cluster, label_rounds);
  // Sort key: the cluster, then the row's one-hop hash (empty rows: the largest key).
  Kokkos::parallel_for(
      "rsh::inspect::minhash_keys", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        key(r) = row_map(r + 1) == row_map(r) ? ~uint64_t(0) : uint64_t(cluster(r)) << 32 | (one_hop(r) >> 32);
      });
  sort_pairs(exec, key, order);
  if (window_chunk == 0) return order;
  return regroup_windows_on(exec, A, View1<const int, Mem>(order), window_chunk);
}

}  // namespace impl
}  // namespace rsh
