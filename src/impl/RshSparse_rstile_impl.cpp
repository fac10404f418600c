#include "impl/RshSparse_rstile_impl.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {
namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;

int checked_int(int64_t v, const char* what) {
  if (v > std::numeric_limits<int>::max())
    throw std::invalid_argument(std::string("rsh::build_rstile: ") + what + " = " + std::to_string(v) +
                                " overflows the format's 32-bit offsets");
  return static_cast<int>(v);
}

/// Exclusive prefix sum of counts[0..n) into offsets[0..n].
template <class Counts, class Offsets>
int64_t exclusive_scan(const Counts& counts, Offsets& offsets, int64_t n) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    offsets(i) = static_cast<typename Offsets::value_type>(sum);
    sum += counts[i];
  }
  offsets(n) = static_cast<typename Offsets::value_type>(sum);
  return sum;
}

}  // namespace

HostPattern build_rstile(const HostCrs& A, const RowPartition& partition, const std::vector<int64_t>& source) {
  HostPattern p;
  p.num_rows = static_cast<int>(A.num_rows);
  p.num_cols = static_cast<int>(A.num_cols);
  p.nnz = A.nnz();
  const int W = partition.num_windows();
  const int* rows = partition.window_rows.data();

  // Pass 1: compacted column of every nonzero within its window; tiles and
  // distinct entries (tile values) per window.
  std::vector<int> local(A.nnz());
  std::vector<int64_t> window_tiles(W), window_values(W);
  Kokkos::parallel_for("rsh::rstile::compact", Kokkos::RangePolicy<HostExec>(0, W), [&](int w) {
    WindowScratch scratch;
    const int* wrows = rows + kWindowRows * w;
    window_tiles[w] = (compact_window_columns(A, wrows, scratch, local.data()) + kTileCols - 1) / kTileCols;
    int64_t values = 0;
    for (int i = 0; i < kWindowRows; ++i)
      if (wrows[i] >= 0) for_each_column(A, wrows[i], [&](int) { ++values; });  // duplicates share a slot
    window_values[w] = values;
  });
  p.window_rows = HostPattern::View1<int>("rsh::window_rows", kWindowRows * int64_t(W));
  for (int64_t i = 0; i < kWindowRows * int64_t(W); ++i) p.window_rows(i) = rows[i];
  p.window_tile_offset = HostPattern::View1<int>("rsh::window_tile_offset", W + 1);
  const int T = checked_int(kTileCols * exclusive_scan(window_tiles, p.window_tile_offset, W), "8 x tiles") / 8;
  HostPattern::View1<int64_t> window_value_offset("rsh::window_value_offset", W + 1);
  const int64_t tile_nnz = exclusive_scan(window_values, window_value_offset, W);
  checked_int(tile_nnz, "tile values");

  // Pass 2, window by window: compacted columns, bitmaps, value offsets of
  // the tiles, and where each nonzero's value goes.
  p.tile_cols = HostPattern::View1<int>("rsh::tile_cols", kTileCols * int64_t(T));
  p.tile_bitmap = HostPattern::View1<uint64_t>("rsh::tile_bitmap", T);
  p.tile_val_offset = HostPattern::View1<int>("rsh::tile_val_offset", T + 1);
  p.tile_val_offset(T) = static_cast<int>(tile_nnz);
  p.value_dest = HostPattern::View1<int64_t>("rsh::value_dest", A.nnz());
  Kokkos::parallel_for("rsh::rstile::tiles", Kokkos::RangePolicy<HostExec>(0, W), [&](int w) {
    const int t0 = p.window_tile_offset(w), t1 = p.window_tile_offset(w + 1);
    // Calls f(k, t, bit): nonzero k of the window sits in tile t at bit `bit`.
    auto for_each_nonzero = [&](auto&& f) {
      for (int i = 0; i < kWindowRows; ++i) {
        const int r = rows[kWindowRows * w + i];
        if (r < 0) continue;
        for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
          f(k, t0 + local[k] / kTileCols, kTileCols * i + local[k] % kTileCols);
      }
    };
    for (int j = kTileCols * t0; j < kTileCols * t1; ++j) p.tile_cols(j) = -1;
    for (int t = t0; t < t1; ++t) p.tile_bitmap(t) = 0;
    for_each_nonzero([&](int64_t k, int t, int bit) {
      p.tile_cols(kTileCols * t + bit % kTileCols) = A.entries[k];
      p.tile_bitmap(t) |= uint64_t(1) << bit;
    });
    int64_t offset = window_value_offset(w);
    for (int t = t0; t < t1; ++t) {
      p.tile_val_offset(t) = static_cast<int>(offset);
      offset += __builtin_popcountll(p.tile_bitmap(t));
    }
    for_each_nonzero([&](int64_t k, int t, int bit) {
      const uint64_t below = p.tile_bitmap(t) & ((uint64_t(1) << bit) - 1);
      p.value_dest(source[k]) = p.tile_val_offset(t) + __builtin_popcountll(below);
    });
  });

  // Residual CSR.
  const int R = static_cast<int>(partition.residual_rows.size());
  p.res_rows = HostPattern::View1<int>("rsh::res_rows", R);
  p.res_ptr = HostPattern::View1<int>("rsh::res_ptr", R + 1);
  std::vector<int64_t> lengths(R);
  for (int j = 0; j < R; ++j) {
    const int r = partition.residual_rows[j];
    p.res_rows(j) = r;
    lengths[j] = A.row_map[r + 1] - A.row_map[r];
  }
  const int res_nnz = checked_int(exclusive_scan(lengths, p.res_ptr, R), "residual nonzeros");
  p.res_cols = HostPattern::View1<int>("rsh::res_cols", res_nnz);
  for (int j = 0; j < R; ++j) {
    const int r = p.res_rows(j);
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
      const int64_t pos = p.res_ptr(j) + (k - A.row_map[r]);
      p.res_cols(pos) = A.entries[k];
      p.value_dest(source[k]) = tile_nnz + pos;
    }
  }
  return p;
}

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
     << " atomic pieces), " << s.scale_rows << " pre-scaled rows\n"
     << "bytes: format " << s.format_bytes << " vs CSR " << s.csr_bytes << " ("
     << (s.csr_bytes ? double(s.format_bytes) / double(s.csr_bytes) : 0.0) << "x)\n";
  return os.str();
}

}  // namespace impl
}  // namespace rsh
