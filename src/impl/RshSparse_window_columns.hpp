#pragma once
// The geometry of RS-Tile and of the kernels' work items, which every stage shares.

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

}  // namespace impl
}  // namespace rsh
