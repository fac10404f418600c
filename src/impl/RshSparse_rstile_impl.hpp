#pragma once
// RS-Tile + CSR residual + schedule (DESIGN section 3), held in Kokkos views
// of one memory space. The pattern is built once per sparsity pattern where
// A lives (impl/inspector); values live beside it and are refreshed through
// value_dest without rebuilding.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

/// What a format's views live in where they do not own their memory (a backend's pool: see
/// impl/inspector/RshSparse_inspector_views.hpp). Every copy of the format holds it.
struct ViewStorage {
  virtual ~ViewStorage() = default;
};

template <class MemorySpace>
struct RsTilePattern {
  template <class T>
  using View1 = Kokkos::View<T*, Kokkos::LayoutRight, MemorySpace>;

  int num_rows = 0, num_cols = 0;
  int64_t nnz = 0;  ///< entries of the user's CSR (duplicates counted)
  /// Partition::kDenseBlocks: the CUDA executor multiplies dense 16 x 16 blocks
  /// made from the residual (every row there, no tiles); the portable one runs the residual.
  bool dense_blocks = false;
  /// Partitions by nonzero (Libra, BalancedBlocks): a row may have nonzeros both in a window and in the
  /// residual. Such a row's two parts add into C with atomics (schedule_on).
  bool rows_split = false;

  // Tensor-Core part. Window w owns tiles [window_tile_offset(w), window_tile_offset(w+1)).
  View1<int> window_rows;         ///< 8 * windows: original row, -1 = padding
  View1<int> window_tile_offset;  ///< windows + 1
  View1<int> tile_cols;           ///< 8 * tiles: original column, -1 = padding
  View1<uint64_t> tile_bitmap;    ///< tiles: bit 8*r + c set where A(row r, col c) is stored
  View1<int> tile_val_offset;     ///< tiles + 1: tile t's values, in bit order
  // CUDA-core residual, CSR over original row ids.
  View1<int> res_rows;  ///< residual rows
  View1<int> res_ptr;   ///< residual rows + 1
  View1<int> res_cols;  ///< residual nnz (duplicates kept)
  /// User CSR position k -> value slot: tile slot s < tile_nnz, residual slot tile_nnz + j. 32-bit, as
  /// every offset of the format: a format holds at most Tuning::max_panel_nnz <= 2^30 nonzeros.
  View1<int> value_dest;

  // Schedule. Tensor-Core items [0, tc_num_unsplit) own their windows and
  // store C once; the rest are pieces of split windows. Residual items
  // [0, res_num_local) store C once: whole rows, and rows in up to
  // kResidualPieceAlign pieces inside one aligned group of items, summed by
  // the first piece (res_item_pieces); the rest are pieces of rows too long
  // for that (FP64: in aligned groups summed by their first piece where the
  // row has enough pieces, atomic_row_items). Items past the store-once ones add with
  // atomics into rows pre-scaled by beta (scale_rows, which also holds
  // uncovered empty rows).
  View1<int> tc_item_window, tc_item_tile_begin, tc_item_tile_end;
  int tc_num_unsplit = 0;
  View1<int> res_item_row, res_item_begin, res_item_end;  ///< row index into res_rows; nnz range
  /// Items whose partial sums this one adds and stores: p >= 1 for a whole
  /// row, the first of p pieces (the next p - 1 items), the first of a
  /// group of p atomic pieces and a lone atomic piece (p = 1); 0 for the
  /// other pieces and for padding (an empty range).
  View1<int> res_item_pieces;
  int res_num_local = 0;
  View1<int> scale_rows;
  std::shared_ptr<const ViewStorage> storage;  ///< null where every view owns its memory

  int num_windows() const { return static_cast<int>(window_tile_offset.extent(0)) - 1; }
  int num_tiles() const { return static_cast<int>(tile_bitmap.extent(0)); }
  int num_residual_rows() const { return static_cast<int>(res_rows.extent(0)); }
  int tc_num_items() const { return static_cast<int>(tc_item_window.extent(0)); }
  int res_num_items() const { return static_cast<int>(res_item_row.extent(0)); }
};

using HostPattern = RsTilePattern<Kokkos::HostSpace>;

/// How the schedule cuts a residual row of `len` nonzeros: into `pieces`
/// items (1: whole), which add into C with atomics or are summed in one CTA.
/// Rows of up to kResidualPieceAlign x max_len nonzeros: pieces of piece_nnz,
/// at most kResidualPieceAlign of them (longer pieces then), summed in one
/// CTA; longer rows: atomic pieces of max_len (fewer, longer pieces that stay
/// in one CTA ran slower on the H100 than atomic pieces).
struct ResidualCut {
  int pieces;
  bool atomic;
};
KOKKOS_INLINE_FUNCTION ResidualCut residual_cut(int64_t len, int piece_nnz, int max_len) {
  if (len <= int64_t(kResidualPieceAlign) * max_len) {  // summed in one CTA
    const int64_t pieces = (len + piece_nnz - 1) / piece_nnz;
    return {static_cast<int>(pieces < kResidualPieceAlign ? pieces : kResidualPieceAlign), false};
  }
  return {static_cast<int>((len + max_len - 1) / max_len), true};
}

/// Throws std::invalid_argument unless Options' tuning (work-item bounds, Libra's eta, panel size, long
/// windows) is valid.
inline void check_tuning(const Options& options) {
  const int max_len = options.tuning.max_residual_nnz_per_item, piece = options.tuning.residual_piece_nnz;
  if (options.tuning.max_tiles_per_item < 1 || max_len < 1 || piece < 0)
    throw std::invalid_argument(
        "rsh::Options: max_tiles_per_item = " + std::to_string(options.tuning.max_tiles_per_item) +
        " and max_residual_nnz_per_item = " + std::to_string(max_len) +
        " must be >= 1, residual_piece_nnz = " + std::to_string(piece) + " >= 0");
  if (!(options.tuning.libra_eta > 0.0 && options.tuning.libra_eta <= 1.0))
    throw std::invalid_argument("rsh::Options: libra_eta = " + std::to_string(options.tuning.libra_eta) +
                                " outside (0, 1]");
  if (options.tuning.max_panel_nnz < 1 || options.tuning.max_panel_nnz > Experimental::kMaxPanelNnz)
    throw std::invalid_argument("rsh::Options: max_panel_nnz = " + std::to_string(options.tuning.max_panel_nnz) +
                                " outside [1, 2^30]");
  if (options.tuning.long_window_nnz < -1)
    throw std::invalid_argument("rsh::Options: long_window_nnz = " + std::to_string(options.tuning.long_window_nnz) +
                                " must be >= 0, or -1 for the execution space's choice");
  if (options.expected_num_vectors < 0)
    throw std::invalid_argument("rsh::Options: expected_num_vectors = " + std::to_string(options.expected_num_vectors) +
                                " must be >= 0 (0: the N of the call that analyses A)");
  if (options.tuning.sddmm_panel_rows < 1)
    throw std::invalid_argument("rsh::Options: sddmm_panel_rows = " + std::to_string(options.tuning.sddmm_panel_rows) +
                                " must be >= 1");
  const int tile_rows = options.tuning.sddmm_tile_rows;
  if (tile_rows != 0 && tile_rows != 32 && tile_rows != 64)
    throw std::invalid_argument("rsh::Options: sddmm_tile_rows = " + std::to_string(tile_rows) +
                                " must be 32, 64 or 0 (by the grid)");
}

/// Copies every view of a pattern into another memory space.
template <class MemorySpace, class Src>
RsTilePattern<MemorySpace> mirror_pattern(const Src& h) {
  RsTilePattern<MemorySpace> d;
  d.num_rows = h.num_rows, d.num_cols = h.num_cols, d.nnz = h.nnz, d.dense_blocks = h.dense_blocks;
  d.rows_split = h.rows_split;
  d.tc_num_unsplit = h.tc_num_unsplit, d.res_num_local = h.res_num_local;
  auto copy = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(MemorySpace(), v); };
  d.window_rows = copy(h.window_rows), d.window_tile_offset = copy(h.window_tile_offset);
  d.tile_cols = copy(h.tile_cols), d.tile_bitmap = copy(h.tile_bitmap), d.tile_val_offset = copy(h.tile_val_offset);
  d.res_rows = copy(h.res_rows), d.res_ptr = copy(h.res_ptr), d.res_cols = copy(h.res_cols);
  d.value_dest = copy(h.value_dest);
  d.tc_item_window = copy(h.tc_item_window), d.tc_item_tile_begin = copy(h.tc_item_tile_begin);
  d.tc_item_tile_end = copy(h.tc_item_tile_end);
  d.res_item_row = copy(h.res_item_row), d.res_item_begin = copy(h.res_item_begin);
  d.res_item_end = copy(h.res_item_end), d.res_item_pieces = copy(h.res_item_pieces);
  d.scale_rows = copy(h.scale_rows);
  return d;
}

/// What describe() reports about a built format.
struct FormatStats {
  int windows = 0, tiles = 0, residual_rows = 0;
  int64_t tile_nnz = 0, residual_nnz = 0;
  int tc_items = 0, tc_split_items = 0, res_items = 0, res_shared_items = 0, res_atomic_items = 0, scale_rows = 0;
  double mean_nnz_per_tile = 0.0;
  double mean_window_columns = 0.0;  ///< distinct B rows read per window
  double tile_fraction = 0.0;        ///< stored positions on Tensor Cores / all stored positions
  int64_t format_bytes = 0, csr_bytes = 0;
};

FormatStats format_stats(const HostPattern& p, int scalar_bytes);
std::string to_string(const FormatStats& s);

}  // namespace impl
}  // namespace rsh
