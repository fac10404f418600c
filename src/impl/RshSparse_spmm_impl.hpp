#pragma once
// Portable Kokkos kernels of the executor, for every execution space: one
// thread per (work item, column of B). They read the same RS-Tile, residual
// and schedule as the CUDA kernels, so they double as their specification.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_rstile_impl.hpp"

namespace rsh {
namespace impl {

/// Kokkos' bfloat16 bhalf_t is a type of its own (Kokkos 4 on a backend with a native one; Kokkos 3.4
/// has no bhalf_t, and host builds of Kokkos 4 make it float).
#if defined(KOKKOS_BHALF_T_IS_FLOAT) && !KOKKOS_BHALF_T_IS_FLOAT
#define RSH_HAS_BHALF_T 1
#else
#define RSH_HAS_BHALF_T 0
#endif

/// The type the portable kernels accumulate a Scalar in: float for Kokkos' half_t and bhalf_t (a 16-bit
/// sum loses a bit per doubling of the row length), the scalar itself otherwise.
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
#if RSH_HAS_BHALF_T
template <>
struct Accumulator<Kokkos::Experimental::bhalf_t> {
  using type = float;
};
#endif

/// Features of C one portable work item computes: on host spaces a chunk of a row in an array of
/// accumulators, each nonzero's B row walked once over the chunk; on devices one, a thread a feature.
template <class ExecSpace>
constexpr int portable_chunk() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 16 : 1;
}

/// The options the portable backend plans with: kAuto becomes CudaCoreOnly with every row one work item
/// (the time models are the H100's; a CPU thread walks a CSR row fastest, and nothing then needs atomics),
/// and kAuto's reordering none (rows walked one by one leave no windows for a row order to fill).
inline Options portable_plan(Options options) {
  if (options.reorder == Reorder::kAuto) options.reorder = Reorder::kNone;
  if (options.partition != Partition::kAuto) return options;
  options.partition = Partition::kCudaCoreOnly;
  options.tuning.max_residual_nnz_per_item = options.tuning.residual_piece_nnz = 1 << 28;
  return options;
}

/// The precision the portable kernels compute a Scalar in, for describe().
template <class Scalar>
std::string portable_precision() {
  if (std::is_same<Scalar, double>::value) return "FP64";
  if (std::is_same<Scalar, float>::value) return "FP32";
#if RSH_HAS_BHALF_T
  if (std::is_same<Scalar, Kokkos::Experimental::bhalf_t>::value) return "BF16 operands, FP32 accumulation";
#endif
  return "FP16 operands, FP32 accumulation";
}

KOKKOS_INLINE_FUNCTION int lowest_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

/// Runs body(body.item(i), f0, width) for every work item i and every chunk of K features [f0, f0 + width)
/// of n; on devices (K = 1) a thread an (item, feature). On host spaces chunks run
/// item-major where B is LayoutRight (an item's chunks walk the same B rows, contiguous), chunk-major where
/// it is LayoutLeft (a chunk's K columns of B stay in cache while every item walks them; item-major would
/// touch K cache lines of B a nonzero across all of B).
template <int K, class Layout, class ExecSpace, class Body>
void for_each_item_chunk(const char* label, const ExecSpace& exec, int items, int64_t n, const Body& body) {
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  if (items == 0 || n == 0) return;  // no launch (on OpenMP an empty one still forks and joins the threads)
  if constexpr (K > 1 && std::is_same<Layout, Kokkos::LayoutLeft>::value) {
    const int64_t chunks = (n + K - 1) / K;
    Kokkos::parallel_for(
        label, Policy(exec, 0, chunks * items), KOKKOS_LAMBDA(const int64_t idx) {
          const int64_t f0 = K * (idx / items);
          body(body.item(static_cast<int>(idx % items)), f0, n - f0 < K ? int(n - f0) : K);
        });
  } else if constexpr (K > 1) {
    Kokkos::parallel_for(
        label, Policy(exec, 0, items), KOKKOS_LAMBDA(const int64_t i) {
          const auto item = body.item(static_cast<int>(i));  // read once for all of its chunks
          for (int64_t f0 = 0; f0 < n; f0 += K) body(item, f0, n - f0 < K ? int(n - f0) : K);
        });
  } else {
    Kokkos::parallel_for(
        label, Policy(exec, 0, int64_t(items) * n),
        KOKKOS_LAMBDA(const int64_t idx) { body(body.item(static_cast<int>(idx / n)), idx % n, 1); });
  }
}

/// C(r, f0 .. f0 + W) = alpha * acc + beta * C (beta == 0: C not read), or += alpha * acc with atomics.
/// The three cases are separate loops with no branch inside, so that the host compiler vectorises the
/// store of a LayoutRight chunk (a row's store is as frequent as a few of its nonzeros).
template <int W, class Acc, class CView>
KOKKOS_FORCEINLINE_FUNCTION void store_chunk(const CView& C, int r, int64_t f0, const Acc (&acc)[W], Acc alpha,
                                             Acc beta, bool atomic) {
  using Scalar = typename CView::non_const_value_type;
  if (atomic) {
    for (int j = 0; j < W; ++j) Kokkos::atomic_add(&C(r, f0 + j), static_cast<Scalar>(alpha * acc[j]));
  } else if (beta == Acc(0)) {
    for (int j = 0; j < W; ++j) C(r, f0 + j) = static_cast<Scalar>(alpha * acc[j]);
  } else {
    for (int j = 0; j < W; ++j)
      C(r, f0 + j) = static_cast<Scalar>(alpha * acc[j] + beta * static_cast<Acc>(C(r, f0 + j)));
  }
}

/// A portable kernel's work item over a chunk of features: `Chunks::item(i)` reads what item i needs (its
/// range, its row of C) into a `Chunks::Item`, and `Chunks::template chunk<W>(item, f0)` computes W features
/// from f0. A full chunk (K features) runs loops of constant trip count, which the compiler unrolls with the
/// accumulators in registers (as KokkosKernels' strip-mined rows); a shorter last chunk goes a feature at a
/// time.
template <int K, class Chunks>
struct ChunkedItems {
  using Item = typename Chunks::Item;
  Chunks chunks;
  KOKKOS_INLINE_FUNCTION Item item(const int i) const { return chunks.item(i); }
  KOKKOS_INLINE_FUNCTION void operator()(const Item& item, const int64_t f0, const int width) const {
    if (width == K) return chunks.template chunk<K>(item, f0);
    for (int j = 0; j < width; ++j) chunks.template chunk<1>(item, f0 + j);
  }
};

/// Every row of C: row(i) = i.
struct AllRows {
  KOKKOS_INLINE_FUNCTION int operator()(const int64_t i) const { return static_cast<int>(i); }
};

/// C(rows(i), chunk) = beta * C(rows(i), chunk); beta == 0 overwrites (NaN in C ignored).
template <class Rows, class CView>
struct ScaleChunks {
  using Scalar = typename CView::non_const_value_type;
  Rows rows;
  CView C;
  Scalar beta;

  struct Item {
    int row;
  };
  KOKKOS_INLINE_FUNCTION Item item(const int i) const { return {rows(i)}; }

  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void chunk(const Item& item, const int64_t f0) const {
    const int r = item.row;
    if (beta == Scalar(0)) {
      for (int j = 0; j < W; ++j) C(r, f0 + j) = Scalar(0);
    } else {
      for (int j = 0; j < W; ++j) C(r, f0 + j) = Scalar(beta * C(r, f0 + j));
    }
  }
};

/// C(r, :) = beta * C(r, :) for the `count` rows r = rows(0 .. count); beta == 0 overwrites.
template <class ExecSpace, class Rows, class CView>
void scale_rows(const ExecSpace& exec, const Rows& rows, int64_t count, typename CView::const_value_type beta,
                const CView& C) {
  constexpr int K = portable_chunk<ExecSpace>();
  for_each_item_chunk<K, typename CView::array_layout>("rsh::spmm[portable]::scale", exec, static_cast<int>(count),
                                                       static_cast<int64_t>(C.extent(1)),
                                                       ChunkedItems<K, ScaleChunks<Rows, CView>>{{rows, C, beta}});
}

/// C = beta * C over all of C.
template <class ExecSpace, class CView>
void scale_all(const ExecSpace& exec, typename CView::const_value_type beta, const CView& C) {
  scale_rows(exec, AllRows{}, static_cast<int64_t>(C.extent(0)), beta, C);
}

/// Tensor-Core part on CUDA cores: an item's tiles' set bits in order, so the k-th set bit of a tile reads
/// its k-th value; C rows stored once, or added with atomics for pieces of split windows.
template <class Pattern, class Values, class BView, class CView>
struct TileChunks {
  using Acc = typename Accumulator<typename CView::non_const_value_type>::type;
  Pattern p;
  Values vals;
  BView B;
  CView C;
  Acc alpha, beta;

  struct Item {
    int tile_begin, tile_end, window;
    bool atomic;
  };
  KOKKOS_INLINE_FUNCTION Item item(const int i) const {
    return {p.tc_item_tile_begin(i), p.tc_item_tile_end(i), p.tc_item_window(i), i >= p.tc_num_unsplit};
  }

  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void chunk(const Item& item, const int64_t f0) const {
    Acc acc[8][W];
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < W; ++j) acc[i][j] = 0;
    for (int t = item.tile_begin; t < item.tile_end; ++t) {
      uint64_t bits = p.tile_bitmap(t);
      for (int v = p.tile_val_offset(t); bits != 0; ++v, bits &= bits - 1) {
        const int bit = lowest_bit(bits);
        const Acc value = static_cast<Acc>(vals(v));
        const int col = p.tile_cols(8 * t + (bit & 7));
        for (int j = 0; j < W; ++j) acc[bit >> 3][j] += value * static_cast<Acc>(B(col, f0 + j));
      }
    }
    for (int i = 0; i < 8; ++i) {
      const int r = p.window_rows(8 * item.window + i);
      if (r >= 0) store_chunk<W>(C, r, f0, acc[i], alpha, beta, item.atomic);
    }
  }
};

/// CUDA-core residual: a row's dot products, or a piece of one that adds with atomics. The first of a row's
/// pieces kept in one CTA by the CUDA kernel (res_item_pieces > 1) takes the whole row here: its pieces'
/// ranges are consecutive.
template <class Pattern, class Values, class BView, class CView>
struct ResidualChunks {
  using Acc = typename Accumulator<typename CView::non_const_value_type>::type;
  Pattern p;
  Values vals;  ///< the residual's values (after the tiles')
  BView B;
  CView C;
  Acc alpha, beta;

  struct Item {
    int begin, end, row;  ///< row < 0: nothing to do
    bool atomic;
  };
  KOKKOS_INLINE_FUNCTION Item item(const int i) const {
    const int pieces = p.res_item_pieces(i);
    if (pieces == 0) return {0, 0, -1, false};  // summed by the row's first piece, or padding
    return {p.res_item_begin(i), p.res_item_end(i + pieces - 1), p.res_rows(p.res_item_row(i)), i >= p.res_num_local};
  }

  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void chunk(const Item& item, const int64_t f0) const {
    if (item.row < 0) return;
    Acc acc[W];
    for (int j = 0; j < W; ++j) acc[j] = 0;
    for (int k = item.begin; k < item.end; ++k) {
      const Acc value = static_cast<Acc>(vals(k));
      const int col = p.res_cols(k);
      for (int j = 0; j < W; ++j) acc[j] += value * static_cast<Acc>(B(col, f0 + j));
    }
    store_chunk<W>(C, item.row, f0, acc, alpha, beta, item.atomic);
  }
};

/// The whole portable executor: pre-scale, tiles, residual (same instance, in order).
template <class ExecSpace, class Handle, class BView, class CView>
void spmm_portable(const ExecSpace& exec, Handle& h, typename CView::const_value_type alpha, const BView& B_in,
                   typename CView::const_value_type beta, const CView& C_in) {
  using Acc = typename Accumulator<typename CView::non_const_value_type>::type;
  using Pattern = typename Handle::pattern_type;
  using Values = typename Handle::values_type;
  // Unmanaged (no reference counts in the kernels' copies), B const and random-access, as KokkosKernels' spmv.
  using B = Kokkos::View<typename BView::const_data_type, typename BView::array_layout, typename BView::device_type,
                         Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  using C = Kokkos::View<typename CView::data_type, typename CView::array_layout, typename CView::device_type,
                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr int K = portable_chunk<ExecSpace>();
  h.note_portable_run();
  const Pattern& p = h.pattern();
  const Acc a = static_cast<Acc>(alpha), b = static_cast<Acc>(beta);
  const B b_view = B_in;
  const C c_view = C_in;
  const int64_t n = static_cast<int64_t>(c_view.extent(1));
  scale_rows(exec, p.scale_rows, static_cast<int64_t>(p.scale_rows.extent(0)), beta, c_view);
  for_each_item_chunk<K, typename BView::array_layout>(
      "rsh::spmm[portable]::tiles", exec, p.tc_num_items(), n,
      ChunkedItems<K, TileChunks<Pattern, Values, B, C>>{{p, h.values(), b_view, c_view, a, b}});
  const Values residual_values =
      Kokkos::subview(h.values(), std::make_pair(h.tile_nnz(), int64_t(h.values().extent(0))));
  for_each_item_chunk<K, typename BView::array_layout>(
      "rsh::spmm[portable]::residual", exec, p.res_num_items(), n,
      ChunkedItems<K, ResidualChunks<Pattern, Values, B, C>>{{p, residual_values, b_view, c_view, a, b}});
}

}  // namespace impl
}  // namespace rsh
