#pragma once
// Compile-time backend choice, the KokkosKernels way: the primary template
// is the portable path; src/cuda specialises it for Kokkos::Cuda.
#include "impl/RshSparse_spmm_csr_impl.hpp"
#include "impl/RshSparse_spmm_impl.hpp"

namespace rsh {
namespace impl {

/// True where a hand-written backend exists for ExecSpace.
template <class ExecSpace>
struct SpmmBackendAvail {
  static constexpr bool value = false;
};

/// What a backend keeps in a handle, built from the handle's format on the first multiply and owned by the
/// handle (the CUDA backend: its plan). The portable kernels read the format itself and keep nothing.
template <class ExecSpace, class Scalar>
struct SpmmBackendState {
  void reset() {}
};

template <class ExecSpace, class Handle, class BView, class CView,
          bool backend_avail = SpmmBackendAvail<ExecSpace>::value>
struct Spmm {
  static void run(const ExecSpace& exec, Handle& h, typename CView::const_value_type alpha, const BView& B,
                  typename CView::const_value_type beta, const CView& C) {
    spmm_portable(exec, h, alpha, B, beta, C);
  }
};

/// The handle-free multiply over A's own CSR arrays (no inspection).
template <class ExecSpace, class Matrix, class BView, class CView,
          bool backend_avail = SpmmBackendAvail<ExecSpace>::value>
struct SpmmCsr {
  static void run(const ExecSpace& exec, typename CView::const_value_type alpha, const Matrix& A, const BView& B,
                  typename CView::const_value_type beta, const CView& C) {
    spmm_csr_portable(exec, alpha, A, B, beta, C);
  }
};

}  // namespace impl
}  // namespace rsh

#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
#include "cuda/RshSparse_spmm_cuda_spec_decl.hpp"
#endif
