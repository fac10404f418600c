// The warps per Tensor-Core task the planner picks (cuda::detail::plan_tc_warps): host logic, run without a
// device. Each expected K follows from the rule's definition by hand.
#include <gtest/gtest.h>

#include "cuda/RshSparse_spmm_tc_plan.hpp"

namespace {

using rsh::cuda::detail::plan_tc_warps;

constexpr int64_t kWaveWarps = 4224;  // 132 SMs x 4 CTAs x 8 warps

TEST(TensorCorePlan, SplitsTasksUntilFourWavesOrOneTileAWarp) {
  EXPECT_EQ(plan_tc_warps(600, 64, kWaveWarps, false), 8);    // 4800 warps
  EXPECT_EQ(plan_tc_warps(2100, 64, kWaveWarps, false), 4);   // 2 x 4 x 2100 > 16384: no K = 8
  EXPECT_EQ(plan_tc_warps(12000, 64, kWaveWarps, false), 1);  // 2 x 12000 > 16384
  EXPECT_EQ(plan_tc_warps(10, 3, kWaveWarps, false), 4);      // K stops at the item's tiles (4 >= 3)
  EXPECT_EQ(plan_tc_warps(0, 1, kWaveWarps, false), 1);
}

TEST(TensorCorePlan, ShortItemsPastOneWaveKeepFourTilesAWarp) {
  // 2008 tasks of 13 tiles (bcsstk13, FP64, N = 128): K = 2 fills one wave (4016 warps); K = 4 would spill
  // past it with 3.25 tiles a warp. Without the FP64 rule, K = 8 (16064 warps).
  EXPECT_EQ(plan_tc_warps(2008, 13, kWaveWarps, true), 2);
  EXPECT_EQ(plan_tc_warps(2008, 13, kWaveWarps, false), 8);
  // Long items keep splitting past one wave while each warp has four tiles: 2048 tasks of 37 tiles.
  EXPECT_EQ(plan_tc_warps(2048, 37, kWaveWarps, true), 8);
  EXPECT_EQ(plan_tc_warps(2048, 31, kWaveWarps, true), 4);  // K = 8 would leave 3.9 tiles a warp
  // Within one wave the item's tiles alone bound K: 256 tasks of 8 tiles reach one tile a warp.
  EXPECT_EQ(plan_tc_warps(256, 8, kWaveWarps, true), 8);
  // An unknown wave (0) counts every split as past it: four tiles a warp.
  EXPECT_EQ(plan_tc_warps(256, 8, 0, true), 2);
}

}  // namespace
