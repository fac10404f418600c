// Row reordering: every policy yields a permutation, finds hidden locality
// (more nonzeros per tile), and never changes the product (Test_RshSparse_spmm*).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <set>

#include "RshSparse_generators.hpp"
#include "Test_RshSparse_common.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/RshSparse_permutation_impl.hpp"
#include "impl/RshSparse_reorder_impl.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"
#include "impl/inspector/RshSparse_grid_order_on.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_minhash_order_on.hpp"
#include "impl/inspector/RshSparse_reorder_on.hpp"

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
  o.min_paired_rows = 0;  // the whole pipeline on every shape, also where rows share nothing
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
  o.max_postings = 1;  // every column a hub: the hub windows still find neighbours
  o.max_scan = 3;
  expect_permutation(rsh::impl::locality_order(rsh::test::random_crs(50, 30, 6, 5), o), 50);
  o.rescore = 0;  // the scan's partial similarities only
  expect_permutation(rsh::impl::locality_order(rsh::test::random_crs(50, 30, 6, 5), o), 50);
  for (auto bad : {&rsh::ReorderOptions::neighbours, &rsh::ReorderOptions::hub_window, &rsh::ReorderOptions::rescore}) {
    rsh::ReorderOptions b;
    b.*bad = -1;
    EXPECT_THROW(rsh::impl::locality_order(rsh::test::random_crs(5, 5, 2, 1), b), std::invalid_argument);
  }
  rsh::ReorderOptions b;
  b.min_paired_rows = -0.5;
  EXPECT_THROW(rsh::impl::locality_order(rsh::test::random_crs(5, 5, 2, 1), b), std::invalid_argument);
}

/// 16 groups of 8 rows; group g draws its nonzeros from its own 16 columns.
/// Shuffling the rows hides the groups from 8-row windows; reordering finds them.
HostCrs shuffled_blocks(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> shuffle(128);
  for (int i = 0; i < 128; ++i) shuffle[i] = i;
  std::shuffle(shuffle.begin(), shuffle.end(), rng);
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 128; ++r)
    for (int c = 0; c < 16; ++c)
      if (rng() % 2) coo.push_back({shuffle[r], 16 * (r / 8) + c, 1.0});
  return rsh::impl::coo_to_crs(128, 256, coo);
}

TEST(Reorder, SimilarityPoliciesRecoverShuffledBlocks) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs A = shuffled_blocks(seed);
  rsh::Options plain = rsh::test::options(rsh::Partition::kTensorCoreOnly);
  plain.reorder = rsh::Reorder::kNone;
  const auto before = rsh::impl::format_stats(rsh::impl::inspect(A, plain, "test").pattern, 8);
  for (rsh::Reorder policy :
       {rsh::Reorder::kLocality, rsh::Reorder::kWarpAware, rsh::Reorder::kCtaAware, rsh::Reorder::kHybrid2_1,
        rsh::Reorder::kHybrid2_2, rsh::Reorder::kHybrid2_3, rsh::Reorder::kMinHash, rsh::Reorder::kAuto}) {
    SCOPED_TRACE(rsh::reorder_name(policy));
    rsh::Options reordered = plain;
    reordered.reorder = policy;
    const auto after = rsh::impl::format_stats(rsh::impl::inspect(A, reordered, "test").pattern, 8);
    EXPECT_LT(after.mean_window_columns, before.mean_window_columns);
    if (policy == rsh::Reorder::kLocality || policy == rsh::Reorder::kMinHash || policy == rsh::Reorder::kAuto) {
      EXPECT_GE(after.mean_nnz_per_tile, 2.0 * before.mean_nnz_per_tile);
      // Close to the 16 columns of one group. MinHash's clusters split a group where its rows' two-hop
      // anchors differ, which leaves a window or two mixed on some draws.
      EXPECT_LE(after.mean_window_columns, policy == rsh::Reorder::kLocality ? 20.0 : 24.0);
    } else {
      // Hamming distance favours rows with few columns over rows that share
      // them, so greedy chains leave a group early now and then.
      EXPECT_GE(after.mean_nnz_per_tile, 1.5 * before.mean_nnz_per_tile);
    }
  }
}

// On a power-law graph light rows share little but hub columns, and the
// generator's order already groups rows by their hubs. Locality's hub windows
// and exact rescoring raise tile density above that order; the paper's
// weighting (d^-1) with hubs left out of the candidate search lowers it.
TEST(Reorder, LocalityRaisesDensityOnPowerLaw) {
  const HostCrs A = rsh::impl::generate_rmat_host(13, 16, rsh::test::fresh_seed());
  rsh::Options o = rsh::test::options(rsh::Partition::kTensorCoreOnly);
  auto nnz_per_tile = [&](const rsh::Options& opt) {
    return rsh::impl::format_stats(rsh::impl::inspect(A, opt, "test").pattern, 2).mean_nnz_per_tile;
  };
  const double given = nnz_per_tile(o);
  o.reorder = rsh::Reorder::kLocality;
  const double locality = nnz_per_tile(o);
  EXPECT_GT(locality, 1.05 * given);
  o.reorder_options.alpha = 1.0, o.reorder_options.hub_window = 0, o.reorder_options.rescore = 0;
  EXPECT_LT(nnz_per_tile(o), locality);
}

// Rows of a uniform random matrix share next to nothing with any other row:
// Locality keeps the given order after a sample instead of building the kNN
// graph; clustered rows of the same size and density are reordered.
TEST(Reorder, LocalityKeepsTheOrderOfRowsSharingNothing) {
  rsh::ReorderOptions o;
  const HostCrs uniform = rsh::impl::generate_uniform_host(200000, 200000, 6, rsh::test::fresh_seed());
  EXPECT_TRUE(rsh::impl::locality_order(uniform, o).empty());
  const HostCrs clustered = rsh::test::random_crs(200000, 200000, 6, rsh::test::fresh_seed(), true);
  expect_permutation(rsh::impl::locality_order(clustered, o), clustered.num_rows);
  rsh::Options options;
  options.reorder = rsh::Reorder::kLocality;
  EXPECT_EQ(rsh::impl::inspect(uniform, options, "test").reorder, rsh::Reorder::kNone);  // reported as applied
  o.min_paired_rows = 0;                                                                 // always reorder
  expect_permutation(rsh::impl::locality_order(uniform, o), uniform.num_rows);
}

// Locality never fills Tensor-Core tiles worse than the given order: where
// its similarity order would need more tiles it keeps the given one.
TEST(Reorder, LocalityNeverNeedsMoreTilesThanTheGivenOrder) {
  rsh::Options o = rsh::test::options(rsh::Partition::kTensorCoreOnly);
  auto tiles = [&](const HostCrs& A) { return rsh::impl::inspect(A, o, "test").pattern.num_tiles(); };
  for (int seed = 0; seed < 6; ++seed) {
    std::vector<rsh::impl::CooEntry> banded;  // already in its best order
    for (int r = 0; r < 400; ++r)
      for (int c = std::max(0, r - 2 - seed % 3); c <= std::min(399, r + 2); ++c) banded.push_back({r, c, 1.0});
    // Clustered 64 x 64 with up to 24 per row: the similarity order needs more tiles than the given one.
    for (const HostCrs& A : {rsh::test::random_crs(64, 64, 24, rsh::test::fresh_seed(), true),
                             rsh::test::random_crs(300, 90, 8, rsh::test::fresh_seed(), seed % 2 == 1),
                             rsh::impl::coo_to_crs(400, 400, banded)}) {
      o.reorder = rsh::Reorder::kNone;
      const int64_t given = tiles(A);
      o.reorder = rsh::Reorder::kLocality;
      EXPECT_LE(tiles(A), given);
    }
  }
}

TEST(Reorder, EveryPolicyIsAPermutation) {
  std::vector<std::pair<const char*, HostCrs>> shapes;
  shapes.push_back({"random", rsh::test::random_crs(301, 97, 9, rsh::test::fresh_seed())});
  shapes.push_back({"clustered", rsh::test::random_crs(203, 150, 7, rsh::test::fresh_seed(), true)});
  shapes.push_back({"empty", rsh::impl::coo_to_crs(0, 0, {})});
  shapes.push_back({"no nonzeros", rsh::impl::coo_to_crs(9, 3, {})});
  shapes.push_back({"one row", rsh::test::random_crs(1, 50, 20, 3)});
  shapes.push_back({"wide", rsh::test::random_crs(40, 2000, 5, 4)});
  shapes.push_back({"not a multiple of 64 rows", rsh::test::random_crs(77, 30, 4, 5)});
  rsh::ReorderOptions tight;  // every column a hub: hub windows (Locality) and the fallback pass still find rows
  tight.max_postings = 1;
  tight.max_scan = 3;
  rsh::ReorderOptions blocks;
  blocks.mask_block_columns = 32;  // the paper's masks (32 columns per bit)
  for (rsh::Reorder policy : rsh::kAllReorders)
    for (const auto& shape : shapes)
      for (const rsh::ReorderOptions& ro : {rsh::ReorderOptions{}, tight, blocks}) {
        SCOPED_TRACE(std::string(rsh::reorder_name(policy)) + " on " + shape.first);
        rsh::Options o;
        o.reorder = policy;
        o.reorder_options = ro;
        const std::vector<int> order = rsh::impl::row_order(shape.second, o);
        if (order.empty())  // the given order, which only these may keep (GridBlocks: on no grid)
          EXPECT_TRUE(policy == rsh::Reorder::kNone || policy == rsh::Reorder::kAuto ||
                      policy == rsh::Reorder::kLocality || policy == rsh::Reorder::kGridBlocks ||
                      shape.second.num_rows == 0);
        else
          expect_permutation(order, shape.second.num_rows);
      }
}

/// Sum of row loads (nonzeros) of each 8-row window of `order`.
std::vector<int64_t> window_loads(const HostCrs& A, const std::vector<int>& order) {
  std::vector<int64_t> loads((order.size() + 7) / 8, 0);
  for (size_t i = 0; i < order.size(); ++i) loads[i / 8] += A.row_map[order[i] + 1] - A.row_map[order[i]];
  return loads;
}

TEST(Reorder, LoadBalancingSorts) {
  const HostCrs A = rsh::test::random_crs(200, 300, 12, rsh::test::fresh_seed(), true);
  auto load = [&](int r) { return A.row_map[r + 1] - A.row_map[r]; };
  const rsh::ReorderOptions ro;
  const auto plain = rsh::impl::permutation_order(A, rsh::Reorder::kPlainSort, ro);
  for (size_t i = 1; i < plain.size(); ++i) ASSERT_GE(load(plain[i - 1]), load(plain[i]));
  const auto plain_loads = window_loads(A, plain);

  // Flipped: within each CTA block (8 windows), the spread of window loads is
  // at most the plain sort's (whose first window holds the block's 8 heaviest rows).
  const auto flipped_loads = window_loads(A, rsh::impl::permutation_order(A, rsh::Reorder::kFlippedSort, ro));
  for (size_t b = 0; b + 8 <= plain_loads.size(); b += 8) {
    auto spread = [&](const std::vector<int64_t>& l) {
      const auto mm = std::minmax_element(l.begin() + b, l.begin() + b + 8);
      return *mm.second - *mm.first;
    };
    EXPECT_LE(spread(flipped_loads), spread(plain_loads));
  }
  EXPECT_LT(*std::max_element(flipped_loads.begin(), flipped_loads.end()), plain_loads.front());

  // LPT: full windows of 8 rows, far more even than the plain sort's.
  const auto lpt_loads = window_loads(A, rsh::impl::permutation_order(A, rsh::Reorder::kLptSort, ro));
  const auto lpt_mm = std::minmax_element(lpt_loads.begin(), lpt_loads.end());
  int64_t max_row = 0;
  for (int r = 0; r < A.num_rows; ++r) max_row = std::max<int64_t>(max_row, load(r));
  EXPECT_LE(*lpt_mm.second - *lpt_mm.first, max_row);
  EXPECT_LT(*lpt_mm.second, plain_loads.front());

  EXPECT_THROW(rsh::impl::permutation_order(A, rsh::Reorder::kLocality, ro), std::invalid_argument);
  rsh::ReorderOptions bad;
  bad.mask_block_columns = 0;
  EXPECT_THROW(rsh::impl::permutation_order(A, rsh::Reorder::kCtaAware, bad), std::invalid_argument);
}

TEST(Reorder, AutoKeepsTheCheapestPredictedOrder) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs hidden = shuffled_blocks(seed);
  const rsh::Options o = rsh::test::options(rsh::Partition::kRowStructured);
  const auto choice = rsh::impl::select_reorder(hidden, o);
  ASSERT_EQ(choice.considered.size(), std::size(rsh::impl::kAutoCandidates));
  EXPECT_NE(choice.policy, rsh::Reorder::kNone);
  expect_permutation(choice.order, hidden.num_rows);
  const double chosen = rsh::impl::order_cost(hidden, o, choice.order).cost();
  for (const auto& c : choice.considered) EXPECT_LE(chosen, c.second.cost());

  // The same gain does not repay MinHash's cost over a single expected multiply.
  rsh::Options once = o;
  once.expected_multiplies = 1;
  EXPECT_EQ(rsh::impl::select_reorder(hidden, once).policy, rsh::Reorder::kNone);
  once.expected_multiplies = -1;
  EXPECT_THROW(rsh::impl::select_reorder(hidden, once), std::invalid_argument);

  // Already ordered (a banded matrix): nothing predicts 3% less work, so no reordering.
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 256; ++r)
    for (int c = std::max(0, r - 3); c <= std::min(255, r + 3); ++c) coo.push_back({r, c, 1.0});
  const HostCrs banded = rsh::impl::coo_to_crs(256, 256, coo);
  const auto keep = rsh::impl::select_reorder(banded, o);
  EXPECT_EQ(keep.policy, rsh::Reorder::kNone);
  EXPECT_TRUE(keep.order.empty());
}

// kAuto tries MinHash only where the largest gain, at the fastest multiply, over the expected calls repays
// the trial: kAutoMaxGain x expected x (nnz x N x value bytes / gather rate) >= fixed + per_nnz x nnz.
TEST(Reorder, MinHashTrialPaysOnlyPastItsCost) {
  const rsh::impl::MinHashTrialModel model{4e-3, 0.35e-9, 12.8e12};
  const auto pays = [&](double nnz, int n, int bytes, double expected) {
    const double gain = rsh::impl::kAutoMaxGain * expected * (nnz * n * bytes / 12.8e12);
    return gain >= 4e-3 + 0.35e-9 * nnz;
  };
  for (double nnz : {1e4, 1.04e6, 2.1e6, 4e6, 6e6, 1.4e7, 1.28e8})
    for (int bytes : {2, 4, 8})
      for (double expected : {0.0, 1.0, 100.0, 1e4}) {
        SCOPED_TRACE(std::to_string(nnz) + " nonzeros, " + std::to_string(bytes) + "-byte values, " +
                     std::to_string(expected) + " multiplies");
        EXPECT_EQ(rsh::impl::minhash_trial_pays(model, static_cast<int64_t>(nnz), 128, bytes, expected),
                  pays(nnz, 128, bytes, expected));
      }
  // At the defaults (100 multiplies, N = 128) FP16 tries MinHash on a 14M-nonzero graph, not on a 2M one.
  EXPECT_TRUE(rsh::impl::minhash_trial_pays(model, 14000000, 128, 2, 100));
  EXPECT_FALSE(rsh::impl::minhash_trial_pays(model, 2100000, 128, 2, 100));
  // No model (host spaces) or values of unknown width: MinHash is always tried.
  EXPECT_TRUE(rsh::impl::minhash_trial_pays(rsh::impl::MinHashTrialModel{}, 1000, 128, 2, 1));
  EXPECT_TRUE(rsh::impl::minhash_trial_pays(model, 1000, 128, 0, 1));
  EXPECT_FALSE(rsh::impl::minhash_trial_model<Kokkos::DefaultHostExecutionSpace>().applies());
}

TEST(Reorder, AutoWithoutTheTrialKeepsTheGivenOrder) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs hidden = shuffled_blocks(seed);  // MinHash pays here when tried (AutoKeepsTheCheapestPredictedOrder)
  const rsh::Options o = rsh::test::options(rsh::Partition::kRowStructured);
  const auto skipped = rsh::impl::select_reorder_on(Kokkos::DefaultHostExecutionSpace(),
                                                    rsh::impl::sorted_view_of(hidden), o, /*try_minhash*/ false);
  EXPECT_EQ(skipped.policy, rsh::Reorder::kNone);
  EXPECT_EQ(skipped.order.extent(0), 0u);
  EXPECT_TRUE(skipped.considered.empty());
  rsh::Options bad = o;
  bad.expected_multiplies = -1;  // still rejected where MinHash is not tried
  EXPECT_THROW(
      rsh::impl::select_reorder_on(Kokkos::DefaultHostExecutionSpace(), rsh::impl::sorted_view_of(hidden), bad, false),
      std::invalid_argument);
}

// The rule b_row_misses_on states, walked on the host: windows of 8 consecutive positions load their
// distinct columns' B rows; a load misses on a column's first use, or when more than `cache_rows` loads lie
// between the start of the window that last loaded the row and the start of its own.
int64_t reference_b_row_misses(const HostCrs& A, const std::vector<int>& order, int64_t cache_rows) {
  const int64_t n = A.num_rows, windows = (n + 7) / 8;
  std::vector<std::vector<int>> columns(windows);
  for (int64_t p = 0; p < n; ++p) {
    const int r = order.empty() ? static_cast<int>(p) : order[p];
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) columns[p / 8].push_back(A.entries[k]);
  }
  std::vector<int64_t> loads_before(windows + 1, 0);
  for (int64_t w = 0; w < windows; ++w) {
    auto& c = columns[w];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    loads_before[w + 1] = loads_before[w] + static_cast<int64_t>(c.size());
  }
  std::vector<int64_t> last(A.num_cols, -1);
  int64_t misses = 0;
  for (int64_t w = 0; w < windows; ++w)
    for (int c : columns[w]) {
      misses += last[c] < 0 || loads_before[w] - loads_before[last[c]] > cache_rows;
      last[c] = w;
    }
  return misses;
}

TEST(Reorder, BRowMissesFollowTheReuseDistanceRule) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (bool clustered : {false, true})
    for (const auto& shape : {std::array<int, 3>{300, 200, 6}, std::array<int, 3>{1001, 3000, 3}}) {
      const HostCrs A = rsh::test::random_crs(shape[0], shape[1], shape[2], rng(), clustered);
      std::vector<int> shuffled(A.num_rows);
      std::iota(shuffled.begin(), shuffled.end(), 0);
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      for (const auto& order : {std::vector<int>(), shuffled})
        for (int64_t cache_rows : {0, 1, 7, 50, 400, 100000})
          EXPECT_EQ(rsh::impl::b_row_misses(A, order, cache_rows), reference_b_row_misses(A, order, cache_rows))
              << shape[0] << "x" << shape[1] << " clustered " << clustered << " cache " << cache_rows;
    }
  EXPECT_EQ(rsh::impl::b_row_misses(rsh::impl::coo_to_crs(9, 4, {}), {}, 10), 0);
}

TEST(Reorder, AutoCountsBRowMissesPastTheCache) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Communities under shuffled vertex ids: rows sharing columns sit in far-apart windows.
  const HostCrs A = rsh::impl::generate_community_host(20000, 12, 0.9, seed);
  rsh::Options o;
  const int64_t tenth = A.num_cols / 10;  // as the H100's L2 against the 2M-vertex graph of the generated suite
  for (int64_t cache_rows : {int64_t(0), int64_t(A.num_cols), tenth}) {
    o.tuning.reorder_cache_rows = cache_rows;
    const auto choice = rsh::impl::select_reorder(A, o);
    ASSERT_EQ(choice.considered.size(), std::size(rsh::impl::kAutoCandidates));
    for (const auto& c : choice.considered) {
      // Counted only where B outgrows the cache.
      const std::vector<int> order = c.first == rsh::Reorder::kNone ? std::vector<int>() : [&] {
        rsh::Options by_name = o;
        by_name.reorder = c.first;
        return rsh::impl::row_order(A, by_name);
      }();
      EXPECT_EQ(c.second.b_row_misses,
                cache_rows > 0 && cache_rows < A.num_cols ? reference_b_row_misses(A, order, cache_rows) : 0)
          << rsh::reorder_name(c.first) << " cache " << cache_rows;
    }
    if (cache_rows == tenth) {  // MinHash brings each community's rows together: far fewer misses, so taken
      EXPECT_LT(4 * choice.considered[1].second.b_row_misses, 3 * choice.considered[0].second.b_row_misses);
      EXPECT_EQ(choice.policy, rsh::Reorder::kMinHash);
    }
  }
  o.tuning.reorder_cache_rows = -2;
  EXPECT_THROW(rsh::impl::select_reorder(A, o), std::invalid_argument);
}

// MinHash's clusters refined by label propagation: still a permutation; the communities of a shuffled
// community graph kept together (at least a third fewer B rows fetched past a small cache than with the
// two-hop clusters); a matrix that is not square keeps the two-hop clusters; rounds out of range are refused.
TEST(Reorder, MinHashLabelRoundsRefineCommunities) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs A = rsh::impl::generate_community_host(20000, 12, 0.9, seed);
  rsh::Options o;
  o.reorder = rsh::Reorder::kMinHash;
  auto order_with = [&](const HostCrs& M, int rounds) {
    o.reorder_options.minhash_label_rounds = rounds;
    return rsh::impl::row_order(M, o);
  };
  const int64_t tenth = A.num_cols / 10;
  const std::vector<int> two_hop = order_with(A, 0);
  expect_permutation(two_hop, A.num_rows);
  for (int rounds : {1, 5, rsh::impl::kMaxLabelRounds}) {
    const std::vector<int> refined = order_with(A, rounds);
    expect_permutation(refined, A.num_rows);
    if (rounds >= 5)
      EXPECT_LT(3 * reference_b_row_misses(A, refined, tenth), 2 * reference_b_row_misses(A, two_hop, tenth))
          << rounds << " rounds";
  }
  const HostCrs wide = rsh::test::random_crs(300, 500, 9, seed, true);
  EXPECT_EQ(order_with(wide, 5), order_with(wide, 0));
  for (int bad : {-1, rsh::impl::kMaxLabelRounds + 1}) EXPECT_THROW(order_with(A, bad), std::invalid_argument);
}

// Distinct columns per window of 8 consecutive positions of `order`, averaged over the windows.
double mean_window_columns(const HostCrs& A, const std::vector<int>& order) {
  double total = 0;
  int windows = 0;
  for (size_t w = 0; w < order.size(); w += 8, ++windows) {
    std::set<int> cols;
    for (size_t i = w; i < std::min(order.size(), w + 8); ++i)
      cols.insert(A.entries.begin() + A.row_map[order[i]], A.entries.begin() + A.row_map[order[i] + 1]);
    total += static_cast<double>(cols.size());
  }
  return windows ? total / windows : 0.0;
}

// Windows dealt again inside chunks (MinHash's ReorderOptions::minhash_window_chunk): from rows of two
// column groups interleaved (row r in group r % 2, all sharing column 0), every window of a whole chunk
// ends up with one group's rows, and the order stays a permutation; through MinHash on the shuffled
// blocks, at least as compact as MinHash's own order; chunks out of range refused.
TEST(Reorder, WindowChunksRegroupRows) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 70; ++r) {  // 70: a last, partial chunk
    coo.push_back({r, 0, 1.0});
    for (int c = 0; c < 8; ++c) coo.push_back({r, 1 + 16 * (r % 2) + c, 1.0});
  }
  const HostCrs interleaved = rsh::impl::coo_to_crs(70, 33, coo);
  const auto A = rsh::impl::sorted_view_of(interleaved);
  std::vector<int> given(70);
  std::iota(given.begin(), given.end(), 0);
  const auto host = Kokkos::DefaultHostExecutionSpace();
  for (int chunk : {16, 32, 64}) {
    const auto out = rsh::impl::regroup_windows_on(host, A, rsh::impl::host_array(given), chunk);
    const std::vector<int> regrouped(out.data(), out.data() + out.extent(0));
    expect_permutation(regrouped, interleaved.num_rows);
    for (int w = 0; w < 64 / 8; ++w) {
      std::set<int> groups;
      for (int i = 8 * w; i < 8 * w + 8; ++i) groups.insert(regrouped[i] % 2);
      EXPECT_EQ(groups.size(), 1u) << "chunk " << chunk << " window " << w;
    }
    EXPECT_LT(mean_window_columns(interleaved, regrouped), mean_window_columns(interleaved, given)) << chunk;
  }
  for (int bad : {-8, 0, 8, 20, 72})
    EXPECT_THROW(rsh::impl::regroup_windows_on(host, A, rsh::impl::host_array(given), bad), std::invalid_argument)
        << bad;

  const HostCrs blocks = shuffled_blocks(seed);
  rsh::Options o;
  o.reorder = rsh::Reorder::kMinHash;
  const std::vector<int> minhash = rsh::impl::row_order(blocks, o);
  o.reorder_options.minhash_window_chunk = 64;
  const std::vector<int> regrouped = rsh::impl::row_order(blocks, o);
  expect_permutation(regrouped, blocks.num_rows);
  EXPECT_LE(mean_window_columns(blocks, regrouped), mean_window_columns(blocks, minhash));
  o.reorder_options.minhash_window_chunk = 12;
  EXPECT_THROW(rsh::impl::row_order(blocks, o), std::invalid_argument);
}

TEST(Reorder, NamesRoundTrip) {
  for (rsh::Reorder policy : rsh::kAllReorders) EXPECT_EQ(rsh::parse_reorder(rsh::reorder_name(policy)), policy);
  EXPECT_THROW(rsh::parse_reorder("locality"), std::invalid_argument);
}

// Reorder::kGridBlocks reads a structured grid off A's offsets: 2-D and 3-D box and star stencils of reach 1 and
// 2, with their dimensions and reach. A banded matrix, a grid with rows of random columns, random and rectangular
// matrices and a grid cut short (its row count no multiple of nx) are none.
TEST(Reorder, GridShapeFromTheOffsets) {
  const Kokkos::DefaultHostExecutionSpace exec;
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct Grid {
    int nx, ny, nz, reach;
    bool box;
  };
  for (const Grid& g :
       {Grid{20, 12, 1, 1, false}, Grid{20, 12, 1, 1, true}, Grid{20, 12, 1, 2, true}, Grid{10, 8, 6, 1, false},
        Grid{10, 8, 6, 1, true}, Grid{12, 10, 8, 2, false}, Grid{12, 11, 7, 2, true}}) {
    SCOPED_TRACE(std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz) + " reach " +
                 std::to_string(g.reach) + (g.box ? " box" : " star"));
    const HostCrs A = rsh::test::grid_crs(g.nx, g.ny, g.nz, g.reach, g.box, seed);
    const rsh::impl::GridShape s = rsh::impl::grid_shape_on(exec, rsh::impl::sorted_view_of(A));
    EXPECT_EQ(s.nx, g.nx);
    EXPECT_EQ(s.ny, g.ny);
    EXPECT_EQ(s.nz, g.nz);
    EXPECT_EQ(s.hx, g.reach);
    EXPECT_EQ(s.hy, g.reach);
    EXPECT_EQ(s.hz, g.nz > 1 ? g.reach : 0);
  }
  std::vector<rsh::impl::CooEntry> band;
  for (int r = 0; r < 600; ++r)
    for (int c = std::max(0, r - 3); c <= std::min(599, r + 3); ++c) band.push_back({r, c, 1.0});
  const HostCrs grid = rsh::test::grid_crs(10, 8, 6, 1, true, seed);
  HostCrs cut;  // the grid less its last point
  cut.num_rows = cut.num_cols = grid.num_rows - 1;
  cut.row_map.push_back(0);
  for (int64_t r = 0; r < cut.num_rows; ++r) {
    for (int64_t k = grid.row_map[r]; k < grid.row_map[r + 1]; ++k)
      if (grid.entries[k] < cut.num_cols) cut.entries.push_back(grid.entries[k]), cut.values.push_back(grid.values[k]);
    cut.row_map.push_back(static_cast<int64_t>(cut.entries.size()));
  }
  for (const HostCrs& A :
       {rsh::impl::coo_to_crs(600, 600, band), rsh::test::grid_crs(10, 8, 6, 1, true, seed, false, 97),
        rsh::test::random_crs(500, 500, 10, seed), rsh::test::random_crs(500, 300, 10, seed), cut})
    EXPECT_FALSE(rsh::impl::grid_shape_on(exec, rsh::impl::sorted_view_of(A)).found()) << A.num_rows << " rows";
}

// The grid-blocks order puts each 32 consecutive rows on one block of 4 x 4 x 2 points (8 x 4 in 2-D) where the
// grid's sides are multiples of the block's; such a range's rows touch at most 6 x 6 x 4 (10 x 6) distinct
// columns, fewer than 32 rows in the grid's order. A matrix that is no grid keeps its order.
TEST(Reorder, GridBlocksOrderRangesAreBlocks) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  rsh::Options o;
  o.reorder = rsh::Reorder::kGridBlocks;
  for (const std::array<int, 3>& g : {std::array<int, 3>{16, 8, 6}, std::array<int, 3>{32, 12, 1}}) {
    const int nx = g[0], ny = g[1], nz = g[2], n = nx * ny * nz;
    const int bx = nz > 1 ? 4 : 8, bz = nz > 1 ? 2 : 1;
    const HostCrs A = rsh::test::grid_crs(nx, ny, nz, 1, true, seed);
    const std::vector<int> order = rsh::impl::row_order(A, o);
    ASSERT_EQ(order.size(), size_t(n));
    std::vector<int> given(n), sorted = order;
    std::iota(given.begin(), given.end(), 0);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, given);  // a permutation
    const auto distinct = [&](const std::vector<int>& rows, int first) {
      std::set<int> cols;
      for (int i = first; i < first + 32; ++i)
        for (int64_t k = A.row_map[rows[i]]; k < A.row_map[rows[i] + 1]; ++k) cols.insert(A.entries[k]);
      return cols.size();
    };
    size_t blocked_sum = 0, given_sum = 0;
    for (int first = 0; first < n; first += 32) {
      int x0 = nx, x1 = -1, y0 = ny, y1 = -1, z0 = nz, z1 = -1;
      for (int i = first; i < first + 32; ++i) {
        const int p = order[i], x = p % nx, y = p / nx % ny, z = p / (nx * ny);
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
        z0 = std::min(z0, z), z1 = std::max(z1, z);
      }
      EXPECT_EQ(x1 - x0 + 1, bx);
      EXPECT_EQ(y1 - y0 + 1, 4);
      EXPECT_EQ(z1 - z0 + 1, bz);
      EXPECT_EQ(x0 % bx + y0 % 4 + z0 % bz, 0);
      const size_t cols = distinct(order, first);
      EXPECT_LE(cols, size_t((bx + 2) * 6 * (nz > 1 ? bz + 2 : 1)));
      blocked_sum += cols, given_sum += distinct(given, first);
    }
    EXPECT_LT(blocked_sum, given_sum);
  }
  EXPECT_TRUE(rsh::impl::row_order(rsh::test::random_crs(500, 500, 10, seed), o).empty());
}

}  // namespace
