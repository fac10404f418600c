// The partitions that assign nonzeros (Libra, BalancedBlocks): which entries
// go to Tensor Cores, checked against the rules recomputed here from A's
// windows of 8 consecutive non-empty rows. (The format's invariants and the
// products are checked for every partition in the RS-Tile and spmm tests.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "Test_RshSparse_common.hpp"
#include "impl/RshSparse_inspector.hpp"

namespace {

using rsh::impl::HostCrs;
using rsh::impl::HostPattern;

/// The windows of 8 consecutive non-empty rows of A in row order.
std::vector<std::vector<int>> consecutive_windows(const HostCrs& A) {
  std::vector<std::vector<int>> windows;
  for (int r = 0; r < A.num_rows; ++r) {
    if (A.row_map[r + 1] == A.row_map[r]) continue;
    if (windows.empty() || windows.back().size() == 8) windows.emplace_back();
    windows.back().push_back(r);
  }
  return windows;
}

/// Entries (row, column) the pattern puts on Tensor Cores, with their multiplicity.
std::map<std::pair<int, int>, int> tile_entries(const HostPattern& p) {
  std::map<std::pair<int, int>, int> out;
  for (int w = 0; w < p.num_windows(); ++w)
    for (int t = p.window_tile_offset(w); t < p.window_tile_offset(w + 1); ++t)
      for (uint64_t bits = p.tile_bitmap(t); bits; bits &= bits - 1) {
        const int b = __builtin_ctzll(bits);
        ++out[{p.window_rows(8 * w + b / 8), p.tile_cols(8 * t + b % 8)}];
      }
  return out;
}

rsh::Options with(rsh::Partition partition) {
  rsh::Options o;
  o.partition = partition;
  o.reorder = rsh::Reorder::kNone;
  return o;
}

// Libra: a window's column goes to Tensor Cores exactly when ceil(eta x 8) of its rows hold it.
TEST(NonzeroPartition, LibraSendsColumnsHeldByEnoughRowsToTensorCores) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs clustered = rsh::test::random_crs(301, 90, 14, seed, true);
  std::vector<rsh::impl::CooEntry> coo;  // rows 40 - 59 empty: left out of the windows
  for (int r = 0; r < clustered.num_rows; ++r)
    for (int64_t k = clustered.row_map[r]; k < clustered.row_map[r + 1]; ++k)
      if (r < 40 || r >= 60) coo.push_back({r, clustered.entries[k], clustered.values[k]});
  const HostCrs A = rsh::impl::coo_to_crs(clustered.num_rows, clustered.num_cols, coo);
  for (const double eta : {0.125, 0.375, 0.5, 1.0}) {
    SCOPED_TRACE("eta " + std::to_string(eta));
    rsh::Options o = with(rsh::Partition::kLibra);
    o.tuning.libra_eta = eta;
    const HostPattern p = rsh::impl::inspect(A, o, "test").pattern;
    const int need = static_cast<int>(std::ceil(eta * 8 - 1e-9));
    const auto on_tiles = tile_entries(p);
    int64_t expected_tile_nnz = 0;
    for (const auto& rows : consecutive_windows(A)) {
      std::map<int, int> holders;
      for (int r : rows)
        for (int c : std::set<int>(A.entries.begin() + A.row_map[r], A.entries.begin() + A.row_map[r + 1]))
          ++holders[c];
      for (int r : rows)
        for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
          const bool tiles = holders[A.entries[k]] >= need;
          EXPECT_EQ(on_tiles.count({r, A.entries[k]}), tiles ? 1u : 0u) << "row " << r << " column " << A.entries[k];
          expected_tile_nnz += tiles;
        }
    }
    EXPECT_EQ(p.num_tiles() ? p.tile_val_offset(p.num_tiles()) : 0, expected_tile_nnz);
    if (need == 1) EXPECT_EQ(p.num_residual_rows(), 0);
    if (need == 3) {  // rows split between both sides, which the multiply must add up
      std::set<int> windowed;
      for (int i = 0; i < 8 * p.num_windows(); ++i) windowed.insert(p.window_rows(i));
      int split = 0;
      for (int j = 0; j < p.num_residual_rows(); ++j) split += windowed.count(p.res_rows(j)) != 0;
      EXPECT_GT(split, 0);
    }
  }
}

// BalancedBlocks: each window's first 32 x floor(nnz / 32) entries in column order fill tiles of one
// entry per tile column (8 per tile), the rest go to the residual.
TEST(NonzeroPartition, BalancedBlocksFillWholeGroupsOfTiles) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs A = rsh::test::random_crs(205, 300, 20, seed, true);
  const HostPattern p = rsh::impl::inspect(A, with(rsh::Partition::kBalancedBlocks), "test").pattern;
  const auto on_tiles = tile_entries(p);
  for (int t = 0; t < p.num_tiles(); ++t) EXPECT_EQ(__builtin_popcountll(p.tile_bitmap(t)), 8) << "tile " << t;
  for (int i = 0; i < p.tc_num_items(); ++i)
    EXPECT_EQ(p.tc_item_tile_end(i) - p.tc_item_tile_begin(i), 4) << "item " << i;
  for (const auto& rows : consecutive_windows(A)) {
    std::vector<std::pair<int, int>> column_order;  // (column, row)
    for (int r : rows)
      for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) column_order.push_back({A.entries[k], r});
    std::stable_sort(column_order.begin(), column_order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const size_t grouped = column_order.size() / 32 * 32;
    for (size_t e = 0; e < column_order.size(); ++e) {
      const auto it = on_tiles.find({column_order[e].second, column_order[e].first});
      EXPECT_EQ(it != on_tiles.end(), e < grouped)
          << "row " << column_order[e].second << " column " << column_order[e].first;
    }
  }
}

// Options::deterministic keeps rows whole and adds nothing with atomics.
TEST(NonzeroPartition, DeterministicKeepsRowsWhole) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs A = rsh::test::random_crs(300, 200, 30, seed, true);
  for (rsh::Partition part : {rsh::Partition::kLibra, rsh::Partition::kBalancedBlocks}) {
    SCOPED_TRACE(rsh::partition_name(part));
    rsh::Options o = with(part);
    o.deterministic = true;
    const HostPattern p = rsh::impl::inspect(A, rsh::impl::deterministic_plan(o), "test").pattern;
    std::set<int> windowed;
    for (int i = 0; i < 8 * p.num_windows(); ++i)
      if (p.window_rows(i) >= 0) windowed.insert(p.window_rows(i));
    for (int j = 0; j < p.num_residual_rows(); ++j) EXPECT_EQ(windowed.count(p.res_rows(j)), 0u);
    EXPECT_GT(p.num_tiles(), 0);
    EXPECT_EQ(p.tc_num_unsplit, p.tc_num_items());
    EXPECT_EQ(p.res_num_local, p.res_num_items());
  }
}

TEST(NonzeroPartition, RejectsEtaOutsideTheUnitInterval) {
  const HostCrs A = rsh::test::random_crs(20, 20, 4, 1);
  for (const double eta : {0.0, -0.5, 1.5}) {
    rsh::Options o = with(rsh::Partition::kLibra);
    o.tuning.libra_eta = eta;
    EXPECT_THROW(rsh::impl::inspect(A, o, "test"), std::invalid_argument) << eta;
  }
}

}  // namespace
