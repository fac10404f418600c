#pragma once
// The distinct columns of every window a row walk opened (walk_partition_on),
// counted where the window opens, without listing the windows on the host:
// what kAuto's counted cost needs of the RowStructured partition. Short windows
// are merged a thread each; long ones (more than long_window_nnz nonzeros: a
// merge on one thread would be the pass's critical path) are counted over a
// bitmap of their span in team scratch, as long_windows_on ranks them, or,
// where the span or the window is too large for one team's bitmap, an entry a
// thread by binary searches in the window's earlier rows.
#include <cstdint>

#include "impl/inspector/RshSparse_inspector_views.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"

namespace rsh {
namespace impl {

/// Teams that count the long windows over bitmaps, each taking every this-many-th window: enough to spread
/// over a GPU, few enough that a walk of many short windows does not launch a team each.
constexpr int kWindowCountTeams = 1024;

/// Stored entries a thread of the searched count takes in sequence: its atomic adds go a window at a time,
/// not an entry at a time, into a hub window's one count.
constexpr int64_t kSearchedCountChunkNnz = 8;

/// Per visiting position p that opens a window of `walk` (over sorted A visited in `order`): the window's
/// distinct columns (other positions: unset). Queued on `exec`; `max_row_nnz` (MatrixStats; -1: unknown)
/// spares the searched count's pass where no window can need it.
template <class ExecSpace>
View1<int, typename ExecSpace::memory_space> window_distinct_on(
    const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
    const View1<const int, typename ExecSpace::memory_space>& order,
    const RowPlaces<typename ExecSpace::memory_space>& walk, int64_t longer_than, int64_t max_row_nnz) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows, nnz = A.nnz;
  const auto place = walk.place;
  const auto totals = walk.totals;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const VisitOrder<Mem> row_at{order};
  auto rows_of_window = KOKKOS_LAMBDA(const int64_t p, int* rows) {  // the window opened at position p
    for (int i = 0; i < 8; ++i) rows[i] = p + i < n ? row_at(p + i) : -1;
  };
  auto is_long = KOKKOS_LAMBDA(const int* rows) {
    return window_nnz(row_map, rows) > longer_than;
  };

  // Short windows merged; long ones set to 0 for the counts below, and every window's opening position
  // listed by window (at most one window an 8 positions).
  const auto distinct = scratch_view<int>(exec, "rsh::window_counts::distinct", n);
  const auto opened_at = scratch_view<int64_t>(exec, "rsh::window_counts::opened_at", (n + 7) / 8);
  Kokkos::parallel_for(
      "rsh::inspect::counted_windows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        if (place(p) < 0 || place(p) % 8 != 0) return;
        opened_at(place(p) / 8) = p;
        int rows[8];
        rows_of_window(p, rows);
        distinct(p) = is_long(rows) ? 0 : merge_window_columns(row_map, entries, rows, [](int, int, int64_t, bool) {});
      });
  if (longer_than >= nnz) return distinct;  // no window is long

  // Long windows whose span fits a team's bitmap: each entry sets its column's bit, and the window's count
  // is the bits set.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;
  using Member = typename Policy::member_type;
  using Words = Kokkos::View<unsigned*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int kWords = kBitmapRankColumns / 32;
  const int64_t teams = (n + 7) / 8 < kWindowCountTeams ? (n + 7) / 8 : kWindowCountTeams;
  Kokkos::parallel_for(
      "rsh::inspect::counted_bitmap_windows",
      Policy(exec, teams, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(Words::shmem_size(kWords))),
      KOKKOS_LAMBDA(const Member& team) {
        const Words bits(team.team_scratch(0), kWords);
        for (int64_t w = team.league_rank(); w < totals(0); w += team.league_size()) {
          const int64_t p = opened_at(w);
          int rows[8];
          rows_of_window(p, rows);
          if (!is_long(rows)) continue;
          const WindowSpan span = window_span(row_map, entries, rows);
          if (!span.bitmap_ranked()) continue;
          fill_window_bitmap(team, bits, span, rows, row_map, entries);
          int count = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, span.words()), [&](const int i, int& sum) { sum += popcount64(bits(i)); },
              count);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { distinct(p) = count; });
          team.team_barrier();  // the bitmap is cleared for the next window only once every thread has counted
        }
      });

  // Other long windows, an entry a thread: it adds its column unless an earlier position of its row or an
  // earlier row of its window holds it. Not launched where every long window fits a bitmap for certain.
  const bool all_bitmap = max_row_nnz >= 0 && A.num_cols <= kBitmapRankColumns && 8 * max_row_nnz <= kBitmapRankMaxNnz;
  if (all_bitmap) return distinct;
  const bool ordered = order.extent(0) != 0;
  const auto position = scratch_view<int>(exec, "rsh::window_counts::position", ordered ? n : 0);
  if (ordered)
    Kokkos::parallel_for(
        "rsh::inspect::counted_positions", Range64<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const int64_t p) { position(order(p)) = static_cast<int>(p); });
  constexpr int64_t kChunk = kSearchedCountChunkNnz;
  Kokkos::parallel_for(
      "rsh::inspect::counted_searched_windows", Range64<ExecSpace>(exec, 0, (nnz + kChunk - 1) / kChunk),
      KOKKOS_LAMBDA(const int64_t c) {
        const int64_t end = nnz < (c + 1) * kChunk ? nnz : (c + 1) * kChunk;
        int64_t r = row_of(row_map, n, c * kChunk), start = -1;
        int rows[8], count = 0;
        bool searched = false;  // the current window is long and past a bitmap
        for (int64_t k = c * kChunk; k < end; ++k) {
          while (row_map(r + 1) <= k) ++r;
          const int64_t p = ordered ? position(r) : r, at = place(p);
          if (at < 0) continue;
          const int slot = static_cast<int>(at % 8);
          if (p - slot != start) {
            if (count > 0) Kokkos::atomic_add(&distinct(start), count);
            start = p - slot, count = 0;
            rows_of_window(start, rows);
            searched = is_long(rows) && !window_span(row_map, entries, rows).bitmap_ranked();
          }
          const int col = entries(k);
          if (!searched || (k > row_map(r) && entries(k - 1) == col)) continue;
          bool held = false;
          for (int j = 0; j < slot && !held; ++j) {
            const int64_t q = lower_bound(entries, row_map(rows[j]), row_map(rows[j] + 1), col);
            held = q < row_map(rows[j] + 1) && entries(q) == col;
          }
          count += !held;
        }
        if (count > 0) Kokkos::atomic_add(&distinct(start), count);
      });
  return distinct;
}

}  // namespace impl
}  // namespace rsh
