#pragma once
// The distinct columns of long row windows, ranked in parallel. One thread
// merging a window's 8 sorted rows (merge_window_columns) is linear in the
// window's nonzeros, and on power-law graphs a few windows of hub rows hold a
// large share of all nonzeros: their merge would be the whole inspection's
// critical path. Windows holding more than long_window_nnz nonzeros are done
// here instead, in one of two ways:
// - a window whose columns span few enough (kBitmapRankColumns) is ranked by
//   one team: each entry sets its column's bit in a bitmap of the span in
//   team scratch, and a scan of the words' counts ranks the columns;
// - any other is ranked every stored entry on its own thread: an entry owns
//   its column when no earlier row of the window and no earlier position of
//   its row holds it, and a column's rank among the window's distinct columns
//   is the number of owners of smaller columns, read off a scan of the owner
//   flags by a binary search in each row.
#include <cstdint>
#include <type_traits>

#include "RshSparse_spmm_options.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"

namespace rsh {
namespace impl {

/// On a GPU, windows of more nonzeros than this are always long (ranked an entry a thread, not merged a
/// window a thread): below it a window's merge is short next to the launches around it, and ranking its
/// entries costs a few binary searches each.
constexpr int64_t kLongWindowMinNnz = 128;

/// The windows that are long on `exec` under `options`, for a matrix of `nnz` nonzeros: those of more
/// nonzeros than this. A pass merging every window a thread takes about as long as its longest merge or
/// as the nonzeros shared out over the device's resident threads (exec.concurrency()), whichever is more;
/// a window of more than twice the latter would be the pass's critical path, so it is ranked instead
/// (never one of kLongWindowMinNnz or fewer). Host spaces merge every window: there the merge does less
/// work than the searches, and no thread waits on another's window.
template <class ExecSpace>
int64_t long_window_nnz(const ExecSpace& exec, const Options& options, int64_t nnz) {
  if (options.tuning.long_window_nnz >= 0) return options.tuning.long_window_nnz;
  if (std::is_same<typename ExecSpace::memory_space, Kokkos::HostSpace>::value) return INT64_MAX;
  const int64_t threads = static_cast<int64_t>(exec.concurrency());
  const int64_t spread = 2 * nnz / (threads > 0 ? threads : 1);
  return spread > kLongWindowMinNnz ? spread : kLongWindowMinNnz;
}

/// Window w of the natural order: rows 8w .. 8w + 7 (-1 past the end).
struct NaturalWindows {
  int64_t num_rows;
  KOKKOS_INLINE_FUNCTION void operator()(int64_t w, int* rows) const { natural_window(w, num_rows, rows); }
};

/// Window w of a partition: 8 listed row ids (-1 = padding).
template <class MemorySpace>
struct ListedWindows {
  View1<int, MemorySpace> window_rows;
  KOKKOS_INLINE_FUNCTION void operator()(int64_t w, int* rows) const {
    for (int i = 0; i < 8; ++i) rows[i] = window_rows(8 * w + i);
  }
};

/// Nonzeros of the window with rows `rows`.
template <class RowMap>
KOKKOS_INLINE_FUNCTION int64_t window_nnz(const RowMap& row_map, const int* rows) {
  int64_t nz = 0;
  for (int i = 0; i < 8; ++i)
    if (rows[i] >= 0) nz += row_map(rows[i] + 1) - row_map(rows[i]);
  return nz;
}

/// First position in [lo, hi) of entries whose column is >= col.
template <class Entries>
KOKKOS_INLINE_FUNCTION int64_t lower_bound(const Entries& entries, int64_t lo, int64_t hi, int col) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (entries(mid) < col)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// A long window whose columns span at most this many and which holds at most kBitmapRankMaxNnz nonzeros
/// is ranked by one team over a bitmap of its span (two words of team scratch per 32 columns): that reads
/// each entry twice where the search reads a few per row of the window. A wider span would cost the team
/// more words to clear and scan than the window has entries, and a longer window would make one team the
/// pass's critical path, so those are searched.
constexpr int kBitmapRankColumns = 1 << 16;
constexpr int64_t kBitmapRankMaxNnz = int64_t(1) << 15;

/// The columns a window's rows span (its first and last column over its rows) and its nonzeros.
struct WindowSpan {
  int first, last;
  int64_t nnz;
  KOKKOS_INLINE_FUNCTION bool bitmap_ranked() const {
    return nnz <= kBitmapRankMaxNnz && int64_t(last) - first < kBitmapRankColumns;
  }
  KOKKOS_INLINE_FUNCTION int words() const { return (last - first) / 32 + 1; }
};

template <class RowMap, class Entries>
KOKKOS_INLINE_FUNCTION WindowSpan window_span(const RowMap& row_map, const Entries& entries, const int* rows) {
  WindowSpan s{INT_MAX, -1, 0};
  for (int i = 0; i < 8; ++i) {
    if (rows[i] < 0) continue;
    const int64_t begin = row_map(rows[i]), end = row_map(rows[i] + 1);
    if (begin == end) continue;
    s.nnz += end - begin;
    if (entries(begin) < s.first) s.first = entries(begin);
    if (entries(end - 1) > s.last) s.last = entries(end - 1);
  }
  return s;
}

/// The long windows of a window list and, for each of their stored entries (the window's rows' entries
/// one row after the other: its "elements"), the rank of its column among the window's distinct columns.
template <class MemorySpace>
struct LongWindows {
  int64_t longer_than = INT64_MAX;     ///< the windows of more nonzeros than this are long
  View1<int64_t, MemorySpace> window;  ///< the long windows' ids, increasing
  View1<int64_t, MemorySpace> offset;  ///< first element of each long window; one past the last at the end
  View1<int, MemorySpace> distinct;    ///< per long window: its distinct columns
  /// Per element: its column's rank in its window. At least as long as the elements, which end at
  /// offset(count()) (exactly as long where some window is searched).
  View1<int, MemorySpace> rank;
  KOKKOS_INLINE_FUNCTION int64_t count() const { return static_cast<int64_t>(window.extent(0)); }
  KOKKOS_INLINE_FUNCTION int64_t element_bound() const { return static_cast<int64_t>(rank.extent(0)); }
};

/// Where element e lies: its long window l, its row slot i in the window and its position k in A.
struct ElementAt {
  int64_t l, k;
  int i;
};

template <class MemorySpace, class RowMap, class Windows>
KOKKOS_INLINE_FUNCTION ElementAt element_at(const LongWindows<MemorySpace>& lw, const RowMap& row_map,
                                            const Windows& windows, int64_t e, int* rows) {
  int64_t lo = 0, hi = lw.count() - 1;  // the last l with offset(l) <= e
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (lw.offset(mid) <= e)
      lo = mid;
    else
      hi = mid - 1;
  }
  windows(lw.window(lo), rows);
  int64_t within = e - lw.offset(lo);
  for (int i = 0; i < 8; ++i) {
    if (rows[i] < 0) continue;
    const int64_t len = row_map(rows[i] + 1) - row_map(rows[i]);
    if (within < len) return {lo, row_map(rows[i]) + within, i};
    within -= len;
  }
  return {lo, -1, -1};  // unreachable for e < offset(count())
}

/// Sets in `bits`, a bitmap of a window's column span in team scratch (span.words() words, bit c -
/// span.first for column c), the bit of every column of the window's rows: cleared first, and the team
/// waits for it before and after.
template <class Member, class Words, class RowMap, class Entries>
KOKKOS_INLINE_FUNCTION void fill_window_bitmap(const Member& team, const Words& bits, const WindowSpan& span,
                                               const int* rows, const RowMap& row_map, const Entries& entries) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, span.words()), [&](const int i) { bits(i) = 0; });
  team.team_barrier();
  for (int i = 0; i < 8; ++i) {
    if (rows[i] < 0) continue;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_map(rows[i]), row_map(rows[i] + 1)), [&](const int64_t k) {
      const int c = entries(k) - span.first;
      Kokkos::atomic_fetch_or(&bits(c / 32), 1u << (c % 32));
    });
  }
  team.team_barrier();
}

/// Ranks the columns of the long windows of `lw` that window_span calls bitmap_ranked: a team a window.
template <class ExecSpace, class Windows>
void bitmap_ranks_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                     const Windows& windows, const LongWindows<typename ExecSpace::memory_space>& lw) {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;
  using Member = typename Policy::member_type;
  using Words = Kokkos::View<unsigned*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int kWords = kBitmapRankColumns / 32;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto window = lw.window;
  const auto offset = lw.offset;
  const auto distinct = lw.distinct;
  const auto rank = lw.rank;
  Kokkos::parallel_for(
      "rsh::inspect::bitmap_ranks",
      Policy(exec, lw.count(), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(2 * Words::shmem_size(kWords))),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t l = team.league_rank();
        int rows[8];
        windows(window(l), rows);
        const WindowSpan span = window_span(row_map, entries, rows);
        if (!span.bitmap_ranked()) return;
        const Words bits(team.team_scratch(0), kWords), before(team.team_scratch(0), kWords);
        const int words = span.words();
        fill_window_bitmap(team, bits, span, rows, row_map, entries);
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, words), [&](const int i, int& sum, const bool last) {
          if (last) before(i) = static_cast<unsigned>(sum);
          sum += popcount64(bits(i));
        });
        team.team_barrier();
        int64_t e = offset(l);
        for (int i = 0; i < 8; ++i) {
          if (rows[i] < 0) continue;
          const int64_t begin = row_map(rows[i]), end = row_map(rows[i] + 1);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, begin, end), [&](const int64_t k) {
            const int c = entries(k) - span.first;
            const unsigned below = bits(c / 32) & ((1u << (c % 32)) - 1u);
            rank(e + (k - begin)) = static_cast<int>(before(c / 32)) + popcount64(below);
          });
          e += end - begin;
        }
        Kokkos::single(Kokkos::PerTeam(team),
                       [&]() { distinct(l) = static_cast<int>(before(words - 1)) + popcount64(bits(words - 1)); });
      });
}

/// Ranks the columns of the long windows of `lw` that window_span does not call bitmap_ranked, an element
/// a thread (`searched` of them; the others' elements are skipped).
template <class ExecSpace, class Windows>
void searched_ranks_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                       const Windows& windows, const LongWindows<typename ExecSpace::memory_space>& lw) {
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const LongWindows<typename ExecSpace::memory_space> c = lw;
  const int64_t E = lw.element_bound();  // (the elements: long_windows_on reads their count back for this)
  const auto owners = scratch_view<int64_t>(exec, "rsh::long_windows::owners", E + 1);
  // An element owns its column if it is the column's first position in its row and no earlier row holds it.
  Kokkos::parallel_for(
      "rsh::inspect::long_window_owners", Range64<ExecSpace>(exec, 0, E), KOKKOS_LAMBDA(const int64_t e) {
        int rows[8];
        const ElementAt at = element_at(c, row_map, windows, e, rows);
        bool owner = !window_span(row_map, entries, rows).bitmap_ranked();
        const int col = entries(at.k);
        owner = owner && (at.k == row_map(rows[at.i]) || entries(at.k - 1) != col);
        for (int j = 0; j < at.i && owner; ++j) {
          if (rows[j] < 0) continue;
          const int64_t q = lower_bound(entries, row_map(rows[j]), row_map(rows[j] + 1), col);
          owner = !(q < row_map(rows[j] + 1) && entries(q) == col);
        }
        owners(e) = owner;
      });
  scan_offsets(
      exec, "rsh::inspect::long_window_owner_scan", E, owners, KOKKOS_LAMBDA(const int64_t e) { return owners(e); });
  // A column's rank: the owners of smaller columns, row by row (each row's owners are a contiguous range).
  Kokkos::parallel_for(
      "rsh::inspect::long_window_ranks", Range64<ExecSpace>(exec, 0, E), KOKKOS_LAMBDA(const int64_t e) {
        int rows[8];
        const ElementAt at = element_at(c, row_map, windows, e, rows);
        if (window_span(row_map, entries, rows).bitmap_ranked()) return;
        const int col = entries(at.k);
        int64_t base = c.offset(at.l), smaller = 0;
        for (int j = 0; j < 8; ++j) {
          if (rows[j] < 0) continue;
          const int64_t begin = row_map(rows[j]), end = row_map(rows[j] + 1);
          const int64_t q = lower_bound(entries, begin, end, col);
          smaller += owners(base + (q - begin)) - owners(base);
          base += end - begin;
        }
        c.rank(e) = static_cast<int>(smaller);
      });
  Kokkos::parallel_for(
      "rsh::inspect::long_window_distinct", Range64<ExecSpace>(exec, 0, lw.count()), KOKKOS_LAMBDA(const int64_t l) {
        int rows[8];
        windows(c.window(l), rows);
        if (!window_span(row_map, entries, rows).bitmap_ranked())
          c.distinct(l) = static_cast<int>(owners(c.offset(l + 1)) - owners(c.offset(l)));
      });
}

/// Finds the long windows (more than `longer_than` nonzeros) among windows 0 .. num_windows - 1 of sorted A
/// and ranks their elements' columns.
template <class ExecSpace, class Windows>
LongWindows<typename ExecSpace::memory_space> long_windows_on(const ExecSpace& exec,
                                                              const SortedCrs<typename ExecSpace::memory_space>& A,
                                                              const Windows& windows, int64_t num_windows,
                                                              int64_t longer_than) {
  using Mem = typename ExecSpace::memory_space;
  LongWindows<Mem> lw;
  lw.longer_than = longer_than;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  if (num_windows == 0) {
    lw.offset = scratch_zeros<int64_t>(exec, "rsh::long_windows::offset", 1);
    return lw;
  }
  const auto slot = scratch_view<int64_t>(exec, "rsh::long_windows::slot", num_windows + 1);
  const int64_t packed = exclusive_scan(
      exec, "rsh::inspect::long_windows", num_windows, slot, KOKKOS_LAMBDA(const int64_t w) {
        int rows[8];
        windows(w, rows);
        const WindowSpan span = window_span(row_map, entries, rows);
        // Long windows before each window (low half) and those of them searched (high half).
        return span.nnz <= longer_than ? int64_t(0) : PackedCounts::pack(1, span.bitmap_ranked() ? 0 : 1);
      });
  const int64_t L = PackedCounts::low(packed), searched = PackedCounts::high(packed);
  lw.window = scratch_view<int64_t>(exec, "rsh::long_windows::window", L);
  lw.offset = scratch_view<int64_t>(exec, "rsh::long_windows::offset", L + 1);
  lw.distinct = scratch_view<int>(exec, "rsh::long_windows::distinct", L);
  const auto window = lw.window;
  Kokkos::parallel_for(
      "rsh::inspect::list_long_windows", Range64<ExecSpace>(exec, 0, num_windows), KOKKOS_LAMBDA(const int64_t w) {
        if (slot(w + 1) != slot(w)) window(PackedCounts::low(slot(w))) = w;
      });
  auto window_elements = KOKKOS_LAMBDA(const int64_t l) {
    int rows[8];
    windows(window(l), rows);
    return window_nnz(row_map, rows);
  };
  // The elements' count comes back only where the search needs it on the host; the bitmap's teams need
  // none, and the ranks then take A's nonzeros as a bound.
  int64_t E = L > 0 ? A.nnz : 0;
  if (searched > 0)
    E = exclusive_scan(exec, "rsh::inspect::long_window_offsets", L, lw.offset, window_elements);
  else
    scan_offsets(exec, "rsh::inspect::long_window_offsets", L, lw.offset, window_elements);
  lw.rank = scratch_view<int>(exec, "rsh::long_windows::rank", E);
  if (L == 0) return lw;
  if (searched < L) bitmap_ranks_on(exec, A, windows, lw);
  if (searched > 0) searched_ranks_on(exec, A, windows, lw);
  return lw;
}

/// The rank of every stored entry's column in its window, for a window list: short windows' entries in
/// `rank` (indexed by position in A), long windows' in `lw`.
template <class MemorySpace>
struct WindowRanks {
  View1<int, MemorySpace> rank;  ///< per stored entry of a short window's rows (others unset)
  LongWindows<MemorySpace> lw;
};

/// Ranks the columns of windows 0 .. num_windows - 1 of sorted A: each short window merged once, on one
/// thread, long ones (more than `longer_than` nonzeros) an entry a thread; on_distinct(w, distinct columns
/// of window w) for every window.
/// The passes that then visit the entries (for_each_window_entry) read the ranks instead of merging again.
template <class ExecSpace, class Windows, class OnDistinct>
WindowRanks<typename ExecSpace::memory_space> window_ranks_on(const ExecSpace& exec,
                                                              const SortedCrs<typename ExecSpace::memory_space>& A,
                                                              const Windows& windows, int64_t num_windows,
                                                              int64_t longer_than, const OnDistinct& on_distinct) {
  using Mem = typename ExecSpace::memory_space;
  WindowRanks<Mem> out;
  out.lw = long_windows_on(exec, A, windows, num_windows, longer_than);
  out.rank = scratch_view<int>(exec, "rsh::window_ranks::rank", A.nnz);
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto rank = out.rank;
  Kokkos::parallel_for(
      "rsh::inspect::rank_windows", Range64<ExecSpace>(exec, 0, num_windows), KOKKOS_LAMBDA(const int64_t w) {
        int rows[8];
        windows(w, rows);
        if (window_nnz(row_map, rows) > longer_than) return;
        on_distinct(
            w, merge_window_columns(row_map, entries, rows, [&](int local, int, int64_t k, bool) { rank(k) = local; }));
      });
  const LongWindows<Mem> lw = out.lw;
  Kokkos::parallel_for(
      "rsh::inspect::rank_long_windows", Range64<ExecSpace>(exec, 0, lw.count()),
      KOKKOS_LAMBDA(const int64_t l) { on_distinct(lw.window(l), lw.distinct(l)); });
  return out;
}

/// f(w, local, i, k, first) for every stored entry k of row slot i of windows 0 .. num_windows - 1, `local`
/// its column's rank in window w and `first` false for a row's repeats of a column (as merge_window_columns
/// visits them; here in no particular order, so f must not depend on it): a thread a row of a short window,
/// an entry a thread in long ones. `ranks` from window_ranks_on over the same windows.
template <class ExecSpace, class Windows, class F>
void for_each_window_entry(const ExecSpace& exec, const char* label,
                           const SortedCrs<typename ExecSpace::memory_space>& A, const Windows& windows,
                           int64_t num_windows, const WindowRanks<typename ExecSpace::memory_space>& ranks,
                           const F& f) {
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto rank = ranks.rank;
  const int64_t longer_than = ranks.lw.longer_than;
  Kokkos::parallel_for(
      label, Range64<ExecSpace>(exec, 0, 8 * num_windows), KOKKOS_LAMBDA(const int64_t s) {
        const int64_t w = s / 8;
        const int i = static_cast<int>(s % 8);
        int rows[8];
        windows(w, rows);
        if (rows[i] < 0 || window_nnz(row_map, rows) > longer_than) return;
        const int64_t begin = row_map(rows[i]), end = row_map(rows[i] + 1);
        for (int64_t k = begin; k < end; ++k) f(w, rank(k), i, k, k == begin || entries(k - 1) != entries(k));
      });
  const LongWindows<typename ExecSpace::memory_space> lw = ranks.lw;
  Kokkos::parallel_for(
      label, Range64<ExecSpace>(exec, 0, lw.element_bound()), KOKKOS_LAMBDA(const int64_t e) {
        if (e >= lw.offset(lw.count())) return;
        int rows[8];
        const ElementAt at = element_at(lw, row_map, windows, e, rows);
        const bool first = at.k == row_map(rows[at.i]) || entries(at.k - 1) != entries(at.k);
        f(lw.window(at.l), lw.rank(e), at.i, at.k, first);
      });
}

/// Tiles (distinct columns / 8, rounded up) summed over windows 0 .. num_windows - 1, and the distinct
/// columns summed; windows of more than `longer_than` nonzeros ranked an entry a thread.
template <class ExecSpace, class Windows>
Kokkos::pair<int64_t, int64_t> window_tiles_on(const ExecSpace& exec,
                                               const SortedCrs<typename ExecSpace::memory_space>& A,
                                               const Windows& windows, int64_t num_windows, int64_t longer_than) {
  const LongWindows<typename ExecSpace::memory_space> lw = long_windows_on(exec, A, windows, num_windows, longer_than);
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const Tally shorts = tally(
      exec, "rsh::inspect::window_tiles", num_windows, KOKKOS_LAMBDA(const int64_t w, Tally& t) {
        int rows[8];
        windows(w, rows);
        if (window_nnz(row_map, rows) > longer_than) return;
        const int distinct = merge_window_columns(row_map, entries, rows, [](int, int, int64_t, bool) {});
        t.sum[0] += (distinct + 7) / 8;
        t.sum[1] += distinct;
      });
  const Tally longs = tally(
      exec, "rsh::inspect::long_window_tiles", lw.count(), KOKKOS_LAMBDA(const int64_t l, Tally& t) {
        t.sum[0] += (lw.distinct(l) + 7) / 8;
        t.sum[1] += lw.distinct(l);
      });
  return {shorts.sum[0] + longs.sum[0], shorts.sum[1] + longs.sum[1]};
}

}  // namespace impl
}  // namespace rsh
