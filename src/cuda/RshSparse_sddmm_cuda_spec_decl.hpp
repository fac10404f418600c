#pragma once
// The Kokkos::Cuda specialisations of rsh::impl::Sddmm and SddmmCsr: the
// raw CUDA API on the views' pointers and the instance's stream. X and Y
// reach the kernels as row-major arrays (LayoutLeft ones through a
// LayoutRight copy); double (no FP64 SDDMM kernel) and SpmmAlgorithm::kPortable
// take the portable kernels. With a handle, Tuning::sddmm_kernels picks the
// CSR kernels (spans in C's order or in panel order, or dense tiles; kAuto
// dense tiles by C's shape and fill, else the panel order) or the format's.
#include <climits>
#include <string>
#include <type_traits>

#include "cuda/RshSparse_spmm_cuda_spec_decl.hpp"

namespace rsh {
namespace impl {

/// V itself where it is LayoutRight, else a LayoutRight copy of it on `exec`.
template <class View>
auto row_major_on(const Kokkos::Cuda& exec, const View& v) {
  using Right = Kokkos::View<typename View::const_data_type, Kokkos::LayoutRight, typename View::device_type>;
  if constexpr (std::is_same<typename View::array_layout, Kokkos::LayoutRight>::value) {
    return Right(v);
  } else {
    Kokkos::View<typename View::non_const_data_type, Kokkos::LayoutRight, typename View::device_type> copy(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sddmm::row_major"), v.extent(0), v.extent(1));
    Kokkos::deep_copy(exec, copy, v);
    return Right(copy);
  }
}

/// The handle's SDDMM through its format: Tensor-Core tiles and residual rows into value slots (kept in the
/// backend state between calls), then gathered into C's order.
template <class Element, class Handle, class XView, class YView, class Matrix>
void sddmm_on_format(const Kokkos::Cuda& exec, Handle& h, typename XView::const_value_type alpha, const XView& X,
                     const YView& Y, typename XView::const_value_type beta, const Matrix& C) {
  const auto& plan = cuda_plan<Element>(exec, h);
  auto& slots = h.backend_state().sddmm_slots;
  if (static_cast<int64_t>(slots.extent(0)) < plan.num_value_slots())
    slots = Kokkos::View<float*, Kokkos::CudaSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sddmm::slots"), plan.num_value_slots());
  const auto x = row_major_on(exec, X);
  const auto y = row_major_on(exec, Y);
  plan.sddmm(reinterpret_cast<const Element*>(x.data()), leading_dimension(x),
             reinterpret_cast<const Element*>(y.data()), leading_dimension(y), static_cast<int>(X.extent(1)),
             slots.data(), exec.cuda_stream());
  gather_sddmm(exec, h.pattern().value_dest, slots, static_cast<float>(alpha), static_cast<float>(beta),
               MatrixAccess<Matrix>::values(C));
}

/// The handle's panel order of C, built on first need (cuda::sddmm_csr_panel_order); returns the nonzeros per
/// distinct (panel, column) pair, or 0 where C has no nonzeros, too many (over INT_MAX) for the order, or more
/// than its build fits in half the device's free memory (the spans in C's order need none, and a handle's
/// SDDMM must not fail where they would run).
template <class Handle, class Csr>
double sddmm_panel_reuse(const Kokkos::Cuda& exec, Handle& h, const Csr& csr) {
  auto& state = h.backend_state();
  if (state.sddmm_panel_reuse >= 0) return state.sddmm_panel_reuse;
  state.sddmm_panel_reuse = 0;
  if (csr.nnz == 0 || csr.nnz > int64_t(INT_MAX)) return 0;
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess ||
      double(cuda::sddmm_csr_panel_order_bytes(csr.nnz)) > 0.5 * double(free_bytes))
    return 0;
  const int64_t entries = cuda::sddmm_csr_panel_entries(csr.nnz);
  state.sddmm_panel_order = Kokkos::View<int*, Kokkos::CudaSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sddmm::panel_order"), 3 * entries);
  int* order = state.sddmm_panel_order.data();
  const int64_t pairs =
      cuda::sddmm_csr_panel_order(csr.row_map, csr.num_rows, csr.nnz, csr.entries, h.options().tuning.sddmm_panel_rows,
                                  order, order + entries, order + 2 * entries, exec.cuda_stream());
  state.sddmm_panel_reuse = double(csr.nnz) / double(pairs);
  return state.sddmm_panel_reuse;
}

/// The handle's tile starts of C (cuda::sddmm_csr_tile_starts), built on first need; null where C has over
/// INT_MAX nonzeros, or where they would outnumber C's nonzeros and rows twice over (dense tiles asked for on a
/// sparse C), whose tiles then search their rows.
template <class Handle, class Csr>
const int* sddmm_tile_starts(const Kokkos::Cuda& exec, Handle& h, const Csr& csr) {
  auto& starts = h.backend_state().sddmm_tile_starts;
  const int64_t entries = cuda::sddmm_csr_tile_start_entries(csr.num_rows, csr.num_cols);
  if (csr.nnz > int64_t(INT_MAX) || entries > 2 * (csr.nnz + csr.num_rows)) return nullptr;
  if (static_cast<int64_t>(starts.extent(0)) != entries) {
    starts = Kokkos::View<int*, Kokkos::CudaSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sddmm::tile_starts"), entries);
    cuda::sddmm_csr_tile_starts(csr.row_map, csr.num_rows, csr.num_cols, csr.nnz, csr.entries, starts.data(),
                                exec.cuda_stream());
  }
  return starts.data();
}

/// The CSR kernel a handle's SDDMM runs: Tuning::sddmm_kernels, kAuto dense tiles by C's shape and fill
/// (cuda::sddmm_csr_auto_kernel), else the panel order wherever it can be built (a span in panel order loads
/// its indices as whole vectors and a row of Y once per run of equal columns, however few the runs), else
/// spans; dense tiles only where C's rows are sorted (found once per handle).
template <class Handle, class Csr>
cuda::SddmmCsrKernel sddmm_csr_kernel_of(const Kokkos::Cuda& exec, Handle& h, const Csr& csr) {
  int& sorted = h.backend_state().sddmm_rows_sorted;
  const auto kernels = h.options().tuning.sddmm_kernels;
  if (kernels == Experimental::SddmmKernels::kCsr) return cuda::SddmmCsrKernel::kSpans;
  if (kernels == Experimental::SddmmKernels::kPanels)
    return sddmm_panel_reuse(exec, h, csr) > 0 ? cuda::SddmmCsrKernel::kPanels : cuda::SddmmCsrKernel::kSpans;
  if (sorted < 0) sorted = cuda::csr_rows_sorted(csr.row_map, csr.num_rows, csr.nnz, csr.entries, exec.cuda_stream());
  if (kernels == Experimental::SddmmKernels::kDenseTiles)
    return sorted == 1 && cuda::sddmm_csr_num_tiles(csr.num_rows, csr.num_cols) <= int64_t(0x7fffffff)
               ? cuda::SddmmCsrKernel::kDenseTiles
               : cuda::SddmmCsrKernel::kSpans;
  const cuda::SddmmCsrKernel by_shape = cuda::sddmm_csr_auto_kernel(csr.num_rows, csr.num_cols, csr.nnz, sorted == 1);
  if (by_shape == cuda::SddmmCsrKernel::kDenseTiles) return by_shape;
  return sddmm_panel_reuse(exec, h, csr) > 0 ? cuda::SddmmCsrKernel::kPanels : cuda::SddmmCsrKernel::kSpans;
}

/// The handle's SDDMM over C's CSR arrays, whose pattern the handle's analysis accepted: one launch writes
/// C's order, the spans' rows (where spans run) found once per handle.
template <class Types, class Handle, class XView, class YView, class Matrix>
void sddmm_on_csr(const Kokkos::Cuda& exec, Handle& h, typename XView::const_value_type alpha, const XView& X,
                  const YView& Y, typename XView::const_value_type beta, const Matrix& C) {
  using Element = typename Types::Element;
  const auto csr = device_csr<Element, typename Types::Offset>(C, "rsh::sddmm");
  const int k = static_cast<int>(X.extent(1));
  const cuda::SddmmCsrKernel kernel = sddmm_csr_kernel_of(exec, h, csr);
  auto& span_rows = h.backend_state().sddmm_span_rows;
  const int64_t spans = cuda::sddmm_csr_num_spans(csr.nnz);
  if (kernel == cuda::SddmmCsrKernel::kSpans && static_cast<int64_t>(span_rows.extent(0)) != spans) {
    span_rows = Kokkos::View<int*, Kokkos::CudaSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sddmm::span_rows"), spans);
    cuda::sddmm_csr_span_rows(csr.row_map, csr.num_rows, csr.nnz, span_rows.data(), exec.cuda_stream());
  }
  cuda::SddmmCsrPrepared prepared;
  prepared.span_rows = span_rows.data();
  if (kernel == cuda::SddmmCsrKernel::kDenseTiles) {
    prepared.tile_starts = sddmm_tile_starts(exec, h, csr);
    prepared.tile_rows = h.options().tuning.sddmm_tile_rows;
  }
  if (kernel == cuda::SddmmCsrKernel::kPanels) {
    const int* order = h.backend_state().sddmm_panel_order.data();
    const int64_t entries = cuda::sddmm_csr_panel_entries(csr.nnz);
    prepared.panels = cuda::SddmmPanelOrder{order, order + entries, order + 2 * entries};
  }
  const auto x = row_major_on(exec, X);
  const auto y = row_major_on(exec, Y);
  cuda::sddmm_csr(csr, kernel, prepared, static_cast<float>(alpha), reinterpret_cast<const Element*>(x.data()),
                  leading_dimension(x), reinterpret_cast<const Element*>(y.data()), leading_dimension(y), k,
                  static_cast<float>(beta), reinterpret_cast<Element*>(MatrixAccess<Matrix>::values(C).data()),
                  exec.cuda_stream());
  const bool tiles = kernel == cuda::SddmmCsrKernel::kDenseTiles;
  const std::string span_walk = kernel == cuda::SddmmCsrKernel::kPanels
                                    ? "spans of 8 nonzeros in panels of " +
                                          std::to_string(h.options().tuning.sddmm_panel_rows) +
                                          " rows by column on CUDA cores"
                                    : std::string("spans of 8 nonzeros on CUDA cores");
  h.set_backend_description(
      std::string("CUDA: SDDMM over the CSR, ") +
      (tiles
           ? "dense tiles of " + std::to_string(cuda::sddmm_tile_rows(csr.num_rows, csr.num_cols, prepared.tile_rows)) +
                 " x 64 on Tensor Cores"
           : span_walk) +
      ", in " +
      (tiles && std::is_same<Element, float>::value ? std::string("FP32-level 3xTF32")
                                                    : portable_precision<typename XView::non_const_value_type>()));
}

template <class Handle, class XView, class YView, class Matrix>
struct Sddmm<Kokkos::Cuda, Handle, XView, YView, Matrix, true> {
  static void run(const Kokkos::Cuda& exec, Handle& h, typename XView::const_value_type alpha, const XView& X,
                  const YView& Y, typename XView::const_value_type beta, const Matrix& C) {
    using Element = typename CudaElement<typename XView::non_const_value_type>::type;
    using Types = CudaCsrTypes<Matrix, typename XView::non_const_value_type>;
    if constexpr (std::is_void<Element>::value || std::is_same<Element, double>::value) {
      h.note_portable_run();
      sddmm_portable(exec, alpha, X, Y, beta, C);
    } else {
      if (h.options().algorithm == SpmmAlgorithm::kPortable) {
        h.note_portable_run();
        return sddmm_portable(exec, alpha, X, Y, beta, C);
      }
      h.note_backend_run();
      // C's arrays of types the CSR kernel cannot read go through the format.
      if constexpr (Types::value) {
        if (h.options().tuning.sddmm_kernels != Experimental::SddmmKernels::kFormat)
          return sddmm_on_csr<Types>(exec, h, alpha, X, Y, beta, C);
      }
      sddmm_on_format<Element>(exec, h, alpha, X, Y, beta, C);
    }
  }
};

/// The handle-free SDDMM on Kokkos::Cuda: the raw API's sddmm_csr over C's arrays where the kernels take
/// its types (int column ids, 32- or 64-bit offsets, float, half_t or bhalf_t), else the portable kernels.
template <class XView, class YView, class Matrix>
struct SddmmCsr<Kokkos::Cuda, XView, YView, Matrix, true> {
  static void run(const Kokkos::Cuda& exec, typename XView::const_value_type alpha, const XView& X, const YView& Y,
                  typename XView::const_value_type beta, const Matrix& C) {
    using Types = CudaCsrTypes<Matrix, typename XView::non_const_value_type>;
    using Element = typename Types::Element;
    if constexpr (!Types::value || std::is_same<Element, double>::value) {
      check_crs_on(exec, C, "rsh::sddmm");
      sddmm_portable(exec, alpha, X, Y, beta, C);
    } else {
      const auto csr = device_csr<Element, typename Types::Offset>(C, "rsh::sddmm");
      const auto x = row_major_on(exec, X);
      const auto y = row_major_on(exec, Y);
      cuda::sddmm_csr(csr, static_cast<float>(alpha), reinterpret_cast<const Element*>(x.data()), leading_dimension(x),
                      reinterpret_cast<const Element*>(y.data()), leading_dimension(y), static_cast<int>(X.extent(1)),
                      static_cast<float>(beta), reinterpret_cast<Element*>(MatrixAccess<Matrix>::values(C).data()),
                      exec.cuda_stream());
    }
  }
};

}  // namespace impl
}  // namespace rsh
