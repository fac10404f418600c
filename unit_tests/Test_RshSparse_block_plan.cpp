// The dense-block launch the planner picks (cuda::detail::plan_block_launch): host logic, run without a
// device. Resident cluster counts are given, as the device would report them; each expected size and
// staging follows from the rule's definition by hand.
#include <gtest/gtest.h>

#include "cuda/RshSparse_spmm_block_plan.hpp"

namespace {

using rsh::cuda::KernelConfig;
using rsh::cuda::detail::BlockWaves;
using rsh::cuda::detail::plan_block_launch;
using rsh::impl::DenseBlockLayout;

// Clusters of 1, 2, 4 and 8 resident at once: two-stage CTAs one an SM, one-stage CTAs two an SM, on a
// device of 132 SMs whose GPCs leave some SMs out of clusters of 4 and 8.
constexpr BlockWaves kWaves{{132, 66, 31, 15}, {264, 130, 62, 30}};
constexpr int kFp64Round = 4, kFp16Round = 16;

TEST(DenseBlockPlan, SmallestClusterOfTwoRoundsAndEnoughCtas) {
  const DenseBlockLayout l(2048, 512);  // 32 groups of 64 rows, 32 column blocks
  // FP16 rounds of 16 blocks: one CTA a group already stages two rounds, with 32 x 2 = 64 CTAs.
  const auto fp16 = plan_block_launch(l, 2, kFp16Round, KernelConfig{}, kWaves);
  EXPECT_EQ(fp16.cluster, 1);
  EXPECT_EQ(fp16.staging.round_steps, kFp16Round);
  EXPECT_EQ(fp16.staging.stages, 2);  // 32 blocks a CTA, two rounds; 64 clusters of one fit 132
  // One column block: nothing to split over a cluster.
  EXPECT_EQ(plan_block_launch(DenseBlockLayout(64, 16), 1, kFp16Round, KernelConfig{}, kWaves).cluster, 1);
}

TEST(DenseBlockPlan, HalvesAClusterThatSpillsIntoASecondWave) {
  const DenseBlockLayout l(2048, 512);
  // FP64 rounds of 4 blocks: clusters of 4 give two rounds a CTA, but 64 clusters of 4 against 62 resident
  // would run in two waves (2 x 3 round trips); clusters of 2 hold one wave of 4 rounds (5 round trips).
  const auto fp64 = plan_block_launch(l, 2, kFp64Round, KernelConfig{}, kWaves);
  EXPECT_EQ(fp64.cluster, 2);
  EXPECT_EQ(fp64.staging.stages, 2);  // 16 blocks a CTA, and 64 clusters of 2 fit the 66 two-stage ones
  // With 64 clusters of 4 resident the grid fits one wave: clusters of 4, one stage (31 two-stage ones).
  BlockWaves roomy = kWaves;
  roomy.one_stage[2] = 64;
  const auto fits = plan_block_launch(l, 2, kFp64Round, KernelConfig{}, roomy);
  EXPECT_EQ(fits.cluster, 4);
  EXPECT_EQ(fits.staging.stages, 1);
  // No cluster of a kernel that does not fit at all: counted as more waves than any that does.
  BlockWaves none = kWaves;
  none.one_stage[2] = 0;
  EXPECT_EQ(plan_block_launch(l, 2, kFp64Round, KernelConfig{}, none).cluster, 2);
}

TEST(DenseBlockPlan, KeepsTheLargestClusterWhereNoSizeHoldsOneWave) {
  // 4267 x 4267: 67 groups, 267 column blocks, 134 clusters at two slices. The rule's loop stops at the
  // largest size (9 rounds a CTA); halving needs the half size to hold the grid in one wave, and 134 clusters
  // of 4 need three.
  const DenseBlockLayout l(4267, 4267);
  const auto p = plan_block_launch(l, 2, kFp64Round, KernelConfig{}, kWaves);
  EXPECT_EQ(p.cluster, 8);
  EXPECT_EQ(p.staging.stages, 1);  // past one wave of two-stage clusters
}

TEST(DenseBlockPlan, KernelConfigOverridesThePlanner) {
  const DenseBlockLayout l(2048, 512);
  KernelConfig c;
  c.dense_cluster = 4, c.dense_stages = 1;
  const auto forced = plan_block_launch(l, 2, kFp64Round, c, kWaves);
  EXPECT_EQ(forced.cluster, 4);
  EXPECT_EQ(forced.staging.stages, 1);
  KernelConfig wide;
  wide.dense_cluster = 16;  // the non-portable size: kept, and one stage (no resident count for it)
  const auto w = plan_block_launch(l, 2, kFp64Round, wide, kWaves);
  EXPECT_EQ(w.cluster, 16);
  EXPECT_EQ(w.staging.stages, 1);
  KernelConfig long_rounds;
  long_rounds.dense_round_steps = 2 * kFp64Round;  // rounds of twice the length: one stage
  const auto r = plan_block_launch(l, 2, kFp64Round, long_rounds, kWaves);
  EXPECT_EQ(r.staging.round_steps, 2 * kFp64Round);
  EXPECT_EQ(r.staging.stages, 1);
}

}  // namespace
