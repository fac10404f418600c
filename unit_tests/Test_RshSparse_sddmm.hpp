#pragma once
// rsh::sddmm through the public entry: one typed test suite over (Scalar,
// Layout, ExecSpace), instantiated per execution space by
// Test_<Backend>_RshSparse_sddmm.cpp. Every result is checked position by
// position against a double host reference, with a bound relative to the
// magnitude of the terms (sum |X(r, f) Y(c, f)|), which cancellation cannot
// make vanish.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "RshSparse_CrsBundle.hpp"
#include "RshSparse_sddmm.hpp"
#include "RshSparse_spmm.hpp"
#include "Test_RshSparse_common.hpp"
#include "Test_RshSparse_kokkos.hpp"

namespace rsh {
namespace test {

/// Bound on |got - ref| / (|alpha| sum_f |X Y| + |beta C0|) for what the dot products compute in: FP64
/// 1e-12, FP32 (3xTF32 or FP32 arithmetic) 1e-5, TF32 (opt-in) 5e-3, FP16 operands with FP32 sums 2e-3
/// and BF16 ones 5e-3 (the result rounded to FP16 or BF16: half an ulp is 2^-12 or 2^-9 of it).
template <class S>
double sddmm_tolerance(const Options& options) {
  if (std::is_same<S, double>::value) return 1e-12;
  if (is_bhalf<S>()) return 5e-3;
  if (is_half<S>()) return 2e-3;
  return options.allow_tf32 ? 5e-3 : 1e-5;
}

template <class Cfg>
class SddmmTest : public KokkosTest<Cfg> {
 protected:
  using Base = KokkosTest<Cfg>;
  using typename Base::ExecSpace;
  using typename Base::Handle;
  using typename Base::Matrix;
  using typename Base::MultiVector;
  using typename Base::Scalar;

  /// C's values on the host, in double.
  static std::vector<double> values_of(const Matrix& C) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.values);
    std::vector<double> v(h.extent(0));
    for (size_t j = 0; j < v.size(); ++j) v[j] = as_double(h(j));
    return v;
  }
  /// A matrix on A's graph (same row_map and entries views) with its own values, set to `fill`.
  static Matrix on_graph_of(const Matrix& A, Scalar fill) {
    typename Matrix::values_type values("sddmm_out", A.nnz());
    Kokkos::deep_copy(values, fill);
    return Matrix("out", A.numCols(), values, A.graph);
  }

  /// Half of FP16's smallest subnormal (2^-25): the absolute error of rounding a tiny product to FP16, which
  /// no relative bound covers (zero for the other scalars: BF16 has FP32's exponent range).
  static constexpr double kSubnormalRounding = is_half<Scalar>() ? 2.98023223876953125e-8 : 0.0;

  /// Every position's error against the double reference, beyond kSubnormalRounding, over the bound's scale;
  /// NaN counts as infinite.
  static double worst_error(const impl::HostCrs& A, const Dense& X, const Dense& Y, double alpha, double beta,
                            const std::vector<double>& before, const std::vector<double>& got) {
    double worst = 0.0;
    for (int64_t r = 0; r < A.num_rows; ++r)
      for (int64_t j = A.row_map[r]; j < A.row_map[r + 1]; ++j) {
        double dot = 0.0, scale = 0.0;
        for (int64_t f = 0; f < X.cols; ++f) {
          dot += X(r, f) * Y(A.entries[j], f);
          scale += std::fabs(X(r, f) * Y(A.entries[j], f));
        }
        const double c0 = beta == 0.0 ? 0.0 : beta * before[j];
        const double ref = alpha * dot + c0;
        const double bound_scale = std::fabs(alpha) * scale + std::fabs(c0) + 1e-30;
        if (!std::isfinite(got[j])) return std::numeric_limits<double>::infinity();
        worst = std::max(worst, std::max(0.0, std::fabs(got[j] - ref) - kSubnormalRounding) / bound_scale);
      }
    return worst;
  }

  /// One SDDMM on A's pattern with k features, through a fresh handle with each of the CUDA backend's
  /// kernels (C's CSR in spans or dense tiles, the format), called twice, and handle-free, against the
  /// reference; under the sanitizer each kernel once.
  void check(const impl::HostCrs& A, int k, double alpha, double beta, const Options& opt) {
    const uint64_t seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " k " + std::to_string(k) + " alpha " + std::to_string(alpha) +
                 " beta " + std::to_string(beta) + " " + partition_name(opt.partition) + " " + ExecSpace::name());
    const MultiVector X = this->to_view(random_dense(A.num_rows, k, seed));
    const MultiVector Y = this->to_view(random_dense(A.num_cols, k, seed + 1));
    const Dense Xd = this->from_view(X), Yd = this->from_view(Y);
    /// C on A's pattern, its values NaN where beta = 0 (they must be ignored); `run` writes them.
    const auto error_of = [&](const char* what, double tol, const auto& run) {
      SCOPED_TRACE(what);
      const Matrix C = this->to_kk(A);
      if (beta == 0) Kokkos::deep_copy(C.values, this->nan());
      const std::vector<double> before = values_of(C);
      run(C);
      ExecSpace().fence();
      EXPECT_LE(worst_error(A, Xd, Yd, alpha, beta, before, values_of(C)), tol);
    };
    using Experimental::SddmmKernels;
    for (const auto kernels :
         {SddmmKernels::kCsr, SddmmKernels::kDenseTiles, SddmmKernels::kPanels, SddmmKernels::kFormat}) {
      Options o = opt;
      o.tuning.sddmm_kernels = kernels;
      // Panels of 7 rows: panels end inside the test matrices, spans cross them.
      o.tuning.sddmm_panel_rows = 7;
      Handle handle(o);
      error_of(kernels == SddmmKernels::kCsr          ? "handle, CSR spans"
               : kernels == SddmmKernels::kDenseTiles ? "handle, CSR dense tiles"
               : kernels == SddmmKernels::kPanels     ? "handle, CSR spans in panel order"
                                                      : "handle, format kernels",
               sddmm_tolerance<Scalar>(o), [&](const Matrix& C) {
                 rsh::sddmm(ExecSpace(), &handle, static_cast<Scalar>(alpha), X, Y, static_cast<Scalar>(beta), C);
               });
      if (under_sanitizer()) continue;  // the same kernels again
      // A second call reuses what the first prepared.
      error_of("handle, second call", sddmm_tolerance<Scalar>(o), [&](const Matrix& C) {
        rsh::sddmm(ExecSpace(), &handle, static_cast<Scalar>(alpha), X, Y, static_cast<Scalar>(beta), C);
      });
    }
    if (under_sanitizer()) return;
    error_of("handle-free", sddmm_tolerance<Scalar>(Options()), [&](const Matrix& C) {
      rsh::sddmm(ExecSpace(), static_cast<Scalar>(alpha), X, Y, static_cast<Scalar>(beta), C);
    });
  }
};

TYPED_TEST_SUITE_P(SddmmTest);

TYPED_TEST_P(SddmmTest, EveryPartitionAndFeatureCount) {
  for (bool clustered : {false, true}) {
    const auto A = random_crs(131, 97, 14, fresh_seed(), clustered);
    for (Partition p : kAllPartitions)
      for (int k : {1, 7, 8, 16, 33, 64, 128, 300}) this->check(A, k, 1.0, 0.0, options(p));
  }
}

TYPED_TEST_P(SddmmTest, AlphaBetaSemantics) {
  const auto A = random_crs(70, 90, 12, fresh_seed(), true);
  const std::pair<double, double> cases[] = {{2.5, 0.0}, {1.0, 1.0}, {-1.0, -0.5}, {0.0, 0.75}};
  for (Partition p : {Partition::kTensorCoreOnly, Partition::kCudaCoreOnly, Partition::kAuto})
    for (const auto& ab : cases) this->check(A, 32, ab.first, ab.second, options(p));
}

TYPED_TEST_P(SddmmTest, EdgeCaseShapes) {
  const uint64_t s = fresh_seed();
  std::vector<impl::CooEntry> hub;  // rows 0 and 5 full: long rows cut into work items
  for (int c = 0; c < 300; ++c) hub.push_back({0, c, 1.0}), hub.push_back({5, c, -1.0});
  for (int r = 6; r < 40; ++r) hub.push_back({r, (r * 7) % 300, 0.5});
  const impl::HostCrs shapes[] = {
      impl::coo_to_crs(0, 0, {}),                              // empty matrix
      impl::coo_to_crs(7, 5, {}),                              // no nonzeros
      random_crs(1, 40, 40, s),                                // one row
      random_crs(50, 1, 1, s),                                 // one column
      random_crs(23, 301, 6, s),                               // wide
      random_crs(301, 23, 6, s),                               // tall
      shuffled_with_duplicates(random_crs(60, 50, 20, s), s),  // unsorted rows, duplicated positions
      impl::coo_to_crs(40, 300, hub),
  };
  for (const auto& A : shapes)
    for (Partition p : kAllPartitions) {
      this->check(A, 0, 1.0, 0.5, options(p, 2, 8));  // no features: beta * C alone
      this->check(A, 24, 1.0, 0.0, options(p, 2, 8));
    }
}

TYPED_TEST_P(SddmmTest, TensorCoreFloatPrecisions) {
  const auto A = random_crs(120, 100, 30, fresh_seed(), true);
  Options o = options(Partition::kTensorCoreOnly);
  this->check(A, 64, 1.0, 0.0, o);  // FP32-level (3xTF32 on the CUDA backend)
  o.allow_tf32 = true;
  this->check(A, 64, 1.0, 0.0, o);
}

/// Patterns that fill their 64 x 64 tiles, where kAuto runs dense tiles on the CUDA backend: sorted rows (then
/// tiles, handle and handle-free), unsorted rows with duplicates (then spans); k within one staged slice of
/// features (32) and past two, with ragged edges (rows and columns not multiples of 64). Its spans fill grids of
/// several waves, where the CUDA spans kernel loads one row at a time (the smaller tests' grids take the
/// batched loads).
TYPED_TEST_P(SddmmTest, DenseTilePatterns) {
  using Scalar = typename TestFixture::Scalar;
  const uint64_t s = fresh_seed();
  const auto sorted = random_crs(650, 1030, 700, s);
  const auto unsorted = shuffled_with_duplicates(sorted, s);
  const int tiles = ((650 + 63) / 64) * ((1030 + 63) / 64);
  ASSERT_GE(double(sorted.nnz()) / (4096.0 * tiles), 0.2) << "the pattern must fill its tiles (kAuto: 7%)";
  for (int k : {20, 72}) {
    this->check(sorted, k, 1.0, 0.0, Options());
    this->check(unsorted, k, -0.5, 2.0, Options());
    for (int rows : {32, 64}) {  // both block heights of the CUDA tile kernel, whichever the grid would take
      Options o;
      o.tuning.sddmm_tile_rows = rows;
      this->check(sorted, k, 1.0, 0.5, o);
    }
  }
#if defined(KOKKOS_ENABLE_CUDA)
  // Which kernel kAuto ran on the CUDA backend (FP64 has none: the portable kernels).
  if (std::is_same<typename TestFixture::ExecSpace, Kokkos::Cuda>::value && !std::is_same<Scalar, double>::value) {
    using MultiVector = typename TestFixture::MultiVector;
    const MultiVector X = this->to_view(random_dense(650, 72, s + 1)), Y = this->to_view(random_dense(1030, 72, s + 2));
    for (const auto* A : {&sorted, &unsorted}) {
      typename TestFixture::Handle handle;
      const auto C = this->to_kk(*A);
      rsh::sddmm(&handle, Scalar(1), X, Y, Scalar(0), C);
      Kokkos::fence();
      EXPECT_NE(handle.describe().find(A == &sorted ? "dense tiles of" : "spans of 8"), std::string::npos)
          << handle.describe();
      const std::vector<double> unused(A->values.size(), 0.0);
      EXPECT_LE(this->worst_error(*A, this->from_view(X), this->from_view(Y), 1.0, 0.0, unused, this->values_of(C)),
                sddmm_tolerance<Scalar>(Options()));
    }
  }
#endif
}

/// Spans in grids of many waves, where each group of the CUDA spans kernel takes 2 consecutive spans (grids of 8
/// waves or more) or 4 (16 or more): k = 128, a span a group of 32 lanes, 64 nonzeros a block; about 0.4M and
/// 1.2M nonzeros, 6250 and 18750 blocks, 2 and 4 spans a group on an H100 (528 blocks a wave). The CUDA
/// backend's float and 16-bit kernels only: the portable kernels have no grid of spans.
TYPED_TEST_P(SddmmTest, SpanGridsOfManyWaves) {
#if defined(KOKKOS_ENABLE_CUDA)
  using Scalar = typename TestFixture::Scalar;
  if (!std::is_same<typename TestFixture::ExecSpace, Kokkos::Cuda>::value || std::is_same<Scalar, double>::value)
    GTEST_SKIP() << "the CUDA spans kernel's grids only";
  const uint64_t s = fresh_seed();
  for (const auto& A : {random_crs(4000, 8000, 200, s), random_crs(8000, 8000, 300, s + 1)})
    this->check(A, 128, 1.0, 0.0, Options());
#else
  GTEST_SKIP() << "Kokkos is built without CUDA";
#endif
}

/// C past Tuning::max_panel_nnz: each of the handle's row panels writes its entries of C.
TYPED_TEST_P(SddmmTest, RowPanels) {
  const auto A = random_crs(131, 97, 14, fresh_seed(), true);
  for (Partition p : kAllPartitions) {
    Options o = options(p);
    o.tuning.max_panel_nnz = 200;
    this->check(A, 16, 1.5, 0.5, o);
  }
}

/// One handle serves spmm and sddmm on one pattern: an SDDMM into other values leaves the multiply's
/// values alone; one into the values the handle multiplies with is picked up by the next multiply.
TYPED_TEST_P(SddmmTest, OneHandleForSpmmAndSddmm) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto A_host = random_crs(90, 70, 10, seed, true);
  const auto A = this->to_kk(A_host);
  const MultiVector B = this->to_view(random_dense(70, 16, seed + 1));
  const MultiVector X = this->to_view(random_dense(90, 16, seed + 2));
  MultiVector C("C", 90, 16);
  typename TestFixture::Handle handle(options(Partition::kTensorCoreOnly));
  const double tol = spmm_tolerance<Scalar>(Options());
  const auto spmm_error = [&](const impl::HostCrs& with) {
    rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
    Kokkos::fence();
    return this->error(reference_spmm(this->rounded(with), this->from_view(B), 1.0, 0.0, Dense(90, 16)), C);
  };
  ASSERT_LE(spmm_error(A_host), tol);

  const auto gradient = this->on_graph_of(A, Scalar(0));  // d(loss)/d(values of A) for C = A B
  rsh::sddmm(&handle, Scalar(1), X, B, Scalar(0), gradient);
  Kokkos::fence();
  const std::vector<double> zero(A_host.values.size(), 0.0);
  EXPECT_LE(
      this->worst_error(A_host, this->from_view(X), this->from_view(B), 1.0, 0.0, zero, this->values_of(gradient)),
      sddmm_tolerance<Scalar>(Options()));
  EXPECT_LE(spmm_error(A_host), tol) << "the multiply still uses A's values";

  rsh::sddmm(&handle, Scalar(1), X, B, Scalar(0), A);  // attention-style: new values of A itself
  Kokkos::fence();
  impl::HostCrs updated = A_host;
  updated.values = this->values_of(A);
  EXPECT_LE(spmm_error(updated), tol) << "the multiply picks up the values SDDMM wrote";
}

TYPED_TEST_P(SddmmTest, RejectsBadArguments) {
  using Scalar = typename TestFixture::Scalar;
  using MultiVector = typename TestFixture::MultiVector;
  const auto A_host = random_crs(30, 20, 5, fresh_seed());
  const auto A = this->to_kk(A_host);
  const MultiVector X("X", 30, 8), Y("Y", 20, 8);
  typename TestFixture::Handle handle;
  EXPECT_THROW(rsh::sddmm(&handle, Scalar(1), MultiVector("X", 29, 8), Y, Scalar(0), A), std::invalid_argument);
  EXPECT_THROW(rsh::sddmm(&handle, Scalar(1), X, MultiVector("Y", 21, 8), Scalar(0), A), std::invalid_argument);
  EXPECT_THROW(rsh::sddmm(&handle, Scalar(1), X, MultiVector("Y", 20, 9), Scalar(0), A), std::invalid_argument);
  EXPECT_THROW(rsh::sddmm(Scalar(1), X, MultiVector("Y", 20, 9), Scalar(0), A), std::invalid_argument);
  EXPECT_THROW(rsh::sddmm(static_cast<typename TestFixture::Handle*>(nullptr), Scalar(1), X, Y, Scalar(0), A),
               std::invalid_argument);
  Options bad_tiles;
  bad_tiles.tuning.sddmm_tile_rows = 48;
  typename TestFixture::Handle bad_tiles_handle(bad_tiles);
  EXPECT_THROW(rsh::sddmm(&bad_tiles_handle, Scalar(1), X, Y, Scalar(0), A), std::invalid_argument);
  rsh::sddmm(&handle, Scalar(1), X, Y, Scalar(0), A);
  impl::HostCrs other = A_host;
  if (first_column_moved(other))
    EXPECT_THROW(rsh::sddmm(&handle, Scalar(1), X, Y, Scalar(0), this->to_kk(other)), std::invalid_argument);
  // A column id past the end, handle-free (set after the upload, which would refuse it).
  const auto bundle = impl::to_bundle<Scalar, int, typename TestFixture::MemorySpace>(A_host, "test");
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bundle.entries);
  entries(0) = 20;
  Kokkos::deep_copy(bundle.entries, entries);
  EXPECT_THROW(rsh::sddmm(typename TestFixture::ExecSpace(), Scalar(1), X, Y, Scalar(0), bundle),
               std::invalid_argument);
}

REGISTER_TYPED_TEST_SUITE_P(SddmmTest, EveryPartitionAndFeatureCount, AlphaBetaSemantics, EdgeCaseShapes,
                            TensorCoreFloatPrecisions, OneHandleForSpmmAndSddmm, RejectsBadArguments, RowPanels,
                            DenseTilePatterns, SpanGridsOfManyWaves);

}  // namespace test
}  // namespace rsh
