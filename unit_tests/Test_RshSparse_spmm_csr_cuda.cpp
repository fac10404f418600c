// The raw API's handle-free multiply (rsh::cuda::spmm_csr) on the GPU against the double host reference:
// FP64, FP32, FP16 and BF16, 32- and 64-bit offsets, both layouts, rows on both sides of every work-item cut, unsorted
// and duplicate columns, and malformed CSR rejected before any read of B. Skips cleanly without a device.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "RshSparse_generators.hpp"
#include "Test_RshSparse_common.hpp"
#include "cuda/RshSparse_cuda_device_array.hpp"
#include "cuda/RshSparse_cuda_element.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"

namespace {

using rsh::cuda::DeviceArray;
using rsh::cuda::Layout;
using rsh::cuda::to_double;
using rsh::cuda::to_element;
using rsh::test::Dense;

/// A host CSR on the device with offsets of type Offset.
template <class T, class Offset>
struct DeviceCsrCopy {
  DeviceArray<Offset> row_map;
  DeviceArray<int> entries;
  DeviceArray<T> values;
  rsh::cuda::DeviceCsr<T, Offset> csr;

  explicit DeviceCsrCopy(const rsh::impl::HostCrs& A)
      : row_map(std::vector<Offset>(A.row_map.begin(), A.row_map.end())), entries(A.entries), values(elements(A)) {
    csr.num_rows = static_cast<int>(A.num_rows), csr.num_cols = static_cast<int>(A.num_cols);
    csr.nnz = A.nnz(), csr.row_map = row_map.get(), csr.entries = entries.get(), csr.values = values.get();
  }
  static std::vector<T> elements(const rsh::impl::HostCrs& A) {
    std::vector<T> out;
    for (double v : A.values) out.push_back(to_element<T>(v));
    return out;
  }
};

template <class T>
class CudaSpmmCsr : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  }
  /// DESIGN section 7: FP64 1e-12, FP32 1e-5, FP16 2e-2, BF16 5e-2.
  static double tolerance() {
    return std::is_same<T, double>::value          ? 1e-12
           : std::is_same<T, float>::value         ? 1e-5
           : std::is_same<T, __nv_bfloat16>::value ? 5e-2
                                                   : 2e-2;
  }

  /// C = alpha * A * B + beta * C through spmm_csr with Offset offsets, against the reference.
  template <class Offset>
  void check(rsh::impl::HostCrs A, int n, double alpha, double beta, Layout layout) {
    const uint64_t seed = rsh::test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n) + " offsets of " +
                 std::to_string(sizeof(Offset)) + " bytes " + (layout == Layout::kRowMajor ? "row" : "col") +
                 "-major beta " + std::to_string(beta));
    for (double& v : A.values) v = to_double(to_element<T>(std::fabs(v)));  // one dot product a column
    Dense B = rsh::test::random_dense(A.num_cols, n, seed), C0 = rsh::test::random_dense(A.num_rows, n, seed + 1);
    for (double& v : B.v) v = to_double(to_element<T>(std::fabs(v)));
    for (double& v : C0.v) v = to_double(to_element<T>(v));
    const Dense ref = rsh::test::reference_spmm(A, B, alpha, beta, C0);
    const bool row = layout == Layout::kRowMajor;
    const int64_t ldb = row ? n : A.num_cols, ldc = row ? n : A.num_rows;
    auto pack = [&](const Dense& d) {
      std::vector<T> out(d.rows * d.cols);
      for (int64_t i = 0; i < d.rows; ++i)
        for (int64_t j = 0; j < d.cols; ++j) out[row ? i * d.cols + j : j * d.rows + i] = to_element<T>(d(i, j));
      return out;
    };
    DeviceArray<T> dB(pack(B)), dC(pack(C0));
    const DeviceCsrCopy<T, Offset> dA(A);
    using Scalar = rsh::cuda::Accum<T>;
    rsh::cuda::spmm_csr(dA.csr, static_cast<Scalar>(alpha), dB.get(), ldb, static_cast<Scalar>(beta), dC.get(), ldc, n,
                        layout, nullptr);
    RSH_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<T> got = dC.download();
    EXPECT_LE(rsh::test::max_column_error(
                  ref, [&](int64_t i, int64_t j) { return to_double(got[row ? i * ldc + j : j * ldc + i]); }),
              tolerance());
  }
};

using Elements = ::testing::Types<double, float, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(CudaSpmmCsr, Elements);

/// Rows of the given lengths, then `short_rows` rows of one nonzero (which bring the piece length down).
rsh::impl::HostCrs rows_of_lengths(const std::vector<int>& lengths, int short_rows) {
  std::vector<rsh::impl::CooEntry> coo;
  int row = 0;
  for (int len : lengths) {
    for (int k = 0; k < len; ++k) coo.push_back({row, (k * 7919 + row * 31) % 2500, 0.5 + (k % 5) * 0.25});
    ++row;
  }
  for (int i = 0; i < short_rows; ++i, ++row) coo.push_back({row, (row * 13) % 2500, 1.0});
  return rsh::impl::coo_to_crs(row, 2500, coo);
}

/// Each row reversed and its first entry repeated: the multiply takes CSR in any order, duplicates summed.
rsh::impl::HostCrs unsorted_with_duplicates(const rsh::impl::HostCrs& A) {
  rsh::impl::HostCrs messy = A;
  messy.entries.clear(), messy.values.clear();
  for (int64_t r = 0; r < A.num_rows; ++r) {
    messy.row_map[r] = static_cast<int64_t>(messy.entries.size());
    for (int64_t k = A.row_map[r + 1] - 1; k >= A.row_map[r]; --k)
      messy.entries.push_back(A.entries[k]), messy.values.push_back(A.values[k]);
    if (A.row_map[r + 1] > A.row_map[r]) messy.entries.push_back(A.entries[A.row_map[r]]), messy.values.push_back(1.5);
  }
  messy.row_map[A.num_rows] = static_cast<int64_t>(messy.entries.size());
  return messy;
}

/// Rows on both sides of every cut (whole, runs of 2 / 4 / 8 pieces, atomic pieces) at the shortest piece
/// (many short rows) and the longest (long rows alone).
TYPED_TEST(CudaSpmmCsr, RowLengthsAcrossWorkItemCutsUnsortedAndDuplicates) {
  const std::vector<int> lengths = {0, 1, 16, 17, 32, 33, 64, 65, 128, 129, 300, 0, 2000, 7};
  for (int short_rows : {0, 300}) {
    const auto A = rows_of_lengths(lengths, short_rows);
    for (const auto& M : {A, unsorted_with_duplicates(A)})
      for (Layout layout : {Layout::kRowMajor, Layout::kColMajor})
        for (int n : {1, 8, 33, 128}) {
          this->template check<int>(M, n, 1.0, 0.0, layout);
          this->template check<int64_t>(M, n, 0.5, 0.75, layout);
        }
  }
}

TYPED_TEST(CudaSpmmCsr, PowerLawGraph) {
  const auto rmat = rsh::generate_rmat<double>(12, 8, rsh::test::fresh_seed());
  const auto A = rsh::impl::to_host_crs(rmat.num_rows, rmat.num_cols, rmat.row_map, rmat.entries, rmat.values);
  for (int n : {32, 128, 256}) this->template check<int>(A, n, 1.0, 0.5, Layout::kRowMajor);
}

TYPED_TEST(CudaSpmmCsr, RejectsMalformedCsr) {
  using T = TypeParam;
  const auto A = rsh::test::random_crs(12, 10, 4, 7);
  DeviceArray<T> dB(std::vector<T>(10 * 4, to_element<T>(1.0)));
  const std::vector<T> c0(12 * 4, to_element<T>(3.0));
  DeviceArray<T> dC(c0);
  auto rejects = [&](const rsh::impl::HostCrs& bad, const char* what) {
    SCOPED_TRACE(what);
    const DeviceCsrCopy<T, int> dA(bad);
    EXPECT_THROW(rsh::cuda::spmm_csr(dA.csr, 1.f, dB.get(), 4, 0.f, dC.get(), 4, 4, Layout::kRowMajor, nullptr),
                 std::invalid_argument);
    EXPECT_EQ(to_double(dC.download()[0]), 3.0);
  };
  auto col_out = A;
  col_out.entries.back() = 10;
  rejects(col_out, "column out of range");
  auto negative = A;
  negative.entries.front() = -1;
  rejects(negative, "negative column");
  auto decreasing = A;
  std::swap(decreasing.row_map[3], decreasing.row_map[4]);
  if (decreasing.row_map[3] != decreasing.row_map[4]) rejects(decreasing, "decreasing offsets");
  const DeviceCsrCopy<T, int> dA(A);
  EXPECT_THROW(rsh::cuda::spmm_csr(dA.csr, 1.f, dB.get(), 3, 0.f, dC.get(), 4, 4, Layout::kRowMajor, nullptr),
               std::invalid_argument);  // ldb < n
}

/// The SDDMM's panel order (rsh::cuda::sddmm_csr_panel_order) against the host's: every nonzero once, each
/// panel's by column and then by position (equal positions kept in A's order), padding that reads nothing, and
/// the count of distinct (panel, column) pairs; over unsorted rows with duplicates.
TEST(CudaSddmmPanelOrder, EachPanelByColumnThenPosition) {
  if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto A = rsh::test::shuffled_with_duplicates(rsh::test::random_crs(203, 150, 12, seed, true), seed);
  const DeviceCsrCopy<float, int64_t> dA(A);
  std::vector<int> row_of(static_cast<size_t>(A.nnz()));
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t j = A.row_map[r]; j < A.row_map[r + 1]; ++j) row_of[j] = static_cast<int>(r);
  const int64_t entries = rsh::cuda::sddmm_csr_panel_entries(A.nnz());
  ASSERT_EQ(entries % rsh::cuda::kSddmmCsrSpan, 0);
  for (int panel_rows : {1, 7, 64, 1000}) {
    SCOPED_TRACE("panel_rows " + std::to_string(panel_rows));
    DeviceArray<int> rows(entries), cols(entries), positions(entries);
    const int64_t pairs =
        rsh::cuda::sddmm_csr_panel_order(dA.csr.row_map, dA.csr.num_rows, A.nnz(), dA.csr.entries, panel_rows,
                                         rows.get(), cols.get(), positions.get(), nullptr);
    const auto hr = rows.download(), hc = cols.download(), hp = positions.download();
    std::vector<std::pair<int64_t, int64_t>> expected;  // (panel, column) then position, as the host sorts them
    for (int64_t j = 0; j < A.nnz(); ++j) expected.push_back({int64_t(row_of[j] / panel_rows) << 32 | A.entries[j], j});
    std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t distinct = 0;
    for (int64_t i = 0; i < A.nnz(); ++i) {
      ASSERT_EQ(hp[i], expected[i].second) << "entry " << i;
      EXPECT_EQ(hr[i], row_of[hp[i]]);
      EXPECT_EQ(hc[i], A.entries[hp[i]]);
      distinct += i == 0 || expected[i].first != expected[i - 1].first;
    }
    EXPECT_EQ(pairs, distinct);
    for (int64_t i = A.nnz(); i < entries; ++i) EXPECT_TRUE(hc[i] == -1 && hp[i] == -1 && hr[i] == 0) << "pad " << i;
  }
  EXPECT_THROW(rsh::cuda::sddmm_csr_panel_order(dA.csr.row_map, dA.csr.num_rows, A.nnz(), dA.csr.entries, 0, nullptr,
                                                nullptr, nullptr, nullptr),
               std::invalid_argument);
}

/// kAuto's CSR SDDMM kernel by A's tiles and their fill (no device needed): dense tiles from 12% fill with 128 tiles
/// or more, from 25% with 64 to 127, never with fewer or with unsorted rows.
TEST(CudaSddmmAutoKernel, DenseTilesByTileCountAndFill) {
  using rsh::cuda::sddmm_csr_auto_kernel;
  using rsh::cuda::SddmmCsrKernel;
  const auto nnz_at = [](int64_t tiles, double fill) { return static_cast<int64_t>(fill * 4096.0 * tiles) + 1; };
  EXPECT_EQ(sddmm_csr_auto_kernel(1024, 512, nnz_at(128, 0.12), true), SddmmCsrKernel::kDenseTiles);
  EXPECT_EQ(sddmm_csr_auto_kernel(1024, 512, nnz_at(128, 0.11), true), SddmmCsrKernel::kSpans);
  EXPECT_EQ(sddmm_csr_auto_kernel(512, 512, nnz_at(64, 0.25), true), SddmmCsrKernel::kDenseTiles);
  EXPECT_EQ(sddmm_csr_auto_kernel(512, 512, nnz_at(64, 0.2), true), SddmmCsrKernel::kSpans);
  EXPECT_EQ(sddmm_csr_auto_kernel(128, 1152, nnz_at(36, 0.5), true), SddmmCsrKernel::kSpans);
  EXPECT_EQ(sddmm_csr_auto_kernel(1024, 512, nnz_at(128, 0.5), false), SddmmCsrKernel::kSpans);
}

/// A random dense matrix in float, and the same values in double for the reference.
struct FloatDense {
  std::vector<float> f;
  Dense d;
  FloatDense(int64_t rows, int64_t cols, uint64_t seed) : d(rsh::test::random_dense(rows, cols, seed)) {
    f.assign(d.v.begin(), d.v.end());
    for (size_t i = 0; i < f.size(); ++i) d.v[i] = f[i];
  }
};

/// The largest error of got[j] against alpha * dot(X(r, :), Y(column of j, :)) in double over A's nonzeros j,
/// relative to the sum of the products' magnitudes.
double sddmm_worst_error(const rsh::impl::HostCrs& A, const Dense& X, const Dense& Y, double alpha,
                         const std::vector<float>& got) {
  double worst = 0.0;
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t j = A.row_map[r]; j < A.row_map[r + 1]; ++j) {
      double dot = 0.0, scale = 1e-30;
      for (int64_t f = 0; f < X.cols; ++f) {
        dot += X(r, f) * Y(A.entries[j], f);
        scale += std::fabs(X(r, f) * Y(A.entries[j], f));
      }
      worst = std::max(worst, std::fabs(got[j] - alpha * dot) / (std::fabs(alpha) * scale));
    }
  return worst;
}

/// The tile starts (sddmm_csr_tile_starts, 64-bit offsets) against a search of each row, and the dense-tile
/// SDDMM (SddmmCsrKernel::kDenseTiles) with and without them against the double reference: sorted rows with
/// adjacent duplicates and empty rows, partial tiles at both edges, k from one MMA step to more than one staged
/// chunk; starts of over INT_MAX nonzeros are refused.
TEST(CudaSddmmTileStarts, RowRangesAndTheTilesThatReadThem) {
  if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto A = rsh::test::random_crs(300, 260, 200, seed);
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t j = A.row_map[r] + 1; j < A.row_map[r + 1]; j += 7) A.entries[j] = A.entries[j - 1];
  const DeviceCsrCopy<float, int64_t> dA(A);
  const int64_t entries = rsh::cuda::sddmm_csr_tile_start_entries(A.num_rows, A.num_cols);
  DeviceArray<int> starts(static_cast<size_t>(entries));
  rsh::cuda::sddmm_csr_tile_starts(dA.csr.row_map, dA.csr.num_rows, dA.csr.num_cols, A.nnz(), dA.csr.entries,
                                   starts.get(), nullptr);
  const std::vector<int> got_starts = starts.download();
  const int64_t across = (A.num_cols + 63) / 64;
  ASSERT_EQ(entries, A.num_rows * (across + 1));
  for (int64_t r = 0; r < A.num_rows; ++r) {
    const auto begin = A.entries.begin() + A.row_map[r], end = A.entries.begin() + A.row_map[r + 1];
    for (int64_t c = 0; c <= across; ++c) {
      const auto first = c == across ? end : std::lower_bound(begin, end, static_cast<int>(64 * c));
      EXPECT_EQ(got_starts[r * (across + 1) + c], first - begin) << "row " << r << " tile column " << c;
    }
  }

  DeviceArray<float> out(static_cast<size_t>(A.nnz()));
  for (const int* prepared_starts : {static_cast<const int*>(nullptr), static_cast<const int*>(starts.get())}) {
    for (int k : {8, 300}) {
      SCOPED_TRACE(std::string(prepared_starts ? "starts" : "searches") + " k " + std::to_string(k));
      const FloatDense X(A.num_rows, k, seed + 1), Y(A.num_cols, k, seed + 2);
      const DeviceArray<float> dX(X.f), dY(Y.f);
      rsh::cuda::SddmmCsrPrepared prepared;
      prepared.tile_starts = prepared_starts;
      rsh::cuda::sddmm_csr(dA.csr, rsh::cuda::SddmmCsrKernel::kDenseTiles, prepared, 1.5f, dX.get(), k, dY.get(), k, k,
                           0.f, out.get(), nullptr);
      EXPECT_LE(sddmm_worst_error(A, X.d, Y.d, 1.5, out.download()), 1e-5);
    }
  }
  EXPECT_THROW(
      rsh::cuda::sddmm_csr_tile_starts<int64_t>(nullptr, 1, 1, int64_t(INT_MAX) + 1, nullptr, nullptr, nullptr),
      std::invalid_argument);
}

}  // namespace
