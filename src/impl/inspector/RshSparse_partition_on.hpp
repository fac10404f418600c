#pragma once
// Row partition (DESIGN section 4) on the inspector's execution space: the
// rows, visited in a given order, open 8-row windows or go to the residual.
// RSH-SpMM Alg. 1 walks the rows in sequence (a window takes the next 8 rows
// whatever they are); here each row's own choice is made in parallel, and the
// walk is composed from the maps of spans of rows over the walk's 8 states
// (walk_rows).
#include "RshSparse_spmm_options.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

template <class MemorySpace>
struct RowRoles {
  View1<int, MemorySpace> window_rows;  ///< 8 per window, original row ids, -1 = padding
  View1<int, MemorySpace> res_rows;     ///< non-empty rows for the CSR residual, in visiting order
  /// The residual rows' offsets into its nonzeros (R + 1), where the partition has them (every row
  /// residual); else empty.
  View1<int, MemorySpace> res_ptr;
  /// Partitions by nonzero (nonzero_partition_on): the entries that go to the windows' tiles and those
  /// that go to the residual, each a sorted CSR over all of A's rows. Otherwise (split false) a window
  /// row's entries all go to tiles and a residual row's all to the residual.
  bool split = false;
  SortedCrs<MemorySpace> tiled, residual;
  /// Tiles hold one entry per tile column (BalancedBlocks) instead of each distinct column of the window.
  bool one_entry_per_column = false;
  int num_windows() const { return static_cast<int>(window_rows.extent(0) / 8); }
};

/// What a row does when the walk reaches it outside a window.
enum class RowChoice : uint8_t { kSkip, kResidual, kWindow };

/// The walk over one span of rows from every state it may enter in (rows of the current window still to
/// come): the state it leaves in, and the windows it opens and residual rows it takes.
struct WalkSpan {
  uint64_t exits;  ///< byte s: the state it leaves in from state s (one load, whatever the state)
  int windows[8], residual[8];
  KOKKOS_INLINE_FUNCTION int exit(int s) const { return static_cast<int>((exits >> (8 * s)) & 0xffu); }
};

/// Walks spans first .. last - 1 of `span_map` from the 8 entry states side by side: the states' chains
/// wait on one load a span (each span's exits are one word), not on one load a span and state.
template <class Spans>
KOKKOS_INLINE_FUNCTION WalkSpan compose_spans(const Spans& span_map, int64_t first, int64_t last) {
  int state[8], w[8] = {}, r[8] = {};
  for (int s = 0; s < 8; ++s) state[s] = s;
  for (int64_t sp = first; sp < last; ++sp) {
    const WalkSpan& m = span_map(sp);
    const uint64_t exits = m.exits;
    for (int s = 0; s < 8; ++s) {
      w[s] += m.windows[state[s]], r[s] += m.residual[state[s]];
      state[s] = static_cast<int>((exits >> (8 * state[s])) & 0xffu);
    }
  }
  WalkSpan out;
  out.exits = 0;
  for (int s = 0; s < 8; ++s) {
    out.exits |= uint64_t(state[s]) << (8 * s);
    out.windows[s] = w[s], out.residual[s] = r[s];
  }
  return out;
}

/// One row of the walk: inside a window (state > 0) it only counts down; at state 0 it opens a window
/// (state 7 after it) or is taken by the residual or skipped.
KOKKOS_INLINE_FUNCTION int walk_step(int state, RowChoice c, int& windows, int& residual) {
  if (state > 0) return state - 1;
  windows += c == RowChoice::kWindow;
  residual += c == RowChoice::kResidual;
  return c == RowChoice::kWindow ? 7 : 0;
}

/// The walk over positions [first, end) from each of the 8 entry states, side by side: each row's choice is
/// read once, and the 8 walks are independent chains rather than one 8 times as long. Choices are read 8 at
/// a time, so that their loads are in flight together.
template <class Choices>
KOKKOS_INLINE_FUNCTION WalkSpan walk_span_map(const Choices& choice, int64_t first, int64_t end) {
  int state[8], w[8], r[8];
  for (int s = 0; s < 8; ++s) state[s] = s, w[s] = 0, r[s] = 0;
  for (int64_t p = first; p < end; p += 8) {
    RowChoice c[8];
    for (int j = 0; j < 8; ++j) c[j] = p + j < end ? static_cast<RowChoice>(choice(p + j)) : RowChoice::kSkip;
    for (int j = 0; j < 8 && p + j < end; ++j)
      for (int s = 0; s < 8; ++s) state[s] = walk_step(state[s], c[j], w[s], r[s]);
  }
  WalkSpan m;
  m.exits = 0;
  for (int s = 0; s < 8; ++s) m.exits |= uint64_t(state[s]) << (8 * s), m.windows[s] = w[s], m.residual[s] = r[s];
  return m;
}

/// The walk over positions [first, end) entered in `state` after w windows and r residual rows: each
/// position's place (walk_rows_queued).
template <class Choices, class Place>
KOKKOS_INLINE_FUNCTION void place_span(const Choices& choice, const Place& place, int64_t first, int64_t end, int state,
                                       int w, int r) {
  for (int64_t p = first; p < end; p += 8) {
    RowChoice c[8];  // (read 8 at a time, as in walk_span_map)
    for (int j = 0; j < 8; ++j) c[j] = p + j < end ? static_cast<RowChoice>(choice(p + j)) : RowChoice::kSkip;
    for (int j = 0; j < 8 && p + j < end; ++j) {
      // (Inside a window, state s: slot 8 - s of the window opened last, the w-th.)
      place(p + j) = state > 0                      ? 8 * int64_t(w) - state
                     : c[j] == RowChoice::kWindow   ? 8 * int64_t(w)
                     : c[j] == RowChoice::kResidual ? -2 - int64_t(r)
                                                    : -1;
      state = walk_step(state, c[j], w, r);
    }
  }
}

/// Rows (and spans) a thread of walk_rows walks in sequence: the least power of two from 16 whose cube
/// reaches n. Each of its five passes is a chain of dependent steps on one thread, as long as a span, a
/// group or the groups, so the three are kept alike.
inline int64_t walk_span(int64_t n) {
  int64_t span = 16;
  while (span * span * span < n) span *= 2;
  return span;
}

/// Up to this many rows the walk is one launch of one team (walk_rows_one_team): there the five launches
/// of the walk over the whole device would cost more than the team's chains of at most this many rows over
/// its lanes.
constexpr int64_t kOneTeamWalkRows = int64_t(1) << 15;
/// Spans of rows the one team's threads walk (two passes of a span a thread), and whose maps it composes
/// on one thread in between.
constexpr int kOneTeamWalkLanes = 256;

/// walk_rows_queued in one launch of one team: each lane's map, the lanes composed in order on one thread,
/// and each lane walked again from its entry state; the maps and entry states in team scratch.
template <class ExecSpace, class Choices, class Place, class Totals>
void walk_rows_one_team(const ExecSpace& exec, int64_t n, const Choices& choice, const Place& place,
                        const Totals& totals) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Maps = Kokkos::View<WalkSpan*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Entries = Kokkos::View<int*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int kLanes = kOneTeamWalkLanes;
  const int64_t lane_rows = (n + kLanes - 1) / kLanes;
  const size_t scratch = Maps::shmem_size(kLanes) + Entries::shmem_size(3 * kLanes);
  Kokkos::parallel_for(
      "rsh::inspect::walk_one_team", Policy(exec, 1, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const Member& team) {
        const Maps maps(team.team_scratch(0), kLanes);
        const Entries entry(team.team_scratch(0), 3 * kLanes);  // state, windows and residual rows before
        auto first = [&](int l) { return n < l * lane_rows ? n : l * lane_rows; };
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kLanes),
                             [&](const int l) { maps(l) = walk_span_map(choice, first(l), first(l + 1)); });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          int state = 0, w = 0, r = 0;
          for (int l = 0; l < kLanes; ++l) {
            entry(3 * l) = state, entry(3 * l + 1) = w, entry(3 * l + 2) = r;
            w += maps(l).windows[state], r += maps(l).residual[state];
            state = maps(l).exit(state);
          }
          totals(0) = w, totals(1) = r;
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kLanes), [&](const int l) {
          place_span(choice, place, first(l), first(l + 1), entry(3 * l), entry(3 * l + 1), entry(3 * l + 2));
        });
      });
}

/// The walk over rows [0, n) in parallel, queued on `exec`. Kokkos' scans may combine values out of order
/// (its CUDA scan accumulates strided elements first), so the spans' maps, which do not commute, are
/// composed here in order: spans of walk_span(n) rows, groups of as many spans, and the groups on one
/// thread; then each group and each span is walked again from its known entry state (up to
/// kOneTeamWalkRows rows: walk_rows_one_team). place(p) = the row's index in the windows' row list (8 *
/// window + its slot) for a row in a window, -2 - index for a residual row, else -1. Returns (windows,
/// residual rows) in a view of 2 on the device.
template <class ExecSpace, class Choices, class Place>
View1<int64_t, typename ExecSpace::memory_space> walk_rows_queued(const ExecSpace& exec, int64_t n,
                                                                  const Choices& choice, const Place& place) {
  const auto totals = scratch_view<int64_t>(exec, "rsh::walk::totals", 2);
  if (n <= kOneTeamWalkRows) {
    walk_rows_one_team(exec, n, choice, place, totals);
    return totals;
  }
  const int64_t span_rows = walk_span(n);  // rows a span, spans a group
  const int64_t spans = (n + span_rows - 1) / span_rows, groups = (spans + span_rows - 1) / span_rows;
  const auto span_map = scratch_view<WalkSpan>(exec, "rsh::walk::spans", spans);
  const auto group_map = scratch_view<WalkSpan>(exec, "rsh::walk::groups", groups);
  // Entry state, windows and residual rows before, of every span (and of every group); each written below.
  const auto span_entry = scratch_view<int64_t>(exec, "rsh::walk::span_entry", 3 * spans);
  const auto group_entry = scratch_view<int64_t>(exec, "rsh::walk::group_entry", 3 * groups);
  auto span_end = KOKKOS_LAMBDA(const int64_t sp) {
    return n < (sp + 1) * span_rows ? n : (sp + 1) * span_rows;
  };
  Kokkos::parallel_for(
      "rsh::inspect::walk_spans", Range64<ExecSpace>(exec, 0, spans),
      KOKKOS_LAMBDA(const int64_t sp) { span_map(sp) = walk_span_map(choice, sp * span_rows, span_end(sp)); });
  Kokkos::parallel_for(
      "rsh::inspect::walk_groups", Range64<ExecSpace>(exec, 0, groups), KOKKOS_LAMBDA(const int64_t g) {
        group_map(g) =
            compose_spans(span_map, g * span_rows, spans < (g + 1) * span_rows ? spans : (g + 1) * span_rows);
      });
  Kokkos::parallel_for(
      "rsh::inspect::walk_top", Range64<ExecSpace>(exec, 0, 1), KOKKOS_LAMBDA(const int64_t) {
        int state = 0;
        int64_t w = 0, r = 0;
        for (int64_t g = 0; g < groups; ++g) {
          group_entry(3 * g) = state, group_entry(3 * g + 1) = w, group_entry(3 * g + 2) = r;
          w += group_map(g).windows[state], r += group_map(g).residual[state];
          state = group_map(g).exit(state);
        }
        totals(0) = w, totals(1) = r;
      });
  Kokkos::parallel_for(
      "rsh::inspect::walk_group_spans", Range64<ExecSpace>(exec, 0, groups), KOKKOS_LAMBDA(const int64_t g) {
        int state = static_cast<int>(group_entry(3 * g));
        int64_t w = group_entry(3 * g + 1), r = group_entry(3 * g + 2);
        for (int64_t sp = g * span_rows; sp < spans && sp < (g + 1) * span_rows; ++sp) {
          span_entry(3 * sp) = state, span_entry(3 * sp + 1) = w, span_entry(3 * sp + 2) = r;
          w += span_map(sp).windows[state], r += span_map(sp).residual[state];
          state = span_map(sp).exit(state);
        }
      });
  Kokkos::parallel_for(
      "rsh::inspect::walk_places", Range64<ExecSpace>(exec, 0, spans), KOKKOS_LAMBDA(const int64_t sp) {
        place_span(choice, place, sp * span_rows, span_end(sp), static_cast<int>(span_entry(3 * sp)),
                   static_cast<int>(span_entry(3 * sp + 1)), static_cast<int>(span_entry(3 * sp + 2)));
      });
  return totals;
}

/// The same, waited for: (windows, residual rows).
template <class ExecSpace, class Choices, class Place>
Kokkos::pair<int64_t, int64_t> walk_rows(const ExecSpace& exec, int64_t n, const Choices& choice, const Place& place) {
  const auto t = host_copy(exec, walk_rows_queued(exec, n, choice, place));
  return {t[0], t[1]};
}

/// The rows of A in visiting order: position p holds row order(p) (`order` empty: row p).
template <class MemorySpace>
struct VisitOrder {
  View1<const int, MemorySpace> order;
  KOKKOS_INLINE_FUNCTION int operator()(int64_t p) const {
    return order.extent(0) != 0 ? order(p) : static_cast<int>(p);
  }
};

/// The walk of a partition with tiles over sorted A visited in `order`, queued on `exec`: where each
/// position goes (walk_rows_queued's place), and (windows, residual rows) on the device.
template <class MemorySpace>
struct RowPlaces {
  View1<int64_t, MemorySpace> place;
  View1<int64_t, MemorySpace> totals;
};

/// Each row's choice and the walk over them. Alg. 1, line 16 (RowStructured, kAuto): a short row whose
/// columns the next 7 rows mostly lack (|U_full| - |U_excl| >= tau_inc new columns) gains nothing in a
/// window and goes to the residual; other partitions with tiles put every non-empty row in windows.
template <class ExecSpace>
RowPlaces<typename ExecSpace::memory_space> walk_partition_on(
    const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
    const View1<const int, typename ExecSpace::memory_space>& order, const Options& options) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const VisitOrder<Mem> row_at{order};
  const bool route = options.partition == Partition::kRowStructured || options.partition == Partition::kAuto;
  const int tau_nnz = options.tuning.tau_nnz, tau_inc = options.tuning.tau_inc;
  const auto choice = scratch_view<uint8_t>(exec, "rsh::partition::choice", n);
  Kokkos::parallel_for(
      "rsh::inspect::row_choice", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        const int r = row_at(p);
        const int64_t begin = row_map(r), end = row_map(r + 1), nz = end - begin;
        RowChoice c = nz == 0 ? RowChoice::kSkip : RowChoice::kWindow;
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
  RowPlaces<Mem> out;
  out.place = scratch_view<int64_t>(exec, "rsh::partition::place", n);
  out.totals = walk_rows_queued(exec, n, choice, out.place);
  return out;
}

/// Partitions the rows of a sorted A visited in `order` (a permutation of its rows; empty = identity).
/// Empty rows never start a window and never enter the residual. Partition::kAuto partitions as
/// kRowStructured; the partitions by nonzero (Libra, BalancedBlocks: nonzero_partition_on) as
/// kTensorCoreOnly, every non-empty row in a window (the reordering's cost model sees them so).
/// `nonempty_rows`, where the caller knows it (MatrixStats), spares the all-residual partitions a wait.
template <class ExecSpace>
RowRoles<typename ExecSpace::memory_space> partition_on(const ExecSpace& exec,
                                                        const SortedCrs<typename ExecSpace::memory_space>& A,
                                                        const View1<const int, typename ExecSpace::memory_space>& order,
                                                        const Options& options, int64_t nonempty_rows = -1) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = A.num_rows;
  const auto row_map = A.row_map;
  const VisitOrder<Mem> row_at{order};
  const bool tiles = options.partition != Partition::kCudaCoreOnly && options.partition != Partition::kDenseBlocks;
  if (!tiles) {  // every non-empty row to the residual, in visiting order: the walk reduced to one scan
    // Rows before each position (low half) and their nonzeros (high half: at most 2^30 of them).
    const auto at = scratch_view<int64_t>(exec, "rsh::partition::residual_at", n + 1);
    auto counts = KOKKOS_LAMBDA(const int64_t p) {
      const int r = row_at(p);
      const int64_t len = row_map(r + 1) - row_map(r);
      return len > 0 ? PackedCounts::pack(1, len) : int64_t(0);
    };
    int64_t R = nonempty_rows;
    if (R >= 0)
      scan_offsets(exec, "rsh::inspect::residual_rows", n, at, counts);
    else
      R = PackedCounts::low(exclusive_scan(exec, "rsh::inspect::residual_rows", n, at, counts));
    RowRoles<Mem> out;
    out.window_rows = uninitialized_view<int>(exec, "rsh::window_rows", 0);
    out.res_rows = uninitialized_view<int>(exec, "rsh::res_rows", R);
    out.res_ptr = uninitialized_view<int>(exec, "rsh::res_ptr", R + 1);
    const auto res_rows = out.res_rows, res_ptr = out.res_ptr;
    if (n == 0) {
      zero_on(exec, res_ptr);
      return out;
    }
    Kokkos::parallel_for(
        "rsh::inspect::place_residual_rows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
          const int64_t j = PackedCounts::low(at(p));
          if (PackedCounts::low(at(p + 1)) != j)
            res_rows(j) = row_at(p), res_ptr(j) = static_cast<int>(PackedCounts::high(at(p)));
          if (p == n - 1) res_ptr(PackedCounts::low(at(n))) = static_cast<int>(PackedCounts::high(at(n)));
        });
    return out;
  }

  const RowPlaces<Mem> walk = walk_partition_on(exec, A, order, options);
  const auto t = host_copy(exec, walk.totals);
  if (8 * t[0] > INT_MAX) throw std::invalid_argument("rsh::inspect: 8 x windows overflows 32-bit offsets");

  // Every slot is written below: a window row's by its own position, the padding past the last row by the
  // window's first.
  RowRoles<Mem> out;
  out.window_rows = uninitialized_view<int>(exec, "rsh::window_rows", 8 * t[0]);
  out.res_rows = uninitialized_view<int>(exec, "rsh::res_rows", t[1]);
  const auto window_rows = out.window_rows;
  const auto res_rows = out.res_rows;
  const auto place = walk.place;
  Kokkos::parallel_for(
      "rsh::inspect::place_rows", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t p) {
        const int64_t at = place(p);
        if (at >= 0) {
          window_rows(at) = row_at(p);
          if (at % 8 == 0)
            for (int i = 1; i < 8; ++i)
              if (p + i >= n) window_rows(at + i) = -1;
        } else if (at <= -2) {
          res_rows(-2 - at) = row_at(p);
        }
      });
  return out;
}

/// The nonzeros of the rows `roles` sends to the residual (whole rows: partition_on's roles).
template <class ExecSpace>
int64_t residual_nnz_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                        const RowRoles<typename ExecSpace::memory_space>& roles) {
  const auto row_map = A.row_map;
  const auto res_rows = roles.res_rows;
  return tally(
             exec, "rsh::inspect::residual_nnz", static_cast<int64_t>(res_rows.extent(0)),
             KOKKOS_LAMBDA(const int64_t j, Tally& t) { t.sum[0] += row_map(res_rows(j) + 1) - row_map(res_rows(j)); })
      .sum[0];
}

}  // namespace impl
}  // namespace rsh
