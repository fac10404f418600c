#pragma once
// The Kokkos::Cuda specialisation of rsh::impl::Spmm: forwards the views'
// pointers and the instance's stream to the raw CUDA API. Falls back to the
// portable kernels at run time for what the CUDA kernels do not take:
// double (no FP64 Tensor-Core kernel yet), LayoutStride, B and C in
// different layouts, or SpmmAlgorithm::kPortable.
#include <memory>
#include <type_traits>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_cuda_format.hpp"
#include "cuda/RshSparse_spmm_cuda_spec_avail.hpp"

namespace rsh {
namespace impl {

/// The CUDA element type behind a Kokkos scalar; void where no kernel exists.
template <class Scalar>
struct CudaElement {
  using type = void;
};
template <>
struct CudaElement<float> {
  using type = float;
};
#if !defined(KOKKOS_HALF_T_IS_FLOAT) || !KOKKOS_HALF_T_IS_FLOAT
template <>
struct CudaElement<Kokkos::Experimental::half_t> {
  using type = __half;  // same 16-bit layout
};
#endif

template <class View>
int64_t leading_dimension(const View& v) {
  return std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value ? v.stride(0) : v.stride(1);
}

template <class Handle, class BView, class CView>
struct Spmm<Kokkos::Cuda, Handle, BView, CView, true> {
  static void run(const Kokkos::Cuda& exec, Handle& h, typename CView::const_value_type alpha, const BView& B,
                  typename CView::const_value_type beta, const CView& C) {
    using Element = typename CudaElement<typename CView::non_const_value_type>::type;
    using BLayout = typename BView::array_layout;
    constexpr bool same_layout = std::is_same<BLayout, typename CView::array_layout>::value;
    constexpr bool known_layout =
        std::is_same<BLayout, Kokkos::LayoutRight>::value || std::is_same<BLayout, Kokkos::LayoutLeft>::value;
    if constexpr (std::is_void<Element>::value || !same_layout || !known_layout) {
      spmm_portable(exec, h, alpha, B, beta, C);
    } else {
      if (h.options().algorithm == SpmmAlgorithm::kPortable) return spmm_portable(exec, h, alpha, B, beta, C);
      auto& state = h.backend_state();
      if (!state) {
        auto plan = std::make_shared<cuda::SpmmPlan<Element>>(
            host_format(h.host_pattern(), h.host_values()), exec.cuda_stream(),
            h.options().allow_tf32 ? cuda::FloatMath::kTf32 : cuda::FloatMath::kFp32);
        h.set_backend_description(plan->describe());
        state = std::move(plan);
      }
      const auto& plan = *std::static_pointer_cast<cuda::SpmmPlan<Element>>(state);
      h.note_backend_run();
      const auto layout =
          std::is_same<BLayout, Kokkos::LayoutRight>::value ? cuda::Layout::kRowMajor : cuda::Layout::kColMajor;
      plan.spmm(static_cast<float>(alpha), reinterpret_cast<const Element*>(B.data()), leading_dimension(B),
                static_cast<float>(beta), reinterpret_cast<Element*>(C.data()), leading_dimension(C),
                static_cast<int>(C.extent(1)), layout, exec.cuda_stream());
    }
  }
};

}  // namespace impl
}  // namespace rsh
