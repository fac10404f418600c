#pragma once
// rsh::spmm: C = alpha * op(A) * B + beta * C for sparse A and rank-2 B, C,
// with the argument order of KokkosSparse::spmv(mode, alpha, A, X, beta, Y).
// beta == 0 overwrites C (NaN in C is ignored); alpha == 0 (A is not read) or
// an A without entries (its row_map checked) only scales C. op = "T" multiplies with an analysis of A^T that the handle
// builds on the first such call (SpmmHandle::prepare_transpose).
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
  using Acc = MatrixAccess<Matrix>;
  const int64_t m = Acc::num_rows(A), k = Acc::num_cols(A);
  const bool t = mode == Mode::kTranspose;  // op(A) is k x m
  if (static_cast<int64_t>(B.extent(0)) != (t ? m : k) || static_cast<int64_t>(C.extent(0)) != (t ? k : m) ||
      B.extent(1) != C.extent(1))
    throw std::invalid_argument(std::string("rsh::spmm: dimension mismatch: ") + (t ? "A^T of " : "") + "A is " +
                                std::to_string(m) + " x " + std::to_string(k) + ", B is " +
                                std::to_string(B.extent(0)) + " x " + std::to_string(B.extent(1)) + ", C is " +
                                std::to_string(C.extent(0)) + " x " + std::to_string(C.extent(1)));
}

/// Where the multiply only scales C, does that and returns true: alpha == 0 (A is not read, as in BLAS),
/// or A has no entries (after a check that its row_map is one of an empty matrix).
template <class ExecSpace, class Matrix, class CView>
bool scaled_only(const ExecSpace& exec, typename CView::const_value_type alpha, const Matrix& A,
                 typename CView::const_value_type beta, const CView& C) {
  if (alpha != 0 && MatrixAccess<Matrix>::entries(A).extent(0) != 0) return false;
  if (alpha != 0) check_crs_on(exec, A, "rsh::spmm");
  scale_all(exec, beta, C);
  return true;
}

/// The handle-free multiply with no inspection: over A's CSR arrays (in row panels of at most
/// max_panel_nnz nonzeros where A holds more, as a handle's analysis), or for op = "T" over A^T's CSR,
/// transposed on the execution space for this call.
template <class ExecSpace, class Matrix, class BView, class CView>
void spmm_csr(const ExecSpace& exec, Mode op, typename CView::const_value_type alpha, const Matrix& A, const BView& B,
              typename CView::const_value_type beta, const CView& C,
              int64_t max_panel_nnz = Experimental::kMaxPanelNnz) {
  using Acc = MatrixAccess<Matrix>;
  using Scalar = typename CView::non_const_value_type;
  using Mem = typename ExecSpace::memory_space;
  if (op == Mode::kNoTranspose) {
    if (static_cast<int64_t>(Acc::entries(A).extent(0)) <= max_panel_nnz)
      return SpmmCsr<ExecSpace, Matrix, BView, CView>::run(exec, alpha, A, B, beta, C);
    for (const auto& rows : row_panels_on<Mem>(exec, A, max_panel_nnz, "rsh::spmm")) {
      const auto panel = panel_matrix<const Scalar>(A, rows);
      const auto C_rows = panel_rows(C, rows);
      SpmmCsr<ExecSpace, std::decay_t<decltype(panel)>, BView, std::decay_t<decltype(C_rows)>>::run(exec, alpha, panel,
                                                                                                    B, beta, C_rows);
    }
    return;
  }
  const TransposeOf<Mem> T = transpose_on(exec, Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A),
                                          static_cast<int64_t>(Acc::values(A).extent(0)), "rsh::spmm (mode \"T\")");
  const CrsBundle<Scalar, int64_t, Mem> At = transposed_bundle_on<Scalar>(exec, T, Acc::values(A));
  SpmmCsr<ExecSpace, CrsBundle<Scalar, int64_t, Mem>, BView, CView>::run(exec, alpha, At, B, beta, C);
}

/// C = alpha * A * B + beta * C with a handle's analysis of A: its one format, or each row panel's into the
/// panel's rows of C.
template <class ExecSpace, class Handle, class BView, class CView>
void spmm_analysed(const ExecSpace& exec, Handle& handle, typename CView::const_value_type alpha, const BView& B,
                   typename CView::const_value_type beta, const CView& C) {
  if (handle.num_row_panels() == 0) return Spmm<ExecSpace, Handle, BView, CView>::run(exec, handle, alpha, B, beta, C);
  for (size_t i = 0; i < handle.num_row_panels(); ++i) {
    const auto C_rows = panel_rows(C, handle.row_panel(i));
    Spmm<ExecSpace, Handle, BView, std::decay_t<decltype(C_rows)>>::run(exec, handle.row_panel_handle(i), alpha, B,
                                                                        beta, C_rows);
  }
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
  if (!impl::scaled_only(exec, alpha, A, beta, C)) {
    using Handle = SpmmHandle<Scalar, Device>;
    const int n = static_cast<int>(B.extent(1));
    Handle& analysed = mode == Mode::kTranspose ? handle->prepare_transpose(A, n) : (handle->prepare(A, n), *handle);
    impl::spmm_analysed(exec, analysed, alpha, B, beta, C);
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
/// duplicates summed; mode "T" over A^T's, transposed for the call); a repeated call on the same views analyses A once
/// into a handle that later calls reuse (impl::AnalysisCache). Every call hashes A's pattern and values on the
/// execution space and waits for that, so values or a pattern changed in place are picked up.
/// rsh::clear_analysis_cache() frees the analyses kept.
template <class ExecSpace, class Matrix, class BView, class CView,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void spmm(const ExecSpace& exec, const char mode[], typename CView::const_value_type alpha, const Matrix& A,
          const BView& B, typename CView::const_value_type beta, const CView& C) {
  const Mode op = mode_from_string(mode);
  impl::check_spmm_args<ExecSpace>(op, A, B, C);
  Kokkos::Profiling::pushRegion("rsh::spmm");
  if (!impl::scaled_only(exec, alpha, A, beta, C))
    impl::AnalysisCache<typename CView::non_const_value_type,
                        Kokkos::Device<ExecSpace, typename impl::MatrixAccess<Matrix>::memory_space>>::instance()
        .multiply(
            exec, A, [&](auto& handle) { spmm(exec, &handle, op, alpha, A, B, beta, C); },
            [&] { impl::spmm_csr(exec, op, alpha, A, B, beta, C); });
  Kokkos::Profiling::popRegion();
}

/// Handle-free, on the default instance of C's execution space.
template <class Matrix, class BView, class CView>
void spmm(const char mode[], typename CView::const_value_type alpha, const Matrix& A, const BView& B,
          typename CView::const_value_type beta, const CView& C) {
  spmm(typename CView::execution_space(), mode, alpha, A, B, beta, C);
}

}  // namespace rsh
