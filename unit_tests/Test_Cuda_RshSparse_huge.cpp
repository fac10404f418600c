// rsh::spmm on Kokkos::Cuda past 2^31 nonzeros: a KokkosSparse::CrsMatrix with size_t offsets (KokkosKernels'
// default) generated on the device, 2^24 rows of 130 nonzeros (2.18e9) in FP16, multiplied handle-free and
// through a handle (both in row panels of at most 2^30 nonzeros), every sampled row checked against a double
// host reference. Skips without a GPU, or without the memory the matrix and its analysis take.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <KokkosSparse_CrsMatrix.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "RshSparse_spmm.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"

namespace {

using Scalar = Kokkos::Experimental::half_t;
using Device = Kokkos::Device<Kokkos::Cuda, Kokkos::CudaSpace>;
using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, size_t>;
using MultiVector = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
using Range = Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<int64_t>>;

constexpr int64_t kRows = int64_t(1) << 24, kRowNnz = 130, kNnz = kRows * kRowNnz;
constexpr int kCols = 1 << 24, kFeatures = 8;
constexpr int kBand = kCols / kRowNnz;  ///< entry j of a row lies in columns [j * kBand, (j + 1) * kBand)
static_assert(kNnz > (int64_t(1) << 31), "the matrix must pass 32-bit offsets");

KOKKOS_INLINE_FUNCTION uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ULL;
  x = (x ^ (x >> 27)) * 0x81dadef4bc2dd44dULL;
  return x ^ (x >> 33);
}
// Entry k of A (row k / kRowNnz, sorted columns) and B(c, f), small dyadic numbers: every product and every
// FP32 partial sum is exact, so the FP16 result differs from the reference by its final rounding alone.
KOKKOS_INLINE_FUNCTION int column_of(int64_t k) {
  return static_cast<int>(k % kRowNnz) * kBand + static_cast<int>(mix(uint64_t(k)) % kBand);
}
KOKKOS_INLINE_FUNCTION double value_of(int64_t k) {
  return double(mix(uint64_t(k) ^ 0x5bd1e995ULL) % 8 + 1) / 8;  // 1/8 .. 1
}
KOKKOS_INLINE_FUNCTION double b_of(int64_t c, int f) {
  return (double(mix(uint64_t(c) * kFeatures + f) % 9) - 4) / 4;  // -1 .. 1 in steps of 1/4
}

Matrix generated_matrix() {
  Matrix::row_map_type::non_const_type row_map(Kokkos::view_alloc("huge::row_map", Kokkos::WithoutInitializing),
                                               kRows + 1);
  Matrix::index_type::non_const_type entries(Kokkos::view_alloc("huge::entries", Kokkos::WithoutInitializing), kNnz);
  Matrix::values_type values(Kokkos::view_alloc("huge::values", Kokkos::WithoutInitializing), kNnz);
  Kokkos::parallel_for(
      "huge::row_map", Range(0, kRows + 1), KOKKOS_LAMBDA(const int64_t r) { row_map(r) = size_t(r * kRowNnz); });
  Kokkos::parallel_for(
      "huge::entries", Range(0, kNnz), KOKKOS_LAMBDA(const int64_t k) {
        entries(k) = column_of(k);
        values(k) = static_cast<Scalar>(static_cast<float>(value_of(k)));
      });
  return Matrix("huge", static_cast<int>(kRows), kCols, static_cast<size_t>(kNnz), values, row_map, entries);
}

MultiVector generated_b() {
  const MultiVector B(Kokkos::view_alloc("huge::B", Kokkos::WithoutInitializing), kCols, kFeatures);
  Kokkos::parallel_for(
      "huge::B", Range(0, int64_t(kCols) * kFeatures), KOKKOS_LAMBDA(const int64_t i) {
        const int64_t c = i / kFeatures;
        const int f = static_cast<int>(i % kFeatures);
        B(c, f) = static_cast<Scalar>(static_cast<float>(b_of(c, f)));
      });
  return B;
}

/// Rows on both sides of every 2^30-nonzero panel cut, the first and last, and rows spread between.
std::vector<int64_t> sampled_rows() {
  const int64_t per_panel = (int64_t(1) << 30) / kRowNnz;
  std::vector<int64_t> rows = {0, 1, per_panel - 1, per_panel, 2 * per_panel - 1, 2 * per_panel, kRows - 1};
  for (int64_t i = 1; i < 64; ++i) rows.push_back(i * (kRows / 64) + 7 * i);
  return rows;
}

/// Largest |C(r, f) - reference| / max(1, |reference|) over the sampled rows.
double worst_sampled_error(const MultiVector& C) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  double worst = 0;
  for (int64_t r : sampled_rows())
    for (int f = 0; f < kFeatures; ++f) {
      double ref = 0;
      for (int64_t k = r * kRowNnz; k < (r + 1) * kRowNnz; ++k) ref += value_of(k) * b_of(column_of(k), f);
      const double got = static_cast<double>(static_cast<float>(h(r, f)));
      worst = std::fmax(worst, std::fabs(got - ref) / std::fmax(1.0, std::fabs(ref)));
    }
  return worst;
}

size_t free_device_bytes() {
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return 0;
  return free;
}

TEST(CudaHugeMatrix, MoreThan2To31NonzerosWithSizeTOffsets) {
  if (!rsh::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  constexpr size_t kMatrixBytes = size_t(kNnz) * (sizeof(int) + sizeof(Scalar)) + size_t(kRows + 1) * sizeof(size_t);
  if (free_device_bytes() < kMatrixBytes + (size_t(4) << 30))
    GTEST_SKIP() << "the matrix takes " << kMatrixBytes << " bytes of device memory; " << free_device_bytes()
                 << " are free";
  const Matrix A = generated_matrix();
  const MultiVector B = generated_b();
  MultiVector C("huge::C", kRows, kFeatures);
  // One FP16 rounding of an exact FP32 sum: within an ulp, 2^-10 relative, whichever the rounding mode.
  constexpr double kBound = 1.0 / 1024;

  rsh::spmm("N", Scalar(1), A, B, Scalar(0), C);  // handle-free: over A's CSR, in row panels
  Kokkos::fence();
  EXPECT_LE(worst_sampled_error(C), kBound) << "handle-free";

  // A handle's analysis holds A's values once more, plus its sort and item scratch for one panel.
  if (free_device_bytes() < kMatrixBytes + (size_t(20) << 30))
    GTEST_SKIP() << "the handle's analysis needs more device memory than the " << free_device_bytes() << " bytes free";
  Kokkos::deep_copy(C, Scalar(0));
  rsh::SpmmHandle<Scalar, Device> handle;
  rsh::spmm(&handle, "N", Scalar(1), A, B, Scalar(0), C);
  Kokkos::fence();
  EXPECT_EQ(handle.num_row_panels(), size_t((kNnz + (int64_t(1) << 30) - 1) >> 30));
  EXPECT_LE(worst_sampled_error(C), kBound) << "with a handle: " << handle.describe();
}

}  // namespace

#else
TEST(CudaHugeMatrix, MoreThan2To31NonzerosWithSizeTOffsets) {
  GTEST_SKIP() << "Kokkos is built without CUDA";
}
#endif
