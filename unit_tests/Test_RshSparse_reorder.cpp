// Row reordering: every policy yields a permutation, finds hidden locality
// (more nonzeros per tile), and never changes the product (Test_RshSparse_spmm*).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "Test_RshSparse_common.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/RshSparse_reorder_impl.hpp"

namespace {

using rsh::impl::HostCrs;

void expect_permutation(const std::vector<int>& order, int64_t n) {
  ASSERT_EQ(static_cast<int64_t>(order.size()), n);
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
}

TEST(Reorder, LocalityOrderIsAPermutation) {
  rsh::ReorderOptions o;
  for (bool clustered : {false, true})
    for (bool two_opt : {false, true}) {
      o.two_opt = two_opt;
      const HostCrs A = rsh::test::random_crs(301, 97, 9, rsh::test::fresh_seed(), clustered);
      expect_permutation(rsh::impl::locality_order(A, o), A.num_rows);
    }
  expect_permutation(rsh::impl::locality_order(rsh::impl::coo_to_crs(0, 0, {}), o), 0);
  expect_permutation(rsh::impl::locality_order(rsh::impl::coo_to_crs(9, 3, {}), o), 9);  // all rows empty
  expect_permutation(rsh::impl::locality_order(rsh::test::random_crs(1, 50, 20, 3), o), 1);
  expect_permutation(rsh::impl::locality_order(rsh::test::random_crs(40, 2000, 5, 4), o), 40);
  o.max_postings = 1;  // every column a hub: the fallback pass still finds neighbours
  o.max_scan = 3;
  expect_permutation(rsh::impl::locality_order(rsh::test::random_crs(50, 30, 6, 5), o), 50);
  o.neighbours = 0;
  EXPECT_THROW(rsh::impl::locality_order(rsh::test::random_crs(5, 5, 2, 1), o), std::invalid_argument);
}

TEST(Reorder, LocalityRecoversShuffledBlocks) {
  // 16 groups of 8 rows; group g draws its nonzeros from its own 16 columns.
  // Shuffling the rows hides the groups from 8-row windows; reordering finds them.
  std::mt19937_64 rng(rsh::test::fresh_seed());
  std::vector<int> shuffle(128);
  for (int i = 0; i < 128; ++i) shuffle[i] = i;
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 16; ++c)
      if (rng() % 2) coo.push_back({shuffle[r], 16 * (r / 8) + c, 1.0});
  const HostCrs A = rsh::impl::coo_to_crs(128, 256, coo);
  rsh::Options plain = rsh::test::options(rsh::Partition::kTensorCoreOnly);
  rsh::Options reordered = plain;
  reordered.reorder = rsh::Reorder::kLocality;
  const auto before = rsh::impl::format_stats(rsh::impl::inspect(A, plain, "test").pattern, 8);
  const auto after = rsh::impl::format_stats(rsh::impl::inspect(A, reordered, "test").pattern, 8);
  EXPECT_GE(after.mean_nnz_per_tile, 2.0 * before.mean_nnz_per_tile);
  EXPECT_LT(after.mean_window_columns, before.mean_window_columns);
  EXPECT_LE(after.mean_window_columns, 20.0);  // close to the 16 columns of one group
}

}  // namespace
