#pragma once
// What the typed tests through the public entry share, the KokkosKernels
// way: one configuration per (Scalar, Layout, ExecSpace), a fixture that
// moves matrices and dense operands between the host reference (doubles)
// and the execution space, and the configurations of one execution space.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "RshSparse_spmm_handle.hpp"
#include "impl/RshSparse_HostCrs.hpp"
#include "Test_RshSparse_common.hpp"

namespace rsh {
namespace test {

/// One instantiation: the scalar of A, B and C, their layout and the execution space.
template <class S, class L, class E>
struct KokkosConfig {
  using Scalar = S;
  using Layout = L;
  using ExecSpace = E;
  using Device = Kokkos::Device<E, typename E::memory_space>;
};

/// True for a 16-bit scalar: Kokkos' half_t (on Kokkos 3.4's host builds half_t is float) or bhalf_t.
template <class S>
constexpr bool is_16bit() {
  return !std::is_same<S, float>::value && !std::is_same<S, double>::value;
}
/// True for Kokkos' bfloat16 bhalf_t (where it is a type of its own).
template <class S>
constexpr bool is_bhalf() {
#if RSH_HAS_BHALF_T
  return std::is_same<S, Kokkos::Experimental::bhalf_t>::value;
#else
  return false;
#endif
}
/// True for Kokkos' binary16 half_t.
template <class S>
constexpr bool is_half() {
  return is_16bit<S>() && !is_bhalf<S>();
}

template <class S>
double as_double(S x) {
  return std::is_same<S, double>::value ? static_cast<double>(x) : static_cast<double>(static_cast<float>(x));
}

/// DESIGN section 7's bound for what the multiply computes in: FP64 1e-12, FP32 1e-5, TF32 (opt-in) 5e-3,
/// FP16 2e-2, BF16 5e-2. The portable kernels compute float in FP32 and accumulate 16-bit scalars in FP32.
template <class S>
double spmm_tolerance(const Options& options) {
  if (std::is_same<S, double>::value) return 1e-12;
  if (is_bhalf<S>()) return 5e-2;
  if (is_half<S>()) return 2e-2;
  return options.allow_tf32 ? 5e-3 : 1e-5;
}

/// values(k) *= factor on the execution space (a free function: nvcc rejects a device lambda in the
/// private TestBody of a gtest test).
template <class ExecSpace, class Values>
void scale_values(const Values& values, double factor) {
  using Scalar = typename Values::non_const_value_type;
  const Scalar f = static_cast<Scalar>(factor);
  Kokkos::parallel_for(
      "rsh::test::scale_values", Kokkos::RangePolicy<ExecSpace>(0, values.extent(0)),
      KOKKOS_LAMBDA(const int k) { values(k) = f * values(k); });
  Kokkos::fence();
}

/// A with row 0's first column moved one column on (another pattern of the same size); false where that
/// makes a duplicate in row 0 (which the format would sum, leaving the same pattern of slots).
inline bool first_column_moved(impl::HostCrs& A) {
  const auto first = A.entries.begin(), last = A.entries.begin() + A.row_map[1];
  if (first == last) return false;
  *first = static_cast<int>((*first + 1) % A.num_cols);
  std::sort(first, last);
  return std::adjacent_find(first, last) == last;
}

/// The fixture of one configuration: skips where its execution space has no device; converts between
/// the host reference's doubles and the space's matrices and views.
template <class Cfg>
class KokkosTest : public ::testing::Test {
 protected:
  using Scalar = typename Cfg::Scalar;
  using Layout = typename Cfg::Layout;
  using ExecSpace = typename Cfg::ExecSpace;
  using Device = typename Cfg::Device;
  using MemorySpace = typename Device::memory_space;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
  using MultiVector = Kokkos::View<Scalar**, Layout, Device>;
  using Handle = SpmmHandle<Scalar, Device>;

  void SetUp() override {
    if (!backend_available()) GTEST_SKIP() << "no device for " << ExecSpace::name();
  }

  /// False where the execution space is a GPU and no GPU is present (the build itself needs none).
  static bool backend_available() {
#if defined(KOKKOS_ENABLE_CUDA)
    if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
      int count = 0;
      return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    }
#endif
    return true;
  }

  static Matrix to_kk(const impl::HostCrs& A) {
    const auto b = impl::to_bundle<Scalar, int, MemorySpace>(A, "test");
    return Matrix("A", b.num_rows, b.num_cols, b.nnz(), b.values, b.row_map, b.entries);
  }
  static MultiVector to_view(const Dense& d) {
    MultiVector v("v", d.rows, d.cols);
    auto h = Kokkos::create_mirror_view(v);
    for (int64_t i = 0; i < d.rows; ++i)
      for (int64_t j = 0; j < d.cols; ++j) h(i, j) = static_cast<Scalar>(d(i, j));
    Kokkos::deep_copy(v, h);
    return v;
  }
  /// Dense in double of what the view holds (so the reference sees the same rounding).
  static Dense from_view(const MultiVector& v) {
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    Dense d(v.extent(0), v.extent(1));
    for (int64_t i = 0; i < d.rows; ++i)
      for (int64_t j = 0; j < d.cols; ++j) d(i, j) = as_double(h(i, j));
    return d;
  }
  static Scalar nan() {
    return static_cast<Scalar>(std::numeric_limits<float>::quiet_NaN());
  }
  /// A's values as the multiply sees them (rounded to Scalar).
  static impl::HostCrs rounded(impl::HostCrs A) {
    for (double& v : A.values) v = as_double(static_cast<Scalar>(v));
    return A;
  }
  static double error(const Dense& ref, const MultiVector& C) {
    const Dense got = from_view(C);
    return max_column_error(ref, [&](int64_t i, int64_t j) { return got(i, j); });
  }
};

/// Every (Scalar, Layout) of one execution space: float, double and, where each is a type of its own,
/// half_t and bhalf_t.
template <class E>
using KokkosConfigs =
    ::testing::Types<KokkosConfig<float, Kokkos::LayoutRight, E>, KokkosConfig<float, Kokkos::LayoutLeft, E>,
                     KokkosConfig<double, Kokkos::LayoutRight, E>, KokkosConfig<double, Kokkos::LayoutLeft, E>
#if !defined(KOKKOS_HALF_T_IS_FLOAT) || !KOKKOS_HALF_T_IS_FLOAT
                     ,
                     KokkosConfig<Kokkos::Experimental::half_t, Kokkos::LayoutRight, E>,
                     KokkosConfig<Kokkos::Experimental::half_t, Kokkos::LayoutLeft, E>
#endif
#if RSH_HAS_BHALF_T
                     ,
                     KokkosConfig<Kokkos::Experimental::bhalf_t, Kokkos::LayoutRight, E>,
                     KokkosConfig<Kokkos::Experimental::bhalf_t, Kokkos::LayoutLeft, E>
#endif
                     >;

}  // namespace test
}  // namespace rsh
