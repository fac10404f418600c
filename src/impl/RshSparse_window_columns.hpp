#pragma once
// The geometry of RS-Tile and of the kernels' work items, which every stage shares.
#include <cstdint>

/// Functions of Kokkos-free headers that host code and CUDA kernels both call.
#if defined(__CUDACC__)
#define RSH_HOST_DEVICE __host__ __device__
#else
#define RSH_HOST_DEVICE
#endif

namespace rsh {
namespace impl {

constexpr int kWindowRows = 8;     ///< rows per window (the MMA N extent)
constexpr int kTileCols = 8;       ///< compacted columns per tile (the MMA K extent)
constexpr int kWindowsPerCta = 8;  ///< work items (one window each, one per warp) a Tensor-Core CTA runs at once
/// Residual items a CUDA-core CTA always runs together (its fewest: 8 warps of
/// 32 lanes): a row of up to this many pieces has them summed in shared
/// memory, inside one aligned group of this many items; longer rows' pieces
/// add with atomics.
constexpr int kResidualPieceAlign = 8;

/// A row too long for one CTA to sum adds into C with atomics. Where atomics
/// go one element at a time (FP64: no vector reduction exists) and the row has
/// more than half a group of pieces, its pieces go in aligned groups of
/// kResidualPieceAlign items, each summed in its CTA by the group's first
/// item, which alone adds the sum into C: a group's atomics are those of one
/// piece, for at most kResidualPieceAlign - 1 empty items padding the row's
/// last group. FP16 and FP32 add 8 or 4 elements an atomic and keep lone pieces
/// (measured: perf_tests/results/MODELS.md).
RSH_HOST_DEVICE constexpr bool groups_atomic_pieces(int value_bytes) {
  return value_bytes == 8;
}
/// Whether a row of `pieces` atomic pieces has them in groups (`group`: groups_atomic_pieces).
RSH_HOST_DEVICE constexpr bool grouped_atomic_row(int pieces, bool group) {
  return group && pieces > kResidualPieceAlign / 2;
}
/// The items such a row takes.
RSH_HOST_DEVICE constexpr int atomic_row_items(int pieces, bool group) {
  return grouped_atomic_row(pieces, group)
             ? (pieces + kResidualPieceAlign - 1) / kResidualPieceAlign * kResidualPieceAlign
             : pieces;
}
/// What item i (< atomic_row_items) of such a row sums and adds into C: its group's pieces when it heads the
/// group, 0 for the group's other pieces and the padding; 1 for each lone piece.
RSH_HOST_DEVICE constexpr int atomic_item_heads(int i, int pieces, bool group) {
  if (!grouped_atomic_row(pieces, group)) return 1;
  if (i >= pieces || i % kResidualPieceAlign != 0) return 0;
  return pieces - i < kResidualPieceAlign ? pieces - i : kResidualPieceAlign;
}
/// i rounded up to a whole number of aligned groups.
RSH_HOST_DEVICE constexpr int64_t align_to_groups(int64_t i) {
  return (i + kResidualPieceAlign - 1) / kResidualPieceAlign * kResidualPieceAlign;
}

}  // namespace impl
}  // namespace rsh
