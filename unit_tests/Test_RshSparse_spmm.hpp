#pragma once
// rsh::spmm through the public entry, the KokkosKernels way: one typed test
// suite over (Scalar, Layout, ExecSpace), instantiated once per execution
// space by Test_<Backend>_RshSparse_spmm.cpp. Every multiply is checked
// against the double host reference (DESIGN section 7) and against
// KokkosSparse::spmv on the same views, over the edge cases of section 7.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "RshSparse_generators.hpp"
#include "RshSparse_spmm.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "Test_RshSparse_common.hpp"
#include "Test_RshSparse_kokkos.hpp"

namespace rsh {
namespace test {

/// KokkosSparse::spmv on the same views, as an application calls it. KokkosKernels' cuSPARSE path for
/// half_t multivectors (LayoutLeft C) returns wrong results: it passes alpha and beta as half_t to cuSPARSE
/// with an FP32 compute type (seen with KokkosKernels 4.7.99 and CUDA 13), so 16-bit scalars on Kokkos::Cuda
/// are compared with KokkosKernels' native kernel.
template <class ExecSpace, class Matrix, class MultiVector>
void kk_spmv(const char mode[], const Matrix& A, const MultiVector& B, typename MultiVector::const_value_type alpha,
             typename MultiVector::const_value_type beta, const MultiVector& C) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40200
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value &&
                is_16bit<typename MultiVector::non_const_value_type>()) {
    KokkosSparse::SPMVHandle<typename Matrix::device_type, Matrix, MultiVector, MultiVector> native(
        KokkosSparse::SPMV_NATIVE);
    return KokkosSparse::spmv(ExecSpace(), &native, mode, alpha, A, B, beta, C);
  }
#endif
  KokkosSparse::spmv(mode, alpha, A, B, beta, C);
}

template <class Cfg>
class SpmmTest : public KokkosTest<Cfg> {
 protected:
  using Base = KokkosTest<Cfg>;
  using Base::error;
  using Base::from_view;
  using Base::nan;
  using Base::rounded;
  using Base::to_kk;
  using Base::to_view;
  using typename Base::ExecSpace;
  using typename Base::Handle;
  using typename Base::Matrix;
  using typename Base::MultiVector;
  using typename Base::Scalar;

  /// One multiply C = alpha op(A) B + beta C through rsh::spmm on a fresh handle and (but under the
  /// sanitizer) handle-free, checked against the reference and against KokkosSparse::spmv. `nonnegative` makes A and B
  /// non-negative: for shapes where a column of C is one dot product, whose relative error under
  /// cancellation is unbounded in any precision. `mode` is "N" or "T".
  void check(const impl::HostCrs& A_signed, int n, double alpha, double beta, const Options& opt,
             bool nonnegative = false, const char* mode = "N") {
    impl::HostCrs A_in = A_signed;
    if (nonnegative)
      for (double& v : A_in.values) v = std::fabs(v);
    const uint64_t seed = fresh_seed();
    const bool t = mode[0] == 'T';
    SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n) + " alpha " + std::to_string(alpha) +
                 " beta " + std::to_string(beta) + " " + partition_name(opt.partition) + " " + ExecSpace::name() +
                 " mode " + mode);
    const Matrix A = to_kk(A_in);
    Dense B_host = random_dense(t ? A_in.num_rows : A_in.num_cols, n, seed);
    if (nonnegative)
      for (double& v : B_host.v) v = std::fabs(v);
    const MultiVector B = to_view(B_host);
    MultiVector C = to_view(random_dense(t ? A_in.num_cols : A_in.num_rows, n, seed + 1));
    if (beta == 0) Kokkos::deep_copy(C, nan());  // must be ignored
    const Dense C0 = from_view(C);
    const Dense ref = t ? reference_spmm_transposed(rounded(A_in), from_view(B), alpha, beta, C0)
                        : reference_spmm(rounded(A_in), from_view(B), alpha, beta, C0);
    MultiVector C_kk("C_kk", C.extent(0), C.extent(1)), C_free("C_free", C.extent(0), C.extent(1));
    Kokkos::deep_copy(C_kk, C);
    Kokkos::deep_copy(C_free, C);

    Handle handle(opt);
    rsh::spmm(ExecSpace(), &handle, mode, static_cast<Scalar>(alpha), A, B, static_cast<Scalar>(beta), C);
    ExecSpace().fence();
    const double tol = spmm_tolerance<Scalar>(opt);
    EXPECT_LE(error(ref, C), tol);
    if (under_sanitizer()) return;  // the handle-free call runs the same kernels; KokkosKernels' are not ours

    rsh::spmm(ExecSpace(), mode, static_cast<Scalar>(alpha), A, B, static_cast<Scalar>(beta), C_free);
    kk_spmv<ExecSpace>(mode, A, B, static_cast<Scalar>(alpha), static_cast<Scalar>(beta), C_kk);
    ExecSpace().fence();
    // KokkosKernels' host kernels sum in the scalar: on rows of thousands of terms bhalf_t's sums lose every
    // bit there, so bhalf_t is compared with KokkosSparse::spmv only where KokkosKernels meets the bound.
    if (!is_bhalf<Scalar>() || error(ref, C_kk) <= 10 * tol)
      EXPECT_LE(error(from_view(C_kk), C), 10 * tol) << "against KokkosSparse::spmv";
    EXPECT_LE(error(ref, C_free), spmm_tolerance<Scalar>(Options())) << "handle-free";
  }
};

TYPED_TEST_SUITE_P(SpmmTest);

TYPED_TEST_P(SpmmTest, RandomMatricesAllPartitionsAndWidths) {
  for (bool clustered : {false, true}) {
    const auto A = random_crs(131, 97, 14, fresh_seed(), clustered);
    for (Partition p : kAllPartitions)
      for (int n : {1, 7, 16, 33}) this->check(A, n, 1.0, 0.0, options(p));
  }
}

TYPED_TEST_P(SpmmTest, AlphaBetaSemantics) {
  const auto A = random_crs(45, 60, 9, fresh_seed(), true);
  for (Partition p : kAllPartitions)
    for (auto ab : {std::make_pair(1.0, 1.0), std::make_pair(2.5, -0.5), std::make_pair(0.0, 2.0),
                    std::make_pair(0.0, 0.0), std::make_pair(-1.0, 0.0)})
      this->check(A, 5, ab.first, ab.second, options(p));
}

TYPED_TEST_P(SpmmTest, EdgeCaseShapes) {
  const uint64_t s = fresh_seed();
  for (Partition p : kAllPartitions) {
    this->check(impl::coo_to_crs(0, 0, {}), 3, 1.0, 0.0, options(p));        // empty matrix
    this->check(impl::coo_to_crs(7, 5, {}), 3, 1.0, 0.5, options(p));        // no nonzeros
    this->check(random_crs(1, 40, 40, s), 9, 1.0, 0.0, options(p), true);    // one row
    this->check(random_crs(50, 1, 1, s), 4, 1.0, 0.0, options(p));           // one column
    this->check(random_crs(23, 301, 6, s), 8, 1.5, 0.0, options(p));         // wide, non-square
    this->check(random_crs(301, 23, 6, s), 8, 1.5, 0.0, options(p));         // tall, non-square
    this->check(random_crs(64, 64, 8, s, true), 128, 1.0, 0.0, options(p));  // a whole Tensor-Core slice
  }
}

TYPED_TEST_P(SpmmTest, SplitWorkItemsAndExactMultiples) {
  // Tiny bounds force splits; a row of exactly 2 x 16 nonzeros and a window
  // of exactly 4 tiles land on the split boundary. Split pieces add into C in
  // its own type, each partial sum rounded there: 16-bit scalars take A and B
  // non-negative, as under cancellation (row 3, which dominates C's column
  // norms here) the rounded partial sums exceed the final sum's bound.
  std::vector<impl::CooEntry> coo;
  for (int c = 0; c < 32; ++c) coo.push_back({3, c, 0.25 * c});
  for (int r = 8; r < 16; ++r)
    for (int c = 0; c < 32; c += 1 + r % 3) coo.push_back({r, 40 + c, 1.0 - 0.1 * r});
  const auto A = impl::coo_to_crs(20, 80, coo);
  for (Partition p : kAllPartitions)
    for (int max_tiles : {1, 2, 4})
      for (double beta : {0.0, 0.75})
        this->check(A, 6, 1.25, beta, options(p, max_tiles, 16), is_16bit<typename TestFixture::Scalar>());
}

TYPED_TEST_P(SpmmTest, ReorderedRowsGiveTheSameResult) {
  const auto A = random_crs(97, 80, 11, fresh_seed(), true);
  for (Reorder policy : kAllReorders)
    for (Partition p : kAllPartitions) {
      Options o = options(p, 2, 8);  // small items: split pieces of reordered windows too
      o.reorder = policy;
      SCOPED_TRACE(reorder_name(policy));
      for (double beta : {0.0, 0.5}) this->check(A, 9, 1.5, beta, o);
    }
  // Grids in blocks of their points (2-D and 3-D): GridBlocks applies a permutation.
  for (const auto& G : {grid_crs(24, 12, 1, 1, true, fresh_seed()), grid_crs(8, 8, 5, 1, false, fresh_seed())})
    for (Partition p : kAllPartitions) {
      Options o = options(p, 2, 8);
      o.reorder = Reorder::kGridBlocks;
      SCOPED_TRACE("GridBlocks on a grid of " + std::to_string(G.num_rows) + " points");
      this->check(G, 9, 1.5, 0.5, o);
    }
  // MinHash's clusters refined by label propagation, which needs a square A (rows as a graph's vertices), and
  // its windows dealt again in chunks (a last chunk of 56 rows).
  const auto S = random_crs(120, 120, 11, fresh_seed(), true);
  for (Partition p : kAllPartitions)
    for (auto rounds_chunk : {std::make_pair(5, 0), std::make_pair(0, 64)}) {
      Options o = options(p, 2, 8);
      o.reorder = Reorder::kMinHash;
      o.reorder_options.minhash_label_rounds = rounds_chunk.first;
      o.reorder_options.minhash_window_chunk = rounds_chunk.second;
      SCOPED_TRACE("MinHash, " + std::to_string(rounds_chunk.first) + " label rounds, window chunk " +
                   std::to_string(rounds_chunk.second));
      this->check(S, 9, 1.5, 0.5, o);
    }
}

// Hub rows make windows longer than kLongWindowMinNnz, whose columns are ranked an entry a thread where
// Tuning::long_window_nnz says so (by default on GPUs, not on host spaces).
TYPED_TEST_P(SpmmTest, LongWindowsOfHubRows) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto rmat = impl::generate_rmat_host(11, 16, seed);
  const auto unsorted = shuffled_with_duplicates(random_crs(40, 6000, 2500, seed + 1), seed);  // long rows
  for (const impl::HostCrs* A : {&rmat, &unsorted})
    for (Partition p : kAllPartitions)
      for (Reorder r : {Reorder::kNone, Reorder::kMinHash})
        for (int64_t long_window_nnz : {int64_t(-1), impl::kLongWindowMinNnz}) {
          Options o = options(p, 3, 8);
          o.reorder = r;
          o.tuning.long_window_nnz = long_window_nnz;
          SCOPED_TRACE(std::string(partition_name(p)) + " " + reorder_name(r) + " long_window_nnz " +
                       std::to_string(long_window_nnz));
          this->check(*A, 5, 1.0, 0.5, o);
        }
}

// Options::deterministic: no split work items (the only ones that add with atomics) even where the
// work-item bounds would cut, and two runs on fresh handles give the same bits, in both modes.
TYPED_TEST_P(SpmmTest, DeterministicModeRepeatsBitwise) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto A_host = shuffled_with_duplicates(random_crs(64, 3000, 2500, seed), seed);  // long rows
  const auto A = this->to_kk(A_host);
  const MultiVector B = this->to_view(random_dense(3000, 24, seed + 1));
  const MultiVector Bt = this->to_view(random_dense(64, 24, seed + 2));
  for (Partition p : kAllPartitions) {
    SCOPED_TRACE(partition_name(p));
    Options o = options(p, 2, 8);  // bounds that cut every long window and row
    o.deterministic = true;
    this->check(A_host, 24, 1.0, 0.0, o);
    std::vector<std::vector<double>> runs;
    for (int run = 0; run < 2; ++run)
      for (const char* mode : {"N", "T"}) {
        typename TestFixture::Handle handle(o);
        const bool t = mode[0] == 'T';
        MultiVector C("C", t ? 3000 : 64, 24);
        rsh::spmm(&handle, mode, Scalar(1), A, t ? Bt : B, Scalar(0), C);
        Kokkos::fence();
        const impl::FormatStats s = (t ? *handle.transposed() : handle).format_stats();
        EXPECT_EQ(s.tc_split_items + s.res_atomic_items, 0) << mode;
        runs.push_back(this->from_view(C).v);
      }
    EXPECT_TRUE(runs[0] == runs[2]) << "mode N differs between runs";
    EXPECT_TRUE(runs[1] == runs[3]) << "mode T differs between runs";
  }
}

// kAuto's reordering depends on the calls expected: results agree whichever it picks.
TYPED_TEST_P(SpmmTest, AutoReorderingKeepsResults) {
  const auto A = random_crs(300, 256, 12, fresh_seed(), true);
  for (double calls : {0.0, 1e6}) {
    Options o;
    o.expected_multiplies = calls;
    SCOPED_TRACE(calls);
    this->check(A, 7, 1.0, 0.25, o);
  }
  // A grid's operator of enough rows for kAuto's grid blocks where it tries them (Kokkos::Cuda, 16-bit values:
  // there the plan takes the staged tiles).
  using ExecSpace = typename TestFixture::ExecSpace;
  using Scalar = typename TestFixture::Scalar;
  const auto G = grid_crs(256, 136, 1, 1, true, fresh_seed());
  const auto G_kk = TestFixture::to_kk(G);
  const auto got = impl::inspect_on(ExecSpace(), G_kk.numRows(), G_kk.numCols(), G_kk.graph.row_map, G_kk.graph.entries,
                                    G_kk.nnz(), Options(), "test", sizeof(Scalar));
  EXPECT_EQ(got.reorder == Reorder::kGridBlocks, impl::grid_blocks_tried<ExecSpace>(G.num_rows, sizeof(Scalar)));
  this->check(G, 7, 1.0, 0.25, Options());
}

TYPED_TEST_P(SpmmTest, UnsortedAndDuplicateColumnsAreSummed) {
  impl::HostCrs A;
  A.num_rows = 3;
  A.num_cols = 5;
  A.row_map = {0, 4, 4, 6};
  A.entries = {4, 1, 4, 0, 2, 2};
  A.values = {1.0, 2.0, 3.0, 4.0, 5.0, -6.0};
  for (Partition p : kAllPartitions) this->check(A, 3, 1.0, 0.0, options(p));
}

/// Rows on both sides of every cut of a work item (whole, pieces summed in one CTA, atomic pieces), beside
/// empty rows, through the handle and the handle-free call.
TYPED_TEST_P(SpmmTest, RowLengthsAcrossWorkItemCuts) {
  const uint64_t s = fresh_seed();
  std::vector<impl::CooEntry> coo;
  const int lengths[] = {0, 1, 15, 16, 17, 33, 127, 128, 129, 300, 0, 2000, 5};
  int row = 0;
  for (int len : lengths) {
    for (int k = 0; k < len; ++k)
      coo.push_back({row, static_cast<int>((k * 7919 + row * 31) % 2500), 1.0 - 2.0 * ((s + k) % 5) / 5.0});
    ++row;
  }
  const auto A = impl::coo_to_crs(row, 2500, coo);
  for (Partition p : kAllPartitions)
    for (double beta : {0.0, 0.5}) this->check(A, 12, 1.0, beta, options(p), true);
}

/// TF32 is an explicit opt-in for float; other scalars ignore it.
TYPED_TEST_P(SpmmTest, Tf32OptIn) {
  const auto A = random_crs(200, 150, 30, fresh_seed(), true);
  for (Partition p : kAllPartitions) {
    Options o = options(p);
    o.allow_tf32 = true;
    this->check(A, 40, 1.0, 0.5, o);
  }
}

TYPED_TEST_P(SpmmTest, HandleReuseValueUpdateAndPatternCheck) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  auto A_host = random_crs(40, 40, 5, fresh_seed(), true);
  auto A = this->to_kk(A_host);
  const auto B = this->to_view(random_dense(40, 4, 3));
  MultiVector C("C", 40, 4);
  typename TestFixture::Handle handle;
  rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
  ASSERT_TRUE(handle.is_analyzed());
  EXPECT_NE(handle.describe().find("RS-Tile"), std::string::npos);
  const double tol = spmm_tolerance<Scalar>(handle.options());
  EXPECT_LE(this->error(reference_spmm(this->rounded(A_host), this->from_view(B), 1.0, 0.0, Dense(40, 4)), C), tol);

  // In-place value change, then update_values: the result follows, on the same handle.
  scale_values<typename TestFixture::ExecSpace>(A.values, -2.0);
  for (double& v : A_host.values) v *= -2;
  handle.update_values(A);
  rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
  EXPECT_LE(this->error(reference_spmm(this->rounded(A_host), this->from_view(B), 1.0, 0.0, Dense(40, 4)), C), tol);

  // Another pattern of the same size is rejected; so are bad arguments.
  auto other = A_host;
  if (first_column_moved(other)) {
    EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), this->to_kk(other), B, Scalar(0), C), std::invalid_argument);
  }
  EXPECT_THROW(rsh::spmm(&handle, "X", Scalar(1), A, B, Scalar(0), C), std::invalid_argument);
  MultiVector C_bad("C_bad", 39, 4);
  EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C_bad), std::invalid_argument);
  MultiVector B_bad("B_bad", 40, 5);
  EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), A, B_bad, Scalar(0), C), std::invalid_argument);
}

/// Mode "T" on every partition, over the shapes where A^T differs most from A: empty columns (empty rows of
/// A^T), hub columns, one row, unsorted rows with duplicates, with alpha and beta.
TYPED_TEST_P(SpmmTest, TransposeOnEveryPartition) {
  const uint64_t s = fresh_seed();
  std::vector<impl::CooEntry> hub;  // columns 0 and 5 full: long rows of A^T
  for (int r = 0; r < 300; ++r) hub.push_back({r, 0, 1.0 - r % 7 / 3.5}), hub.push_back({r, 5, 0.5});
  for (int r = 0; r < 300; r += 3) hub.push_back({r, 7 + r % 40, -0.75});
  const impl::HostCrs matrices[] = {random_crs(131, 97, 14, s, true), random_crs(40, 300, 12, s + 1),
                                    impl::coo_to_crs(300, 60, hub), random_crs(1, 40, 40, s + 2),
                                    shuffled_with_duplicates(random_crs(60, 50, 9, s + 3), s)};
  for (const impl::HostCrs& A : matrices)
    for (Partition p : kAllPartitions)
      for (auto ab : {std::make_pair(1.0, 0.0), std::make_pair(-1.5, 0.5)})
        this->check(A, 9, ab.first, ab.second, options(p, 2, 8), true, "T");
  this->check(impl::coo_to_crs(7, 5, {}), 3, 1.0, 0.5, options(Partition::kAuto), false, "T");  // no nonzeros
}

/// One handle serves both modes (either first); update_values reaches both analyses; the transposed
/// analysis rejects another pattern and mismatched dimensions.
TYPED_TEST_P(SpmmTest, BothModesOnOneHandle) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  impl::HostCrs A_host = random_crs(90, 50, 8, fresh_seed(), true);
  for (double& v : A_host.values) v = std::fabs(v);
  auto A = this->to_kk(A_host);
  const auto B = this->to_view(random_dense(50, 6, 3)), Bt = this->to_view(random_dense(90, 6, 4));
  MultiVector C("C", 90, 6), Ct("Ct", 50, 6);
  const double tol = spmm_tolerance<Scalar>(Options());
  auto check_both = [&](typename TestFixture::Handle& handle, bool transpose_first, const char* what) {
    SCOPED_TRACE(what);
    for (int call = 0; call < 2; ++call) {
      if ((call == 0) == transpose_first)
        rsh::spmm(&handle, "T", Scalar(1), A, Bt, Scalar(0), Ct);
      else
        rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
    }
    const auto Ar = this->rounded(A_host);
    EXPECT_LE(this->error(reference_spmm(Ar, this->from_view(B), 1.0, 0.0, Dense(90, 6)), C), tol);
    EXPECT_LE(this->error(reference_spmm_transposed(Ar, this->from_view(Bt), 1.0, 0.0, Dense(50, 6)), Ct), tol);
  };
  for (bool transpose_first : {true, false}) {
    typename TestFixture::Handle handle;
    check_both(handle, transpose_first, transpose_first ? "T first" : "N first");
    scale_values<typename TestFixture::ExecSpace>(A.values, 0.5);
    for (double& v : A_host.values) v *= 0.5;
    handle.update_values(A);
    check_both(handle, transpose_first, "after update_values");
    ASSERT_NE(handle.transposed(), nullptr);
    EXPECT_NE(handle.describe().find("A^T"), std::string::npos);
  }
  typename TestFixture::Handle handle;
  rsh::spmm(&handle, "T", Scalar(1), A, Bt, Scalar(0), Ct);
  auto other = A_host;
  if (first_column_moved(other)) {
    EXPECT_THROW(rsh::spmm(&handle, "T", Scalar(1), this->to_kk(other), Bt, Scalar(0), Ct), std::invalid_argument);
    EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), this->to_kk(other), B, Scalar(0), C), std::invalid_argument);
  }
  EXPECT_THROW(rsh::spmm(&handle, "T", Scalar(1), A, B, Scalar(0), Ct), std::invalid_argument);  // B is 50 rows
  EXPECT_THROW(rsh::spmm(&handle, "T", Scalar(1), A, Bt, Scalar(0), C), std::invalid_argument);  // C is 90 rows
  EXPECT_THROW(rsh::spmm("T", Scalar(1), A, B, Scalar(0), Ct), std::invalid_argument);           // handle-free
}

/// Value refreshes on every partition, FP32-accurate and TF32, with duplicate entries (which share a slot):
/// in place through update_values, then a new values view picked up by the next call.
TYPED_TEST_P(SpmmTest, ValueRefreshOnEveryPartition) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  using Matrix = typename TestFixture::Matrix;
  impl::HostCrs A_host = random_crs(70, 60, 9, fresh_seed(), true);
  impl::HostCrs dup = A_host;  // each non-empty row's first entry again, at the row's end
  dup.entries.clear(), dup.values.clear();
  for (int64_t r = 0; r < A_host.num_rows; ++r) {
    dup.row_map[r] = static_cast<int64_t>(dup.entries.size());
    for (int64_t k = A_host.row_map[r]; k < A_host.row_map[r + 1]; ++k)
      dup.entries.push_back(A_host.entries[k]), dup.values.push_back(A_host.values[k]);
    if (A_host.row_map[r + 1] > A_host.row_map[r])
      dup.entries.push_back(A_host.entries[A_host.row_map[r]]), dup.values.push_back(0.5);
  }
  dup.row_map[A_host.num_rows] = static_cast<int64_t>(dup.entries.size());
  const auto B = this->to_view(random_dense(60, 24, 11));
  MultiVector C("C", 70, 24);
  for (Partition p : kAllPartitions)
    for (bool tf32 : {false, true}) {
      SCOPED_TRACE(std::string(partition_name(p)) + (tf32 ? " TF32" : ""));
      Options o = options(p);
      o.allow_tf32 = tf32;
      impl::HostCrs expect = dup;
      Matrix A = this->to_kk(expect);
      typename TestFixture::Handle handle(o);
      const double tol = spmm_tolerance<Scalar>(o);
      auto multiply_and_check = [&](const Matrix& M) {
        rsh::spmm(&handle, "N", Scalar(1), M, B, Scalar(0), C);
        EXPECT_LE(this->error(reference_spmm(this->rounded(expect), this->from_view(B), 1.0, 0.0, Dense(70, 24)), C),
                  tol);
      };
      multiply_and_check(A);
      scale_values<typename TestFixture::ExecSpace>(A.values, -1.75);  // values no longer TF32 numbers
      for (double& v : expect.values) v *= -1.75;
      handle.update_values(A);
      multiply_and_check(A);
      for (double& v : expect.values) v = 0.25 * std::round(4 * v);  // TF32 numbers again, in a new view
      const Matrix fresh = this->to_kk(expect);
      multiply_and_check(
          Matrix("A", A.numRows(), A.numCols(), A.nnz(), fresh.values, A.graph.row_map, A.graph.entries));
    }
}

TYPED_TEST_P(SpmmTest, HandleFreeOverloadAndCrsBundle) {
  using Scalar = typename TestFixture::Scalar;
  const auto A_host = random_crs(33, 21, 7, fresh_seed());
  // size_t offsets, KokkosSparse::CrsMatrix's default
  const auto A = impl::to_bundle<Scalar, size_t, typename TestFixture::MemorySpace>(A_host, "test");
  const auto B = this->to_view(random_dense(21, 3, 5));
  typename TestFixture::MultiVector C("C", 33, 3);
  Kokkos::deep_copy(C, this->nan());
  rsh::spmm("N", Scalar(2), A, B, Scalar(0), C);
  const Dense ref = reference_spmm(this->rounded(A_host), this->from_view(B), 2.0, 0.0, Dense(33, 3));
  EXPECT_LE(this->error(ref, C), spmm_tolerance<Scalar>(Options()));
}

// Handle-free calls in each mode: the first over A's CSR (or A^T's), the repeats through a cached analysis,
// which must see values and a pattern changed in place in A's own views.
TYPED_TEST_P(SpmmTest, HandleFreeRepeatsSeeInPlaceChanges) {
  using Scalar = typename TestFixture::Scalar;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const char* mode : {"N", "T"}) {
    SCOPED_TRACE(mode);
    const bool t = mode[0] == 'T';
    impl::HostCrs A_host = random_crs(200, 150, 9, seed, true);
    const auto A = TestFixture::to_kk(A_host);
    const auto B = this->to_view(random_dense(t ? 200 : 150, 4, seed + 1));
    typename TestFixture::MultiVector C("C", t ? 150 : 200, 4);
    auto expect_product = [&](const char* what) {
      Kokkos::deep_copy(C, this->nan());
      rsh::spmm(typename TestFixture::ExecSpace(), mode, Scalar(1), A, B, Scalar(0), C);
      const auto Ar = this->rounded(A_host);
      const Dense zero(C.extent(0), 4);
      const Dense ref = t ? reference_spmm_transposed(Ar, this->from_view(B), 1.0, 0.0, zero)
                          : reference_spmm(Ar, this->from_view(B), 1.0, 0.0, zero);
      EXPECT_LE(this->error(ref, C), spmm_tolerance<Scalar>(Options())) << what;
    };
    rsh::clear_analysis_cache();
    expect_product("first call, over A's CSR");
    expect_product("second call, analysed");
    expect_product("third call, the analysis reused");
    for (double& v : A_host.values) v = 0.25 - 0.5 * v;
    const auto values = Kokkos::create_mirror_view(A.values);
    for (size_t k = 0; k < A_host.values.size(); ++k) values(k) = static_cast<Scalar>(A_host.values[k]);
    Kokkos::deep_copy(A.values, values);
    expect_product("values changed in place");
    for (int& c : A_host.entries) c = (c + 1) % A_host.num_cols;  // rows stay duplicate-free, some unsorted
    const auto entries = Kokkos::create_mirror_view(A.graph.entries);
    for (size_t k = 0; k < A_host.entries.size(); ++k) entries(k) = A_host.entries[k];
    Kokkos::deep_copy(A.graph.entries, entries);
    expect_product("pattern changed in place");
    expect_product("pattern changed in place, analysed again");
    rsh::clear_analysis_cache();
    expect_product("after clearing the cache");
  }
}

/// Malformed CSR through the public entry: std::invalid_argument, C untouched.
TYPED_TEST_P(SpmmTest, RejectsMalformedCsr) {
  using Scalar = typename TestFixture::Scalar;
  using MemorySpace = typename TestFixture::MemorySpace;
  auto A_host = random_crs(12, 10, 4, fresh_seed());
  const auto B = this->to_view(random_dense(10, 2, 1));
  typename TestFixture::MultiVector C("C", 12, 2);
  auto bad = [&](impl::HostCrs A, const char* what) {
    SCOPED_TRACE(what);
    Kokkos::deep_copy(C, Scalar(3));
    typename TestFixture::Handle handle;
    EXPECT_THROW(
        rsh::spmm(&handle, "N", Scalar(1), impl::to_bundle<Scalar, int, MemorySpace>(A, "test"), B, Scalar(0), C),
        std::invalid_argument);
    EXPECT_EQ(this->from_view(C)(0, 0), 3.0);
    EXPECT_THROW(rsh::spmm("N", Scalar(1), impl::to_bundle<Scalar, int, MemorySpace>(A, "test"), B, Scalar(0), C),
                 std::invalid_argument)
        << "handle-free";
    EXPECT_EQ(this->from_view(C)(0, 0), 3.0);
  };
  impl::HostCrs col_out = A_host;
  col_out.entries.back() = 10;
  bad(col_out, "column out of range");
  impl::HostCrs negative = A_host;
  negative.entries.front() = -1;
  bad(negative, "negative column");
  impl::HostCrs decreasing = A_host;
  std::swap(decreasing.row_map[3], decreasing.row_map[4]);
  if (decreasing.row_map[3] != decreasing.row_map[4]) bad(decreasing, "decreasing offsets");
  impl::HostCrs no_entries = A_host;  // offsets of no empty matrix, and no entries: not "only scale C"
  no_entries.entries.clear(), no_entries.values.clear();
  for (size_t r = 0; r < no_entries.row_map.size(); ++r) no_entries.row_map[r] = -static_cast<int64_t>(r);
  bad(no_entries, "no entries, offsets below zero");
}

/// Every array of a pattern built on the execution space equals the host inspector's (the same phases on
/// the default host space), element by element: the scans of the walk, tiles and schedule are ordered.
template <class Pattern>
void expect_same_pattern(const impl::HostPattern& want, const Pattern& got_on_space) {
  const impl::HostPattern got = impl::mirror_pattern<Kokkos::HostSpace>(got_on_space);
  auto same = [](const auto& a, const auto& b, const char* name) {
    ASSERT_EQ(a.extent(0), b.extent(0)) << name;
    for (size_t i = 0; i < a.extent(0); ++i) ASSERT_EQ(a(i), b(i)) << name << " at " << i;
  };
  EXPECT_EQ(got.tc_num_unsplit, want.tc_num_unsplit);
  EXPECT_EQ(got.res_num_local, want.res_num_local);
  EXPECT_EQ(got.dense_blocks, want.dense_blocks);
  same(got.window_rows, want.window_rows, "window_rows");
  same(got.window_tile_offset, want.window_tile_offset, "window_tile_offset");
  same(got.tile_cols, want.tile_cols, "tile_cols");
  same(got.tile_bitmap, want.tile_bitmap, "tile_bitmap");
  same(got.tile_val_offset, want.tile_val_offset, "tile_val_offset");
  same(got.res_rows, want.res_rows, "res_rows");
  same(got.res_ptr, want.res_ptr, "res_ptr");
  same(got.res_cols, want.res_cols, "res_cols");
  same(got.value_dest, want.value_dest, "value_dest");
  same(got.tc_item_window, want.tc_item_window, "tc_item_window");
  same(got.tc_item_tile_begin, want.tc_item_tile_begin, "tc_item_tile_begin");
  same(got.tc_item_tile_end, want.tc_item_tile_end, "tc_item_tile_end");
  same(got.res_item_row, want.res_item_row, "res_item_row");
  same(got.res_item_begin, want.res_item_begin, "res_item_begin");
  same(got.res_item_end, want.res_item_end, "res_item_end");
  same(got.res_item_pieces, want.res_item_pieces, "res_item_pieces");
  same(got.scale_rows, want.scale_rows, "scale_rows");
}

TYPED_TEST_P(SpmmTest, InspectorOnTheSpaceMatchesTheHostOne) {
  using ExecSpace = typename TestFixture::ExecSpace;
  if (under_sanitizer() && std::is_same<typename TestFixture::Layout, Kokkos::LayoutLeft>::value)
    GTEST_SKIP() << "the inspection reads A alone: LayoutRight's configuration runs the same kernels";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<impl::HostCrs> matrices = {random_crs(3000, 2000, 24, seed), random_crs(1500, 1500, 6, seed + 1, true),
                                         random_crs(7, 9, 3, seed + 2)};
  impl::HostCrs unsorted;
  unsorted.num_rows = 3, unsorted.num_cols = 5;
  unsorted.row_map = {0, 4, 4, 6};
  unsorted.entries = {4, 1, 4, 0, 2, 2};
  unsorted.values = {1.0, 2.0, 3.0, 4.0, 5.0, -6.0};
  matrices.push_back(unsorted);
  for (const impl::HostCrs& A_host : matrices)
    for (Partition p : kAllPartitions)
      for (Reorder r : {Reorder::kNone, Reorder::kLocality, Reorder::kMinHash, Reorder::kAuto}) {
        Options o = options(p, 3, 8);
        o.reorder = r;
        o.window_statistics = true;
        o.tuning.reorder_cache_rows = 64;  // kAuto's B-row term on every space (host spaces' default: none)
        SCOPED_TRACE(std::string(partition_name(p)) + " " + reorder_name(r) + " " + std::to_string(A_host.num_rows));
        const auto A = TestFixture::to_kk(A_host);
        const auto got = impl::inspect_on(ExecSpace(), A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries,
                                          A.nnz(), o, "test", sizeof(typename TestFixture::Scalar));
        // kAuto's MinHash trial rule is the space's own (a GPU's model tries it only where it can pay): there
        // the host inspection takes the order the space applied; a space without a model decides as the host.
        const bool own_rule = r == Reorder::kAuto && impl::minhash_trial_model<ExecSpace>().applies();
        Options host = o;
        if (own_rule) host.reorder = got.reorder;
        const impl::Inspection want = impl::inspect(A_host, host, "test", sizeof(typename TestFixture::Scalar));
        if (!own_rule) EXPECT_EQ(got.reorder, want.reorder);
        EXPECT_EQ(got.partition, want.partition);
        EXPECT_EQ(got.signature, want.signature);
        // (The checks' hash is the handle-free call's and the pattern check's.)
        EXPECT_EQ(got.signature,
                  impl::pattern_signature_on(ExecSpace(), A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries));
        EXPECT_EQ(got.stats.max_row_nnz, want.stats.max_row_nnz);
        EXPECT_EQ(got.stats.row_length_histogram, want.stats.row_length_histogram);
        EXPECT_DOUBLE_EQ(got.stats.mean_window_distinct_cols, want.stats.mean_window_distinct_cols);
        expect_same_pattern(want.pattern, got.pattern);
      }
}

// kAuto's counted cost on the space equals the host's: a GPU counts the long windows over bitmaps, or by
// searches where their columns span past a bitmap or a window holds more nonzeros than one, and the host
// merges every window; in the rows' order and shuffled.
TYPED_TEST_P(SpmmTest, CountedCostOnTheSpaceMatchesTheHostOne) {
  using ExecSpace = typename TestFixture::ExecSpace;
  using Mem = typename ExecSpace::memory_space;
  if (!std::is_same<typename TestFixture::Layout, Kokkos::LayoutRight>::value ||
      sizeof(typename TestFixture::Scalar) != 4)
    GTEST_SKIP() << "the count reads A's pattern alone: one configuration of the space runs it";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<impl::HostCrs> matrices = {random_crs(600, 1500, 40, seed), random_crs(600, 70000, 40, seed + 1),
                                               random_crs(40, 70000, 5000, seed + 2),
                                               random_crs(900, 900, 3, seed + 3, true)};
  for (const impl::HostCrs& A_host : matrices) {
    SCOPED_TRACE(std::to_string(A_host.num_rows) + " x " + std::to_string(A_host.num_cols) + ", " +
                 std::to_string(A_host.nnz()) + " nonzeros");
    std::vector<int> order(static_cast<size_t>(A_host.num_rows));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    const auto A = TestFixture::to_kk(A_host);
    const ExecSpace exec;
    const impl::SortedCrs<Mem> sorted =
        impl::sorted_crs(exec, A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries, A.nnz(), "test");
    const impl::View1<int, Mem> on_space("order", order.size());
    Kokkos::deep_copy(on_space, impl::View1<const int, Kokkos::HostSpace>(order.data(), order.size()));
    for (const bool shuffled : {false, true}) {
      SCOPED_TRACE(shuffled ? "shuffled" : "in order");
      Options o;
      const auto got = impl::partition_cost_counted_on(
          exec, sorted, shuffled ? impl::View1<const int, Mem>(on_space) : impl::View1<const int, Mem>(), o,
          impl::Arithmetic::kFp16);
      const auto want = impl::partition_cost_counted_on(
          Kokkos::DefaultHostExecutionSpace(), impl::sorted_view_of(A_host),
          shuffled ? impl::View1<const int, Kokkos::HostSpace>(order.data(), order.size())
                   : impl::View1<const int, Kokkos::HostSpace>(),
          o, impl::Arithmetic::kFp16);
      EXPECT_EQ(got.cta_max_tiles, want.cta_max_tiles);
      EXPECT_EQ(got.windows, want.windows);
      EXPECT_EQ(got.residual_nnz, want.residual_nnz);
      EXPECT_EQ(got.cuda.items, want.cuda.items);
      EXPECT_EQ(got.cuda.piece_nnz, want.cuda.piece_nnz);
    }
  }
}

/// kAuto weighs the N of the call that analyses A: a handle first called with 64 columns takes the partition
/// the inspector picks for N = 64, one first called with 128 the one for 128, on a matrix where the two
/// differ; an explicit Options::expected_num_vectors wins over the call's N, and a negative one is refused.
/// Only FP64's models are fitted at more than one N, and spaces without a hand-written backend plan without
/// them.
TYPED_TEST_P(SpmmTest, AutoPartitionWeighsTheCallsN) {
  using Scalar = typename TestFixture::Scalar;
  using ExecSpace = typename TestFixture::ExecSpace;
  if (!impl::SpmmBackendAvail<ExecSpace>::value) GTEST_SKIP() << "the portable kernels plan without kAuto's models";
  if (sizeof(Scalar) != 8) GTEST_SKIP() << "only FP64's models are fitted at more than one N";
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  impl::HostCrs A_host;
  ASSERT_TRUE(n_dependent_auto_matrix(sizeof(Scalar), seed, A_host)) << "no matrix whose kAuto choice follows N";
  const auto A = this->to_kk(A_host);
  const auto choice = [&](int n) {
    Options o;
    o.expected_num_vectors = n;
    return impl::inspect(A_host, o, "test", sizeof(Scalar)).partition;
  };
  const auto multiply = [&](typename TestFixture::Handle& handle, int n) {
    const auto B = this->to_view(random_dense(A_host.num_cols, n, seed + n));
    typename TestFixture::MultiVector C("C", A_host.num_rows, n);
    rsh::spmm(ExecSpace(), &handle, "N", Scalar(1), A, B, Scalar(0), C);
    ExecSpace().fence();
    const Dense ref = reference_spmm(this->rounded(A_host), this->from_view(B), 1.0, 0.0, Dense(A_host.num_rows, n));
    EXPECT_LE(this->error(ref, C), spmm_tolerance<Scalar>(Options())) << "N = " << n;
  };
  for (int n : {64, 128}) {
    typename TestFixture::Handle handle;
    multiply(handle, n);
    EXPECT_EQ(handle.applied_partition(), choice(n)) << "first call's N = " << n;
  }
  Options fixed;
  fixed.expected_num_vectors = 128;
  typename TestFixture::Handle told(fixed);
  multiply(told, 64);
  EXPECT_EQ(told.applied_partition(), choice(128));
  fixed.expected_num_vectors = -1;
  typename TestFixture::Handle invalid(fixed);
  EXPECT_THROW(multiply(invalid, 64), std::invalid_argument);
}

/// A past Tuning::max_panel_nnz is analysed as row panels, each a format of its own writing its rows of C:
/// with panels of a couple hundred nonzeros, on every partition in both modes (A^T in panels too), through a
/// value refresh, and the handle-free multiply's panels. A row longer than a panel, and a panel size out of
/// range, are rejected.
TYPED_TEST_P(SpmmTest, RowPanelsPastTheFormatsLimit) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  using ExecSpace = typename TestFixture::ExecSpace;
  impl::HostCrs A_host = random_crs(131, 97, 14, fresh_seed(), true);
  for (double& v : A_host.values) v = std::fabs(v);
  Options o;
  o.tuning.max_panel_nnz = 200;
  for (Partition p : kAllPartitions) {
    o.partition = p;
    for (const char* mode : {"N", "T"}) this->check(A_host, 9, 1.5, 0.5, o, true, mode);
  }

  o.partition = Partition::kAuto;
  auto A = this->to_kk(A_host);
  const MultiVector B = this->to_view(random_dense(97, 12, 5));
  MultiVector C("C", 131, 12), C_free("C_free", 131, 12);
  const double tol = spmm_tolerance<Scalar>(o);
  const auto expect_product = [&](const MultiVector& got, const char* what) {
    ExecSpace().fence();
    EXPECT_LE(this->error(reference_spmm(this->rounded(A_host), this->from_view(B), 1.0, 0.0, Dense(131, 12)), got),
              tol)
        << what;
  };
  typename TestFixture::Handle handle(o);
  rsh::spmm(ExecSpace(), &handle, "N", Scalar(1), A, B, Scalar(0), C);
  EXPECT_GE(handle.num_row_panels(), size_t(A_host.nnz() / 200));
  EXPECT_NE(handle.describe().find("row panels"), std::string::npos);
  expect_product(C, "row panels");
  scale_values<ExecSpace>(A.values, -0.5);
  for (double& v : A_host.values) v *= -0.5;
  handle.update_values(A);
  rsh::spmm(ExecSpace(), &handle, "N", Scalar(1), A, B, Scalar(0), C);
  expect_product(C, "row panels after update_values");
  impl::spmm_csr(ExecSpace(), Mode::kNoTranspose, Scalar(1), A, B, Scalar(0), C_free, 200);
  expect_product(C_free, "handle-free row panels");

  o.tuning.max_panel_nnz = 10;  // rows of up to 14 nonzeros and more
  typename TestFixture::Handle narrow(o);
  EXPECT_THROW(rsh::spmm(ExecSpace(), &narrow, "N", Scalar(1), A, B, Scalar(0), C), std::invalid_argument);
  EXPECT_THROW(impl::spmm_csr(ExecSpace(), Mode::kNoTranspose, Scalar(1), A, B, Scalar(0), C_free, 10),
               std::invalid_argument);
  for (int64_t bad : {int64_t(0), Experimental::kMaxPanelNnz + 1}) {
    o.tuning.max_panel_nnz = bad;
    typename TestFixture::Handle invalid(o);
    EXPECT_THROW(rsh::spmm(ExecSpace(), &invalid, "N", Scalar(1), A, B, Scalar(0), C), std::invalid_argument);
  }
}

/// A format lives in memory its handle holds (on Kokkos::Cuda, blocks of the library's pool, which other
/// inspections take and give back around it): a handle keeps multiplying right while handles of other
/// matrices are analysed and destroyed before and after its own analysis.
TYPED_TEST_P(SpmmTest, FormatOutlivesOtherHandles) {
  using ExecSpace = typename TestFixture::ExecSpace;
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto churn = [&](uint64_t s) {
    for (int i = 0; i < 3; ++i) {
      const auto other = this->to_kk(random_crs(300, 200, 12, s + i));
      const auto B_other = this->to_view(random_dense(200, 8, s + i));
      MultiVector C_other("C_other", 300, 8);
      typename TestFixture::Handle h;
      rsh::spmm(ExecSpace(), &h, "N", Scalar(1), other, B_other, Scalar(0), C_other);
    }
    ExecSpace().fence();
  };
  churn(seed);
  const auto A_host = random_crs(257, 190, 20, seed + 7, true);
  const auto A = this->to_kk(A_host);
  const auto B = this->to_view(random_dense(190, 8, seed + 8));
  MultiVector C("C", 257, 8);
  typename TestFixture::Handle handle;
  rsh::spmm(ExecSpace(), &handle, "N", Scalar(1), A, B, Scalar(0), C);
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) EXPECT_NE(handle.pattern().storage, nullptr) << "pooled views";
#endif
  churn(seed + 100);
  Kokkos::deep_copy(C, this->nan());
  rsh::spmm(ExecSpace(), &handle, "N", Scalar(1), A, B, Scalar(0), C);
  ExecSpace().fence();
  const Dense ref = reference_spmm(this->rounded(A_host), this->from_view(B), 1.0, 0.0, Dense(257, 8));
  EXPECT_LE(this->error(ref, C), spmm_tolerance<Scalar>(handle.options()));
}

REGISTER_TYPED_TEST_SUITE_P(SpmmTest, InspectorOnTheSpaceMatchesTheHostOne, RandomMatricesAllPartitionsAndWidths,
                            AlphaBetaSemantics, EdgeCaseShapes, SplitWorkItemsAndExactMultiples,
                            ReorderedRowsGiveTheSameResult, UnsortedAndDuplicateColumnsAreSummed,
                            RowLengthsAcrossWorkItemCuts, Tf32OptIn, HandleReuseValueUpdateAndPatternCheck,
                            ValueRefreshOnEveryPartition, HandleFreeOverloadAndCrsBundle, RejectsMalformedCsr,
                            LongWindowsOfHubRows, AutoReorderingKeepsResults, HandleFreeRepeatsSeeInPlaceChanges,
                            TransposeOnEveryPartition, BothModesOnOneHandle, DeterministicModeRepeatsBitwise,
                            RowPanelsPastTheFormatsLimit, AutoPartitionWeighsTheCallsN, FormatOutlivesOtherHandles,
                            CountedCostOnTheSpaceMatchesTheHostOne);

/// Every (Scalar, Layout) of one execution space.
template <class E>
using SpmmConfigs = KokkosConfigs<E>;

}  // namespace test
}  // namespace rsh
