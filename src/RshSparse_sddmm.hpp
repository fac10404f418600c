#pragma once
// rsh::sddmm: sampled dense-dense matrix multiply on C's sparsity pattern,
//   C.values(j) = alpha * dot(X(r, :), Y(c, :)) + beta * C.values(j)
// at every stored position j = (r, c) of C, i.e. C = alpha * (X * Y^T) .* spy(C) + beta * C, as
// cusparseSDDMM and torch.sparse.sampled_addmm compute it (beta == 0 ignores C's values, NaN included).
// X is C.numRows() x k, Y is C.numCols() x k, in either layout. C's values are written in its own CSR
// order; a duplicated position gets the product at each of its entries. In a GNN, the gradient of a
// loss through C = A * B with respect to A's values is sddmm(1, dC, B, 0, dA) on A's pattern.
//
// With a handle the dot products run over the handle's format of C's pattern (on Kokkos::Cuda the 8-row
// windows on Tensor Cores and the residual rows on CUDA cores, after Libra), analysed on first use; the
// same handle serves rsh::spmm with that pattern, and an sddmm that writes the values a handle multiplies
// with makes its next multiply refresh them. Handle-free, the dot products run over C's CSR arrays.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "RshSparse_Error.hpp"
#include "RshSparse_spmm_handle.hpp"
#include "impl/RshSparse_sddmm_spec.hpp"

namespace rsh {
namespace impl {

template <class ExecSpace, class XView, class YView, class Matrix>
void check_sddmm_args(const XView& X, const YView& Y, const Matrix& C) {
  static_assert(Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value, "rsh::sddmm: X and Y must be Views");
  static_assert(static_cast<int>(XView::rank) == 2 && static_cast<int>(YView::rank) == 2,
                "rsh::sddmm: X and Y must be rank-2 Views");
  static_assert(std::is_same<typename XView::non_const_value_type, typename YView::non_const_value_type>::value,
                "rsh::sddmm: X and Y must have one value type");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename YView::memory_space>::accessible,
                "rsh::sddmm: X and Y must be accessible from the execution space");
  using Acc = MatrixAccess<Matrix>;
  using Values = decltype(Acc::values(C));
  static_assert(std::is_same<typename Values::value_type, typename XView::non_const_value_type>::value,
                "rsh::sddmm: C's values must be non-const, of X's value type");
  const int64_t m = Acc::num_rows(C), n = Acc::num_cols(C);
  if (static_cast<int64_t>(X.extent(0)) != m || static_cast<int64_t>(Y.extent(0)) != n || X.extent(1) != Y.extent(1))
    throw std::invalid_argument("rsh::sddmm: dimension mismatch: C is " + std::to_string(m) + " x " +
                                std::to_string(n) + ", X is " + std::to_string(X.extent(0)) + " x " +
                                std::to_string(X.extent(1)) + ", Y is " + std::to_string(Y.extent(0)) + " x " +
                                std::to_string(Y.extent(1)) + " (expected " + std::to_string(m) + " x k and " +
                                std::to_string(n) + " x k)");
  if (Acc::values(C).extent(0) != Acc::entries(C).extent(0))
    throw std::invalid_argument("rsh::sddmm: C has " + std::to_string(Acc::values(C).extent(0)) + " values for " +
                                std::to_string(Acc::entries(C).extent(0)) + " entries");
}

/// SDDMM with a handle's analysis of C's pattern: its one format, or each row panel's over the panel's rows
/// of X and its entries of C.
template <class ExecSpace, class Handle, class XView, class YView, class Matrix>
void sddmm_analysed(const ExecSpace& exec, Handle& handle, typename XView::const_value_type alpha, const XView& X,
                    const YView& Y, typename XView::const_value_type beta, const Matrix& C) {
  if (handle.num_row_panels() == 0)
    return Sddmm<ExecSpace, Handle, XView, YView, Matrix>::run(exec, handle, alpha, X, Y, beta, C);
  for (size_t i = 0; i < handle.num_row_panels(); ++i) {
    const auto panel = panel_matrix<typename XView::non_const_value_type>(C, handle.row_panel(i));
    const auto X_rows = panel_rows(X, handle.row_panel(i));
    Sddmm<ExecSpace, Handle, std::decay_t<decltype(X_rows)>, YView, std::decay_t<decltype(panel)>>::run(
        exec, handle.row_panel_handle(i), alpha, X_rows, Y, beta, panel);
  }
}

}  // namespace impl

/// With a handle of C's pattern (analysed on first use; a handle of another pattern is rejected).
template <class ExecSpace, class Scalar, class Device, class XView, class YView, class Matrix>
void sddmm(const ExecSpace& exec, SpmmHandle<Scalar, Device>* handle, typename XView::const_value_type alpha,
           const XView& X, const YView& Y, typename XView::const_value_type beta, const Matrix& C) {
  static_assert(std::is_same<typename XView::non_const_value_type, Scalar>::value,
                "rsh::sddmm: X's value type must be the handle's Scalar");
  RSH_REQUIRE(handle != nullptr, "rsh::sddmm: null handle");
  impl::check_sddmm_args<ExecSpace>(X, Y, C);
  Kokkos::Profiling::pushRegion("rsh::sddmm");
  handle->prepare_pattern(C);
  impl::sddmm_analysed(exec, *handle, alpha, X, Y, beta, C);
  handle->note_values_written(impl::MatrixAccess<Matrix>::values(C).data());
  Kokkos::Profiling::popRegion();
}

/// With a handle, on the default instance of the handle's execution space.
template <class Scalar, class Device, class XView, class YView, class Matrix>
void sddmm(SpmmHandle<Scalar, Device>* handle, typename XView::const_value_type alpha, const XView& X, const YView& Y,
           typename XView::const_value_type beta, const Matrix& C) {
  sddmm(typename Device::execution_space(), handle, alpha, X, Y, beta, C);
}

/// Handle-free, on `exec`: over C's own CSR arrays (checked on the execution space first), CUDA cores or
/// the portable kernels.
template <class ExecSpace, class XView, class YView, class Matrix,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void sddmm(const ExecSpace& exec, typename XView::const_value_type alpha, const XView& X, const YView& Y,
           typename XView::const_value_type beta, const Matrix& C) {
  impl::check_sddmm_args<ExecSpace>(X, Y, C);
  Kokkos::Profiling::pushRegion("rsh::sddmm");
  impl::SddmmCsr<ExecSpace, XView, YView, Matrix>::run(exec, alpha, X, Y, beta, C);
  Kokkos::Profiling::popRegion();
}

/// Handle-free, on the default instance of X's execution space.
template <class XView, class YView, class Matrix, class = std::enable_if_t<Kokkos::is_view<XView>::value>>
void sddmm(typename XView::const_value_type alpha, const XView& X, const YView& Y,
           typename XView::const_value_type beta, const Matrix& C) {
  sddmm(typename XView::execution_space(), alpha, X, Y, beta, C);
}

}  // namespace rsh
