#pragma once
// The geometry of RS-Tile and the one helper every stage shares: the sorted
// distinct columns of a row window.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "impl/RshSparse_HostCrs.hpp"

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

/// Scratch space of compact_window_columns (a caller may keep one per thread and reuse it).
struct WindowScratch {
  std::vector<uint64_t> keys;  ///< (column << 32) | index into `entry`
  std::vector<int64_t> entry;  ///< positions in A of the window's nonzeros
};

/// Numbers the distinct columns of the rows in `rows[0..kWindowRows)` 0, 1,
/// ... in column order and writes each nonzero's number to local[k] (k its
/// position in A); returns how many distinct columns there are. One sort of
/// (column, entry) keys instead of a sort plus a search per nonzero.
inline int compact_window_columns(const HostCrs& A, const int* rows, WindowScratch& s, int* local) {
  s.keys.clear();
  s.entry.clear();
  for (int i = 0; i < kWindowRows; ++i)
    if (rows[i] >= 0)
      for (int64_t k = A.row_map[rows[i]]; k < A.row_map[rows[i] + 1]; ++k) {
        s.keys.push_back(uint64_t(A.entries[k]) << 32 | uint64_t(s.entry.size()));
        s.entry.push_back(k);
      }
  if (s.entry.size() > size_t(UINT32_MAX))
    throw std::invalid_argument("rsh::build_rstile: a window holds more than 2^32 nonzeros");
  std::sort(s.keys.begin(), s.keys.end());
  int count = 0;
  for (size_t e = 0; e < s.keys.size(); ++e) {
    if (e > 0 && s.keys[e] >> 32 != s.keys[e - 1] >> 32) ++count;
    local[s.entry[s.keys[e] & UINT32_MAX]] = count;
  }
  return s.keys.empty() ? 0 : count + 1;
}

}  // namespace impl
}  // namespace rsh
