#pragma once
// The geometry of RS-Tile and the one helper every stage shares: the sorted
// distinct columns of a row window.
#include <algorithm>
#include <vector>

#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace impl {

constexpr int kWindowRows = 8;  ///< rows per window (the MMA N extent)
constexpr int kTileCols = 8;    ///< compacted columns per tile (the MMA K extent)

/// Sorted distinct columns of the rows in `rows[0..kWindowRows)` (-1 = padding).
inline void window_columns(const HostCrs& A, const int* rows, std::vector<int>& cols) {
  cols.clear();
  for (int i = 0; i < kWindowRows; ++i) {
    if (rows[i] < 0) continue;
    cols.insert(cols.end(), A.entries.begin() + A.row_map[rows[i]], A.entries.begin() + A.row_map[rows[i] + 1]);
  }
  std::sort(cols.begin(), cols.end());
  cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
}

}  // namespace impl
}  // namespace rsh
