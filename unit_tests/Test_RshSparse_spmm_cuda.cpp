// The raw-pointer CUDA backend on the GPU against the double host reference
// (DESIGN section 7): FP16 and BF16 (16-bit and FP32 out), FP32 (3xTF32 tiles), TF32 and FP64, both layouts, every
// partition (dense blocks included), N in {1, 7, 16, 33, 128, 256}, alpha/beta
// cases, forced splits, and real graphs. Skips cleanly without a device.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>
#include <type_traits>
#include <vector>

#include "RshSparse_generators.hpp"
#include "RshSparse_IOUtils.hpp"
#include "Test_RshSparse_common.hpp"
#include "cuda/RshSparse_cuda_device_array.hpp"
#include "cuda/RshSparse_cuda_element.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_cuda_format.hpp"
#include "impl/RshSparse_inspector.hpp"

namespace {

using rsh::cuda::Layout;
using rsh::test::Dense;

using rsh::cuda::to_double;

struct Case {
  int n;
  double alpha, beta;
  rsh::Options options;
  Layout layout;
  /// Non-negative A and B: for shapes where a column of C is one dot product,
  /// whose relative error under cancellation is unbounded in any precision.
  bool nonnegative = false;
  int warps_per_item = 0;  ///< KernelConfig overrides (0: the planner's choice)
  int residual_lanes = 0;
  bool padded = true;     ///< leading dimensions past n (row-major: no 16-byte vectors)
  int dense_cluster = 0;  ///< KernelConfig override for DenseBlocks
  int lane_features = 0;  ///< KernelConfig override: features a residual lane holds
  int dense_stages = 0;   ///< KernelConfig overrides for DenseBlocks
  int dense_round_steps = 0;
  int column_major = 0;    ///< KernelConfig override: column-major operands in place (1) or through copies (2, 3)
  int residual_mma = 0;    ///< KernelConfig override: residual items on Tensor Cores never (1) or where they apply (2)
  int staged_ranges = 0;   ///< KernelConfig override: residual rows in staged ranges never (1) or where they apply (2)
  int staged_tiles = 0;    ///< KernelConfig override: residual rows in staged tiles never (1) or where they apply (2)
  int residual_shape = 0;  ///< KernelConfig override: residual_kernel's latency (1) or throughput (2) shape
};

/// Dense (rows x cols) in the given layout with leading dimension padded by `pad`.
template <class E>
std::vector<E> pack(const Dense& d, Layout layout, int64_t ld) {
  std::vector<E> out(static_cast<size_t>(layout == Layout::kRowMajor ? d.rows * ld : d.cols * ld),
                     rsh::cuda::to_element<E>(0.0));
  for (int64_t i = 0; i < d.rows; ++i)
    for (int64_t j = 0; j < d.cols; ++j)
      out[layout == Layout::kRowMajor ? i * ld + j : j * ld + i] = rsh::cuda::to_element<E>(d(i, j));
  return out;
}

template <class T, class OutT, rsh::cuda::FloatMath M>
class CudaSpmmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  }
  /// DESIGN section 7: FP64 1e-12, FP32 1e-5, TF32 5e-3, FP16 2e-2, BF16 5e-2.
  static double tolerance() {
    if (std::is_same<T, double>::value) return 1e-12;
    if (std::is_same<T, __nv_bfloat16>::value) return 5e-2;
    if (!std::is_same<T, float>::value) return 2e-2;
    return M == rsh::cuda::FloatMath::kTf32 ? 5e-3 : 1e-5;
  }

  void check(const rsh::impl::HostCrs& A_in, const Case& c) {
    const uint64_t seed = rsh::test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " column-major mode " + std::to_string(c.column_major) + " K " +
                 std::to_string(c.warps_per_item) + " G " + std::to_string(c.residual_lanes) + " V " +
                 std::to_string(c.lane_features) + " cluster " + std::to_string(c.dense_cluster) + " stages " +
                 std::to_string(c.dense_stages) + " round " + std::to_string(c.dense_round_steps) + " residual mma " +
                 std::to_string(c.residual_mma) + " staged " + std::to_string(c.staged_ranges) + " tiles " +
                 std::to_string(c.staged_tiles) + " shape " + std::to_string(c.residual_shape) +
                 (c.padded ? " padded" : "") + " n " + std::to_string(c.n) + " alpha " + std::to_string(c.alpha) +
                 " beta " + std::to_string(c.beta) + " " + rsh::partition_name(c.options.partition) +
                 (c.layout == Layout::kRowMajor ? " row-major" : " col-major"));
    const rsh::impl::Inspection ins = rsh::impl::inspect(A_in, c.options, "test");
    rsh::impl::HostCrs A_ref = A_in;  // reference sees the operands rounded as the GPU does
    for (double& v : A_ref.values) v = to_double(rsh::cuda::to_element<T>(c.nonnegative ? std::fabs(v) : v));
    Dense B = rsh::test::random_dense(A_in.num_cols, c.n, seed);
    for (double& v : B.v) v = to_double(rsh::cuda::to_element<T>(c.nonnegative ? std::fabs(v) : v));
    Dense C0 = rsh::test::random_dense(A_in.num_rows, c.n, seed + 1);
    for (double& v : C0.v) v = to_double(rsh::cuda::to_element<OutT>(v));
    const Dense ref = rsh::test::reference_spmm(A_ref, B, c.alpha, c.beta, C0);

    const bool row = c.layout == Layout::kRowMajor;
    const int64_t ldb = (row ? c.n : A_in.num_cols) + (c.padded ? 3 : 0);
    const int64_t ldc = (row ? c.n : A_in.num_rows) + (c.padded ? 5 : 0);
    rsh::cuda::DeviceArray<T> dB(pack<T>(B, c.layout, ldb));
    std::vector<OutT> hC = pack<OutT>(C0, c.layout, ldc);
    if (c.beta == 0) std::fill(hC.begin(), hC.end(), rsh::cuda::to_element<OutT>(std::nan("")));  // must not be read
    rsh::cuda::DeviceArray<OutT> dC(hC);

    const std::vector<double> slots = rsh::impl::scatter_values(ins.pattern, A_ref.values);
    rsh::cuda::SpmmPlan<T> plan(rsh::impl::host_format(ins.pattern, slots), nullptr, M);
    plan.set_config({c.warps_per_item, c.residual_lanes, c.dense_cluster, c.lane_features, c.dense_stages,
                     c.dense_round_steps, c.column_major, c.residual_mma, c.staged_ranges, c.staged_tiles,
                     c.residual_shape});
    using Scalar = rsh::cuda::Accum<T>;
    plan.spmm(static_cast<Scalar>(c.alpha), dB.get(), ldb, static_cast<Scalar>(c.beta), dC.get(), ldc, c.n, c.layout,
              nullptr);
    RSH_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<OutT> got = dC.download();
    EXPECT_LE(rsh::test::max_column_error(
                  ref, [&](int64_t i, int64_t j) { return to_double(got[row ? i * ldc + j : j * ldc + i]); }),
              tolerance());
  }

  /// check() at each of `widths` with alpha, beta = (1, 0) and (1.5, -0.5), row-major B and C without padding
  /// (the 16-byte vector paths), then once with padded leading dimensions (n = 128, beta = 0.5); `set` applies the
  /// test's KernelConfig overrides to each case.
  template <class Set>
  void check_widths(const rsh::impl::HostCrs& A, const rsh::Options& o, std::initializer_list<int> widths, Set set) {
    for (int n : widths)
      for (auto ab : {std::make_pair(1.0, 0.0), std::make_pair(1.5, -0.5)}) {
        Case c{n, ab.first, ab.second, o, Layout::kRowMajor};
        c.padded = false;
        set(c);
        check(A, c);
      }
    Case padded{128, 1.0, 0.5, o, Layout::kRowMajor};
    set(padded);
    check(A, padded);
  }
};

/// Element type of A and B, of C, and how float tiles meet the Tensor Cores.
template <class T, class OutT, rsh::cuda::FloatMath M = rsh::cuda::FloatMath::kFp32>
struct Precision {
  using first_type = T;
  using second_type = OutT;
  static constexpr rsh::cuda::FloatMath math = M;
};
template <class P>
class CudaSpmm : public CudaSpmmTest<typename P::first_type, typename P::second_type, P::math> {};
using Precisions =
    ::testing::Types<Precision<float, float>, Precision<float, float, rsh::cuda::FloatMath::kTf32>,
                     Precision<__half, __half>, Precision<__half, float>, Precision<__nv_bfloat16, __nv_bfloat16>,
                     Precision<__nv_bfloat16, float>, Precision<double, double>>;
TYPED_TEST_SUITE(CudaSpmm, Precisions);

TYPED_TEST(CudaSpmm, RandomMatricesEveryWidthPartitionLayout) {
  for (bool clustered : {false, true}) {
    const auto A = rsh::test::random_crs(157, 133, 20, rsh::test::fresh_seed(), clustered);
    for (rsh::Partition p : rsh::test::kAllPartitions)
      for (int n : {1, 7, 16, 33, 128, 256})
        for (Layout l : {Layout::kRowMajor, Layout::kColMajor}) this->check(A, {n, 1.0, 0.0, rsh::test::options(p), l});
  }
}

TYPED_TEST(CudaSpmm, AlphaBetaAndForcedSplits) {
  const auto A = rsh::test::random_crs(96, 300, 90, rsh::test::fresh_seed(), true);
  for (rsh::Partition p : rsh::test::kAllPartitions)
    for (auto ab : {std::make_pair(1.0, 1.0), std::make_pair(2.5, -0.5), std::make_pair(0.5, 0.0)})
      for (int max_tiles : {1, 3, 64})
        for (int k : {1, 2, 8})
          this->check(A, {40, ab.first, ab.second, rsh::test::options(p, max_tiles, 7), Layout::kRowMajor, false, k});
}

// Residual items in narrow feature slices (several CTAs per item range), with
// rows cut into pieces summed in one CTA and rows long enough for atomics;
// FP32 lanes of 8 and of 4 features (the planner picks by grid size), FP64 lanes of 4 and of 2.
TYPED_TEST(CudaSpmm, ResidualSlicesAndPieces) {
  const auto A = rsh::test::random_crs(150, 400, 160, rsh::test::fresh_seed(), true);
  using T = typename TypeParam::first_type;
  const std::vector<int> lane_features = std::is_same<T, float>::value ? std::vector<int>{4, 8}
                                         : sizeof(T) == 8              ? std::vector<int>{2, 4}
                                                                       : std::vector<int>{8};
  for (int features : lane_features)
    for (rsh::Partition p : {rsh::Partition::kCudaCoreOnly, rsh::Partition::kRowStructured})
      for (int lanes : {4, 8, 32})
        for (int n : {40, 128})
          for (bool padded : {true, false}) {  // unpadded: 16-byte B loads, vector stores and reductions
            Case c{n, 1.5, -0.5, rsh::test::options(p, 64, 8), Layout::kRowMajor, false, 0, lanes};
            c.padded = padded, c.lane_features = features;
            this->check(A, c);
          }
  for (int features : lane_features) {  // strided element paths
    Case c{37, 1.0, 0.5, rsh::test::options(rsh::Partition::kCudaCoreOnly, 64, 8), Layout::kColMajor};
    c.lane_features = features;
    this->check(A, c);
  }
}

/// What a plan's description says of staged residual rows.
const std::string kStagedRangesSay = "in ranges of 64 rows with their B rows staged";
const std::string kStagedTilesSay = "in ranges of 32 rows on Tensor Cores";

/// Whether a plan of A under `o` and `config` says `phrase` in its description.
template <class T>
bool plan_says(const rsh::impl::HostCrs& A, const rsh::Options& o, const rsh::cuda::KernelConfig& config,
               rsh::cuda::FloatMath math, const std::string& phrase) {
  const auto ins = rsh::impl::inspect(A, o, "test");
  const std::vector<double> slots = rsh::impl::scatter_values(ins.pattern, A.values);
  rsh::cuda::SpmmPlan<T> plan(rsh::impl::host_format(ins.pattern, slots), nullptr, math);
  plan.set_config(config);
  return plan.describe().find(phrase) != std::string::npos;
}
// Residual items on Tensor Cores (FP16, BF16): whole rows and rows cut into pieces (summed in the warp, or
// added with atomics past one CTA), rows of several 16-nonzero steps, empty rows, permuted rows, several CTAs
// with a partial last one, partial 128-feature slices, alpha/beta; padded B falls back to CUDA cores.
TYPED_TEST(CudaSpmm, ResidualItemsOnTensorCores) {
  using T = typename TypeParam::first_type;
  if (sizeof(T) != 2) GTEST_SKIP() << "Tensor-Core residual items are FP16 and BF16 only";
  const uint64_t seed = rsh::test::fresh_seed();
  const auto A = rsh::test::random_crs(1500, 700, 40, seed, true);
  rsh::Options sorted = rsh::test::options(rsh::Partition::kCudaCoreOnly);
  sorted.reorder = rsh::Reorder::kPlainSort;
  for (const rsh::Options& o : {rsh::test::options(rsh::Partition::kCudaCoreOnly),
                                rsh::test::options(rsh::Partition::kCudaCoreOnly, 64, 8), sorted}) {
    rsh::cuda::KernelConfig mma;
    mma.residual_mma = 2;
    EXPECT_TRUE(plan_says<T>(A, o, mma, TypeParam::math, "on Tensor Cores where B"));
    this->check_widths(A, o, {8, 120, 128, 136, 256}, [](Case& c) { c.residual_mma = 2; });
  }
  const auto short_rows = rsh::test::random_crs(300, 90, 3, seed + 1);  // empty rows and one-step items
  Case c{128, 2.0, 1.0, rsh::test::options(rsh::Partition::kCudaCoreOnly), Layout::kRowMajor};
  c.padded = false, c.residual_mma = 2;
  this->check(short_rows, c);
}

// residual_kernel's throughput shape (FP16, BF16: single rows, each lane loading the nonzeros itself) against
// its latency shape: whole rows, pieces summed in a CTA and atomic pieces, empty rows, every group width (one to
// four 128-feature slices), partial slices, alpha/beta; padded B runs the latency shape.
TYPED_TEST(CudaSpmm, ResidualThroughputShape) {
  using T = typename TypeParam::first_type;
  if (sizeof(T) != 2) GTEST_SKIP() << "the throughput shape is FP16 and BF16 only";
  const uint64_t seed = rsh::test::fresh_seed();
  const auto A = rsh::test::random_crs(700, 500, 60, seed, true);
  const auto short_rows = rsh::test::random_crs(300, 90, 3, seed + 1);  // empty rows and one-nonzero items
  rsh::cuda::KernelConfig throughput;
  throughput.residual_shape = 2;
  for (const rsh::Options& o :
       {rsh::test::options(rsh::Partition::kCudaCoreOnly), rsh::test::options(rsh::Partition::kCudaCoreOnly, 64, 8)}) {
    EXPECT_TRUE(plan_says<T>(A, o, throughput, TypeParam::math, "single rows at 8 CTAs an SM"));
    for (int lanes : {0, 4, 8, 32})
      this->check_widths(A, o, {8, 120, 128, 136, 256},
                         [&](Case& c) { c.residual_shape = 2, c.residual_lanes = lanes; });
    this->check_widths(short_rows, o, {64}, [](Case& c) { c.residual_shape = 2; });
  }
}

/// A banded matrix (columns r - hb .. r + hb), every `far_every`-th row with one more column 400 away and
/// every `empty_every`-th row empty.
rsh::impl::HostCrs banded_rows(int rows, int hb, int far_every, int empty_every, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < rows; ++r) {
    if (r % empty_every == empty_every - 1) continue;
    for (int c = std::max(0, r - hb); c <= std::min(rows - 1, r + hb); ++c) coo.push_back({r, c, val(rng)});
    if (r % far_every == 0) coo.push_back({r, (r + 400) % rows, val(rng)});
  }
  return rsh::impl::coo_to_crs(rows, rows, std::move(coo));
}

/// Whether a plan of A under `o` with KernelConfig::staged_ranges = `staged` says it runs staged ranges.
template <class T>
bool plan_stages_ranges(const rsh::impl::HostCrs& A, const rsh::Options& o, int staged, rsh::cuda::FloatMath math) {
  rsh::cuda::KernelConfig config;
  config.staged_ranges = staged;
  return plan_says<T>(A, o, config, math, kStagedRangesSay);
}
/// Whether a plan of A under `o` with KernelConfig::staged_tiles = `tiles` says it runs staged tiles.
template <class T>
bool plan_stages_tiles(const rsh::impl::HostCrs& A, const rsh::Options& o, int tiles, rsh::cuda::FloatMath math) {
  rsh::cuda::KernelConfig config;
  config.staged_tiles = tiles;
  return plan_says<T>(A, o, config, math, kStagedTilesSay);
}

// Residual rows in staged ranges (FP16, BF16, FP32): the planner's rule; banded ranges that stage their B
// rows, ranges with far columns that multiply from global memory in the same kernel, rows permuted by a reordering,
// empty rows, a partial last range, one to three slices and partial ones, alpha/beta (beta = 0 with NaN in C),
// column-major operands through row-major copies; padded B and rows cut into pieces keep residual_kernel.
TYPED_TEST(CudaSpmm, StagedRanges) {
  using T = typename TypeParam::first_type;
  if (sizeof(T) > 4) GTEST_SKIP() << "staged ranges are FP16, BF16 and FP32";
  const uint64_t seed = rsh::test::fresh_seed();
  const auto banded = banded_rows(1000, 3, 1 << 30, 9, seed), far = banded_rows(1000, 3, 97, 9, seed + 1);
  const rsh::Options whole = rsh::test::options(rsh::Partition::kCudaCoreOnly);
  rsh::Options sorted = whole;
  sorted.reorder = rsh::Reorder::kPlainSort;
  {  // the planner takes them on a matrix of many ranges a resident CTA, not on a small one or with far columns
    const auto large = banded_rows(120000, 3, 1 << 30, 9, seed + 3),
               large_far = banded_rows(120000, 3, 97, 9, seed + 4);
    EXPECT_TRUE(plan_stages_ranges<T>(large, whole, 0, TypeParam::math));
    EXPECT_FALSE(plan_stages_ranges<T>(large, whole, 1, TypeParam::math));
    EXPECT_FALSE(plan_stages_ranges<T>(large_far, whole, 0, TypeParam::math));  // too few nonzeros staged
    EXPECT_FALSE(plan_stages_ranges<T>(banded, whole, 0, TypeParam::math));     // too few ranges
    EXPECT_TRUE(plan_stages_ranges<T>(far, whole, 2, TypeParam::math));
  }
  for (const auto& A : {banded, far})
    for (const rsh::Options& o : {whole, sorted}) {
      this->check_widths(A, o, {8, 64, 120, 128, 136, 256}, [](Case& c) { c.staged_ranges = 2; });
      Case planner{128, 1.0, 0.5, o, Layout::kRowMajor};
      planner.padded = false;
      this->check(A, planner);
      for (int mode : {2, 3})  // column-major B (and C) through row-major copies: the kernel waits for B's copy
        for (int n : {64, 130}) {
          Case c{n, 1.5, -0.5, o, Layout::kColMajor};
          c.column_major = mode, c.staged_ranges = 2;
          this->check(A, c);
        }
    }
  const auto pieces = rsh::test::random_crs(300, 200, 40, seed + 2, true);
  const rsh::Options cut = rsh::test::options(rsh::Partition::kCudaCoreOnly, 64, 8);
  EXPECT_FALSE(plan_stages_ranges<T>(pieces, cut, 2, TypeParam::math));
  Case c{128, 1.5, -0.5, cut, Layout::kRowMajor};
  c.padded = false, c.staged_ranges = 2;
  this->check(pieces, c);
}

// Residual rows in staged tiles on Tensor Cores (FP16, BF16): the planner's rule (taken on a stencil with its
// rows in grid blocks, not in the grid's order, not under 1); ranges of few columns beside ranges holding rows of
// 40 random columns, which multiply from global memory in the same kernel; blocks cut by the grid's edges and a
// partial last range; one and two slices and partial ones; alpha/beta (beta = 0 with NaN in C); column-major
// operands through row-major copies; padded B keeps residual_kernel.
TYPED_TEST(CudaSpmm, StagedTiles) {
  using T = typename TypeParam::first_type;
  if (sizeof(T) != 2) GTEST_SKIP() << "staged tiles are FP16 and BF16";
  const uint64_t seed = rsh::test::fresh_seed();
  rsh::Options whole = rsh::test::options(rsh::Partition::kCudaCoreOnly);
  whole.reorder = rsh::Reorder::kNone;        // the rows' order is the test's
  whole.tuning.residual_piece_nnz = 1 << 10;  // and rows stay whole (tiles take no pieces)
  rsh::Options blocks = whole;
  blocks.reorder = rsh::Reorder::kGridBlocks;
  {  // 55,296 rows: 1,728 ranges, more than 4 a resident CTA
    const auto large = rsh::test::grid_crs(48, 48, 24, 1, true, seed);
    EXPECT_TRUE(plan_stages_tiles<T>(large, blocks, 0, TypeParam::math));
    EXPECT_FALSE(plan_stages_tiles<T>(large, blocks, 1, TypeParam::math));
    EXPECT_FALSE(plan_stages_tiles<T>(large, whole, 0, TypeParam::math));  // the grid's order: ~300 columns a range
    EXPECT_FALSE(plan_stages_ranges<T>(large, blocks, 0, TypeParam::math));
  }
  const auto mixed = rsh::test::grid_crs(16, 12, 6, 1, true, seed + 1, true, 37);  // rows of 40 random columns
  const auto edges = rsh::test::grid_crs(15, 10, 5, 1, true, seed + 2, true);      // cut blocks, a partial range
  EXPECT_TRUE(plan_stages_tiles<T>(mixed, whole, 2, TypeParam::math));
  EXPECT_FALSE(plan_stages_tiles<T>(mixed, whole, 0, TypeParam::math));  // too few ranges
  for (const auto& A : {mixed, edges}) {
    this->check_widths(A, whole, {64, 128, 136, 256}, [](Case& c) { c.staged_tiles = 2; });
    for (int mode : {2, 3})
      for (int n : {64, 130}) {
        Case c{n, 1.5, -0.5, whole, Layout::kColMajor};
        c.column_major = mode, c.staged_tiles = 2;
        this->check(A, c);
      }
  }
}

// Row-major B and C without padding: the 16-byte vector paths (cp.async B
// stages, vector stores and reductions) that padded leading dimensions skip;
// whole and partial slices, split windows (atomics), residual rows.
TYPED_TEST(CudaSpmm, UnpaddedVectorPaths) {
  const auto A = rsh::test::random_crs(203, 150, 45, rsh::test::fresh_seed(), true);
  for (rsh::Partition p : rsh::test::kAllPartitions)
    for (int n : {8, 72, 128, 200})
      for (int max_tiles : {3, 64}) {
        Case c{n, 1.5, -0.5, rsh::test::options(p, max_tiles, 8), Layout::kRowMajor};
        c.padded = false;
        this->check(A, c);
      }
}

// Dense blocks: every cluster size (column blocks split over 1-16 CTAs summed
// through distributed shared memory), several rounds of staged blocks per CTA
// (2100 columns) in each staging (rounds one at a time, double buffered, or
// of twice the length), rows and columns off the 16 x 16 / 64-row grid, both layouts.
TYPED_TEST(CudaSpmm, DenseBlocksClustersAndRounds) {
  const uint64_t s = rsh::test::fresh_seed();
  using T = typename TypeParam::first_type;
  {  // every precision, FP64 included, multiplies the blocks on Tensor Cores (not the residual on CUDA cores)
    const auto A = rsh::test::random_crs(70, 40, 20, s);
    const auto ins = rsh::impl::inspect(A, rsh::test::options(rsh::Partition::kDenseBlocks), "test");
    const std::vector<double> slots = rsh::impl::scatter_values(ins.pattern, A.values);
    const rsh::cuda::SpmmPlan<T> plan(rsh::impl::host_format(ins.pattern, slots), nullptr, TypeParam::math);
    EXPECT_NE(plan.describe().find("dense 16 x 16 blocks on Tensor Cores"), std::string::npos) << plan.describe();
  }
  const int round = rsh::cuda::kDenseRoundSteps<T>;
  const std::pair<int, int> stagings[] = {{1, round}, {2, round}, {1, 2 * round}};  // stages, round steps
  // Under the sanitizer the wide matrix keeps windows of more columns than the longest round (2 x 16 steps
  // of 16 columns, 16-bit), so that every staging still runs several rounds, at a third of the nonzeros.
  const auto wide =
      rsh::test::under_sanitizer() ? rsh::test::random_crs(131, 700, 130, s) : rsh::test::random_crs(131, 2100, 400, s);
  for (const auto& A : {wide, rsh::test::random_crs(200, 37, 30, s + 1, true)})
    for (int cluster : {1, 2, 4, 8, 16})
      for (const auto& staging : stagings)
        for (int n : {24, 128})
          for (Layout l : {Layout::kRowMajor, Layout::kColMajor}) {
            Case c{n, 1.5, -0.5, rsh::test::options(rsh::Partition::kDenseBlocks), l};
            c.padded = n == 24, c.dense_cluster = cluster;
            c.dense_stages = staging.first, c.dense_round_steps = staging.second;
            this->check(A, c);
          }
}

// Column-major B and C (Kokkos::LayoutLeft): in place, B through a row-major copy, or both through copies;
// widths off the copy's multiple of 8, alpha/beta with NaN in C, split items (atomics).
TYPED_TEST(CudaSpmm, ColumnMajorInPlaceAndThroughCopies) {
  const auto A = rsh::test::random_crs(203, 150, 45, rsh::test::fresh_seed(), true);
  for (rsh::Partition p : rsh::test::kAllPartitions)
    for (int mode : {1, 2, 3})
      for (int n : {1, 13, 64, 130})
        for (auto ab : {std::make_pair(1.0, 0.0), std::make_pair(1.5, -0.5)}) {
          Case c{n, ab.first, ab.second, rsh::test::options(p, 3, 8), Layout::kColMajor};
          c.padded = n == 13, c.column_major = mode;
          this->check(A, c);
        }
}

TYPED_TEST(CudaSpmm, EdgeCases) {
  const uint64_t s = rsh::test::fresh_seed();
  std::vector<rsh::impl::CooEntry> exact;  // window of exactly 4 tiles, row of exactly 2 x 32 nonzeros
  for (int c = 0; c < 32; ++c) exact.push_back({c % 8, c, 0.5});
  for (int c = 0; c < 64; ++c) exact.push_back({13, 2 * c, -0.25});
  const auto exact_A = rsh::impl::coo_to_crs(20, 128, exact);
  for (rsh::Partition p : rsh::test::kAllPartitions) {
    this->check(rsh::impl::coo_to_crs(9, 4, {}), {16, 1.0, 0.5, rsh::test::options(p), Layout::kRowMajor});  // no nnz
    this->check(rsh::test::random_crs(1, 300, 300, s),
                {33, 1.0, 0.0, rsh::test::options(p, 4, 64), Layout::kRowMajor, true});
    this->check(rsh::test::random_crs(70, 1, 1, s), {8, 1.0, 0.0, rsh::test::options(p), Layout::kRowMajor, true});
    this->check(rsh::test::random_crs(500, 40, 3, s), {24, 1.0, 0.0, rsh::test::options(p), Layout::kColMajor});
    for (int max_tiles : {2, 4})
      for (int k : {1, 4, 8})
        this->check(exact_A, {64, 1.0, 0.0, rsh::test::options(p, max_tiles, 32), Layout::kRowMajor, false, k});
  }
}

TYPED_TEST(CudaSpmm, RealGraphsAndPowerLaw) {
  // Under the sanitizer a quarter of the power-law graph: the same kernels over fewer windows.
  const auto rmat = rsh::generate_rmat<double>(rsh::test::under_sanitizer() ? 10 : 12, 8, rsh::test::fresh_seed());
  const auto host = rsh::impl::to_host_crs(rmat.num_rows, rmat.num_cols, rmat.row_map, rmat.entries, rmat.values);
  for (rsh::Partition p : rsh::test::kAllPartitions) {
    this->check(host, {128, 1.0, 0.0, rsh::test::options(p), Layout::kRowMajor});
    // Reordering permutes rows on the host: under the sanitizer one policy covers the permuted kernels.
    const std::vector<rsh::Reorder> policies =
        rsh::test::under_sanitizer()
            ? std::vector<rsh::Reorder>{rsh::Reorder::kLocality}
            : std::vector<rsh::Reorder>{rsh::Reorder::kLocality, rsh::Reorder::kCtaAware, rsh::Reorder::kLptSort};
    for (rsh::Reorder policy : policies) {
      rsh::Options reordered = rsh::test::options(p);
      reordered.reorder = policy;
      this->check(host, {128, 1.0, 0.5, reordered, Layout::kRowMajor});
    }
  }
  const std::string path = rsh::test::shared_matrix("gnn/cora.mtx.gz");
  if (path.empty()) return;
  const auto cora = rsh::impl::read_matrix_market_host(path);
  for (rsh::Partition p : rsh::test::kAllPartitions)
    this->check(cora, {128, 1.0, 0.0, rsh::test::options(p), Layout::kRowMajor});
}

/// FP32-accurate plans whose values are refreshed on the device: the multiply right after an update splits A
/// too (3xTF32, right for any values) and takes the device's answer once it has arrived (2xTF32 for values that
/// are all TF32 numbers), with no wait in the update.
TEST(CudaSpmmValues, DeviceRefreshTakesTheSplitWhenItsAnswerArrives) {
  if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (rsh::Partition p : {rsh::Partition::kRowStructured, rsh::Partition::kDenseBlocks}) {
    SCOPED_TRACE(rsh::partition_name(p));
    rsh::impl::HostCrs exact = rsh::test::random_crs(160, 120, 40, seed, true);
    for (double& v : exact.values) v = 0.25 * std::round(4 * v);  // TF32 numbers
    rsh::impl::HostCrs inexact = exact;
    for (double& v : inexact.values) v = double(float(v * 1.0001 + 1e-3));  // float numbers, not TF32 ones
    const auto ins = rsh::impl::inspect(exact, rsh::test::options(p), "test");
    auto device_slots = [&](const rsh::impl::HostCrs& A) {
      const std::vector<double> slots = rsh::impl::scatter_values(ins.pattern, A.values);
      return rsh::cuda::DeviceArray<float>(std::vector<float>(slots.begin(), slots.end()));
    };
    const rsh::cuda::DeviceArray<float> exact_slots = device_slots(exact), inexact_slots = device_slots(inexact);
    const int n = 32;
    const Dense B = rsh::test::random_dense(exact.num_cols, n, seed + 1);
    rsh::cuda::DeviceArray<float> dB(pack<float>(B, Layout::kRowMajor, n));
    rsh::cuda::DeviceArray<float> dC(std::vector<float>(size_t(exact.num_rows) * n, 0.f));
    rsh::cuda::SpmmPlan<float> plan(
        rsh::impl::host_format(ins.pattern, rsh::impl::scatter_values(ins.pattern, exact.values)), nullptr,
        rsh::cuda::FloatMath::kFp32);
    auto multiply_and_check = [&](const rsh::impl::HostCrs& A, const char* math) {
      plan.spmm(1.f, dB.get(), n, 0.f, dC.get(), n, n, Layout::kRowMajor, nullptr);
      RSH_CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> got = dC.download();
      const Dense ref = rsh::test::reference_spmm(A, B, 1.0, 0.0, Dense(A.num_rows, n));
      EXPECT_LE(rsh::test::max_column_error(ref, [&](int64_t i, int64_t j) { return double(got[i * n + j]); }), 1e-5);
      if (math) EXPECT_NE(plan.describe().find(math), std::string::npos) << plan.describe();
    };
    multiply_and_check(exact, "2xTF32");  // host values: checked on the host
    plan.update_values_device(inexact_slots.get(), nullptr);
    multiply_and_check(inexact, "3xTF32");
    plan.update_values_device(exact_slots.get(), nullptr);
    multiply_and_check(exact, nullptr);   // the answer may not be there yet: either split is right
    multiply_and_check(exact, "2xTF32");  // it is now (the device has finished)
    plan.update_values_device(exact_slots.get(), nullptr);
    plan.update_values_device(inexact_slots.get(), nullptr);  // two refreshes: the split follows the last
    RSH_CUDA_CHECK(cudaDeviceSynchronize());
    multiply_and_check(inexact, "3xTF32");
  }
}

TEST(CudaSpmmArgs, RejectsBadSizes) {
  if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const auto A = rsh::test::random_crs(10, 10, 3, 1);
  const auto ins = rsh::impl::inspect(A, rsh::Options(), "test");
  const std::vector<double> slots = rsh::impl::scatter_values(ins.pattern, A.values);
  rsh::cuda::SpmmPlan<float> plan(rsh::impl::host_format(ins.pattern, slots), nullptr);
  rsh::cuda::DeviceArray<float> buf(std::vector<float>(100, 0.f));
  EXPECT_THROW(plan.spmm(1.f, buf.get(), 4, 0.f, buf.get(), 8, 8, Layout::kRowMajor, nullptr), std::invalid_argument);
  EXPECT_THROW(plan.spmm(1.f, buf.get(), 8, 0.f, buf.get(), 8, -1, Layout::kRowMajor, nullptr), std::invalid_argument);
  EXPECT_THROW(plan.spmm<float>(1.f, nullptr, 8, 0.f, buf.get(), 8, 8, Layout::kRowMajor, nullptr),
               std::invalid_argument);
  EXPECT_THROW(plan.set_config({3}), std::invalid_argument);
  EXPECT_THROW(plan.set_config({0, 6}), std::invalid_argument);
  EXPECT_THROW(plan.set_config({0, 0, 3}), std::invalid_argument);
  EXPECT_THROW(plan.set_config({0, 0, 0, 2}), std::invalid_argument);
  EXPECT_THROW(plan.set_config({0, 0, 0, 0, 3}), std::invalid_argument);
  const int round = rsh::cuda::kDenseRoundSteps<float>;
  EXPECT_THROW(plan.set_config({0, 0, 0, 0, 0, round + 1}), std::invalid_argument);
  EXPECT_THROW(plan.set_config({0, 0, 0, 0, 2, 2 * round}), std::invalid_argument);  // long rounds: one stage
  EXPECT_THROW(plan.set_config({0, 0, 0, 0, 0, 0, 4}), std::invalid_argument);
  EXPECT_NO_THROW(plan.set_config({0, 0, 0, 0, 1, 2 * round}));
  EXPECT_THROW(plan.set_config({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3}), std::invalid_argument);  // residual_shape
  EXPECT_THROW(plan.set_config({0, 0, 0, 0, 0, 0, 0, 3}), std::invalid_argument);           // residual_mma
  rsh::cuda::SpmmPlan<__half> half_plan(rsh::impl::host_format(ins.pattern, slots), nullptr);
  EXPECT_THROW(half_plan.set_config({0, 0, 0, 4}), std::invalid_argument);  // FP16 lanes hold 8 features
  rsh::cuda::SpmmPlan<double> double_plan(rsh::impl::host_format(ins.pattern, slots), nullptr);
  EXPECT_THROW(double_plan.set_config({0, 0, 0, 8}), std::invalid_argument);  // FP64 lanes hold 4 or 2 features
  EXPECT_NO_THROW(double_plan.set_config({0, 0, 0, 2}));
  rsh::cuda::DeviceArray<double> dbuf(std::vector<double>(100, 0.0));
  std::vector<float> dots(double_plan.num_value_slots());
  rsh::cuda::DeviceArray<float> ddots(dots);
  EXPECT_THROW(double_plan.sddmm(dbuf.get(), 4, dbuf.get(), 4, 4, ddots.get(), nullptr), std::invalid_argument);
  EXPECT_NE(double_plan.describe().find("FP64"), std::string::npos);
}

}  // namespace
