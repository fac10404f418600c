#pragma once
// Compile-time backend choice of rsh::sddmm, as for rsh::spmm: the primary
// templates are the portable path; src/cuda specialises them for Kokkos::Cuda.
#include "impl/RshSparse_sddmm_impl.hpp"
#include "impl/RshSparse_spmm_csr_impl.hpp"
#include "impl/RshSparse_spmm_spec.hpp"

namespace rsh {
namespace impl {

/// SDDMM with an analysed handle of C's pattern.
template <class ExecSpace, class Handle, class XView, class YView, class Matrix,
          bool backend_avail = SpmmBackendAvail<ExecSpace>::value>
struct Sddmm {
  static void run(const ExecSpace& exec, Handle& h, typename XView::const_value_type alpha, const XView& X,
                  const YView& Y, typename XView::const_value_type beta, const Matrix& C) {
    h.note_portable_run();
    sddmm_portable(exec, alpha, X, Y, beta, C);
  }
};

/// The handle-free SDDMM over C's own CSR arrays (checked first).
template <class ExecSpace, class XView, class YView, class Matrix,
          bool backend_avail = SpmmBackendAvail<ExecSpace>::value>
struct SddmmCsr {
  static void run(const ExecSpace& exec, typename XView::const_value_type alpha, const XView& X, const YView& Y,
                  typename XView::const_value_type beta, const Matrix& C) {
    check_crs_on(exec, C, "rsh::sddmm");
    sddmm_portable(exec, alpha, X, Y, beta, C);
  }
};

}  // namespace impl
}  // namespace rsh

#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
#include "cuda/RshSparse_sddmm_cuda_spec_decl.hpp"
#endif
