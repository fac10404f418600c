#pragma once
// The first phase of the inspector on an execution space: A's CSR checked
// (throws std::invalid_argument, every extent named) and copied with the
// columns of each row sorted, without leaving the views' memory space.
#include <stdexcept>
#include <string>

#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_signature_on.hpp"
#include "impl/inspector/RshSparse_sort_pairs_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// Rows longer than this are sorted by one global sort (sort_pairs), not on one thread.
constexpr int64_t kLongRowNnz = 1024;

/// A's pattern with the columns of each row in increasing order (duplicates adjacent), and where each
/// position came from in the user's arrays.
template <class MemorySpace>
struct SortedCrs {
  int64_t num_rows = 0, num_cols = 0, nnz = 0;
  View1<const int64_t, MemorySpace> row_map;  ///< num_rows + 1
  View1<const int, MemorySpace> entries;      ///< nnz
  View1<const int64_t, MemorySpace> source;   ///< nnz: the user's position of each sorted position; empty: the same
  uint64_t signature = 0;                     ///< pattern_signature_on of the user's arrays (taken by the checks)
  KOKKOS_INLINE_FUNCTION int64_t user_position(int64_t k) const { return source.extent(0) ? source(k) : k; }
};

/// Sorts keys[0, n) ascending and moves payload alongside (heap sort: no scratch, n log n on one thread).
template <class Keys, class Payload>
KOKKOS_INLINE_FUNCTION void sort_by_key(const Keys& keys, const Payload& payload, int64_t first, int64_t n) {
  auto swap = [&](int64_t a, int64_t b) {
    const auto k = keys(first + a);
    keys(first + a) = keys(first + b), keys(first + b) = k;
    const auto p = payload(first + a);
    payload(first + a) = payload(first + b), payload(first + b) = p;
  };
  auto sift_down = [&](int64_t root, int64_t end) {
    while (2 * root + 1 < end) {
      int64_t child = 2 * root + 1;
      if (child + 1 < end && keys(first + child) < keys(first + child + 1)) ++child;
      if (!(keys(first + root) < keys(first + child))) return;
      swap(root, child);
      root = child;
    }
  };
  for (int64_t i = n / 2; i-- > 0;) sift_down(i, n);
  for (int64_t end = n - 1; end > 0; --end) {
    swap(0, end);
    sift_down(0, end);
  }
}

/// Checks A's CSR on `exec` and returns it with sorted rows (copies in the views' space: scratch of the
/// current inspection, which the formats built from it never hold). `num_values` is
/// the extent of A's values; `who` names the caller in the messages.
template <class ExecSpace, class RowMap, class Entries>
SortedCrs<typename ExecSpace::memory_space> sorted_crs(const ExecSpace& exec, int64_t num_rows, int64_t num_cols,
                                                       const RowMap& user_row_map, const Entries& user_entries,
                                                       int64_t num_values, const char* who) {
  using Mem = typename ExecSpace::memory_space;
  const std::string w(who);
  SortedCrs<Mem> A;
  A.num_rows = num_rows, A.num_cols = num_cols;
  if (static_cast<int64_t>(user_row_map.extent(0)) != num_rows + 1)
    throw std::invalid_argument(w + ": row_map has " + std::to_string(user_row_map.extent(0)) + " entries for " +
                                std::to_string(num_rows) + " rows");
  if (num_cols > INT_MAX || num_rows > INT_MAX)
    throw std::invalid_argument(w + ": " + std::to_string(num_rows) + " x " + std::to_string(num_cols) +
                                " exceeds the 32-bit row and column ids of the format");
  const int64_t n = num_rows, stored = static_cast<int64_t>(user_entries.extent(0));
  const auto row_map = scratch_view<int64_t>(exec, "rsh::sorted::row_map", n + 1);
  A.row_map = row_map;
  const auto entries = scratch_view<int>(exec, "rsh::sorted::entries", stored);
  A.entries = entries;
  const auto unsorted = scratch_zeros<char>(exec, "rsh::sorted::unsorted", n);
  // The copies and their checks in one pass, whose result is the only wait. Rows: the first decrease
  // (max[0], negated), row_map(0) (sum[0]) and row_map(n) (sum[1]). Entries (each on its own thread: a row a
  // thread would walk a hub row of a power-law graph alone): the first column out of range (max[1],
  // negated), and the rows whose columns ever decrease, found in the user's row_map (a decrease at k inside
  // a row, not at its first entry, marks the row; sum[2] counts them). And the pattern hash's terms of both.
  // Nothing of it is used unless every check passes.
  const Tally checks = tally(
      exec, "rsh::inspect::check_crs", n + 1 > stored ? n + 1 : stored, KOKKOS_LAMBDA(const int64_t i, Tally& t) {
        if (i <= n) {
          const int64_t at = static_cast<int64_t>(user_row_map(i));
          row_map(i) = at;
          t.hash += row_offset_term(i, static_cast<uint64_t>(at));
          if (i == 0) t.sum[0] = at;
          if (i == n) t.sum[1] = at;
          if (i < n && static_cast<int64_t>(user_row_map(i + 1)) < at && -i > t.max[0]) t.max[0] = -i;
        }
        if (i >= stored) return;
        const int64_t k = i;
        const auto c = user_entries(k);
        if (c < 0 || c >= num_cols) {
          if (-k > t.max[1]) t.max[1] = -k;
          entries(k) = 0;
          return;
        }
        entries(k) = static_cast<int>(c);
        t.hash += entry_term(k, static_cast<uint32_t>(c));
        if (k == 0 || n == 0 || c >= user_entries(k - 1)) return;  // (n == 0 with entries throws below)
        const int64_t r = row_of(user_row_map, n, k);
        if (static_cast<int64_t>(user_row_map(r)) == k) return;  // k starts its row
        unsorted(r) = 1;                                         // (every thread that finds row r stores the same)
        t.sum[2] += 1;
      });
  if (checks.sum[0] != 0) throw std::invalid_argument(w + ": row_map(0) = " + std::to_string(checks.sum[0]) + " != 0");
  if (checks.max[0] != INT64_MIN)
    throw std::invalid_argument(w + ": row_map decreases at row " + std::to_string(-checks.max[0]));
  A.nnz = checks.sum[1];
  if (A.nnz != stored || A.nnz != num_values)
    throw std::invalid_argument(w + ": row_map(" + std::to_string(n) + ") = " + std::to_string(A.nnz) +
                                " but entries has " + std::to_string(stored) + " and values " +
                                std::to_string(num_values));
  if (checks.max[1] != INT64_MIN) {
    const int64_t k = -checks.max[1];
    throw std::invalid_argument(w + ": column index " +
                                std::to_string(static_cast<int64_t>(read_back(user_entries, k))) + " at position " +
                                std::to_string(k) + " outside [0, " + std::to_string(num_cols) + ")");
  }
  A.signature = pattern_hash(num_rows, num_cols, checks.hash);
  auto unsorted_row = KOKKOS_LAMBDA(const int64_t r) {
    return unsorted(r) != 0;
  };
  if (checks.sum[2] == 0) return A;
  // Unsorted rows: (column, user position) sorted by column. Short rows on one thread each; long ones (hub
  // rows, whose heap sort on one thread would be the phase's critical path) in one global sort of
  // (row, column) keys, which leaves each row's entries in its own range.
  const auto source = scratch_view<int64_t>(exec, "rsh::sorted::source", A.nnz);
  A.source = source;
  Kokkos::parallel_for(
      "rsh::inspect::identity", Range64<ExecSpace>(exec, 0, A.nnz), KOKKOS_LAMBDA(const int64_t k) { source(k) = k; });
  auto long_row = KOKKOS_LAMBDA(const int64_t r) {
    return row_map(r + 1) - row_map(r) > kLongRowNnz;
  };
  Kokkos::parallel_for(
      "rsh::inspect::sort_rows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        if (!long_row(r) && unsorted_row(r)) sort_by_key(entries, source, row_map(r), row_map(r + 1) - row_map(r));
      });
  const auto at = scratch_view<int64_t>(exec, "rsh::sorted::long_at", n + 1);
  const int64_t E = exclusive_scan(
      exec, "rsh::inspect::long_unsorted", n, at, KOKKOS_LAMBDA(const int64_t r) {
        return long_row(r) && unsorted_row(r) ? row_map(r + 1) - row_map(r) : int64_t(0);
      });
  if (E == 0) return A;
  if (E > INT_MAX) throw std::invalid_argument(w + ": " + std::to_string(E) + " entries in long unsorted rows");
  const auto keys = scratch_view<uint64_t>(exec, "rsh::sorted::keys", E);
  const auto from = scratch_view<int>(exec, "rsh::sorted::from", E);
  Kokkos::parallel_for(
      "rsh::inspect::long_row_keys", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        if (at(r + 1) == at(r)) return;
        for (int64_t k = row_map(r); k < row_map(r + 1); ++k) {
          const int64_t e = at(r) + (k - row_map(r));
          keys(e) = uint64_t(r) << 32 | uint64_t(static_cast<uint32_t>(entries(k)));
          from(e) = static_cast<int>(e);
        }
      });
  sort_pairs(exec, keys, from);
  // Entry e of the sorted keys lands at its row's position e - at(r); it came from position from(e) - at(r).
  Kokkos::parallel_for(
      "rsh::inspect::long_rows_back", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        if (at(r + 1) == at(r)) return;
        for (int64_t e = at(r); e < at(r + 1); ++e) {
          const int64_t k = row_map(r) + (e - at(r));
          entries(k) = static_cast<int>(keys(e) & 0xffffffffu);
          source(k) = row_map(r) + (from(e) - at(r));
        }
      });
  return A;
}

}  // namespace impl
}  // namespace rsh
