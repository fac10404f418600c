#pragma once
// Per-nonzero views of row windows, for the partitions that assign nonzeros
// rather than whole rows (Libra, BalancedBlocks): every stored entry of a
// window's rows on its own thread, which finds its row by a binary search in
// row_map and its window from the row's slot, and reads the window's other
// rows by binary searches (8 per entry, whatever the rows' lengths, so hub
// rows cost no thread more than others). And the split of A into the
// entries that go to tiles and those that go to the residual.
#include <string>

#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// slot(r) = 8 * w + i where row r is slot i of window w of `window_rows`, else -1.
template <class ExecSpace>
View1<int64_t, typename ExecSpace::memory_space> window_slots_on(
    const ExecSpace& exec, int64_t num_rows, const View1<int, typename ExecSpace::memory_space>& window_rows) {
  using Mem = typename ExecSpace::memory_space;
  const auto slot = scratch_view<int64_t>(exec, "rsh::window_entries::slot", num_rows);
  Kokkos::deep_copy(exec, slot, int64_t(-1));
  Kokkos::parallel_for(
      "rsh::inspect::window_slots", Range64<ExecSpace>(exec, 0, static_cast<int64_t>(window_rows.extent(0))),
      KOKKOS_LAMBDA(const int64_t s) {
        if (window_rows(s) >= 0) slot(window_rows(s)) = s;
      });
  return slot;
}

/// Where stored entry k of A lies: its row and that row's window slot (8 * window + slot in the window,
/// -1 outside every window).
struct EntryAt {
  int64_t row, slot;
};

template <class RowMap, class Slots>
KOKKOS_INLINE_FUNCTION EntryAt entry_at(const RowMap& row_map, const Slots& slot, int64_t num_rows, int64_t k) {
  const int64_t r = row_of(row_map, num_rows, k);
  return {r, slot(r)};
}

/// How the entries of one window's rows compare with one column: entries of smaller columns in all rows,
/// the rows holding it, and its copies in the rows before slot `i` and before position k in row i.
struct ColumnInWindow {
  int64_t smaller = 0, copies_before = 0;
  int holders = 0;
};

template <class RowMap, class Entries, class WindowRows>
KOKKOS_INLINE_FUNCTION ColumnInWindow column_in_window(const RowMap& row_map, const Entries& entries,
                                                       const WindowRows& window_rows, int64_t slot, int64_t k) {
  const int col = entries(k);
  const int64_t w = slot / 8, i = slot % 8;
  ColumnInWindow c;
  for (int j = 0; j < 8; ++j) {
    const int r = window_rows(8 * w + j);
    if (r < 0) continue;
    const int64_t begin = row_map(r), end = row_map(r + 1);
    const int64_t lo = lower_bound(entries, begin, end, col);
    int64_t hi = lo;
    while (hi < end && entries(hi) == col) ++hi;
    c.smaller += lo - begin;
    c.holders += hi > lo;
    if (j < i) c.copies_before += hi - lo;
    if (j == i) c.copies_before += k - lo;
  }
  return c;
}

/// f(w, local, i, k, true) for every stored entry k of A in a window of `window_rows` (slot from
/// window_slots_on): row slot i of window w, `local` its rank among the window's entries in column order
/// (slot order within a column; every copy of a column counted). With one entry per tile column, that
/// rank is its tile column. (The arguments are those of for_each_window_entry's f.)
template <class ExecSpace, class F>
void for_each_ranked_entry(const ExecSpace& exec, const char* label,
                           const SortedCrs<typename ExecSpace::memory_space>& A,
                           const View1<int, typename ExecSpace::memory_space>& window_rows,
                           const View1<int64_t, typename ExecSpace::memory_space>& slot, const F& f) {
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const int64_t n = A.num_rows;
  Kokkos::parallel_for(
      label, Range64<ExecSpace>(exec, 0, A.nnz), KOKKOS_LAMBDA(const int64_t k) {
        const EntryAt at = entry_at(row_map, slot, n, k);
        if (at.slot < 0) return;
        const ColumnInWindow c = column_in_window(row_map, entries, window_rows, at.slot, k);
        f(at.slot / 8, static_cast<int>(c.smaller + c.copies_before), static_cast<int>(at.slot % 8), k, true);
      });
}

/// The entries of A with keep(k) set, and the others, as two sorted CSRs over A's rows (each entry keeps
/// its user position).
template <class MemorySpace>
struct SplitCrs {
  SortedCrs<MemorySpace> kept, rest;
};

template <class ExecSpace, class Keep>
SplitCrs<typename ExecSpace::memory_space> split_crs_on(const ExecSpace& exec,
                                                        const SortedCrs<typename ExecSpace::memory_space>& A,
                                                        const Keep& keep) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows, nnz = A.nnz;
  const auto before = scratch_view<int64_t>(exec, "rsh::split::before", nnz + 1);
  const int64_t kept_nnz = exclusive_scan(
      exec, "rsh::inspect::split_scan", nnz, before, KOKKOS_LAMBDA(const int64_t k) { return int64_t(keep(k) != 0); });
  // (Scratch: the pattern built from the split copies what it keeps.)
  auto offsets = [&](const char* label) { return scratch_view<int64_t>(exec, label, n + 1); };
  auto columns = [&](const char* label, int64_t count) { return scratch_view<int>(exec, label, count); };
  auto sources = [&](const char* label, int64_t count) { return scratch_view<int64_t>(exec, label, count); };
  const auto kept_map = offsets("rsh::split::kept_row_map"), rest_map = offsets("rsh::split::rest_row_map");
  const auto kept_entries = columns("rsh::split::kept_entries", kept_nnz);
  const auto rest_entries = columns("rsh::split::rest_entries", nnz - kept_nnz);
  const auto kept_source = sources("rsh::split::kept_source", kept_nnz);
  const auto rest_source = sources("rsh::split::rest_source", nnz - kept_nnz);
  const auto row_map = A.row_map;
  Kokkos::parallel_for(
      "rsh::inspect::split_rows", Range64<ExecSpace>(exec, 0, n + 1), KOKKOS_LAMBDA(const int64_t r) {
        kept_map(r) = before(row_map(r));
        rest_map(r) = row_map(r) - before(row_map(r));
      });
  const auto entries = A.entries;
  const SortedCrs<Mem> a = A;
  Kokkos::parallel_for(
      "rsh::inspect::split_entries", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t k) {
        if (keep(k)) {
          kept_entries(before(k)) = entries(k), kept_source(before(k)) = a.user_position(k);
        } else {
          rest_entries(k - before(k)) = entries(k), rest_source(k - before(k)) = a.user_position(k);
        }
      });
  SplitCrs<Mem> out;
  auto fill = [&](SortedCrs<Mem>& S, int64_t count, const View1<int64_t, Mem>& map, const View1<int, Mem>& cols,
                  const View1<int64_t, Mem>& src) {
    S.num_rows = n, S.num_cols = A.num_cols, S.nnz = count;
    S.row_map = map, S.entries = cols, S.source = src;
  };
  fill(out.kept, kept_nnz, kept_map, kept_entries, kept_source);
  fill(out.rest, nnz - kept_nnz, rest_map, rest_entries, rest_source);
  return out;
}

}  // namespace impl
}  // namespace rsh
