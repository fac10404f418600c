#pragma once
// rsh::spmm: C = alpha * op(A) * B + beta * C for sparse A and rank-2 B, C,
// with the argument order of KokkosSparse::spmv(mode, alpha, A, X, beta, Y).
// beta == 0 overwrites C (NaN in C is ignored); alpha == 0 or an empty A only
// scales C. Only op = "N" is supported; "T" throws std::invalid_argument.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "RshSparse_Error.hpp"
#include "RshSparse_spmm_handle.hpp"
#include "impl/RshSparse_analysis_cache.hpp"
#include "impl/RshSparse_spmm_spec.hpp"

namespace rsh {

enum class Mode { kNoTranspose, kTranspose };

/// "N"/"n" or "T"/"t" as in KokkosSparse::spmv; anything else throws.
inline Mode mode_from_string(const char mode[]) {
  const std::string m = mode ? mode : "";
  if (m == "N" || m == "n") return Mode::kNoTranspose;
  if (m == "T" || m == "t") return Mode::kTranspose;
  throw std::invalid_argument("rsh::spmm: unknown mode '" + m + "' (expected \"N\" or \"T\")");
}

namespace impl {

template <class ExecSpace, class Matrix, class BView, class CView>
void check_spmm_args(Mode mode, const Matrix& A, const BView& B, const CView& C) {
  static_assert(Kokkos::is_view<BView>::value && Kokkos::is_view<CView>::value, "rsh::spmm: B and C must be Views");
  static_assert(static_cast<int>(BView::rank) == 2 && static_cast<int>(CView::rank) == 2,
                "rsh::spmm: B and C must be rank-2 Views");
  static_assert(std::is_same<typename CView::value_type, typename CView::non_const_value_type>::value,
                "rsh::spmm: C must be non-const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename CView::memory_space>::accessible,
                "rsh::spmm: B and C must be accessible from the execution space");
  if (mode != Mode::kNoTranspose) throw std::invalid_argument("rsh::spmm: mode \"T\" is not supported (only \"N\")");
  using Acc = MatrixAccess<Matrix>;
  const int64_t m = Acc::num_rows(A), k = Acc::num_cols(A);
  if (static_cast<int64_t>(B.extent(0)) != k || static_cast<int64_t>(C.extent(0)) != m || B.extent(1) != C.extent(1))
    throw std::invalid_argument("rsh::spmm: dimension mismatch: A is " + std::to_string(m) + " x " + std::to_string(k) +
                                ", B is " + std::to_string(B.extent(0)) + " x " + std::to_string(B.extent(1)) +
                                ", C is " + std::to_string(C.extent(0)) + " x " + std::to_string(C.extent(1)));
}

}  // namespace impl

/// Multiplies with an analysed handle (analysed on first use).
template <class ExecSpace, class Scalar, class Device, class Matrix, class BView, class CView>
void spmm(const ExecSpace& exec, SpmmHandle<Scalar, Device>* handle, Mode mode, typename CView::const_value_type alpha,
          const Matrix& A, const BView& B, typename CView::const_value_type beta, const CView& C) {
  static_assert(std::is_same<typename CView::non_const_value_type, Scalar>::value,
                "rsh::spmm: C's value type must be the handle's Scalar");
  RSH_REQUIRE(handle != nullptr, "rsh::spmm: null handle");
  impl::check_spmm_args<ExecSpace>(mode, A, B, C);
  Kokkos::Profiling::pushRegion("rsh::spmm");
  if (alpha == 0 || impl::MatrixAccess<Matrix>::entries(A).extent(0) == 0) {
    impl::scale_all(exec, beta, C);
  } else {
    handle->prepare(A);
    impl::Spmm<ExecSpace, SpmmHandle<Scalar, Device>, BView, CView>::run(exec, *handle, alpha, B, beta, C);
  }
  Kokkos::Profiling::popRegion();
}

template <class ExecSpace, class Scalar, class Device, class Matrix, class BView, class CView>
void spmm(const ExecSpace& exec, SpmmHandle<Scalar, Device>* handle, const char mode[],
          typename CView::const_value_type alpha, const Matrix& A, const BView& B,
          typename CView::const_value_type beta, const CView& C) {
  spmm(exec, handle, mode_from_string(mode), alpha, A, B, beta, C);
}

/// With a handle, on the default instance of the handle's execution space.
template <class Scalar, class Device, class Matrix, class BView, class CView>
void spmm(SpmmHandle<Scalar, Device>* handle, const char mode[], typename CView::const_value_type alpha,
          const Matrix& A, const BView& B, typename CView::const_value_type beta, const CView& C) {
  spmm(typename Device::execution_space(), handle, mode_from_string(mode), alpha, A, B, beta, C);
}

/// Handle-free, on `exec`. The first call on A's views multiplies over A's own CSR arrays with no
/// inspection (CUDA cores or the portable kernels, in the scalar's precision; rows in any order,
/// duplicates summed); a repeated call on the same views analyses A once into a handle that later calls
/// reuse (impl::AnalysisCache). Every call hashes A's pattern and values on the execution space and waits
/// for that, so values or a pattern changed in place are picked up. rsh::clear_analysis_cache() frees the
/// analyses kept.
template <class ExecSpace, class Matrix, class BView, class CView,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmm(const ExecSpace& exec, const char mode[], typename CView::const_value_type alpha, const Matrix& A,
          const BView& B, typename CView::const_value_type beta, const CView& C) {
  impl::check_spmm_args<ExecSpace>(mode_from_string(mode), A, B, C);
  Kokkos::Profiling::pushRegion("rsh::spmm");
  if (alpha == 0 || impl::MatrixAccess<Matrix>::entries(A).extent(0) == 0)
    impl::scale_all(exec, beta, C);
  else
    impl::AnalysisCache<typename CView::non_const_value_type,
                        Kokkos::Device<ExecSpace, typename impl::MatrixAccess<Matrix>::memory_space>>::instance()
        .multiply(
            exec, A, [&](auto& handle) { spmm(exec, &handle, Mode::kNoTranspose, alpha, A, B, beta, C); },
            [&] { impl::SpmmCsr<ExecSpace, Matrix, BView, CView>::run(exec, alpha, A, B, beta, C); });
  Kokkos::Profiling::popRegion();
}

/// Handle-free, on the default instance of C's execution space.
template <class Matrix, class BView, class CView>
void spmm(const char mode[], typename CView::const_value_type alpha, const Matrix& A, const BView& B,
          typename CView::const_value_type beta, const CView& C) {
  spmm(typename CView::execution_space(), mode, alpha, A, B, beta, C);
}

}  // namespace rsh
