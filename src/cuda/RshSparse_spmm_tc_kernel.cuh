#pragma once
// Tensor-Core kernel of the RS-Tile part (RSH-SpMM Alg. 2, swap-and-transpose).
// One warp computes one work item (a window or a piece of one) for one
// 64-feature slice of B / C: per tile, 4 m16n8k8 MMAs. The next tile's
// indices, bitmap, values and B rows are loaded into a second register set
// while the current tile's MMAs run (register double buffering, Alg. 2's
// fragB[2]); the FP32 accumulators stay in registers across the item and C
// rows are stored once, at their original row ids.
#include <cstdint>

#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTcWarpsPerBlock = 4;
constexpr int kTcSliceFeatures = 64;  ///< 8 lanes x 8 features; 4 MMAs of M = 16

template <class T, class OutT>
struct TcParams {
  const int* window_rows;      ///< 8 * windows
  const int* tile_cols;        ///< 8 * tiles, -1 = padding
  const uint64_t* tile_bitmap;  ///< tiles
  const int* tile_val_offset;  ///< tiles + 1
  const T* values;             ///< tile values in bitmap order
  const int* item_window;
  const int* item_tile_begin;
  const int* item_tile_end;
  int num_items, num_unsplit;
  int slices;  ///< ceil(n / 64)
  DenseRef<const T> B;
  DenseRef<OutT> C;
  float alpha, beta;
};

/// One sparse tile as one lane needs it: its two B rows and two A values.
template <class T>
struct LaneTile {
  RawRow8<T> b_a, b_b;
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

template <class T, class OutT>
__global__ void __launch_bounds__(32 * kTcWarpsPerBlock) tc_spmm_kernel(const TcParams<T, OutT> p) {
  // Preconditions: a warp owns (item, slice); a whole warp exits together.
  const int lane = threadIdx.x % 32;
  const int64_t warp = int64_t(blockIdx.x) * kTcWarpsPerBlock + threadIdx.x / 32;
  if (warp >= int64_t(p.num_items) * p.slices) return;
  const int item = static_cast<int>(warp / p.slices);
  const int g = lane / 4, q = lane % 4;
  const int f = static_cast<int>(warp % p.slices) * kTcSliceFeatures + 8 * g;  // lane's first feature
  const int t_begin = p.item_tile_begin[item], t_end = p.item_tile_end[item];

  float acc[4][4] = {};  // (MMA j, fragment element): C^T(16 features x 8 rows) per MMA

  // PREFETCH
  LaneTile<T> cur;
  if (t_begin < t_end) cur.load(p, t_begin, g, q, f);

  // PIPELINED MAIN LOOP: load tile t+1 while tile t multiplies.
  for (int t = t_begin; t < t_end; ++t) {
    LaneTile<T> next;
    if (t + 1 < t_end) next.load(p, t + 1, g, q, f);
    MmaTraits<T>::mma(acc, cur.b_a, cur.b_b, cur.v_a, cur.v_b);
    cur = next;
  }

  // Epilogue: lane holds rows 2q, 2q+1 of the window, features f .. f+7.
  Frag8 row0, row1;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    row0.v[2 * j] = acc[j][0], row0.v[2 * j + 1] = acc[j][2];
    row1.v[2 * j] = acc[j][1], row1.v[2 * j + 1] = acc[j][3];
  }
  if (f >= p.C.n) return;
  const int w = p.item_window[item];
  const bool atomic = item >= p.num_unsplit;
  const int r0 = p.window_rows[8 * w + 2 * q], r1 = p.window_rows[8 * w + 2 * q + 1];
  if (r0 >= 0) store_row8(p.C, r0, f, row0, p.alpha, p.beta, atomic);
  if (r1 >= 0) store_row8(p.C, r1, f, row1, p.alpha, p.beta, atomic);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
