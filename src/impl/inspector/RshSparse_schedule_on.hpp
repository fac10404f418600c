#pragma once
// Work items of bounded size (DESIGN section 3, "Schedule") on the
// inspector's execution space. Long windows are cut into near-equal pieces
// that add with atomics, placed after the whole windows. A residual row of
// up to kResidualPieceAlign pieces must have them inside one aligned group
// of that many items (one CTA sums them): rows cut into c pieces are packed
// 8 / c to a group, the groups of each c in turn, and whole rows fill the
// groups' free slots before the rest follow (empty padding items only where
// whole rows run out); pieces of longer rows, which add with atomics, come
// last: first, from the next aligned item, the rows whose pieces go in aligned
// groups (FP64: atomic_row_items), then the lone pieces of the others.
// A row split between a window and the residual (Libra, BalancedBlocks) is
// stored by neither: its window's items and its residual pieces all add with
// atomics into it, pre-scaled by beta.
#include <string>

#include "impl/RshSparse_rstile_impl.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// Piece i of n near-equal pieces of [begin, end).
KOKKOS_INLINE_FUNCTION void piece_of(int begin, int end, int i, int n, int& b, int& e) {
  const int64_t len = end - begin;
  b = begin + static_cast<int>(len * i / n);
  e = begin + static_cast<int>(len * (i + 1) / n);
}

/// The Tensor-Core items of a window of `len` tiles beyond one whole item: 0 up to max_tiles tiles, else
/// near-equal pieces; a window holding split rows is one piece (its items add with atomics).
KOKKOS_INLINE_FUNCTION int window_pieces(int len, int max_tiles, bool split) {
  const int pieces = len <= max_tiles ? 0 : (len + max_tiles - 1) / max_tiles;
  return pieces == 0 && split ? 1 : pieces;
}

/// Tensor-Core work items over windows 0 .. W-1, window w owning tiles [window_tile_offset(w),
/// window_tile_offset(w + 1)): whole windows first, in window order, then the near-equal pieces of windows
/// over max_tiles tiles and (where `split_window` is not empty) the windows holding split rows, as one piece.
template <class MemorySpace>
struct TcItems {
  View1<int, MemorySpace> window, begin, end;
  int64_t whole = 0;  ///< items [0, whole) are whole windows
};

template <class ExecSpace>
TcItems<typename ExecSpace::memory_space> tc_items_on(
    const ExecSpace& exec, const View1<int, typename ExecSpace::memory_space>& window_tile_offset, int W, int max_tiles,
    const View1<uint8_t, typename ExecSpace::memory_space>& split_window) {
  using Mem = typename ExecSpace::memory_space;
  if (W == 0) {
    TcItems<Mem> none;
    none.window = uninitialized_view<int>(exec, "rsh::tc_item_window", 0);
    none.begin = uninitialized_view<int>(exec, "rsh::tc_item_tile_begin", 0);
    none.end = uninitialized_view<int>(exec, "rsh::tc_item_tile_end", 0);
    return none;
  }
  const bool rows_split = split_window.extent(0) > 0;
  auto pieces_of = KOKKOS_LAMBDA(const int64_t w) {
    return window_pieces(window_tile_offset(w + 1) - window_tile_offset(w), max_tiles, rows_split && split_window(w));
  };
  // Whole windows before each window (low half) and pieces (high half): one scan, one total back.
  const auto item_at = scratch_view<int64_t>(exec, "rsh::schedule::item_at", W + 1);
  const int64_t packed = exclusive_scan(
      exec, "rsh::inspect::window_items", W, item_at, KOKKOS_LAMBDA(const int64_t w) {
        const int n = pieces_of(w);
        return n == 0 ? PackedCounts::pack(1, 0) : PackedCounts::pack(0, n);
      });
  const int64_t whole = PackedCounts::low(packed), pieces = PackedCounts::high(packed);
  TcItems<Mem> out;
  out.whole = whole;
  // Every item is written below: whole windows [0, whole), pieces after.
  out.window = uninitialized_view<int>(exec, "rsh::tc_item_window", whole + pieces);
  out.begin = uninitialized_view<int>(exec, "rsh::tc_item_tile_begin", whole + pieces);
  out.end = uninitialized_view<int>(exec, "rsh::tc_item_tile_end", whole + pieces);
  const auto item_window = out.window, item_begin = out.begin, item_end = out.end;
  Kokkos::parallel_for(
      "rsh::inspect::tc_items", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
        const int b = window_tile_offset(w), e = window_tile_offset(w + 1), n = pieces_of(w);
        if (n == 0) {
          const int64_t i = PackedCounts::low(item_at(w));
          item_window(i) = static_cast<int>(w), item_begin(i) = b, item_end(i) = e;
          return;
        }
        for (int j = 0; j < n; ++j) {
          const int64_t i = whole + PackedCounts::high(item_at(w)) + j;
          item_window(i) = static_cast<int>(w);
          piece_of(b, e, j, n, item_begin(i), item_end(i));
        }
      });
  return out;
}

/// CTAs of kWindowsPerCta consecutive items over `items` Tensor-Core items.
inline int64_t tc_ctas(int64_t items) {
  return (items + kWindowsPerCta - 1) / kWindowsPerCta;
}

/// The tiles of the longest of CTA `cta`'s items.
template <class Ints>
KOKKOS_INLINE_FUNCTION int cta_longest_item(int64_t cta, int64_t items, const Ints& begin, const Ints& end) {
  int longest = 0;
  for (int64_t i = cta * kWindowsPerCta; i < items && i < (cta + 1) * kWindowsPerCta; ++i)
    longest = end(i) - begin(i) > longest ? end(i) - begin(i) : longest;
  return longest;
}

/// The CTAs' Tensor-Core tiles in sequence: over CTAs of kWindowsPerCta consecutive items, the sum of
/// each CTA's longest item (the time model's Tensor-Core term).
template <class ExecSpace, class Ints>
int64_t cta_max_tiles_on(const ExecSpace& exec, int64_t items, const Ints& begin, const Ints& end) {
  return tally(
             exec, "rsh::inspect::cta_tiles", tc_ctas(items),
             KOKKOS_LAMBDA(const int64_t cta, Tally& s) { s.sum[0] += cta_longest_item(cta, items, begin, end); })
      .sum[0];
}

/// Where the aligned groups of locally split residual rows go (host side: counts of each kind of row).
struct ResidualLayout {
  int64_t groups[kResidualPieceAlign + 1] = {};       ///< rows of c pieces, c in [2, 8]
  int64_t base[kResidualPieceAlign + 1] = {};         ///< first item of the groups of c-piece rows
  int64_t blocks[kResidualPieceAlign + 1] = {};       ///< aligned groups of c-piece rows
  int64_t free_before[kResidualPieceAlign + 2] = {};  ///< free slots in the groups of fewer pieces
  int64_t whole = 0;
  int64_t grouped_items = 0;  ///< items in the aligned groups
  int64_t local_items() const {
    const int64_t total_free = free_before[kResidualPieceAlign + 1];
    return grouped_items + (whole > total_free ? whole - total_free : 0);
  }
  KOKKOS_INLINE_FUNCTION static constexpr int per_group(int c) { return kResidualPieceAlign / c; }

  void plan() {
    int64_t at = 0;
    for (int c = 2; c <= kResidualPieceAlign; ++c) {
      base[c] = at;
      blocks[c] = (groups[c] + per_group(c) - 1) / per_group(c);
      at += kResidualPieceAlign * blocks[c];
      const int64_t free = kResidualPieceAlign * blocks[c] - c * groups[c];
      free_before[c + 1] = free_before[c] + free;
    }
    grouped_items = at;
  }

  /// The item of whole row number i (in residual order).
  KOKKOS_INLINE_FUNCTION int64_t whole_item(int64_t i) const {
    if (i >= free_before[kResidualPieceAlign + 1]) return grouped_items + (i - free_before[kResidualPieceAlign + 1]);
    int c = 2;
    while (i >= free_before[c + 1]) ++c;
    const int64_t d = i - free_before[c], last = blocks[c] - 1;
    const int64_t full_free = kResidualPieceAlign - int64_t(c) * per_group(c);  // of every group but the last
    const int64_t b = full_free > 0 && d / full_free < last ? d / full_free : last;
    const int64_t in_b = b < last ? per_group(c) : groups[c] - last * per_group(c);
    return base[c] + kResidualPieceAlign * b + c * in_b + (d - b * full_free);
  }
  /// The first item of the g-th row of c pieces.
  KOKKOS_INLINE_FUNCTION int64_t group_item(int c, int64_t g) const {
    return base[c] + kResidualPieceAlign * (g / per_group(c)) + c * (g % per_group(c));
  }
};

/// residual_cut, except that a split row (see the file comment) is cut into atomic pieces.
KOKKOS_INLINE_FUNCTION ResidualCut scheduled_cut(int64_t len, bool split, int piece_nnz, int max_len) {
  if (split) return {static_cast<int>((len + max_len - 1) / max_len), true};
  return residual_cut(len, piece_nnz, max_len);
}

/// The kinds of residual row ResidualRanks counts: [1] whole rows, [c] rows of c pieces summed in one CTA,
/// then the items of atomic rows in aligned groups and the lone atomic pieces.
constexpr int kGroupedAtomicKind = kResidualPieceAlign + 1, kLoneAtomicKind = kResidualPieceAlign + 2,
              kResidualKinds = kResidualPieceAlign + 3;
KOKKOS_INLINE_FUNCTION int residual_kind(const ResidualCut& cut, bool group) {
  if (!cut.atomic) return cut.pieces;
  return grouped_atomic_row(cut.pieces, group) ? kGroupedAtomicKind : kLoneAtomicKind;
}

/// Counts of each kind of residual row (items, for atomic rows), and every row's rank among its kind
/// (parallel_scan functor).
template <class MemorySpace>
struct ResidualRanks {
  struct value_type {
    int64_t n[kResidualKinds];
  };
  View1<int, MemorySpace> res_ptr;
  View1<int64_t, MemorySpace> rank, totals;
  int piece_nnz, max_len;
  bool group;  ///< groups_atomic_pieces
  int64_t rows;
  View1<uint8_t, MemorySpace> split;  ///< per residual row: 1 where the row has entries in a window too

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int c = 0; c < kResidualKinds; ++c) v.n[c] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(RSH_JOIN_VOLATILE value_type& dst, const RSH_JOIN_VOLATILE value_type& src) const {
    for (int c = 0; c < kResidualKinds; ++c) dst.n[c] += src.n[c];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t j, value_type& v, const bool final) const {
    const ResidualCut cut = scheduled_cut(res_ptr(j + 1) - res_ptr(j), split.extent(0) && split(j), piece_nnz, max_len);
    const int k = residual_kind(cut, group);
    if (final) rank(j) = v.n[k];
    v.n[k] += cut.atomic ? atomic_row_items(cut.pieces, group) : 1;
    if (final && j == rows - 1)
      for (int c = 0; c < kResidualKinds; ++c) totals(c) = v.n[c];
  }
};

/// Adds the work items and scale rows of `options` to a pattern built on `exec`, with residual pieces
/// of `piece_nnz` (see residual_cut), for values of `value_bytes` bytes (groups_atomic_pieces).
template <class ExecSpace>
void schedule_on(const ExecSpace& exec, RsTilePattern<typename ExecSpace::memory_space>& p, const Options& options,
                 int piece_nnz, int value_bytes) {
  using Mem = typename ExecSpace::memory_space;
  check_tuning(options);
  if (piece_nnz < 1)
    throw std::invalid_argument("rsh::inspect: residual piece of " + std::to_string(piece_nnz) + " nonzeros");
  const int max_tiles = options.tuning.max_tiles_per_item, max_len = options.tuning.max_residual_nnz_per_item;
  const bool group = groups_atomic_pieces(value_bytes);

  // Split rows: the residual rows with entries in a window, and the windows holding such rows.
  const int W = p.num_windows(), R = p.num_residual_rows();
  const int64_t n = p.num_rows;
  const auto window_rows = p.window_rows;
  const auto res_rows = p.res_rows;
  const auto split_row = scratch_zeros<uint8_t>(exec, "rsh::schedule::split_row", p.rows_split ? R : 0);
  const auto split_window = scratch_zeros<uint8_t>(exec, "rsh::schedule::split_window", p.rows_split ? W : 0);
  if (p.rows_split) {
    const auto in_residual = scratch_zeros<uint8_t>(exec, "rsh::schedule::in_residual", n);
    Kokkos::parallel_for(
        "rsh::inspect::residual_row_flags", Range64<ExecSpace>(exec, 0, R),
        KOKKOS_LAMBDA(const int64_t j) { in_residual(res_rows(j)) = 1; });
    const auto in_window = scratch_zeros<uint8_t>(exec, "rsh::schedule::in_window", n);
    Kokkos::parallel_for(
        "rsh::inspect::split_windows", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
          for (int i = 0; i < 8; ++i) {
            const int r = window_rows(8 * w + i);
            if (r < 0) continue;
            in_window(r) = 1;
            if (in_residual(r)) split_window(w) = 1;
          }
        });
    Kokkos::parallel_for(
        "rsh::inspect::split_residual_rows", Range64<ExecSpace>(exec, 0, R),
        KOKKOS_LAMBDA(const int64_t j) { split_row(j) = in_window(res_rows(j)); });
  }
  const bool rows_split = p.rows_split;
  auto is_split_row = KOKKOS_LAMBDA(const int64_t j) {
    return rows_split && split_row(j);
  };

  // Tensor-Core items: whole windows first, then the pieces of longer ones and the windows of split rows.
  const auto window_tile_offset = p.window_tile_offset;
  const TcItems<Mem> tc = tc_items_on(exec, window_tile_offset, W, max_tiles, split_window);
  p.tc_num_unsplit = static_cast<int>(tc.whole);
  p.tc_item_window = tc.window, p.tc_item_tile_begin = tc.begin, p.tc_item_tile_end = tc.end;

  // Residual items (see the file comment).
  const auto res_ptr = p.res_ptr;
  // Rows no item stores once (pieces' rows, split rows, and empty rows outside windows) are scaled by
  // beta first.
  const auto stored = scratch_zeros<uint8_t>(exec, "rsh::schedule::stored", n);
  if (W > 0)  // (an empty launch still costs the host a launch's time)
    Kokkos::parallel_for(
        "rsh::inspect::stored_windows", Range64<ExecSpace>(exec, 0, W), KOKKOS_LAMBDA(const int64_t w) {
          if (window_pieces(window_tile_offset(w + 1) - window_tile_offset(w), max_tiles,
                            rows_split && split_window(w)))
            return;  // its items add with atomics
          for (int i = 0; i < 8; ++i)
            if (window_rows(8 * w + i) >= 0) stored(window_rows(8 * w + i)) = 1;
        });
  Kokkos::parallel_for(
      "rsh::inspect::stored_residual", Range64<ExecSpace>(exec, 0, R), KOKKOS_LAMBDA(const int64_t j) {
        if (!scheduled_cut(res_ptr(j + 1) - res_ptr(j), is_split_row(j), piece_nnz, max_len).atomic)
          stored(res_rows(j)) = 1;
      });
  const auto scale_at = scratch_view<int64_t>(exec, "rsh::schedule::scale_at", n + 1);  // (every offset scanned)
  scan_offsets(
      exec, "rsh::inspect::scale_rows", n, scale_at,
      KOKKOS_LAMBDA(const int64_t r) { return int64_t(stored(r) == 0); });
  const auto rank = scratch_view<int64_t>(exec, "rsh::schedule::rank", R);
  // The count of each kind, then of the rows to scale: one copy back for both. (The scan's last row writes
  // every kind's count; without residual rows they are zeros.)
  const auto totals = R > 0 ? scratch_view<int64_t>(exec, "rsh::schedule::totals", kResidualKinds + 1)
                            : scratch_zeros<int64_t>(exec, "rsh::schedule::totals", kResidualKinds + 1);
  Kokkos::parallel_scan("rsh::inspect::residual_kinds", Range64<ExecSpace>(exec, 0, R),
                        ResidualRanks<Mem>{res_ptr, rank, totals, piece_nnz, max_len, group, R, split_row});
  Kokkos::deep_copy(exec, Kokkos::subview(totals, int64_t(kResidualKinds)), Kokkos::subview(scale_at, n));
  const auto t = host_copy(exec, totals);
  const int64_t scaled = t[kResidualKinds];
  ResidualLayout layout;
  for (int c = 2; c <= kResidualPieceAlign; ++c) layout.groups[c] = t[c];
  layout.whole = t[1];
  layout.plan();
  const int64_t local = layout.local_items();
  const int64_t grouped = t[kGroupedAtomicKind] > 0 ? align_to_groups(local) : local;
  const int64_t lone = grouped + t[kGroupedAtomicKind], items = lone + t[kLoneAtomicKind];
  if (items > INT_MAX) throw std::invalid_argument("rsh::inspect: residual work items overflow 32-bit ids");
  p.res_num_local = static_cast<int>(local);
  // The items' four arrays in one block, zeroed for the padding items (no nonzeros): one fill, not four.
  const auto item_arrays = zeroed_view<int>(exec, "rsh::res_items", 4 * items);
  auto item_array = [&](int64_t i) {
    return Kokkos::subview(item_arrays, Kokkos::make_pair(i * items, (i + 1) * items));
  };
  p.res_item_row = item_array(0), p.res_item_begin = item_array(1), p.res_item_end = item_array(2);
  p.res_item_pieces = item_array(3);
  const auto row = p.res_item_row, begin = p.res_item_begin, end = p.res_item_end, heads = p.res_item_pieces;
  Kokkos::parallel_for(
      "rsh::inspect::residual_items", Range64<ExecSpace>(exec, 0, R), KOKKOS_LAMBDA(const int64_t j) {
        const int b = res_ptr(j), e = res_ptr(j + 1);
        const ResidualCut cut = scheduled_cut(e - b, is_split_row(j), piece_nnz, max_len);
        if (cut.atomic) {
          const int64_t first = (residual_kind(cut, group) == kGroupedAtomicKind ? grouped : lone) + rank(j);
          for (int i = 0; i < atomic_row_items(cut.pieces, group); ++i) {
            row(first + i) = static_cast<int>(j);
            if (i < cut.pieces)
              piece_of(b, e, i, cut.pieces, begin(first + i), end(first + i));
            else
              begin(first + i) = end(first + i) = e;  // padding of the last group
            heads(first + i) = atomic_item_heads(i, cut.pieces, group);
          }
          return;
        }
        const int64_t first = cut.pieces == 1 ? layout.whole_item(rank(j)) : layout.group_item(cut.pieces, rank(j));
        for (int i = 0; i < cut.pieces; ++i) {
          row(first + i) = static_cast<int>(j);
          piece_of(b, e, i, cut.pieces, begin(first + i), end(first + i));
          heads(first + i) = i == 0 ? cut.pieces : 0;
        }
      });

  p.scale_rows = uninitialized_view<int>(exec, "rsh::scale_rows", scaled);
  const auto scale_rows = p.scale_rows;
  Kokkos::parallel_for(
      "rsh::inspect::scale_row_ids", Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        if (stored(r) == 0) scale_rows(scale_at(r)) = static_cast<int>(r);
      });
}

}  // namespace impl
}  // namespace rsh
