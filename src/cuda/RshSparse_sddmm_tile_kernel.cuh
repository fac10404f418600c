#pragma once
// SDDMM over A's CSR in dense output tiles on Tensor Cores, for patterns dense
// enough that computing every product of a tile costs less than reading Y's
// rows once per nonzero (the spans kernel's traffic).
//
// A block takes the tile of rows [r0, r0 + R) x columns [c0, c0 + 64), R = 64
// or 32 (a grid of few tiles runs twice as many blocks of half the rows, each
// warp half the products), and computes all its dot products
// X(r0 + i, :) . Y(c0 + j, :) as a small GEMM X_tile x Y_tile^T on MMAs:
// m16n8k16 for FP16 and BF16 operands, m16n8k8 on TF32 with both operands
// split into a high and a low TF32 part (3xTF32) for float, so that float
// keeps FP32-level products; FP32 sums either way.
//
// The features go through shared memory in chunks of up to 128 32-bit words
// (128 floats or 256 halves) per row, X's R tile rows and Y's 64 tile rows,
// all of a chunk at once (cp.async where the rows allow 16-byte copies), so
// that a block waits for memory once per chunk, not once per short slice. A
// staged row's pitch is 4 words past a multiple of 32: a fragment's lanes
// (g = lane / 4, q = lane % 4) read word q of row g, 4g + q modulo 32 banks,
// all distinct. In 32-bit words both MMA shapes take the same fragments (A:
// words q and q + 4 of rows g and g + 8; B: words q and q + 4 of row g), so
// one staging serves every element type. Each of the 8 MMA warps owns 16 rows
// and R / 2 columns of the tile.
//
// Each row's nonzeros in the tile are read from the tile starts a handle
// prepared (sddmm_csr_tile_starts: one load a row), or else found by binary
// searches (rows sorted by column: chains of dependent loads). R / 16 more
// warps do that from the block's start, beside the eight others' staging and
// MMAs of the first chunk (every warp takes every block-wide barrier: they
// reach the first one when they have the ranges). The finished tile goes
// through shared memory once more, and each warp writes whole rows of the
// tile's nonzeros from it, 32 consecutive ones a step, all its rows' column
// loads in flight at once.
//
// Like the spans kernel, it is launched behind the kernel before it
// (programmatic dependent launch) and waits for that kernel's stores first.
// Unlike the spans kernel, it does not let the next kernel launch before it
// ends: the next grid's blocks, resident early, would hold the shared memory
// and registers its later tiles need.
#include <climits>
#include <cstdint>

#include "cuda/RshSparse_sddmm_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTileEdge = 64;                 ///< columns of a tile, and rows of a full-height one
constexpr int kTileMmaThreads = 256;          ///< 8 warps of 16 x R / 2 products
constexpr int kTileStepWords = 8;             ///< 32-bit words of features an MMA step takes
constexpr int kTileChunkWords = 128;          ///< most words of features staged per row at once
constexpr int kTileDotPitch = kTileEdge + 8;  ///< a finished tile row's floats: conflict-free float2 stores

/// Threads of a block of R-row tiles: the MMA warps, and 2R threads that find each row's nonzeros in the tile.
template <int R>
constexpr int tile_threads() {
  return kTileMmaThreads + 2 * R;
}

/// Words of features a chunk stages per row for k features of T: whole MMA steps, at most kTileChunkWords.
template <class T>
constexpr int tile_chunk_words(int k) {
  const int words = (k * int(sizeof(T)) + 3) / 4;
  const int steps = (words + kTileStepWords - 1) / kTileStepWords * kTileStepWords;
  return steps < kTileChunkWords ? steps : kTileChunkWords;
}
/// A staged row's pitch in words: 4 past a multiple of 32 (conflict-free fragment reads).
constexpr int tile_pitch(int chunk_words) {
  return (chunk_words + 31) / 32 * 32 + 4;
}
/// Dynamic shared memory of a block of R-row tiles for k features of T: the staged chunks of X and Y, later the
/// finished tile.
template <int R, class T>
constexpr size_t tile_smem_bytes(int k) {
  const int staged = (R + kTileEdge) * tile_pitch(tile_chunk_words<T>(k)), dots = R * kTileDotPitch;
  return size_t(staged > dots ? staged : dots) * 4;
}
template <int R>
constexpr size_t tile_max_smem_bytes() {
  return size_t((R + kTileEdge) * (kTileChunkWords + 4)) * 4;
}

/// Stages words [w0, w0 + words) (whole 16-byte pieces) of rows [first, first + rows) of M into s (`rows` rows
/// at `pitch` words), run by threads 0 .. kThreads - 1 of the block; rows past `count` and features past M's n as
/// zero. 16-byte cp.async where M's rows allow it (M.vec: then n is a multiple of 8 and a piece wholly in or
/// out), else through registers. The caller commits and waits.
template <class T, int kThreads>
__device__ __forceinline__ void stage_rows(const DenseRef<const T>& M, int64_t first, int64_t count, int rows, int w0,
                                           int words, int pitch, uint32_t* s) {
  constexpr int V = sddmm_lane_features<T>();  // elements a 16-byte piece
  const int pieces = words / 4;
  // A thread keeps one piece of every row it stages where the block's threads are whole rows of pieces (every
  // chunk of 8, 16 or 32 pieces): one division a call instead of one a piece.
  const bool fixed_piece = kThreads % pieces == 0;
  const int first_row = fixed_piece ? int(threadIdx.x) / pieces : 0, row_step = fixed_piece ? kThreads / pieces : 0;
  for (int i = threadIdx.x, r = first_row; i < rows * pieces; i += kThreads, r += row_step) {
    if (!fixed_piece) r = i / pieces;
    const int w = w0 + (fixed_piece ? int(threadIdx.x) - first_row * pieces : i % pieces) * 4;
    const int f = w * 4 / int(sizeof(T));
    uint32_t* dst = s + r * pitch + (w - w0);
    if (M.vec) {
      const bool in = r < count && f < M.n;
      cp_async_16(dst, in ? M.ptr + (first + r) * M.row_stride + f : M.ptr, in);
    } else {
      RawRow<T, V> v;
      v.load(M, r < count ? int(first + r) : -1, f);
      *reinterpret_cast<uint4*>(dst) = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
    }
  }
}

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

/// acc[n] += X rows (16) x Y rows (8 per n)^T over `words` staged words: the warp's 16 x 8 NB products. xs
/// points at the warp's first X row, ys at its first Y row, both at `pitch`; (g, q) the lane's fragment position.
template <class T, int NB>
__device__ __forceinline__ void tile_chunk_mma(float (&acc)[NB][4], const uint32_t* xs, const uint32_t* ys, int words,
                                               int pitch, int g, int q) {
#pragma unroll 2
  for (int k = 0; k < words; k += kTileStepWords) {
    const uint32_t* xa = xs + g * pitch + k + q;
    uint32_t a[4] = {xa[0], xa[8 * pitch], xa[4], xa[8 * pitch + 4]};
    uint32_t a_low[4];
    if constexpr (sizeof(T) == 4) {
#pragma unroll
      for (int i = 0; i < 4; ++i) a_low[i] = tf32_low(a[i]), a[i] = tf32_high(a[i]);
    }
    uint32_t b[NB][2];
#pragma unroll
    for (int n = 0; n < NB; ++n) {
      const uint32_t* yb = ys + (8 * n + g) * pitch + k + q;
      b[n][0] = yb[0], b[n][1] = yb[4];
    }
    if constexpr (sizeof(T) == 2) {
#pragma unroll
      for (int n = 0; n < NB; ++n) mma_m16n8k16<T>(acc[n], a[0], a[1], a[2], a[3], b[n][0], b[n][1]);
    } else {
      // 3xTF32 straight into the FP32 accumulators, small products first (as CUTLASS's "big + small"): a
      // zeroed fragment a step would cost 16 additions for the few low bits it keeps, on a kernel bound by its
      // instruction count. The column blocks' MMAs of each product back to back, independent of one another.
      uint32_t b_low[NB][2];
#pragma unroll
      for (int n = 0; n < NB; ++n) {
        b_low[n][0] = tf32_low(b[n][0]), b_low[n][1] = tf32_low(b[n][1]);
        b[n][0] = tf32_high(b[n][0]), b[n][1] = tf32_high(b[n][1]);
      }
#pragma unroll
      for (int n = 0; n < NB; ++n) mma_tf32(acc[n], a_low[0], a_low[1], a_low[2], a_low[3], b[n][0], b[n][1]);
#pragma unroll
      for (int n = 0; n < NB; ++n) mma_tf32(acc[n], a[0], a[1], a[2], a[3], b_low[n][0], b_low[n][1]);
#pragma unroll
      for (int n = 0; n < NB; ++n) mma_tf32(acc[n], a[0], a[1], a[2], a[3], b[n][0], b[n][1]);
    }
  }
}

template <int R, class T, class Offset, class OutT>
__global__ void __launch_bounds__(tile_threads<R>()) sddmm_tile_kernel(SddmmCsrParams<T, Offset, OutT> p) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "rsh::cuda: SDDMM tiles take FP16, BF16 or FP32 operands");
  static_assert(R == 32 || R == 64, "tiles of 64 or 32 rows: 8 warps of 16 rows by R / 2 columns");
  wait_for_prior_grid();
  constexpr int E = kTileEdge, kThreads = tile_threads<R>();
  constexpr int kColGroups = 8 * 16 / R, NB = R / 16;  // warps across a tile's 64 columns; 8-column blocks a warp
  // The grid has fewer than 2^31 tiles (launch_sddmm_csr): 32-bit, and a FastDivisor instead of a 64-bit division.
  const int tile = static_cast<int>(blockIdx.x), tile_row = p.tiles_per_row.divide(tile);
  const int64_t r0 = int64_t(tile_row) * R;
  const int c0 = (tile - tile_row * p.tiles_per_row.divisor()) * E;
  const int64_t x_rows = p.num_rows - r0, y_rows = int64_t(p.num_cols) - c0;
  __shared__ Offset first_nz[R];  // row i's first nonzero in the tile
  __shared__ Offset end_nz[R];    // and one past its last
  extern __shared__ __align__(16) uint32_t shared[];
  const int tid = threadIdx.x;
  const int k_words = (p.X.n * int(sizeof(T)) + 3) / 4, chunk = tile_chunk_words<T>(p.X.n), pitch = tile_pitch(chunk);
  uint32_t* xs = shared;
  uint32_t* ys = shared + R * pitch;
  const auto stage = [&](int w0) {
    const int words = min(chunk, (k_words - w0 + kTileStepWords - 1) / kTileStepWords * kTileStepWords);
    stage_rows<T, kTileMmaThreads>(p.X, r0, x_rows, R, w0, words, pitch, xs);
    stage_rows<T, kTileMmaThreads>(p.Y, c0, y_rows, E, w0, words, pitch, ys);
    cp_async_commit();
    return words;
  };
  const int warp = tid / 32, g = tid % 32 / 4, q = tid % 4;
  const bool computes = tid < kTileMmaThreads;
  // Each row's nonzeros in the tile: its first at or past c0 (the first R threads past the MMA warps) and past
  // c0 + 63 (the next R).
  const auto search = [&] {
    const int s = tid - kTileMmaThreads, i = s % R;
    const int64_t c = c0 / E + (s < R ? 0 : 1);  // the column of tiles whose first nonzero this thread finds
    Offset at = 0;
    if (i < x_rows) {
      const Offset row_start = p.row_map[r0 + i];
      at = p.tile_starts
               ? row_start + p.tile_starts[(r0 + i) * (p.tiles_per_row.divisor() + 1) + c]
               : lower_bound_column(p.cols, row_start, p.row_map[r0 + i + 1], c * E < INT_MAX ? int(c * E) : INT_MAX);
    }
    (s < R ? first_nz : end_nz)[i] = at;
  };
  // The tile's products: warp w's rows 16 (w / kColGroups) + (g, g + 8), columns 8 NB (w % kColGroups) + 8 n +
  // (2q, 2q + 1).
  const int warp_row = 16 * (warp / kColGroups), warp_col = 8 * NB * (warp % kColGroups);
  float acc[NB][4] = {};
  for (int w0 = 0; w0 < k_words; w0 += chunk) {
    int words = 0;
    if (computes) {
      words = stage(w0);
      cp_async_wait<0>();
    } else if (w0 == 0) {
      search();
    }
    __syncthreads();
    if (computes) tile_chunk_mma<T, NB>(acc, xs + warp_row * pitch, ys + warp_col * pitch, words, pitch, g, q);
    __syncthreads();
  }
  if (k_words == 0 && !computes) search();
  __syncthreads();
  float* dots = reinterpret_cast<float*>(shared);
  if (computes) {
#pragma unroll
    for (int n = 0; n < NB; ++n) {
      float* d = dots + (warp_row + g) * kTileDotPitch + warp_col + 8 * n + 2 * q;
      *reinterpret_cast<float2*>(d) = make_float2(acc[n][0], acc[n][1]);
      *reinterpret_cast<float2*>(d + 8 * kTileDotPitch) = make_float2(acc[n][2], acc[n][3]);
    }
  }
  __syncthreads();

  // The tile's nonzeros, a warp a row: warp w takes rows w + kWarps r, all of them at once, its lanes 32
  // consecutive nonzeros of each a step (coalesced column loads and stores, every row's loads in flight together).
  constexpr int kWarps = kThreads / 32, kRowsAWarp = (R + kWarps - 1) / kWarps;
  const int lane = tid % 32;
  Offset j[kRowsAWarp], end[kRowsAWarp];
#pragma unroll
  for (int r = 0; r < kRowsAWarp; ++r) {
    const int i = warp + kWarps * r;
    j[r] = i < R ? first_nz[i] + lane : 0, end[r] = i < R ? end_nz[i] : 0;
  }
  for (bool more = true; more;) {
    int col[kRowsAWarp];
#pragma unroll
    for (int r = 0; r < kRowsAWarp; ++r) col[r] = j[r] < end[r] ? p.cols[j[r]] : 0;
    more = false;
#pragma unroll
    for (int r = 0; r < kRowsAWarp; ++r) {
      if (j[r] < end[r]) sddmm_write(p, j[r], dots[(warp + kWarps * r) * kTileDotPitch + col[r] - c0]);
      j[r] += 32;
      more |= j[r] < end[r];
    }
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
