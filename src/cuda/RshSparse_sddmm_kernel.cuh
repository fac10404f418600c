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
// CUDA-core part (residual rows, and the whole of a CSR for the handle-free
// call): a group of G lanes takes a span of consecutive nonzeros, each lane
// V features at a time, and sums its partial dot products with shuffles.
#include <cstdint>

#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"
#include "cuda/RshSparse_spmm_residual_kernel.cuh"

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

/// Where the CUDA-core kernel's spans of nonzeros come from and where their dot products go:
/// - residual items of a plan (row_map null): span i is item i, of one row; slot = slot_base + position;
/// - a CSR (row_map set): span i is nonzeros [i * span, (i + 1) * span), the row of its first found by
///   binary search, later ones by walking row_map; out[position] = alpha * dot + beta * out[position].
template <class T, class Offset, class OutT>
struct SddmmDotParams {
  const int* cols;  ///< column id of each nonzero
  // Residual items:
  const ResidualItem* items;
  int num_items;
  float* slots;  ///< slot of nonzero j: slots[j] (the residual's part of the slot array)
  // CSR:
  const Offset* row_map;
  int num_rows;
  int64_t nnz;
  int span;
  OutT* out;
  float alpha, beta;
  int group;  ///< lanes per span: 4, 8, 16 or 32
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

template <class T, class Offset, class OutT>
__global__ void __launch_bounds__(kSddmmThreadsPerBlock) sddmm_dot_kernel(SddmmDotParams<T, Offset, OutT> p) {
  const int G = p.group;
  const int64_t span = (blockIdx.x * int64_t(kSddmmThreadsPerBlock) + threadIdx.x) / G;
  const int lane = threadIdx.x % G;
  // The group's lanes as a shuffle mask: G consecutive lanes of the warp (all 32 for G = 32).
  const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << (threadIdx.x % 32 / G * G);
  if (!p.row_map) {
    if (span >= p.num_items) return;
    const ResidualItem it = p.items[span];
    for (int j = it.begin; j < it.end; ++j) {
      const float dot = group_dot(p.X, p.Y, it.row, p.cols[j], lane, G, mask);
      if (lane == 0) p.slots[j] = dot;
    }
    return;
  }
  const int64_t begin = span * p.span;
  if (begin >= p.nnz) return;
  const int64_t end = begin + p.span < p.nnz ? begin + p.span : p.nnz;
  int lo = 0, hi = p.num_rows - 1;  // the last row whose first nonzero is at or before `begin`
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (int64_t(p.row_map[mid]) <= begin)
      lo = mid;
    else
      hi = mid - 1;
  }
  int row = lo;
  for (int64_t j = begin; j < end; ++j) {
    while (int64_t(p.row_map[row + 1]) <= j) ++row;
    const float dot = group_dot(p.X, p.Y, row, p.cols[j], lane, G, mask);
    if (lane == 0) p.out[j] = from_acc<OutT>(p.beta == 0.f ? p.alpha * dot : p.alpha * dot + p.beta * to_acc(p.out[j]));
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
