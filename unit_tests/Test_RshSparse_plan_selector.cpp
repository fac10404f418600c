// The learned plan selector: its features against an independent computation, the walk of a tree built
// by hand, malformed trees refused, the shipped trees well formed, and kAuto's choice under each selector.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/RshSparse_plan_selector_impl.hpp"

namespace {

using rsh::Partition;
using rsh::impl::Arithmetic;
using rsh::impl::SelectorNode;

rsh::impl::PartitionCost sample_cost() {
  rsh::impl::PartitionCost c;
  c.nnz = 120000, c.rows = 4000, c.windows = 300, c.cta_max_tiles = 2100, c.residual_nnz = 30000;
  c.dense_slots = 4000LL * 4000;
  c.cuda.items = 9000, c.cuda.longest = 16, c.cuda.nnz = c.nnz, c.cuda.split = true;
  return c;
}

TEST(PlanSelector, FeaturesFollowTheirDefinitions) {
  const auto c = sample_cost();
  for (Arithmetic a : {Arithmetic::kFp16, Arithmetic::kTf32, Arithmetic::kFp32, Arithmetic::kFp64}) {
    const auto f = rsh::impl::selector_features(c, a);
    EXPECT_DOUBLE_EQ(f[0], std::log(120000.0));
    EXPECT_DOUBLE_EQ(f[1], 30.0);
    EXPECT_DOUBLE_EQ(f[2], 16.0);
    EXPECT_DOUBLE_EQ(f[3], 0.25);
    EXPECT_DOUBLE_EQ(f[4], 7.0);
    EXPECT_DOUBLE_EQ(f[5], 90000.0 / 2400.0);
    EXPECT_DOUBLE_EQ(f[6], std::log(c.tensor_core_us(a) / c.cuda_core_us(a)));
    EXPECT_TRUE(std::isfinite(f[7]));
    EXPECT_DOUBLE_EQ(f[8], 120000.0 / (4000.0 * 4000.0));
    EXPECT_DOUBLE_EQ(f[9], 1.0);
  }
}

TEST(PlanSelector, WalksATreeBuiltByHand) {
  // residual_fraction < 0.5 ? (log_nnz < 10 ? Cuda : Row) : Dense
  const SelectorNode nodes[] = {{3, 0.5, 1, 2, Partition::kAuto},
                                {0, 10.0, 3, 4, Partition::kAuto},
                                {-1, 0.0, -1, -1, Partition::kDenseBlocks},
                                {-1, 0.0, -1, -1, Partition::kCudaCoreOnly},
                                {-1, 0.0, -1, -1, Partition::kRowStructured}};
  const rsh::impl::SelectorTree tree{nodes, 5};
  rsh::impl::SelectorFeatures f{};
  f[3] = 0.2, f[0] = 9.0;
  EXPECT_EQ(rsh::impl::walk_selector_tree(tree, f), Partition::kCudaCoreOnly);
  f[0] = 10.0;  // the threshold goes right
  EXPECT_EQ(rsh::impl::walk_selector_tree(tree, f), Partition::kRowStructured);
  f[3] = 0.7;
  EXPECT_EQ(rsh::impl::walk_selector_tree(tree, f), Partition::kDenseBlocks);
}

TEST(PlanSelector, RefusesMalformedTrees) {
  rsh::impl::SelectorFeatures f{};
  const SelectorNode cycle[] = {{0, 1.0, 0, 0, Partition::kAuto}};
  EXPECT_THROW(rsh::impl::walk_selector_tree({cycle, 1}, f), std::logic_error);
  const SelectorNode out_of_range[] = {{0, 1.0, 5, 5, Partition::kAuto}};
  EXPECT_THROW(rsh::impl::walk_selector_tree({out_of_range, 1}, f), std::logic_error);
  const SelectorNode bad_feature[] = {{99, 1.0, 1, 1, Partition::kAuto}, {-1, 0, -1, -1, Partition::kCudaCoreOnly}};
  EXPECT_THROW(rsh::impl::walk_selector_tree({bad_feature, 2}, f), std::logic_error);
  EXPECT_THROW(rsh::impl::walk_selector_tree({}, f), std::logic_error);
}

TEST(PlanSelector, ShippedTreesPickAPartitionTheArithmeticHas) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-5.0, 20.0);
  for (Arithmetic a : {Arithmetic::kFp16, Arithmetic::kTf32, Arithmetic::kFp32, Arithmetic::kFp64}) {
    const auto tree = rsh::impl::selector_tree(a);
    for (int i = 0; i < 1000 && tree.size > 0; ++i) {
      rsh::impl::SelectorFeatures f;
      for (double& x : f) x = u(rng);
      const Partition p = rsh::impl::walk_selector_tree(tree, f);
      EXPECT_TRUE(p == Partition::kRowStructured || p == Partition::kCudaCoreOnly || p == Partition::kDenseBlocks);
    }
  }
}

TEST(PlanSelector, CostModelSelectorIgnoresTheTrees) {
  const auto c = sample_cost();
  for (Arithmetic a : {Arithmetic::kFp16, Arithmetic::kTf32, Arithmetic::kFp32, Arithmetic::kFp64}) {
    const auto tree = rsh::impl::selector_tree(a);
    const Partition learned = c.choose(a, rsh::PlanSelector::kLearned);
    EXPECT_EQ(learned, tree.size > 0 ? rsh::impl::walk_selector_tree(tree, rsh::impl::selector_features(c, a))
                                     : c.choose(a, rsh::PlanSelector::kCostModel));
  }
}

}  // namespace
