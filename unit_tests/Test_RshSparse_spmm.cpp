// rsh::spmm on the host execution space (portable kernels) against a double
// host reference and KokkosSparse::spmv, over DESIGN section 7's edge cases.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>

#include "RshSparse_spmm.hpp"
#include "Test_RshSparse_common.hpp"

namespace {

using rsh::test::Dense;
using Exec = Kokkos::DefaultHostExecutionSpace;
using Device = Kokkos::Device<Exec, Kokkos::HostSpace>;

template <class S, class L>
struct Config {
  using Scalar = S;
  using Layout = L;
  static double tolerance() { return std::is_same<S, float>::value ? 1e-5 : 1e-12; }
};

template <class Cfg>
class SpmmTest : public ::testing::Test {
 protected:
  using Scalar = typename Cfg::Scalar;
  using Layout = typename Cfg::Layout;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
  using MultiVector = Kokkos::View<Scalar**, Layout, Device>;

  static Matrix to_kk(const rsh::impl::HostCrs& A) {
    const auto b = rsh::impl::to_bundle<Scalar, int, Kokkos::HostSpace>(A, "test");
    return Matrix("A", b.num_rows, b.num_cols, b.nnz(), b.values, b.row_map, b.entries);
  }
  static MultiVector to_view(const Dense& d) {
    MultiVector v("v", d.rows, d.cols);
    for (int64_t i = 0; i < d.rows; ++i)
      for (int64_t j = 0; j < d.cols; ++j) v(i, j) = static_cast<Scalar>(d(i, j));
    return v;
  }
  /// Dense in double of what the view holds (so the reference sees the same rounding).
  static Dense from_view(const MultiVector& v) {
    Dense d(v.extent(0), v.extent(1));
    for (int64_t i = 0; i < d.rows; ++i)
      for (int64_t j = 0; j < d.cols; ++j) d(i, j) = static_cast<double>(v(i, j));
    return d;
  }

  /// One multiply, checked against the reference and against KokkosSparse::spmv. `nonnegative`
  /// makes A and B non-negative: for shapes where a column of C is one dot product, whose
  /// relative error under cancellation is unbounded in any precision.
  void check(const rsh::impl::HostCrs& A_signed, int n, double alpha, double beta, const rsh::Options& opt,
             bool nonnegative = false) {
    rsh::impl::HostCrs A_in = A_signed;
    if (nonnegative)
      for (double& v : A_in.values) v = std::fabs(v);
    const uint64_t seed = rsh::test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n) + " alpha " + std::to_string(alpha) +
                 " beta " + std::to_string(beta) + " " + rsh::partition_name(opt.partition));
    const Matrix A = to_kk(A_in);
    rsh::impl::HostCrs A_ref = A_in;  // values rounded to Scalar, as the multiply sees them
    for (double& v : A_ref.values) v = static_cast<double>(static_cast<Scalar>(v));
    Dense B_host = rsh::test::random_dense(A_in.num_cols, n, seed);
    if (nonnegative)
      for (double& v : B_host.v) v = std::fabs(v);
    const MultiVector B = to_view(B_host);
    MultiVector C = to_view(rsh::test::random_dense(A_in.num_rows, n, seed + 1));
    if (beta == 0) Kokkos::deep_copy(C, std::numeric_limits<Scalar>::quiet_NaN());  // must be ignored
    const Dense C0 = from_view(C);
    MultiVector C_kk("C_kk", C.extent(0), C.extent(1));
    Kokkos::deep_copy(C_kk, C);
    const Dense ref = rsh::test::reference_spmm(A_ref, from_view(B), alpha, beta, C0);

    rsh::SpmmHandle<Scalar, Device> handle(opt);
    rsh::spmm(Exec(), &handle, "N", static_cast<Scalar>(alpha), A, B, static_cast<Scalar>(beta), C);
    Exec().fence();
    KokkosSparse::spmv("N", static_cast<Scalar>(alpha), A, B, static_cast<Scalar>(beta), C_kk);
    EXPECT_LE(rsh::test::max_column_error(ref, [&](int64_t i, int64_t j) { return C(i, j); }), Cfg::tolerance());
    const Dense kk = from_view(C_kk);
    EXPECT_LE(rsh::test::max_column_error(kk, [&](int64_t i, int64_t j) { return C(i, j); }), 10 * Cfg::tolerance());
  }
};

using Configs = ::testing::Types<Config<float, Kokkos::LayoutRight>, Config<float, Kokkos::LayoutLeft>,
                                 Config<double, Kokkos::LayoutRight>, Config<double, Kokkos::LayoutLeft>>;
TYPED_TEST_SUITE(SpmmTest, Configs);

TYPED_TEST(SpmmTest, RandomMatricesAllPartitionsAndWidths) {
  for (bool clustered : {false, true}) {
    const auto A = rsh::test::random_crs(131, 97, 14, rsh::test::fresh_seed(), clustered);
    for (rsh::Partition p : rsh::test::kAllPartitions)
      for (int n : {1, 7, 16, 33}) this->check(A, n, 1.0, 0.0, rsh::test::options(p));
  }
}

TYPED_TEST(SpmmTest, AlphaBetaSemantics) {
  const auto A = rsh::test::random_crs(45, 60, 9, rsh::test::fresh_seed(), true);
  for (rsh::Partition p : rsh::test::kAllPartitions)
    for (auto ab : {std::make_pair(1.0, 1.0), std::make_pair(2.5, -0.5), std::make_pair(0.0, 2.0),
                    std::make_pair(0.0, 0.0), std::make_pair(-1.0, 0.0)})
      this->check(A, 5, ab.first, ab.second, rsh::test::options(p));
}

TYPED_TEST(SpmmTest, EdgeCaseShapes) {
  const uint64_t s = rsh::test::fresh_seed();
  for (rsh::Partition p : rsh::test::kAllPartitions) {
    this->check(rsh::impl::coo_to_crs(0, 0, {}), 3, 1.0, 0.0, rsh::test::options(p));            // empty matrix
    this->check(rsh::impl::coo_to_crs(7, 5, {}), 3, 1.0, 0.5, rsh::test::options(p));            // no nonzeros
    this->check(rsh::test::random_crs(1, 40, 40, s), 9, 1.0, 0.0, rsh::test::options(p), true);  // one row
    this->check(rsh::test::random_crs(50, 1, 1, s), 4, 1.0, 0.0, rsh::test::options(p));         // one column
    this->check(rsh::test::random_crs(23, 301, 6, s), 8, 1.5, 0.0, rsh::test::options(p));       // wide, non-square
    this->check(rsh::test::random_crs(301, 23, 6, s), 8, 1.5, 0.0, rsh::test::options(p));       // tall, non-square
  }
}

TYPED_TEST(SpmmTest, SplitWorkItemsAndExactMultiples) {
  // Tiny bounds force splits; a row of exactly 2 x 16 nonzeros and a window
  // of exactly 4 tiles land on the split boundary.
  std::vector<rsh::impl::CooEntry> coo;
  for (int c = 0; c < 32; ++c) coo.push_back({3, c, 0.25 * c});
  for (int r = 8; r < 16; ++r)
    for (int c = 0; c < 32; c += 1 + r % 3) coo.push_back({r, 40 + c, 1.0 - 0.1 * r});
  const auto A = rsh::impl::coo_to_crs(20, 80, coo);
  for (rsh::Partition p : rsh::test::kAllPartitions)
    for (int max_tiles : {1, 2, 4})
      for (double beta : {0.0, 0.75}) this->check(A, 6, 1.25, beta, rsh::test::options(p, max_tiles, 16));
}

TYPED_TEST(SpmmTest, ReorderedRowsGiveTheSameResult) {
  const auto A = rsh::test::random_crs(97, 80, 11, rsh::test::fresh_seed(), true);
  for (rsh::Reorder policy : rsh::kAllReorders)
    for (rsh::Partition p : rsh::test::kAllPartitions) {
      rsh::Options o = rsh::test::options(p, 2, 8);  // small items: split pieces of reordered windows too
      o.reorder = policy;
      SCOPED_TRACE(rsh::reorder_name(policy));
      for (double beta : {0.0, 0.5}) this->check(A, 9, 1.5, beta, o);
    }
}

TYPED_TEST(SpmmTest, UnsortedAndDuplicateColumnsAreSummed) {
  rsh::impl::HostCrs A;
  A.num_rows = 3;
  A.num_cols = 5;
  A.row_map = {0, 4, 4, 6};
  A.entries = {4, 1, 4, 0, 2, 2};
  A.values = {1.0, 2.0, 3.0, 4.0, 5.0, -6.0};
  for (rsh::Partition p : rsh::test::kAllPartitions) this->check(A, 3, 1.0, 0.0, rsh::test::options(p));
}

TYPED_TEST(SpmmTest, HandleReuseValueUpdateAndPatternCheck) {
  using Scalar = typename TypeParam::Scalar;
  auto A_host = rsh::test::random_crs(40, 40, 5, rsh::test::fresh_seed(), true);
  auto A = this->to_kk(A_host);
  const auto B = this->to_view(rsh::test::random_dense(40, 4, 3));
  typename TestFixture::MultiVector C("C", 40, 4);
  rsh::SpmmHandle<Scalar, Device> handle;
  rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
  ASSERT_TRUE(handle.is_analyzed());
  EXPECT_NE(handle.describe().find("RS-Tile"), std::string::npos);

  // In-place value change, then update_values: the result follows.
  for (size_t k = 0; k < A.values.extent(0); ++k) A.values(k) *= -2;
  for (double& v : A_host.values) v = static_cast<double>(static_cast<Scalar>(v * -2));
  handle.update_values(A);
  rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
  const Dense ref = rsh::test::reference_spmm(A_host, this->from_view(B), 1.0, 0.0, Dense(40, 4));
  EXPECT_LE(rsh::test::max_column_error(ref, [&](int64_t i, int64_t j) { return C(i, j); }), TypeParam::tolerance());

  // Another pattern of the same size is rejected; so are bad arguments.
  auto other = A_host;
  other.entries[0] = (other.entries[0] + 1) % 40;
  std::sort(other.entries.begin(), other.entries.begin() + other.row_map[1]);
  if (std::adjacent_find(other.entries.begin(), other.entries.begin() + other.row_map[1]) ==
      other.entries.begin() + other.row_map[1]) {
    EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), this->to_kk(other), B, Scalar(0), C), std::invalid_argument);
  }
  EXPECT_THROW(rsh::spmm(&handle, "T", Scalar(1), A, B, Scalar(0), C), std::invalid_argument);
  EXPECT_THROW(rsh::spmm(&handle, "X", Scalar(1), A, B, Scalar(0), C), std::invalid_argument);
  typename TestFixture::MultiVector C_bad("C_bad", 39, 4);
  EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C_bad), std::invalid_argument);
  typename TestFixture::MultiVector B_bad("B_bad", 40, 5);
  EXPECT_THROW(rsh::spmm(&handle, "N", Scalar(1), A, B_bad, Scalar(0), C), std::invalid_argument);
}

TYPED_TEST(SpmmTest, HandleFreeOverloadAndCrsBundle) {
  using Scalar = typename TypeParam::Scalar;
  const auto A_host = rsh::test::random_crs(33, 21, 7, rsh::test::fresh_seed());
  const auto A = rsh::impl::to_bundle<Scalar, size_t, Kokkos::HostSpace>(A_host, "test");
  const auto B = this->to_view(rsh::test::random_dense(21, 3, 5));
  typename TestFixture::MultiVector C("C", 33, 3);
  Kokkos::deep_copy(C, std::numeric_limits<Scalar>::quiet_NaN());
  rsh::spmm("N", Scalar(2), A, B, Scalar(0), C);
  auto A_ref = A_host;
  for (double& v : A_ref.values) v = static_cast<double>(static_cast<Scalar>(v));
  const Dense ref = rsh::test::reference_spmm(A_ref, this->from_view(B), 2.0, 0.0, Dense(33, 3));
  EXPECT_LE(rsh::test::max_column_error(ref, [&](int64_t i, int64_t j) { return C(i, j); }), TypeParam::tolerance());
}

}  // namespace
