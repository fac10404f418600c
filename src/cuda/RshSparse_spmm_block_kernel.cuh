#pragma once
// Dense-block Tensor-Core kernel, for small matrices dense enough at the
// 16 x 16 block level (pruned DNN layers at 50-98% sparsity fill nearly every
// block): A is stored whole (zeros included) in 16 x 16 blocks in MMA
// fragment order, and the product runs as a dense GEMM on Tensor Cores
// (FP16 / BF16 / TF32 with FP32 accumulation, FP64 in FP64).
//
// A CTA of 8 warps computes 64 rows (4 panels of 16 rows) x 64 features of C
// (2 warps a panel, 32 features each) over a range of column blocks, staged in
// rounds: every block of A and B of a round is requested at once (cp.async,
// no addresses to look up), so a round is one memory round trip. With two
// stages, the next round is in flight while the MMAs consume this one.
// The column blocks of a 64-row group are split over the CTAs of a thread
// block cluster, which sum their partial tiles through distributed shared
// memory: no workspace, atomics or second launch.
#include <cooperative_groups.h>

#include <cstdint>

#include "cuda/RshSparse_spmm_block_plan.hpp"
#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kBlockDim = 16;                         ///< rows and columns of an A block
constexpr int kBlockPanels = 4;                       ///< 16-row panels per CTA
constexpr int kBlockRows = kBlockDim * kBlockPanels;  ///< rows of C per CTA
constexpr int kBlockFeatures = 64;                    ///< features of C per CTA
constexpr int kWarpTiles = 4;                         ///< MMA columns of 8 features per warp
constexpr int kBlockThreads = 32 * kBlockPanels * kBlockFeatures / (8 * kWarpTiles);  ///< 256
/// Padded staged B row (elements), so that a warp's B fragment reads hit distinct banks: 72 for 2- and 4-byte
/// elements; 68 for FP64, whose half-warps read (k = q, n = g) as 8-byte words (rows 8 banks apart).
template <class T>
constexpr int kBlockStride = sizeof(T) == 8 ? kBlockFeatures + 4 : kBlockFeatures + 8;
template <class T>
constexpr int kBlockBElements = kBlockDim* kBlockStride<T>;  ///< staged B elements a step
/// Per precision (and Tf32Split for float): one warp's MMAs over a 16 x 16 A block and 32 features of a
/// staged 16 x 64 B block. Every precision leaves C(panel row g + 8h, feature 8j + 2q + e) of the warp's
/// 16 x 32 tile in acc[j][2h + e].
template <class T, Tf32Split S = Tf32Split::kNone>
struct BlockMma;

/// 16-bit operands T (FP16, BF16): mma.m16n8k16; A fragment a0..a3 = (g, 2q..2q+1), (g+8, 2q..), (g, 2q+8..),
/// (g+8, 2q+8..) of the block (8 elements a lane, one 16-byte load); B fragments by ldmatrix.trans from the
/// row-major staged block.
template <class T>
struct BlockMma16 {
  static constexpr int kLaneWords = 4;                     ///< 32-bit words of A a lane holds per block
  static constexpr int kRoundSteps = kDenseRoundSteps<T>;  ///< 69 KB of shared memory

  /// `bs`: the staged block at the warp's first feature.
  __device__ __forceinline__ static void run(float (&acc)[kWarpTiles][4], const uint32_t (&a)[kLaneWords], const T* bs,
                                             int lane) {
    // ldmatrix.x4.trans: matrices (k 0-7, n 8j..), (k 8-15, n 8j..), (k 0-7, n 8j+8..), (k 8-15, n 8j+8..).
    const int m = lane / 8, k = (m % 2) * 8 + lane % 8;
#pragma unroll
    for (int j = 0; j < kWarpTiles; j += 2) {
      const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(bs + k * kBlockStride<T> + (j + m / 2) * 8));
      uint32_t b[4];
      ldmatrix_x4_trans(b, addr);
#pragma unroll
      for (int h = 0; h < 2; ++h) mma_m16n8k16<T>(acc[j + h], a[0], a[1], a[2], a[3], b[2 * h], b[2 * h + 1]);
    }
  }
};
template <Tf32Split S>
struct BlockMma<__half, S> : BlockMma16<__half> {};
template <Tf32Split S>
struct BlockMma<__nv_bfloat16, S> : BlockMma16<__nv_bfloat16> {};

/// FP32 operands: two mma.m16n8k8 per block (k halves); A fragment a0..a3 = (g, q), (g+8, q), (g, q+4),
/// (g+8, q+4) of each half (4 floats a lane per half); B fragments (k q / q+4, n g) as words. kNone: the
/// operands as TF32 (A rounded to TF32 on the host, B truncated by the Tensor Cores). kDense / kBoth: B
/// split into TF32 high and low parts (and A too for kBoth, once a block), products of the parts summed
/// small first (mma_tf32_split's scheme); `acc` then holds one block's sums, which the kernel adds to its
/// FP32 totals after each block (the Tensor Cores' running sum rounds toward zero).
template <Tf32Split S>
struct BlockMma<float, S> {
  static constexpr int kLaneWords = 8;
  static constexpr int kRoundSteps = kDenseRoundSteps<float>;  ///< 69 KB of shared memory

  __device__ __forceinline__ static void run(float (&acc)[kWarpTiles][4], const uint32_t (&a)[kLaneWords],
                                             const float* bs, int lane) {
    const int g = lane / 4, q = lane % 4;
    uint32_t a_hi[kLaneWords], a_lo[kLaneWords];
#pragma unroll
    for (int i = 0; i < kLaneWords; ++i) {
      a_hi[i] = S == Tf32Split::kBoth ? tf32_high(a[i]) : a[i];  // kNone, kDense: A as it is (TF32 numbers)
      if (S == Tf32Split::kBoth) a_lo[i] = tf32_low(a[i]);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int j = 0; j < kWarpTiles; ++j) {
        const uint32_t b0 = __float_as_uint(bs[(8 * h + q) * kBlockStride<float> + 8 * j + g]);
        const uint32_t b1 = __float_as_uint(bs[(8 * h + q + 4) * kBlockStride<float> + 8 * j + g]);
        const uint32_t* ah = a_hi + 4 * h;
        if constexpr (S == Tf32Split::kNone) {
          mma_tf32(acc[j], ah[0], ah[1], ah[2], ah[3], b0, b1);
        } else {
          const uint32_t bh0 = tf32_high(b0), bh1 = tf32_high(b1);
          if (S == Tf32Split::kBoth) {
            const uint32_t* al = a_lo + 4 * h;
            mma_tf32(acc[j], al[0], al[1], al[2], al[3], bh0, bh1);
          }
          mma_tf32(acc[j], ah[0], ah[1], ah[2], ah[3], tf32_low(b0), tf32_low(b1));
          mma_tf32(acc[j], ah[0], ah[1], ah[2], ah[3], bh0, bh1);
        }
      }
  }
};

/// FP64 operands and accumulation: one mma.m16n8k16 a block and 8 features. A fragment: the lane's
/// A(g + 8h, 4 quarter + q) of each quarter, one 16-byte chunk a quarter (the h = 0 value in its low words),
/// which is the MMA's a[2 quarter + h]; B fragment (k = 4 quarter + q, n = 8j + g) as doubles from the staged
/// block.
template <Tf32Split S>
struct BlockMma<double, S> {
  static constexpr int kLaneWords = 16;
  static constexpr int kRoundSteps = kDenseRoundSteps<double>;  ///< 68 KB of shared memory

  __device__ __forceinline__ static void run(double (&acc)[kWarpTiles][4], const uint32_t (&a)[kLaneWords],
                                             const double* bs, int lane) {
    const int g = lane / 4, q = lane % 4;
    double af[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) af[i] = __hiloint2double(a[2 * i + 1], a[2 * i]);
#pragma unroll
    for (int j = 0; j < kWarpTiles; ++j) {
      double b[4];
#pragma unroll
      for (int quarter = 0; quarter < 4; ++quarter)
        b[quarter] = bs[(4 * quarter + q) * kBlockStride<double> + 8 * j + g];
      mma_f64_m16n8k16(acc[j], af, b);
    }
  }
};

template <class T, class OutT>
struct BlockParams {
  const T* values;  ///< (group, column block, panel) blocks of 256 values in fragment order
  int num_rows, num_cols;
  int col_blocks;  ///< ceil(num_cols / 16)
  int slices;      ///< ceil(n / kBlockFeatures)
  DenseRef<const T> B;
  DenseRef<OutT> C;
  Accum<T> alpha, beta;
};

/// Dynamic shared memory of one CTA: `stages` rounds of RoundSteps A and B
/// blocks, and the partial sums (in Accum<T>) the cluster sends this CTA for the rows it stores.
template <class T, int RoundSteps>
struct BlockSmem {
  using Acc = Accum<T>;
  static constexpr int kSteps = RoundSteps;
  static constexpr int kAChunks = kBlockPanels * kBlockDim * kBlockDim * int(sizeof(T)) / 16;  ///< 16 bytes, a step
  static constexpr int kBChunks = kBlockDim * kBlockFeatures * int(sizeof(T)) / 16;
  static constexpr int kBElements = kBlockBElements<T>;
  static constexpr int kCopies = (kAChunks + kBChunks) / kBlockThreads;  ///< 16-byte copies a thread a step
  static_assert(kAChunks % kBlockThreads == 0 || kBlockThreads % kAChunks == 0, "whole warps copy A or B");
  static_assert((kAChunks + kBChunks) % kBlockThreads == 0, "every thread copies alike");
  static constexpr int kTileSums = kBlockRows * kBlockFeatures;  ///< partial sums received (all ranks' copies)
  static constexpr int kStepChunks = kAChunks + kBElements * int(sizeof(T)) / 16;
  static constexpr int kStageChunks = kSteps * kStepChunks;
  /// Bytes for `staged` steps (rounds x steps a round).
  static constexpr size_t bytes(int staged) { return sizeof(uint4) * staged * kStepChunks + sizeof(Acc) * kTileSums; }
  uint4* a;    ///< [stage][step][panel][lane chunks]
  T* b;        ///< [stage][step][16 rows x kBlockStride<T>]
  Acc* inbox;  ///< [sending rank][row of this rank's share][64 features]
  __device__ BlockSmem(uint4* base, int stages)
      : a(base),
        b(reinterpret_cast<T*>(base + stages * kSteps * kAChunks)),
        inbox(reinterpret_cast<Acc*>(base + stages * kStageChunks)) {}
  __device__ uint4* stage_a(int stage) const { return a + stage * kSteps * kAChunks; }
  __device__ T* stage_b(int stage) const { return b + stage * kSteps * kBElements; }
};

/// One thread's share of the copies of a round: per step kCopies 16-byte
/// chunks of the B block or of the A blocks, at addresses that advance by a
/// fixed stride from step to step (computed once, so a step is a few instructions).
template <class T, int RoundSteps>
struct BlockCopies {
  using S = BlockSmem<T, RoundSteps>;
  const char* src[S::kCopies];
  unsigned dst[S::kCopies];
  int64_t src_step[S::kCopies];
  int valid_steps[S::kCopies];  ///< steps whose chunk lies inside B (A chunks: all)
  bool fill[S::kCopies];        ///< features inside B

  /// Copies into the stage at `a_dst`, `b_dst`.
  template <class OutT>
  __device__ __forceinline__ BlockCopies(const BlockParams<T, OutT>& p, uint4* a_dst, T* b_dst, int group, int cb0,
                                         int f0) {
    constexpr int kChunk = 16 / int(sizeof(T));
    constexpr int kRowChunks = kBlockFeatures / kChunk;
#pragma unroll
    for (int i = 0; i < S::kCopies; ++i) {
      const int c = threadIdx.x + i * kBlockThreads;
      if (c >= S::kBChunks) {
        const int a = c - S::kBChunks;
        src[i] = reinterpret_cast<const char*>(reinterpret_cast<const uint4*>(p.values) +
                                               (int64_t(group) * p.col_blocks + cb0) * S::kAChunks + a);
        src_step[i] = sizeof(uint4) * S::kAChunks;
        dst[i] = static_cast<unsigned>(__cvta_generic_to_shared(a_dst + a));
        valid_steps[i] = S::kSteps, fill[i] = true;
      } else {
        const int r = c / kRowChunks, f = f0 + (c % kRowChunks) * kChunk, row = cb0 * kBlockDim + r;
        valid_steps[i] = row < p.num_cols ? (p.num_cols - row + kBlockDim - 1) / kBlockDim : 0;
        fill[i] = f + kChunk <= p.B.n;
        // A B chunk past the matrix reads nothing (zero fill), but its address must still be valid: B itself.
        src[i] =
            reinterpret_cast<const char*>(valid_steps[i] > 0 && fill[i] ? p.B.ptr + row * p.B.row_stride + f : p.B.ptr);
        src_step[i] = int64_t(sizeof(T)) * kBlockDim * p.B.row_stride;
        dst[i] =
            static_cast<unsigned>(__cvta_generic_to_shared(b_dst + r * kBlockStride<T> + (c % kRowChunks) * kChunk));
      }
    }
  }

  /// Requests steps [0, steps) of the round starting at the column block these were made for
  /// (the A chunks only, unless `with_b`).
  __device__ __forceinline__ void request(int steps, bool with_b) const {
#pragma unroll
    for (int i = 0; i < S::kCopies; ++i) {
      const bool a_chunk = threadIdx.x + i * kBlockThreads >= S::kBChunks;  // warp-uniform
      if (!a_chunk && !with_b) continue;
      const unsigned dst_step = a_chunk ? sizeof(uint4) * S::kAChunks : sizeof(T) * S::kBElements;
#pragma unroll
      for (int s = 0; s < S::kSteps; ++s) {
        if (s >= steps) break;
        const bool ok = fill[i] && s < valid_steps[i];
        cp_async_16_l2(dst[i] + s * dst_step, ok ? src[i] + s * src_step[i] : src[i], ok);  // read once per CTA
      }
    }
  }
};

/// Element-wise staging of a round's B blocks (column-major or unaligned B; correctness path).
template <class T, class OutT>
__device__ void stage_b_elements(const BlockParams<T, OutT>& p, T* b_dst, int cb0, int steps, int f0) {
  for (int e = threadIdx.x; e < steps * kBlockDim * kBlockFeatures; e += kBlockThreads) {
    const int s = e / (kBlockDim * kBlockFeatures), r = e / kBlockFeatures % kBlockDim, f = e % kBlockFeatures;
    const int row = (cb0 + s) * kBlockDim + r;
    b_dst[s * kBlockBElements<T> + r * kBlockStride<T> + f] =
        row < p.num_cols && f0 + f < p.B.n ? p.B.ptr[row * p.B.row_stride + (f0 + f) * p.B.col_stride]
                                           : from_acc<T>(0.f);
  }
}

/// Cluster barrier halves. A CTA may write another's shared memory only once
/// that CTA is running: every CTA arrives (relaxed) on entry and waits before
/// its first remote write, so the wait is free by then. The release / acquire
/// pair then makes the remote writes visible to their owners.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_sync_release_acquire() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

/// One CTA: rows 64 * group .., features 64 * slice .., the cluster rank's
/// share of the column blocks. Grid (cluster size x groups, slices),
/// clusters of 1, 2, 4 or 8 along x. Rounds of RoundSteps column blocks
/// (BlockMma's round or twice it), Stages of them staged at once (1, or 2:
/// double buffering); two short rounds' shared memory holds one CTA an SM.
/// Template parameters: with a runtime stage count, one stage ran slower (perf_tests/results/MODELS.md).
template <class T, class OutT, Tf32Split S, int RoundSteps, int Stages>
__global__ void __launch_bounds__(kBlockThreads, 2) block_kernel(const BlockParams<T, OutT> p) {  // 2 CTAs: smem
  static_assert(RoundSteps * Stages <= kBlockMaxStages * BlockMma<T>::kRoundSteps, "shared memory of two rounds");
  using Smem = BlockSmem<T, RoundSteps>;
  namespace cg = cooperative_groups;
  extern __shared__ uint4 smem_base[];
  const Smem sh(smem_base, Stages);
  const int rank = static_cast<int>(cg::this_cluster().block_rank());
  const int ranks = static_cast<int>(cg::this_cluster().num_blocks());
  const int group = blockIdx.x / ranks, slice = blockIdx.y, f0 = slice * kBlockFeatures;
  if (ranks > 1) cluster_arrive_relaxed();  // "running"; waited for before the partial sums go out
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  const int panel = warp % kBlockPanels, wf = (warp / kBlockPanels) * 8 * kWarpTiles;  // warp's features in the tile
  const int cb_begin = p.col_blocks * rank / ranks, cb_end = p.col_blocks * (rank + 1) / ranks;

  using Acc = Accum<T>;
  Acc acc[kWarpTiles][4] = {};
  // FP32-level MMAs sum one column block in `block_acc` and add it to `acc` in FP32 (see BlockMma<float>):
  // the Tensor Cores' running sum rounds toward zero, so it is kept to one block's 16 columns.
  constexpr bool kBlockSums = S != Tf32Split::kNone;
  Acc block_acc[kBlockSums ? kWarpTiles : 1][4] = {};
  constexpr int kLaneChunks = BlockMma<T>::kLaneWords / 4;
  // Rounds of up to RoundSteps column blocks, each in flight at once: these calls are latency-bound,
  // and one round trip for a round beats a pipeline of a few small stages (a round trip every few steps).
  const int rounds = (cb_end - cb_begin + Smem::kSteps - 1) / Smem::kSteps;
  const auto request_round = [&](int r) {  // into stage r % Stages, one cp.async group
    const int stage = r % Stages, cb0 = cb_begin + r * Smem::kSteps, steps = min(Smem::kSteps, cb_end - cb0);
    const BlockCopies<T, RoundSteps> copies(p, sh.stage_a(stage), sh.stage_b(stage), group, cb0, f0);
    copies.request(steps, p.B.vec);
    if (!p.B.vec) stage_b_elements(p, sh.stage_b(stage), cb0, steps, f0);
    cp_async_commit();
  };
  for (int r = 0; r < min(Stages, rounds); ++r) request_round(r);
  for (int r = 0; r < rounds; ++r) {
    // Round r has landed once at most the next round is still in flight.
    if (Stages > 1 && r + 1 < rounds)
      cp_async_wait<1>();
    else
      cp_async_wait<0>();
    __syncthreads();
    const int stage = r % Stages, steps = min(Smem::kSteps, cb_end - cb_begin - r * Smem::kSteps);
    const uint4* a_stage = sh.stage_a(stage) + panel * 32 * kLaneChunks;
    const T* b_stage = sh.stage_b(stage) + wf;
    for (int s = 0; s < steps; ++s) {
      const uint4* a_src = a_stage + s * Smem::kAChunks;
      uint32_t a[BlockMma<T>::kLaneWords];
#pragma unroll
      for (int i = 0; i < kLaneChunks; ++i) {
        const uint4 u = a_src[i * 32 + lane];
        a[4 * i] = u.x, a[4 * i + 1] = u.y, a[4 * i + 2] = u.z, a[4 * i + 3] = u.w;
      }
      if constexpr (kBlockSums) {
        BlockMma<T, S>::run(block_acc, a, b_stage + s * Smem::kBElements, lane);
#pragma unroll
        for (int j = 0; j < kWarpTiles; ++j)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[j][e] += block_acc[j][e], block_acc[j][e] = 0.f;
      } else {
        BlockMma<T, S>::run(acc, a, b_stage + s * Smem::kBElements, lane);
      }
    }
    if (r + Stages < rounds) {
      __syncthreads();  // the stage is consumed
      request_round(r + Stages);
    }
  }

  // Rank o stores rows [o R, (o + 1) R) of the tile (R = 64 / ranks): each CTA sends its partial sums of
  // those rows into o's inbox, at [its rank][row - o R]. Lane holds rows g, g + 8 of its panel, features
  // wf + 8j + 2q, + 1.
  const int rows_per_rank = kBlockRows / ranks;
  if (ranks > 1) cluster_wait();  // every CTA of the cluster is running
  struct alignas(2 * sizeof(Acc)) Pair {
    Acc x[2];
  };
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int trow = panel * kBlockDim + g + 8 * h, owner = trow / rows_per_rank;
    Acc* box = sh.inbox + (rank * rows_per_rank + trow - owner * rows_per_rank) * kBlockFeatures;
    if (ranks > 1) box = cg::this_cluster().map_shared_rank(box, owner);
#pragma unroll
    for (int j = 0; j < kWarpTiles; ++j)
      *reinterpret_cast<Pair*>(box + wf + 8 * j + 2 * q) = Pair{{acc[j][2 * h], acc[j][2 * h + 1]}};
  }
  if (ranks > 1)
    cluster_sync_release_acquire();
  else
    __syncthreads();

  // The rank's rows: the sum of the ranks' partial sums, a 16-byte vector a thread (4 FP32 or 2 FP64 features).
  constexpr int kVec = 16 / int(sizeof(Acc)), kRowVecs = kBlockFeatures / kVec;
  using Vec = Frag<kVec, Acc>;
  for (int e = threadIdx.x; e < rows_per_rank * kRowVecs; e += kBlockThreads) {
    const int local = e / kRowVecs, f = (e % kRowVecs) * kVec;
    const int row = group * kBlockRows + rank * rows_per_rank + local;
    if (row >= p.num_rows) break;  // rows grow with e
    Vec sum = {};
    for (int from = 0; from < ranks; ++from) {
      const uint4 u = *reinterpret_cast<const uint4*>(sh.inbox + (from * rows_per_rank + local) * kBlockFeatures + f);
      Vec v;
      memcpy(&v, &u, sizeof(v));
#pragma unroll
      for (int i = 0; i < kVec; ++i) sum.v[i] += v.v[i];
    }
    store_small<kVec>(p.C, row, f0 + f, sum, p.alpha, p.beta);
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
