#pragma once
// The Kokkos::Cuda specialisation of rsh::impl::Spmm: forwards the views'
// pointers and the instance's stream to the raw CUDA API. Falls back to the
// portable kernels at run time for what the CUDA kernels do not take:
// LayoutStride, B and C in different layouts, or SpmmAlgorithm::kPortable. The handle-free call
// (SpmmCsr) reads A's own CSR through the raw API's spmm_csr.
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_cuda_format.hpp"
#include "cuda/RshSparse_spmm_cuda_spec_avail.hpp"
#include "impl/RshSparse_spmm_impl.hpp"

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
template <>
struct CudaElement<double> {
  using type = double;
};
#if !defined(KOKKOS_HALF_T_IS_FLOAT) || !KOKKOS_HALF_T_IS_FLOAT
template <>
struct CudaElement<Kokkos::Experimental::half_t> {
  using type = __half;  // same 16-bit layout
};
#endif
#if RSH_HAS_BHALF_T
template <>
struct CudaElement<Kokkos::Experimental::bhalf_t> {
  using type = __nv_bfloat16;  // same 16-bit layout
};
#endif

template <class View>
int64_t leading_dimension(const View& v) {
  return std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value ? v.stride(0) : v.stride(1);
}

/// B and C views the CUDA kernels take: one layout, LayoutRight or LayoutLeft.
template <class BView, class CView>
constexpr bool cuda_dense_layouts() {
  using BLayout = typename BView::array_layout;
  return std::is_same<BLayout, typename CView::array_layout>::value &&
         (std::is_same<BLayout, Kokkos::LayoutRight>::value || std::is_same<BLayout, Kokkos::LayoutLeft>::value);
}

template <class BView>
cuda::Layout cuda_layout() {
  return std::is_same<typename BView::array_layout, Kokkos::LayoutRight>::value ? cuda::Layout::kRowMajor
                                                                                : cuda::Layout::kColMajor;
}

/// What the CUDA backend keeps in a handle: its plan (none for scalars without CUDA kernels), and the
/// handle's values_version() the plan's values are.
template <class Scalar>
struct SpmmBackendState<Kokkos::Cuda, Scalar> {
  using Element = typename CudaElement<Scalar>::type;
  /// (A scalar without CUDA kernels names a float plan it never builds.)
  std::unique_ptr<cuda::SpmmPlan<std::conditional_t<std::is_void<Element>::value, float, Element>>> plan;
  uint64_t values_version = 0;
  /// SDDMM's dot products per value slot, kept between calls (grown as needed).
  Kokkos::View<float*, Kokkos::CudaSpace> sddmm_slots;
  /// The CSR SDDMM's row of each span's first nonzero (cuda::sddmm_csr_span_rows), once per pattern.
  Kokkos::View<int*, Kokkos::CudaSpace> sddmm_span_rows;
  /// Whether C's rows are sorted (the dense-tile SDDMM needs it): -1 until the first CSR SDDMM finds out.
  int sddmm_rows_sorted = -1;
  /// The CSR SDDMM's panel order (cuda::sddmm_csr_panel_order: rows, then columns, then positions, each
  /// cuda::sddmm_csr_panel_entries long), built once per pattern where the panels may run, and the
  /// nonzeros per distinct (panel, column) pair it found (-1 until built; 0 where it cannot be built).
  Kokkos::View<int*, Kokkos::CudaSpace> sddmm_panel_order;
  double sddmm_panel_reuse = -1;
  /// The dense-tile SDDMM's tile starts (cuda::sddmm_csr_tile_starts), once per pattern where the tiles run.
  Kokkos::View<int*, Kokkos::CudaSpace> sddmm_tile_starts;
  void reset() {
    plan.reset(), values_version = 0, sddmm_slots = {}, sddmm_span_rows = {}, sddmm_rows_sorted = -1;
    sddmm_panel_order = {}, sddmm_panel_reuse = -1, sddmm_tile_starts = {};
  }
};

/// The handle's CUDA plan of Element, built on first use and its values kept current with the handle's.
template <class Element, class Handle>
const cuda::SpmmPlan<Element>& cuda_plan(const Kokkos::Cuda& exec, Handle& h) {
  auto& state = h.backend_state();
  if (!state.plan) {
    // The plan reads the handle's format in place; it derives its residual items and value copies.
    state.plan = std::make_unique<cuda::SpmmPlan<Element>>(
        format_arrays<cuda::DeviceFormat>(h.pattern()), reinterpret_cast<const Element*>(h.values().data()),
        exec.cuda_stream(), h.options().allow_tf32 ? cuda::FloatMath::kTf32 : cuda::FloatMath::kFp32);
    state.values_version = h.values_version();
    h.set_backend_description(state.plan->describe());
  }
  if (state.values_version != h.values_version()) {  // update_values ran since: copy on the device
    state.plan->update_values_device(reinterpret_cast<const Element*>(h.values().data()), exec.cuda_stream());
    state.values_version = h.values_version();
    h.set_backend_description(state.plan->describe());  // 2xTF32 or 3xTF32 follows the values
  }
  return *state.plan;
}

template <class Handle, class BView, class CView>
struct Spmm<Kokkos::Cuda, Handle, BView, CView, true> {
  static void run(const Kokkos::Cuda& exec, Handle& h, typename CView::const_value_type alpha, const BView& B,
                  typename CView::const_value_type beta, const CView& C) {
    using Element = typename CudaElement<typename CView::non_const_value_type>::type;
    if constexpr (std::is_void<Element>::value || !cuda_dense_layouts<BView, CView>()) {
      spmm_portable(exec, h, alpha, B, beta, C);
    } else {
      if (h.options().algorithm == SpmmAlgorithm::kPortable) return spmm_portable(exec, h, alpha, B, beta, C);
      const auto& plan = cuda_plan<Element>(exec, h);
      h.note_backend_run();
      plan.spmm(static_cast<cuda::Accum<Element>>(alpha), reinterpret_cast<const Element*>(B.data()),
                leading_dimension(B), static_cast<cuda::Accum<Element>>(beta), reinterpret_cast<Element*>(C.data()),
                leading_dimension(C), static_cast<int>(C.extent(1)), cuda_layout<BView>(), exec.cuda_stream());
    }
  }
};

/// The 32- or 64-bit integer a row_map's offsets are read as by the CUDA kernels; void for other types.
template <class Offset>
using CudaOffset =
    std::conditional_t<std::is_integral<Offset>::value && sizeof(Offset) == 4, int,
                       std::conditional_t<std::is_integral<Offset>::value && sizeof(Offset) == 8, int64_t, void>>;

/// Whether the raw API's CSR kernels take Matrix's arrays with Scalar operands (int column ids, 32- or 64-bit
/// offsets, values of Scalar, a CUDA element for Scalar), and the types they read them as.
template <class Matrix, class Scalar>
struct CudaCsrTypes {
  using Acc = MatrixAccess<Matrix>;
  using Element = typename CudaElement<Scalar>::type;
  using Offset = CudaOffset<typename decltype(Acc::row_map(std::declval<const Matrix&>()))::non_const_value_type>;
  using Ordinal = typename decltype(Acc::entries(std::declval<const Matrix&>()))::non_const_value_type;
  using Values = typename decltype(Acc::values(std::declval<const Matrix&>()))::non_const_value_type;
  static constexpr bool value = !std::is_void<Element>::value && !std::is_void<Offset>::value &&
                                std::is_same<Ordinal, int>::value && std::is_same<Values, Scalar>::value;
};

/// A's CSR arrays as the raw API reads them (Offset and Element: the same bits as A's offsets and values);
/// throws std::invalid_argument unless row_map has one entry more than A has rows.
template <class Element, class Offset, class Matrix>
cuda::DeviceCsr<Element, Offset> device_csr(const Matrix& A, const char* who) {
  using Acc = MatrixAccess<Matrix>;
  cuda::DeviceCsr<Element, Offset> csr;
  csr.num_rows = Acc::num_rows(A), csr.num_cols = Acc::num_cols(A);
  csr.nnz = static_cast<int64_t>(Acc::entries(A).extent(0));
  if (static_cast<int64_t>(Acc::row_map(A).extent(0)) != int64_t(csr.num_rows) + 1)
    throw std::invalid_argument(std::string(who) + ": row_map has " + std::to_string(Acc::row_map(A).extent(0)) +
                                " entries for " + std::to_string(csr.num_rows) + " rows");
  csr.row_map = reinterpret_cast<const Offset*>(Acc::row_map(A).data());
  csr.entries = Acc::entries(A).data();
  csr.values = reinterpret_cast<const Element*>(Acc::values(A).data());
  return csr;
}

/// The handle-free multiply on Kokkos::Cuda: the raw API's spmm_csr over A's arrays where the kernels take
/// its types (int column ids, A's scalar C's, 32- or 64-bit offsets), else the portable kernels.
template <class Matrix, class BView, class CView>
struct SpmmCsr<Kokkos::Cuda, Matrix, BView, CView, true> {
  static void run(const Kokkos::Cuda& exec, typename CView::const_value_type alpha, const Matrix& A, const BView& B,
                  typename CView::const_value_type beta, const CView& C) {
    using Types = CudaCsrTypes<Matrix, typename CView::non_const_value_type>;
    using Element = typename Types::Element;
    if constexpr (!Types::value || !cuda_dense_layouts<BView, CView>()) {
      spmm_csr_portable(exec, alpha, A, B, beta, C);
    } else {
      const auto csr = device_csr<Element, typename Types::Offset>(A, "rsh::spmm");
      cuda::spmm_csr(csr, static_cast<cuda::Accum<Element>>(alpha), reinterpret_cast<const Element*>(B.data()),
                     leading_dimension(B), static_cast<cuda::Accum<Element>>(beta),
                     reinterpret_cast<Element*>(C.data()), leading_dimension(C), static_cast<int>(C.extent(1)),
                     cuda_layout<BView>(), exec.cuda_stream());
    }
  }
};

}  // namespace impl
}  // namespace rsh
