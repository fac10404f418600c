#pragma once
// Bridge from an inspector's pattern (Kokkos views of any memory space) to the
// raw CUDA API's format arrays (plain pointers into the same storage).
#include <vector>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "impl/RshSparse_rstile_impl.hpp"

namespace rsh {
namespace impl {

/// Format arrays viewing `p` (which must outlive them): HostFormat for a host pattern, DeviceFormat for one
/// in device memory.
template <class Format, class MemorySpace>
Format format_arrays(const RsTilePattern<MemorySpace>& p) {
  Format f;
  f.num_rows = p.num_rows, f.num_cols = p.num_cols;
  f.num_windows = p.num_windows(), f.window_rows = p.window_rows.data();
  f.num_tiles = p.num_tiles(), f.tile_cols = p.tile_cols.data(), f.tile_bitmap = p.tile_bitmap.data();
  f.tile_val_offset = p.tile_val_offset.data();
  f.num_res_rows = p.num_residual_rows(), f.res_rows = p.res_rows.data(), f.res_cols = p.res_cols.data();
  f.res_nnz = static_cast<int>(p.res_cols.extent(0));
  f.tc_num_items = p.tc_num_items(), f.tc_num_unsplit = p.tc_num_unsplit;
  f.tc_item_window = p.tc_item_window.data(), f.tc_item_tile_begin = p.tc_item_tile_begin.data();
  f.tc_item_tile_end = p.tc_item_tile_end.data();
  static_assert(impl::kResidualPieceAlign == cuda::kResidualPieceAlign, "rsh: one residual piece alignment");
  f.res_num_items = p.res_num_items(), f.res_num_local = p.res_num_local;
  f.res_item_row = p.res_item_row.data(), f.res_item_begin = p.res_item_begin.data();
  f.res_item_end = p.res_item_end.data(), f.res_item_pieces = p.res_item_pieces.data();
  f.num_scale_rows = static_cast<int>(p.scale_rows.extent(0)), f.scale_rows = p.scale_rows.data();
  f.dense_blocks = p.dense_blocks;
  return f;
}

/// HostFormat viewing `p` and the value slots `values` (both must outlive it).
inline cuda::HostFormat host_format(const HostPattern& p, const std::vector<double>& values) {
  cuda::HostFormat f = format_arrays<cuda::HostFormat>(p);
  f.values = values.data();
  return f;
}

}  // namespace impl
}  // namespace rsh
