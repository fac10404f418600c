#pragma once
// Portable Kokkos kernels of the executor, for every execution space: one
// thread per (work item, column of B). They read the same RS-Tile, residual
// and schedule as the CUDA kernels, so they double as their specification.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "impl/RshSparse_rstile_impl.hpp"

namespace rsh {
namespace impl {

/// The type the portable kernels accumulate a Scalar in: float for Kokkos' half_t (a 16-bit sum loses
/// a bit per doubling of the row length), the scalar itself otherwise.
template <class Scalar>
struct Accumulator {
  using type = Scalar;
};
#if !defined(KOKKOS_HALF_T_IS_FLOAT) || !KOKKOS_HALF_T_IS_FLOAT
template <>
struct Accumulator<Kokkos::Experimental::half_t> {
  using type = float;
};
#endif

/// The precision the portable kernels compute a Scalar in, for describe().
template <class Scalar>
std::string portable_precision() {
  if (std::is_same<Scalar, double>::value) return "FP64";
  if (std::is_same<Scalar, float>::value) return "FP32";
  return "FP16 operands, FP32 accumulation";
}

KOKKOS_INLINE_FUNCTION int lowest_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

/// C(r, :) = beta * C(r, :) for r in rows; beta == 0 overwrites (NaN in C ignored).
template <class ExecSpace, class Rows, class CView>
void scale_rows(const ExecSpace& exec, const Rows& rows, typename CView::const_value_type beta, const CView& C) {
  using Scalar = typename CView::non_const_value_type;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  const int64_t n = static_cast<int64_t>(C.extent(1));
  Kokkos::parallel_for(
      "rsh::spmm[portable]::scale", Policy(exec, 0, static_cast<int64_t>(rows.extent(0)) * n),
      KOKKOS_LAMBDA(const int64_t idx) {
        const int r = rows(idx / n);
        const int64_t f = idx % n;
        C(r, f) = beta == 0 ? Scalar(0) : Scalar(beta * C(r, f));
      });
}

/// C = beta * C over all of C.
template <class ExecSpace, class CView>
void scale_all(const ExecSpace& exec, typename CView::const_value_type beta, const CView& C) {
  using Scalar = typename CView::non_const_value_type;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  const int64_t n = static_cast<int64_t>(C.extent(1));
  Kokkos::parallel_for(
      "rsh::spmm[portable]::scale_all", Policy(exec, 0, static_cast<int64_t>(C.extent(0)) * n),
      KOKKOS_LAMBDA(const int64_t idx) {
        const int64_t r = idx / n, f = idx % n;
        C(r, f) = beta == 0 ? Scalar(0) : Scalar(beta * C(r, f));
      });
}

/// Tensor-Core part on CUDA cores: each (item, column f) walks its tiles'
/// set bits in order, so the k-th set bit of a tile reads its k-th value.
template <class ExecSpace, class Pattern, class Values, class BView, class CView>
void spmm_tiles(const ExecSpace& exec, const Pattern& p, const Values& vals, typename CView::const_value_type alpha,
                const BView& B, typename CView::const_value_type beta, const CView& C) {
  using Scalar = typename CView::non_const_value_type;
  using Acc = typename Accumulator<Scalar>::type;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  const int64_t n = static_cast<int64_t>(C.extent(1));
  const Acc a = static_cast<Acc>(alpha), b = static_cast<Acc>(beta);
  const auto item_window = p.tc_item_window, item_begin = p.tc_item_tile_begin, item_end = p.tc_item_tile_end;
  const auto window_rows = p.window_rows, tile_cols = p.tile_cols, tile_val_offset = p.tile_val_offset;
  const auto tile_bitmap = p.tile_bitmap;
  const int num_unsplit = p.tc_num_unsplit;
  Kokkos::parallel_for(
      "rsh::spmm[portable]::tiles", Policy(exec, 0, static_cast<int64_t>(p.tc_num_items()) * n),
      KOKKOS_LAMBDA(const int64_t idx) {
        const int item = static_cast<int>(idx / n);
        const int64_t f = idx % n;
        Acc acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int t = item_begin(item); t < item_end(item); ++t) {
          uint64_t bits = tile_bitmap(t);
          for (int v = tile_val_offset(t); bits != 0; ++v, bits &= bits - 1) {
            const int bit = lowest_bit(bits);
            acc[bit >> 3] += static_cast<Acc>(vals(v)) * static_cast<Acc>(B(tile_cols(8 * t + (bit & 7)), f));
          }
        }
        const int w = item_window(item);
        for (int i = 0; i < 8; ++i) {
          const int r = window_rows(8 * w + i);
          if (r < 0) continue;
          if (item >= num_unsplit) {
            Kokkos::atomic_add(&C(r, f), static_cast<Scalar>(a * acc[i]));
          } else {
            C(r, f) = static_cast<Scalar>(b == 0 ? a * acc[i] : a * acc[i] + b * static_cast<Acc>(C(r, f)));
          }
        }
      });
}

/// CUDA-core residual: each (item, column f) is a dot product over a row, or
/// over a piece of one that adds with atomics. The first of a row's pieces
/// kept in one CTA by the CUDA kernel (res_item_pieces > 1) takes the whole
/// row here: its pieces' ranges are consecutive.
template <class ExecSpace, class Pattern, class Values, class BView, class CView>
void spmm_residual(const ExecSpace& exec, const Pattern& p, const Values& vals, int64_t tile_nnz,
                   typename CView::const_value_type alpha, const BView& B, typename CView::const_value_type beta,
                   const CView& C) {
  using Scalar = typename CView::non_const_value_type;
  using Acc = typename Accumulator<Scalar>::type;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  const int64_t n = static_cast<int64_t>(C.extent(1));
  const Acc a = static_cast<Acc>(alpha), b = static_cast<Acc>(beta);
  const auto item_row = p.res_item_row, item_begin = p.res_item_begin, item_end = p.res_item_end;
  const auto item_pieces = p.res_item_pieces;
  const auto res_rows = p.res_rows, res_cols = p.res_cols;
  const int num_local = p.res_num_local;
  Kokkos::parallel_for(
      "rsh::spmm[portable]::residual", Policy(exec, 0, static_cast<int64_t>(p.res_num_items()) * n),
      KOKKOS_LAMBDA(const int64_t idx) {
        const int item = static_cast<int>(idx / n);
        const int pieces = item_pieces(item);
        if (pieces == 0) return;  // summed by the row's first piece, or padding
        const int64_t f = idx % n;
        Acc acc = 0;
        for (int k = item_begin(item); k < item_end(item + pieces - 1); ++k)
          acc += static_cast<Acc>(vals(tile_nnz + k)) * static_cast<Acc>(B(res_cols(k), f));
        const int r = res_rows(item_row(item));
        if (item >= num_local) {
          Kokkos::atomic_add(&C(r, f), static_cast<Scalar>(a * acc));
        } else {
          C(r, f) = static_cast<Scalar>(b == 0 ? a * acc : a * acc + b * static_cast<Acc>(C(r, f)));
        }
      });
}

/// The whole portable executor: pre-scale, tiles, residual (same instance, in order).
template <class ExecSpace, class Handle, class BView, class CView>
void spmm_portable(const ExecSpace& exec, Handle& h, typename CView::const_value_type alpha, const BView& B,
                   typename CView::const_value_type beta, const CView& C) {
  h.note_portable_run();
  const auto& p = h.pattern();
  scale_rows(exec, p.scale_rows, beta, C);
  spmm_tiles(exec, p, h.values(), alpha, B, beta, C);
  spmm_residual(exec, p, h.values(), h.tile_nnz(), alpha, B, beta, C);
}

}  // namespace impl
}  // namespace rsh
