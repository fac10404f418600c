#pragma once
// The geometry of RS-Tile and the helpers every stage shares: the distinct
// columns of a row window, counted or numbered.
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

/// Counts the distinct columns of row windows with one stamp per column
/// (no sort: linear in the window's nonzeros); one counter serves any number
/// of windows of one matrix.
class WindowColumnCounter {
 public:
  explicit WindowColumnCounter(int64_t num_cols) : stamp_(num_cols, -1) {}
  /// Distinct columns of the rows in `rows[0..kWindowRows)` (-1 = padding).
  int64_t count(const HostCrs& A, const int* rows) {
    ++window_;
    int64_t distinct = 0;
    for (int i = 0; i < kWindowRows; ++i)
      if (rows[i] >= 0)
        for (int64_t k = A.row_map[rows[i]]; k < A.row_map[rows[i] + 1]; ++k)
          if (stamp_[A.entries[k]] != window_) stamp_[A.entries[k]] = window_, ++distinct;
    return distinct;
  }

 private:
  std::vector<int64_t> stamp_;  ///< per column: the last window that held it
  int64_t window_ = -1;
};

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
