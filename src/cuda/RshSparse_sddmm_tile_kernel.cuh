#pragma once
// SDDMM over A's CSR in dense output tiles, for patterns dense enough that
// computing every product of a tile costs less than reading Y's rows once
// per nonzero (the spans kernel's traffic).
//
// A block takes the tile of rows [r0, r0 + 64) x columns [c0, c0 + 64). It
// finds each row's nonzeros in the tile by two binary searches (rows sorted
// by column), walks the features in slices of kTileSlice, staging X's and
// Y's tile rows transposed in shared memory (feature-major, so that one
// 16-byte load gives four consecutive rows or columns), and accumulates the
// 64 x 64 products as 4 x 4 outer products per thread in FP32. The finished
// tile goes through shared memory once more, and the tile's nonzeros, in
// A's order, read their dot products from it.
#include <cstdint>

#include "cuda/RshSparse_sddmm_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTileEdge = 64;              ///< rows and columns of a tile
constexpr int kTileSlice = 32;             ///< features staged at a time
constexpr int kTileThreads = 256;          ///< 16 x 16 threads of 4 x 4 products
constexpr int kTilePitch = kTileEdge + 4;  ///< a staged feature's row: 16-byte aligned, banks shifted

/// Shared memory of a tile block: the two staged slices, later the finished tile (64 x 65 floats).
constexpr int kTileSharedFloats = 2 * kTileSlice * kTilePitch > kTileEdge*(kTileEdge + 1) ? 2 * kTileSlice* kTilePitch
                                                                                          : kTileEdge*(kTileEdge + 1);

/// The first position in [lo, hi) of a sorted row whose column is >= c.
template <class Offset>
__device__ __forceinline__ Offset lower_bound_column(const int* cols, Offset lo, Offset hi, int c) {
  while (lo < hi) {
    const Offset mid = lo + (hi - lo) / 2;
    if (cols[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Stages features [f0, f0 + kTileSlice) of rows [first, first + 64) of M, transposed: s[f][i] = M(first + i, f0
/// + f); rows past `count` and features past k read as zero.
template <class T>
__device__ __forceinline__ void stage_slice(const DenseRef<const T>& M, int64_t first, int64_t count, int f0,
                                            float (*s)[kTilePitch]) {
  constexpr int V = sddmm_lane_features<T>(), kChunks = kTileSlice / V;
  for (int i = threadIdx.x; i < kTileEdge * kChunks; i += kTileThreads) {
    const int r = i / kChunks, f = (i % kChunks) * V;
    RawRow<T, V> v;
    v.load(M, r < count ? int(first + r) : -1, f0 + f);
#pragma unroll
    for (int e = 0; e < V; ++e) s[f + e][r] = v.get(e);
  }
}

template <class T, class Offset, class OutT>
__global__ void __launch_bounds__(kTileThreads) sddmm_tile_kernel(SddmmCsrParams<T, Offset, OutT> p) {
  constexpr int E = kTileEdge;
  const int64_t tiles_per_row = (int64_t(p.num_cols) + E - 1) / E;
  const int64_t r0 = blockIdx.x / tiles_per_row * E;
  const int c0 = int(blockIdx.x % tiles_per_row * E);
  __shared__ Offset first_nz[E];     // row i's first nonzero in the tile
  __shared__ int tile_start[E + 1];  // nonzeros of the tile's rows before row i
  __shared__ __align__(16) float shared[kTileSharedFloats];
  const int tid = threadIdx.x;

  // Each row's nonzeros in the tile, and their running count (a scan over two warps).
  if (tid < E) {
    Offset first = 0;
    int count = 0;
    if (r0 + tid < p.num_rows) {
      const Offset end = p.row_map[r0 + tid + 1];
      first = lower_bound_column(p.cols, p.row_map[r0 + tid], end, c0);
      count = int(lower_bound_column(p.cols, first, end, c0 + E) - first);
    }
    first_nz[tid] = first;
    for (int o = 1; o < 32; o *= 2) {
      const int below = __shfl_up_sync(0xffffffffu, count, o);
      if (tid % 32 >= o) count += below;
    }
    tile_start[tid + 1] = count;
  }
  __syncthreads();
  if (tid >= 32 && tid < E) tile_start[tid + 1] += tile_start[32];
  if (tid == 0) tile_start[0] = 0;
  __syncthreads();
  const int total = tile_start[E];
  if (total == 0) return;

  // The tile's 64 x 64 dot products: thread (ty, tx) holds rows 4 ty + i and columns 4 tx + j.
  auto xs = reinterpret_cast<float(*)[kTilePitch]>(shared);
  auto ys = reinterpret_cast<float(*)[kTilePitch]>(shared + kTileSlice * kTilePitch);
  const int ty = tid / 16, tx = tid % 16;
  float acc[4][4] = {};
  for (int f0 = 0; f0 < p.X.n; f0 += kTileSlice) {
    stage_slice(p.X, r0, p.num_rows - r0, f0, xs);
    stage_slice(p.Y, c0, int64_t(p.num_cols) - c0, f0, ys);
    __syncthreads();
#pragma unroll 8
    for (int f = 0; f < kTileSlice; ++f) {
      const float4 a = *reinterpret_cast<const float4*>(&xs[f][4 * ty]);
      const float4 b = *reinterpret_cast<const float4*>(&ys[f][4 * tx]);
      const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
  auto dots = reinterpret_cast<float(*)[E + 1]>(shared);
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) dots[4 * ty + i][4 * tx + j] = acc[i][j];
  __syncthreads();

  // The tile's nonzeros, t-th in row order: row i holds t in [tile_start[i], tile_start[i + 1]).
  for (int t = tid; t < total; t += kTileThreads) {
    int lo = 0, hi = E - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (tile_start[mid] <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
    const int64_t j = int64_t(first_nz[lo]) + (t - tile_start[lo]);
    sddmm_write(p, j, dots[lo][p.cols[j] - c0]);
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
