// The learned plan selector: its features against an independent computation, the walk of a tree built
// by hand, malformed trees refused, the shipped trees well formed, and kAuto's choice under each selector
// and at each N.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "impl/RshSparse_inspector.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_partition_cost_on.hpp"
#include "impl/RshSparse_plan_selector_impl.hpp"
#include "Test_RshSparse_common.hpp"

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

TEST(PartitionModels, InterpolateBetweenTheNsTheyAreFittedAt) {
  const auto c = sample_cost();
  // FP64 is fitted at N = 64 and 128: linear in N between, the nearest fit outside.
  for (auto us : {&rsh::impl::PartitionCost::tensor_core_us, &rsh::impl::PartitionCost::cuda_core_us,
                  &rsh::impl::PartitionCost::dense_blocks_us}) {
    const double at64 = (c.*us)(Arithmetic::kFp64, 64), at128 = (c.*us)(Arithmetic::kFp64, 128);
    EXPECT_NE(at64, at128);
    EXPECT_DOUBLE_EQ((c.*us)(Arithmetic::kFp64, 96), 0.5 * (at64 + at128));
    EXPECT_DOUBLE_EQ((c.*us)(Arithmetic::kFp64, 80), 0.75 * at64 + 0.25 * at128);
    EXPECT_DOUBLE_EQ((c.*us)(Arithmetic::kFp64, 8), at64);
    EXPECT_DOUBLE_EQ((c.*us)(Arithmetic::kFp64, 512), at128);
    EXPECT_DOUBLE_EQ((c.*us)(Arithmetic::kFp64, rsh::impl::kModelNumVectors), (c.*us)(Arithmetic::kFp64, 128));
    // The others have their N = 128 fit alone.
    for (Arithmetic a : {Arithmetic::kFp16, Arithmetic::kTf32, Arithmetic::kFp32})
      EXPECT_DOUBLE_EQ((c.*us)(a, 32), (c.*us)(a, 256));
  }
}

TEST(PartitionModels, DenseBlocksWeighedAtTheMultiplysN) {
  // The terms of the FP64 layer that ran dense blocks 14% slower than CUDA cores at N = 64 and that the
  // N = 128 models gave to dense blocks (transformer 0.9 ffn_conv1, 2048 x 512, 104857 nonzeros).
  rsh::impl::PartitionCost c;
  c.nnz = 104857, c.rows = 2048, c.windows = 256, c.cta_max_tiles = 1275, c.residual_nnz = 4;
  c.dense_slots = 2048LL * 512;
  c.cuda.items = 4157, c.cuda.longest = 32, c.cuda.nnz = c.nnz, c.cuda.split = true, c.cuda.piece_nnz = 32;
  EXPECT_EQ(c.choose(Arithmetic::kFp64, rsh::PlanSelector::kCostModel, 128), Partition::kDenseBlocks);
  EXPECT_EQ(c.choose(Arithmetic::kFp64, rsh::PlanSelector::kCostModel, 64), Partition::kCudaCoreOnly);
  // The sparse path is chosen by the N = 128 models at every N.
  c.dense_slots = rsh::impl::kDenseModelMaxSlots + 1;
  for (int n : {16, 64, 128, 256})
    EXPECT_EQ(c.choose(Arithmetic::kFp64, rsh::PlanSelector::kCostModel, n),
              c.prefer_cuda_core(Arithmetic::kFp64) ? Partition::kCudaCoreOnly : Partition::kRowStructured);
}

TEST(PartitionModels, ResidualPieceChosenAtTheMultiplysN) {
  // 1000 rows of 45: FP64's CUDA-core model prefers three pieces a row at N = 64 and two at N = 128.
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 1000; ++r)
    for (int k = 0; k < 45; ++k) coo.push_back({r, (13 * r + 101 * k) % 4500, 1.0});
  const rsh::impl::HostCrs A = rsh::impl::coo_to_crs(1000, 4500, coo);
  rsh::Options o;
  o.partition = Partition::kCudaCoreOnly;
  const int max_len = o.tuning.max_residual_nnz_per_item;
  std::map<int, int> chosen;
  for (int n : {64, 128}) {
    o.expected_num_vectors = n;
    // The candidates' predicted times at n, the default length kept on a tie.
    int fastest = max_len;
    for (int piece : {4, 8, 2 * max_len})
      if (rsh::impl::cuda_core_cost(A, piece, max_len).us(Arithmetic::kFp64, n) <
          rsh::impl::cuda_core_cost(A, fastest, max_len).us(Arithmetic::kFp64, n))
        fastest = piece;
    chosen[n] = rsh::impl::residual_piece_nnz(A, o, Partition::kCudaCoreOnly, Arithmetic::kFp64);
    EXPECT_EQ(chosen[n], fastest) << "N = " << n;
    // The inspection cuts every row into ceil(45 / piece) pieces (at most kResidualPieceAlign, which one CTA
    // sums) of at most ceil(45 / pieces) nonzeros.
    const rsh::impl::Inspection x = rsh::impl::inspect(A, o, "test", 8);
    const int pieces = std::min((45 + chosen[n] - 1) / chosen[n], rsh::impl::kResidualPieceAlign);
    int longest = 0;
    for (int i = 0; i < x.pattern.res_num_items(); ++i)
      longest = std::max(longest, x.pattern.res_item_end(i) - x.pattern.res_item_begin(i));
    EXPECT_EQ(longest, (45 + pieces - 1) / pieces) << "N = " << n;
  }
  EXPECT_NE(chosen[64], chosen[128]);
}

TEST(PartitionModels, TheInspectorWeighsExpectedNumVectors) {
  rsh::impl::HostCrs A;
  ASSERT_TRUE(rsh::test::n_dependent_auto_matrix(8, 11, A)) << "no matrix whose FP64 kAuto choice follows N";
  rsh::Options o;
  o.expected_num_vectors = 64;
  const Partition at64 = rsh::impl::inspect(A, o, "test", 8).partition;
  o.expected_num_vectors = 0;  // without a multiply at hand: N = 128
  EXPECT_NE(rsh::impl::inspect(A, o, "test", 8).partition, at64);
  o.expected_num_vectors = -1;
  EXPECT_THROW(rsh::impl::inspect(A, o, "test", 8), std::invalid_argument);
}

// kAuto counts RowStructured's terms without building it: the counts must equal those of the scheduled
// pattern that the inspector builds under RowStructured, on shapes with long windows (counted over a bitmap,
// or an entry a thread where their columns span too wide), windows cut into pieces, empty rows and
// all-residual matrices, in the rows' order and shuffled.
TEST(PartitionModels, CountedCostEqualsTheBuiltPatterns) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  int case_id = 0;
  for (int rows : {1, 37, 300})
    for (int per_row : {1, 9, 60})
      for (int cols : {211, 70000})  // 70000: windows wider than a bitmap (searched)
        for (bool clustered : {false, true}) {
          const rsh::impl::HostCrs A = rsh::test::random_crs(rows, cols, per_row, seed + case_id++, clustered);
          for (int64_t long_window : {int64_t(-1), int64_t(16)})
            for (int max_tiles : {0, 2}) {
              SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", rows of " +
                           std::to_string(per_row) + (clustered ? " (clustered)" : "") + ", long windows past " +
                           std::to_string(long_window) + ", items of " + std::to_string(max_tiles) + " tiles");
              rsh::Options o;
              o.reorder = rsh::Reorder::kNone;
              o.partition = Partition::kRowStructured;
              o.tuning.long_window_nnz = long_window;
              if (max_tiles > 0) o.tuning.max_tiles_per_item = max_tiles;
              const rsh::impl::Inspection built = rsh::impl::inspect(A, o, "test", 2);
              const auto expected = rsh::impl::partition_cost(A, built.pattern, o, Arithmetic::kFp16);
              const auto counted = rsh::impl::partition_cost_counted_on(
                  Kokkos::DefaultHostExecutionSpace(), rsh::impl::sorted_view_of(A),
                  rsh::impl::View1<const int, Kokkos::HostSpace>(), o, Arithmetic::kFp16);
              EXPECT_EQ(counted.cta_max_tiles, expected.cta_max_tiles);
              EXPECT_EQ(counted.windows, expected.windows);
              EXPECT_EQ(counted.residual_nnz, expected.residual_nnz);
              EXPECT_EQ(counted.dense_slots, expected.dense_slots);
              EXPECT_EQ(counted.nnz, expected.nnz);
              EXPECT_EQ(counted.rows, expected.rows);
              EXPECT_EQ(counted.cuda.items, expected.cuda.items);
              EXPECT_EQ(counted.cuda.piece_nnz, expected.cuda.piece_nnz);
              EXPECT_EQ(counted.choose(Arithmetic::kFp16, o.plan_selector, 128),
                        expected.choose(Arithmetic::kFp16, o.plan_selector, 128));
              // Rows visited in an order count as the matrix of those rows in sequence.
              std::vector<int> order(static_cast<size_t>(rows));
              std::iota(order.begin(), order.end(), 0);
              std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + case_id));
              std::vector<int64_t> source(static_cast<size_t>(A.nnz()));
              rsh::impl::HostCrs permuted = rsh::impl::permute_rows(A, order, source);
              permuted.values.assign(static_cast<size_t>(permuted.nnz()), 1.0);
              const auto want = rsh::impl::partition_cost(permuted, rsh::impl::inspect(permuted, o, "test", 2).pattern,
                                                          o, Arithmetic::kFp16);
              const auto ordered = rsh::impl::partition_cost_counted_on(
                  Kokkos::DefaultHostExecutionSpace(), rsh::impl::sorted_view_of(A),
                  rsh::impl::View1<const int, Kokkos::HostSpace>(order.data(), order.size()), o, Arithmetic::kFp16);
              EXPECT_EQ(ordered.cta_max_tiles, want.cta_max_tiles);
              EXPECT_EQ(ordered.windows, want.windows);
              EXPECT_EQ(ordered.residual_nnz, want.residual_nnz);
              EXPECT_EQ(ordered.cuda.items, want.cuda.items);
            }
        }
}

}  // namespace
