#pragma once
// Tensor-Core part of the RS-Tile kernel (RSH-SpMM Alg. 2, swap-and-transpose).
// A warp computes one work item (a window or a piece of one), or a 1/K share
// of its tiles, for one slice of B / C (64 features and 4 m16n8k8 MMAs per
// tile for FP16; 32 features and 2 MMAs for TF32). The next two tiles'
// indices, bitmaps, values and B rows load into two register sets while the
// current tile's MMAs run (register double buffering, Alg. 2's fragB[2]; B
// goes straight to registers, not through cp.async and shared memory); the
// FP32 accumulators stay in registers across the item and C rows are stored
// once, at their original row ids.
#include <cstdint>

#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTcWarpsPerBlock = 8;
/// Features of B / C one warp covers: 8 lane groups x V (64 for FP16 with 4
/// MMAs of M = 16 per tile, 32 for TF32 with 2).
template <class T>
__host__ __device__ constexpr int tc_slice_features() {
  return 8 * MmaTraits<T>::kLaneFeatures;
}

template <class T, class OutT>
struct TcParams {
  const int* window_rows;       ///< 8 * windows
  const int* tile_cols;         ///< 8 * tiles, -1 = padding
  const uint64_t* tile_bitmap;  ///< tiles
  const int* tile_val_offset;   ///< tiles + 1
  const T* values;              ///< tile values in bitmap order
  const int* item_window;
  const int* item_tile_begin;
  const int* item_tile_end;
  int num_items, num_unsplit;
  int slices;          ///< ceil(n / tc_slice_features<T>())
  int warps_per_item;  ///< K in {1, 2, 4, 8}: warps sharing one (item, slice)
  DenseRef<const T> B;
  DenseRef<OutT> C;
  float alpha, beta;
};

/// One sparse tile as one lane needs it: its two B rows and two A values.
template <class T>
struct LaneTile {
  RawRow<T, MmaTraits<T>::kLaneFeatures> b_a, b_b;
  T v_a, v_b;

  template <class P>
  __device__ __forceinline__ void load(const P& p, int t, int g, int q, int f) {
    const int ca = MmaTraits<T>::col_a(q), cb = MmaTraits<T>::col_b(q);
    b_a.load(p.B, __ldg(p.tile_cols + 8 * t + ca), f);
    b_b.load(p.B, __ldg(p.tile_cols + 8 * t + cb), f);
    // Bitmap decode in registers: the value of bit b is the popcount of the bits below it.
    const uint64_t bits = __ldg(p.tile_bitmap + t);
    const int base = __ldg(p.tile_val_offset + t);
    const int bit_a = 8 * g + ca, bit_b = 8 * g + cb;
    const uint64_t below_a = bits & ((uint64_t(1) << bit_a) - 1), below_b = bits & ((uint64_t(1) << bit_b) - 1);
    v_a = (bits >> bit_a) & 1 ? p.values[base + __popcll(below_a)] : from_float<T>(0.f);
    v_b = (bits >> bit_b) & 1 ? p.values[base + __popcll(below_b)] : from_float<T>(0.f);
  }
};

/// One CTA's share of the Tensor-Core work: 8 warps; each (item, slice)
/// task is taken by `warps_per_item` (K) warps that split its tiles
/// round-robin and reduce through shared memory, so long windows use K
/// warps without atomics. `smem` holds 8 x 16 x 32 floats.
template <class T, class OutT>
__device__ __forceinline__ void tc_block(const TcParams<T, OutT>& p, int64_t block, float* smem) {
  // Preconditions: K divides 8; K is uniform over the launch, so the barrier below is CTA-uniform.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int K = p.warps_per_item;
  const int64_t task = block * (kTcWarpsPerBlock / K) + warp / K;
  const int kk = warp % K;
  const bool active = task < int64_t(p.num_items) * p.slices;
  const int g = lane / 4, q = lane % 4;
  const int item = active ? static_cast<int>(task / p.slices) : 0;
  constexpr int V = MmaTraits<T>::kLaneFeatures, J = V / 2;  // features per lane, MMAs per tile
  const int f = active ? static_cast<int>(task % p.slices) * tc_slice_features<T>() + V * g : 0;  // lane's first

  float acc[J][4] = {};  // (MMA j, fragment element): C^T(16 features x 8 rows) per MMA
  if (active) {
    const int t_begin = p.item_tile_begin[item] + kk, t_end = p.item_tile_end[item];
    // PREFETCH: two tiles in flight per warp (tiles t and t+K).
    LaneTile<T> even, odd;
    if (t_begin < t_end) even.load(p, t_begin, g, q, f);
    if (t_begin + K < t_end) odd.load(p, t_begin + K, g, q, f);
    // PIPELINED MAIN LOOP: while one tile multiplies, the next two are loading.
    for (int t = t_begin; t < t_end; t += 2 * K) {
      MmaTraits<T>::mma(acc, even.b_a, even.b_b, even.v_a, even.v_b);
      if (t + 2 * K < t_end) even.load(p, t + 2 * K, g, q, f);
      if (t + K >= t_end) break;
      MmaTraits<T>::mma(acc, odd.b_a, odd.b_b, odd.v_a, odd.v_b);
      if (t + 3 * K < t_end) odd.load(p, t + 3 * K, g, q, f);
    }
  }

  // Split-K reduction: smem (warp, element, lane), conflict-free.
  if (K > 1) {
#pragma unroll
    for (int e = 0; e < 4 * J; ++e) smem[(warp * 16 + e) * 32 + lane] = acc[e / 4][e % 4];
    __syncthreads();
    if (kk == 0)
      for (int other = 1; other < K; ++other)
#pragma unroll
        for (int e = 0; e < 4 * J; ++e) acc[e / 4][e % 4] += smem[((warp + other) * 16 + e) * 32 + lane];
  }
  if (!active || kk != 0 || f >= p.C.n) return;

  // Epilogue: lane holds rows 2q, 2q+1 of the window, features f .. f+V-1.
  Frag<V> row0, row1;
#pragma unroll
  for (int j = 0; j < J; ++j) {
    row0.v[2 * j] = acc[j][0], row0.v[2 * j + 1] = acc[j][2];
    row1.v[2 * j] = acc[j][1], row1.v[2 * j + 1] = acc[j][3];
  }
  const int w = p.item_window[item];
  const bool atomic = item >= p.num_unsplit;
  const int r0 = p.window_rows[8 * w + 2 * q], r1 = p.window_rows[8 * w + 2 * q + 1];
  if (r0 >= 0) store_row(p.C, r0, f, row0, p.alpha, p.beta, atomic);
  if (r1 >= 0) store_row(p.C, r1, f, row1, p.alpha, p.beta, atomic);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
