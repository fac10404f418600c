#include "impl/RshSparse_rstile_impl.hpp"

#include <sstream>

namespace rsh {
namespace impl {

FormatStats format_stats(const HostPattern& p, int scalar_bytes) {
  FormatStats s;
  s.windows = p.num_windows();
  s.tiles = p.num_tiles();
  s.residual_rows = p.num_residual_rows();
  s.tile_nnz = s.tiles ? p.tile_val_offset(s.tiles) : 0;
  s.residual_nnz = static_cast<int64_t>(p.res_cols.extent(0));
  s.tc_items = p.tc_num_items();
  s.tc_split_items = s.tc_items - p.tc_num_unsplit;
  s.res_items = p.res_num_items();
  s.res_atomic_items = s.res_items - p.res_num_local;
  for (int i = 0; i < p.res_num_local; ++i) s.res_shared_items += p.res_item_pieces(i) != 1;
  s.scale_rows = static_cast<int>(p.scale_rows.extent(0));
  s.mean_nnz_per_tile = s.tiles ? double(s.tile_nnz) / s.tiles : 0.0;
  int64_t window_columns = 0;
  for (int64_t i = 0; i < 8 * int64_t(s.tiles); ++i) window_columns += p.tile_cols(i) >= 0;
  s.mean_window_columns = s.windows ? double(window_columns) / s.windows : 0.0;
  const int64_t stored = s.tile_nnz + s.residual_nnz;
  s.tile_fraction = stored ? double(s.tile_nnz) / double(stored) : 0.0;
  s.format_bytes = 4 * (int64_t(9) * s.windows + 1) + (4 * 8 + 8 + 4) * int64_t(s.tiles) + 4 +
                   (4 + 4) * int64_t(s.residual_rows) + 4 + 4 * s.residual_nnz + int64_t(scalar_bytes) * stored +
                   12 * int64_t(s.tc_items + s.res_items) + 4 * int64_t(s.scale_rows);
  s.csr_bytes = 4 * (int64_t(p.num_rows) + 1) + (4 + scalar_bytes) * p.nnz;
  return s;
}

std::string to_string(const FormatStats& s) {
  std::ostringstream os;
  os << "RS-Tile: " << s.windows << " windows, " << s.tiles << " tiles, " << s.mean_nnz_per_tile << " nnz/tile, "
     << s.mean_window_columns << " B rows/window, " << 100.0 * s.tile_fraction << "% of nonzeros on Tensor Cores\n"
     << "residual: " << s.residual_rows << " rows, " << s.residual_nnz << " nnz\n"
     << "schedule: " << s.tc_items << " TC items (" << s.tc_split_items << " split), " << s.res_items
     << " residual items (" << s.res_shared_items << " pieces or padding summed in the CTA, " << s.res_atomic_items
     << " adding with atomics), " << s.scale_rows << " pre-scaled rows\n"
     << "bytes: format " << s.format_bytes << " vs CSR " << s.csr_bytes << " ("
     << (s.csr_bytes ? double(s.format_bytes) / double(s.csr_bytes) : 0.0) << "x)\n";
  return os.str();
}

}  // namespace impl
}  // namespace rsh
