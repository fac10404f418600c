#pragma once
// SDDMM kernels: the dot product dot(X(r, :), Y(c, :)) over k features at
// every stored position (r, c) of A, after Libra's split of the work.
//
// Tensor-Core part (RS-Tile windows): a warp takes one work item (a window
// or a piece of one) and walks its tiles two at a time. One m16n8 MMA tile
// is Y(cols of the two tiles, :) x X(window rows, :)^T: its M index is the
// tile pair's 16 compacted columns, its N index the window's 8 rows, its K
// the features, so the 16 x 8 accumulator holds all 128 dot products of the
// pair, and the bitmaps decide which are written back to their value slots.
// Lane (g = lane / 4, q = lane % 4) loads 16 bytes of each of three rows (X's
// window row g, Y's rows of column g of both tiles) per 4 x V-feature chunk
// (V = 8 FP16, 4 FP32) and feeds them to two MMAs as they are: MMA s reads
// the lane's words 2s and 2s + 1 where the fragment layout names K indices
// 2q and 2q + 8 (FP16) or q and q + 4 (TF32). That relabels the K index of
// each product, identically in both operands, which a dot product does not
// see; the loads stay contiguous 16-byte vectors.
//
// CUDA-core parts: a group of G lanes, each V features at a time, takes a
// residual row's item (the format's residual rows), or a span of eight
// consecutive nonzeros of a CSR (the whole of A: the CSR path writes A's
// value order directly, in one launch) or in the panel order of sddmm_csr_panel_order (each
// panel's nonzeros by column, so that a span's nonzeros share rows of Y; written through their positions).
#include <climits>
#include <cstdint>

#include "cuda/RshSparse_spmm_cuda.hpp"

#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"
#include "cuda/RshSparse_spmm_residual_kernel.cuh"
#include "impl/RshSparse_fast_divisor.hpp"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kSddmmThreadsPerBlock = 256;

/// Features one lane loads at a time: one 16-byte vector.
template <class T>
constexpr int sddmm_lane_features() {
  return 16 / int(sizeof(T));
}

/// acc += Y(pair, chunk) x X(rows, chunk)^T for one 4 x V-feature chunk: ya, yb the lane's words of Y's
/// rows of column g of the pair's two tiles, x of X's row g. FP16 and BF16: m16n8k16; float: m16n8k8 in TF32, its
/// operands split into two TF32 parts (3xTF32) unless S is kNone.
template <class T, Tf32Split S>
__device__ __forceinline__ void sddmm_mma(float (&acc)[4], const RawRow<T, sddmm_lane_features<T>()>& ya,
                                          const RawRow<T, sddmm_lane_features<T>()>& yb,
                                          const RawRow<T, sddmm_lane_features<T>()>& x) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    const uint32_t a0 = ya.w[2 * s], a1 = yb.w[2 * s], a2 = ya.w[2 * s + 1], a3 = yb.w[2 * s + 1];
    const uint32_t b0 = x.w[2 * s], b1 = x.w[2 * s + 1];
    if constexpr (sizeof(T) == 2) {
      mma_m16n8k16<T>(acc, a0, a1, a2, a3, b0, b1);
    } else if constexpr (S == Tf32Split::kNone) {
      mma_tf32(acc, a0, a1, a2, a3, b0, b1);
    } else {
      mma_tf32_split<true, true>(acc, a0, a1, a2, a3, b0, b1);
    }
  }
}

template <class T>
struct SddmmTcParams {
  const int* window_rows;       ///< 8 * windows, -1 = padding
  const int* tile_cols;         ///< 8 * tiles, -1 = padding
  const uint64_t* tile_bitmap;  ///< tiles
  const int* tile_val_offset;   ///< tiles + 1
  const int* item_window;
  const int* item_tile_begin;
  const int* item_tile_end;
  int num_items;
  DenseRef<const T> X, Y;  ///< n = k features
  float* slots;            ///< tile value slots: the dot products
};

/// Writes the accumulator entry of (column g of a tile, window row r) to its slot where the bitmap holds it.
__device__ __forceinline__ void store_tile_dot(float* slots, uint64_t bitmap, int offset, int r, int g, float v) {
  const int bit = 8 * r + g;
  if ((bitmap >> bit) & 1) slots[offset + __popcll(bitmap & ((uint64_t(1) << bit) - 1))] = v;
}

template <class T, Tf32Split S>
__global__ void __launch_bounds__(kSddmmThreadsPerBlock) sddmm_tc_kernel(SddmmTcParams<T> p) {
  constexpr int V = sddmm_lane_features<T>();
  const int item = blockIdx.x * (kSddmmThreadsPerBlock / 32) + threadIdx.x / 32;
  if (item >= p.num_items) return;
  const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int w = p.item_window[item], begin = p.item_tile_begin[item], end = p.item_tile_end[item];
  const int row = p.window_rows[8 * w + g];
  for (int t = begin; t < end; t += 2) {
    const bool pair = t + 1 < end;
    const int ca = p.tile_cols[8 * t + g], cb = pair ? p.tile_cols[8 * (t + 1) + g] : -1;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int f = 0; f < p.X.n; f += 4 * V) {
      RawRow<T, V> x, ya, yb;
      x.load(p.X, row, f + V * q);
      ya.load(p.Y, ca, f + V * q);
      yb.load(p.Y, cb, f + V * q);
      sddmm_mma<T, S>(acc, ya, yb, x);
    }
    // acc: (m = g, n = 2q), (g, 2q + 1), (g + 8, 2q), (g + 8, 2q + 1); m < 8 is tile t's column g.
    const uint64_t bm_a = p.tile_bitmap[t];
    const int off_a = p.tile_val_offset[t];
    store_tile_dot(p.slots, bm_a, off_a, 2 * q, g, acc[0]);
    store_tile_dot(p.slots, bm_a, off_a, 2 * q + 1, g, acc[1]);
    if (pair) {
      const uint64_t bm_b = p.tile_bitmap[t + 1];
      const int off_b = p.tile_val_offset[t + 1];
      store_tile_dot(p.slots, bm_b, off_b, 2 * q, g, acc[2]);
      store_tile_dot(p.slots, bm_b, off_b, 2 * q + 1, g, acc[3]);
    }
  }
}

/// The residual rows' work of a plan: item i, of one row, is a group's; the dot product of nonzero j goes
/// to slots[j].
template <class T>
struct SddmmResidualParams {
  const int* cols;  ///< column id of each residual nonzero
  const ResidualItem* items;
  int num_items;
  float* slots;  ///< the residual's part of the slot array
  int group;     ///< lanes per item: 4, 8, 16 or 32
  DenseRef<const T> X, Y;
};

/// The group's dot product of X(row, :) and Y(col, :): V features a lane per step, summed over the group.
template <class T>
__device__ __forceinline__ float group_dot(const DenseRef<const T>& X, const DenseRef<const T>& Y, int row, int col,
                                           int lane, int group, unsigned mask) {
  constexpr int V = sddmm_lane_features<T>();
  float sum = 0.f;
  for (int f = lane * V; f < X.n; f += group * V) {
    RawRow<T, V> x, y;
    x.load(X, row, f);
    y.load(Y, col, f);
#pragma unroll
    for (int i = 0; i < V; ++i) sum = fmaf(x.get(i), y.get(i), sum);
  }
  for (int o = group / 2; o > 0; o /= 2) sum += __shfl_xor_sync(mask, sum, o, group);
  return sum;
}

/// The shuffle mask of a group of G consecutive lanes of the warp (all 32 for G = 32).
__device__ __forceinline__ unsigned group_mask(int G) {
  return G == 32 ? 0xffffffffu : ((1u << G) - 1) << (threadIdx.x % 32 & ~(G - 1));
}

/// The group of G lanes (a power of two, 4..32) that thread `threadIdx.x` of the grid belongs to, counted over
/// the grid, by shifts: an integer division is a chain of about twenty dependent instructions (a 64-bit one
/// far more) ahead of a small kernel's first load.
__device__ __forceinline__ int64_t grid_group(int G) {
  const int log2_g = __ffs(G) - 1;
  return int64_t(blockIdx.x) * (kSddmmThreadsPerBlock >> log2_g) + (threadIdx.x >> log2_g);
}

template <class T>
__global__ void __launch_bounds__(kSddmmThreadsPerBlock) sddmm_residual_kernel(SddmmResidualParams<T> p) {
  const int G = p.group;
  const int64_t item = grid_group(G);
  if (item >= p.num_items) return;
  const int lane = threadIdx.x & (G - 1);
  const ResidualItem it = p.items[item];
  for (int j = it.begin; j < it.end; ++j) {
    const float dot = group_dot(p.X, p.Y, it.row, p.cols[j], lane, G, group_mask(G));
    if (lane == 0) p.slots[j] = dot;
  }
}

/// The SDDMM over A's CSR arrays, straight into A's value order: out[j] = alpha * dot + beta * out[j]. A group
/// of the spans kernel takes span s, nonzeros [s * kSddmmCsrSpan, (s + 1) * kSddmmCsrSpan); a block of the
/// tile kernel (RshSparse_sddmm_tile_kernel.cuh) one 64 x 64 tile.
template <class T, class Offset, class OutT>
struct SddmmCsrParams {
  const Offset* row_map;
  const int* cols;
  int num_rows, num_cols;
  int64_t nnz;
  const int* span_rows;             ///< the row of each span's first nonzero, or null (found by binary search)
  SddmmPanelOrder panels;           ///< kPanels: the order the spans walk (rows, columns, A's positions); else null
  const int* tile_starts;           ///< kDenseTiles: sddmm_csr_tile_starts, or null (each tile searches its rows)
  impl::FastDivisor tiles_per_row;  ///< kDenseTiles: ceil(num_cols / kTileEdge), the tiles of a row of tiles
  OutT* out;
  float alpha, beta;
  int group;        ///< lanes per span: 4, 8, 16 or 32
  int group_spans;  ///< spans a group of the spans kernel takes, its block's groups a run of consecutive ones at a time
  DenseRef<const T> X, Y;
};

/// out[j] = alpha * dot + beta * out[j], out[j] not read where beta is 0.
template <class T, class Offset, class OutT>
__device__ __forceinline__ void sddmm_write(const SddmmCsrParams<T, Offset, OutT>& p, int64_t j, float dot) {
  p.out[j] = from_acc<OutT>(p.beta == 0.f ? p.alpha * dot : p.alpha * dot + p.beta * to_acc(p.out[j]));
}

/// The last row of A whose first nonzero is at or before position j (the row holding j; row_map checked).
template <class Offset>
__device__ __forceinline__ int csr_row_of(const Offset* row_map, int num_rows, int64_t j) {
  int lo = 0, hi = num_rows - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (int64_t(row_map[mid]) <= j)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// The eight ints of a span at `src` (16-byte aligned: a span starts at a multiple of 8), as two vectors.
__device__ __forceinline__ void load_span_ints(const int* src, int (&v)[kSddmmCsrSpan]) {
  static_assert(kSddmmCsrSpan == 8, "two 16-byte vectors a span");
  const int4 a = __ldg(reinterpret_cast<const int4*>(src)), b = __ldg(reinterpret_cast<const int4*>(src) + 1);
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}

/// One reduce-scatter step over 2H partial sums a lane holds: lanes with bit `o` set keep the upper H, the
/// others the lower H, each adding its partner's (lane ^ o) copy of the half it keeps. Three steps leave
/// each lane one of eight sums where a full butterfly per sum would shuffle eight times as often.
template <int H>
__device__ __forceinline__ void reduce_scatter(float* v, bool upper, int o, unsigned mask, int width) {
#pragma unroll
  for (int i = 0; i < H; ++i) {
    const float send = upper ? v[i] : v[i + H];
    const float keep = upper ? v[i + H] : v[i];
    v[i] = keep + __shfl_xor_sync(mask, send, o, width);
  }
}

/// Nonzeros of a span whose rows of X and Y a lane of the batched kernel loads before their products: all eight
/// for 4-byte elements, four for 16-bit ones (eight did not fit 128 registers without spilling), so that it keeps
/// two blocks an SM with that many loads in flight a lane.
template <class T>
constexpr int sddmm_span_batch() {
  return sizeof(T) == 2 ? 4 : kSddmmCsrSpan;
}

/// Whether a lane reads rows of M as single 16-byte vectors (load_lane_row's kVec): row-major rows of whole
/// vectors (DenseRef::vec) whose pitch fits an int, so that a row's offset is one 32 x 32-bit multiply-add.
template <class T>
inline bool lane_row_vectors(const DenseRef<const T>& M) {
  return M.vec && M.row_stride <= int64_t(INT_MAX) / int64_t(sizeof(T));
}

/// A lane's V features [f, f + V) of row `row` of M (f < M.n). kVec (lane_row_vectors): one 16-byte load, its
/// address one wide multiply-add, a row < 0 (padding, whose sums are never written) read as row 0; else
/// RawRow::load, which checks the layout, falls back to scalar loads and reads a row < 0 as zeros.
template <bool kVec, class T>
__device__ __forceinline__ void load_lane_row(RawRow<T, sddmm_lane_features<T>()>& v, const DenseRef<const T>& M,
                                              int row, int f) {
  if constexpr (kVec) {
    // In PTX, because the compiler otherwise re-associates the address into several 64-bit instructions a load.
    const int pitch = int(M.row_stride) * int(sizeof(T));
    uint64_t at;
    asm("mad.wide.s32 %0, %1, %2, %3;"
        : "=l"(at)
        : "r"(max(row, 0)), "r"(pitch), "l"(reinterpret_cast<uint64_t>(M.ptr + f)));
    const uint4 u = __ldg(reinterpret_cast<const uint4*>(at));
    v.w[0] = u.x, v.w[1] = u.y, v.w[2] = u.z, v.w[3] = u.w;
  } else {
    v.load(M, row, f);
  }
}

/// One span's dot products, reduced over its group and written: span `span` of the group of G = p.group
/// lanes this thread belongs to (lane = threadIdx.x mod G), loading the rows of B nonzeros at a time (see
/// sddmm_span_batch), as 16-byte vectors where kVec (load_lane_row). The group returns early past the last span.
template <int B, bool kVec, class T, class Offset, class OutT>
__device__ __forceinline__ void sddmm_span(const SddmmCsrParams<T, Offset, OutT>& p, int64_t span) {
  constexpr int V = sddmm_lane_features<T>(), S = kSddmmCsrSpan;
  static_assert(S == 8, "the reduce-scatter below halves eight sums three times");
  static_assert(S % B == 0, "whole batches a span");
  const int G = p.group;
  const int64_t begin = span * S;
  if (begin >= p.nnz) return;
  const int lane = threadIdx.x & (G - 1);
  const unsigned mask = group_mask(G);
  const int n = p.nnz - begin < S ? int(p.nnz - begin) : S;

  // The span's rows and columns; positions past the end read column -1, that is zeros.
  int rows[S], cols[S];
  if (p.panels.rows) {
    load_span_ints(p.panels.rows + begin, rows);
    load_span_ints(p.panels.cols + begin, cols);
  } else {
    int row = p.span_rows ? p.span_rows[span] : csr_row_of(p.row_map, p.num_rows, begin);
    int64_t row_end = int64_t(p.row_map[row + 1]);
#pragma unroll
    for (int i = 0; i < S; ++i) {
      cols[i] = -1;
      if (i < n) {
        while (row_end <= begin + i) row_end = int64_t(p.row_map[++row + 1]);
        cols[i] = p.cols[begin + i];
      }
      rows[i] = row;
    }
  }

  // The sums this lane writes once the group has reduced them (sums mine and, where G = 4, mine + 1), and
  // their positions in A's order, read now so that the stores do not wait on them.
  const int b1 = G / 2, b2 = G / 4, b3 = G / 8;
  const int mine = (lane & b1 ? 4 : 0) + (lane & b2 ? 2 : 0) + (G > 4 && (lane & b3) ? 1 : 0);
  int64_t dest[2] = {begin + mine, begin + mine + 1};
  if (p.panels.positions) {
    if (mine < n) dest[0] = p.panels.positions[begin + mine];
    if (G == 4 && mine + 1 < n) dest[1] = p.panels.positions[begin + mine + 1];
  }

  // Partial dot products, V features a lane per step. B = 1 loads each row into the registers of the one
  // before it, only where the span's row or column changes, which keeps the registers few. A batch issues all
  // its loads before its first product, so that a span waits for memory once a batch rather than once a distinct
  // row: kVec loads every nonzero's rows (a repeated row hits L1), as branches around the loads would cost more
  // instructions than the loads; otherwise only the changed ones.
  float sum[S] = {};
  for (int f = lane * V; f < p.X.n; f += G * V) {
    RawRow<T, V> xi, yi;  // the rows of nonzero i
    if constexpr (B == 1) {
      load_lane_row<kVec>(xi, p.X, rows[0], f);
      load_lane_row<kVec>(yi, p.Y, cols[0], f);
#pragma unroll
      for (int i = 0; i < S; ++i) {
        if (i > 0 && rows[i] != rows[i - 1]) load_lane_row<kVec>(xi, p.X, rows[i], f);
        if (i > 0 && cols[i] != cols[i - 1]) load_lane_row<kVec>(yi, p.Y, cols[i], f);
#pragma unroll
        for (int v = 0; v < V; ++v) sum[i] = fmaf(xi.get(v), yi.get(v), sum[i]);
      }
    } else {
#pragma unroll
      for (int b = 0; b < S; b += B) {
        RawRow<T, V> x[B], y[B];
#pragma unroll
        for (int i = b; i < b + B; ++i) {
          if (kVec || i == 0 || rows[i] != rows[i - 1]) load_lane_row<kVec>(x[i - b], p.X, rows[i], f);
          if (kVec || i == 0 || cols[i] != cols[i - 1]) load_lane_row<kVec>(y[i - b], p.Y, cols[i], f);
        }
#pragma unroll
        for (int i = b; i < b + B; ++i) {
          if (kVec || i == 0 || rows[i] != rows[i - 1]) xi = x[i - b];
          if (kVec || i == 0 || cols[i] != cols[i - 1]) yi = y[i - b];
#pragma unroll
          for (int v = 0; v < V; ++v) sum[i] = fmaf(xi.get(v), yi.get(v), sum[i]);
        }
      }
    }
  }

  // Sum over the group: lane bits G/2, G/4 (and G/8) pick which sums a lane keeps; the rest is a butterfly.
  reduce_scatter<4>(sum, lane & b1, b1, mask, G);
  reduce_scatter<2>(sum, lane & b2, b2, mask, G);
  if (G == 4) {  // two sums left a lane, both whole
    if (mine < n) sddmm_write(p, dest[0], sum[0]);
    if (mine + 1 < n) sddmm_write(p, dest[1], sum[1]);
    return;
  }
  reduce_scatter<1>(sum, lane & b3, b3, mask, G);
  for (int o = G / 16; o > 0; o /= 2) sum[0] += __shfl_xor_sync(mask, sum[0], o, G);
  if ((lane & (b3 - 1)) == 0 && mine < n) sddmm_write(p, dest[0], sum[0]);
}

/// The spans kernel, p.group_spans spans a group, loading the rows of B nonzeros of a span at a time: B = 1 at four
/// blocks an SM (the most its registers allow) for grids of several waves (throughput-bound), B = sddmm_span_batch
/// at two blocks an SM for a grid of one wave, which is latency-bound; rows as single vectors where kVec
/// (launch_sddmm_csr picks both). The launch bounds hold each variant to those blocks an SM. Block b takes the
/// spans from b * group_spans * (its groups), its groups one run of consecutive spans after another. Launched
/// behind the kernel before it (programmatic dependent launch): it waits for that kernel's stores before it
/// reads anything, and lets the next one become resident from its start.
template <class T, class Offset, class OutT, int B, bool kVec>
__global__ void __launch_bounds__(kSddmmThreadsPerBlock, B == 1 ? 4 : 2)
    sddmm_csr_kernel(SddmmCsrParams<T, Offset, OutT> p) {
  wait_for_prior_grid();
  allow_dependent_launch();
  const int log2_g = __ffs(p.group) - 1, groups = kSddmmThreadsPerBlock >> log2_g;
  const int64_t first = int64_t(blockIdx.x) * p.group_spans * groups + (threadIdx.x >> log2_g);
  for (int j = 0; j < p.group_spans; ++j) sddmm_span<B, kVec>(p, first + int64_t(j) * groups);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
