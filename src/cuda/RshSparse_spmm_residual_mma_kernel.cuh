#pragma once
// Residual items on Tensor Cores (FP16 and BF16 operands, FP32 accumulation).
// A warp takes 16 consecutive residual items (rows, or pieces of rows) and one
// 128-feature slice of B, and walks their nonzeros 16 at a time, in the
// items' order. Each step is one MMA m16n8k16 per 8 features:
//
//   D(16 items x 8 features) += A(16 items x 16 nonzeros) * G(16 nonzeros x 8 features)
//
// where G holds the gathered B rows of the 16 nonzeros and A is block diagonal:
// column k holds nonzero k's value in the row of its item, zeros elsewhere.
// Every nonzero still gathers its own B row, as on CUDA cores, but the rows
// land in shared memory by cp.async (two stages: the next 16 rows are in
// flight while the current ones multiply) and reach the MMAs through
// ldmatrix.trans, so a nonzero costs one MMA a lane group instead of a lane's
// 8 conversions and 8 FMAs for each of its features. It runs where
// KernelConfig::residual_mma asks for it; the planner does not choose it
// (residual_mma_planned says why).
//
// Shared memory, per warp: two stages of 16 B rows (16 x 256 bytes, chunk j of
// row k at chunk j ^ (k % 8), so that the 8 rows an ldmatrix reads fall in
// distinct banks) and the 16 slot words of each; after the last step, the
// 16 x 128 FP32 results (rows padded to 136 floats), from which each lane
// stores 8 consecutive features of an item with store_row, summing the pieces
// of a row first (a local row's pieces lie in one aligned group of
// kResidualPieceAlign items, which a warp's 16 items contain whole).
#include <cstdint>

#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"
#include "cuda/RshSparse_spmm_residual_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kResMmaItems = 16;                                       ///< items a warp takes (the MMA's M)
constexpr int kResMmaFeatures = 128;                                   ///< features of a slice
constexpr int kResMmaWarps = 8;                                        ///< warps a CTA
constexpr int kResMmaStageBytes = kResMmaItems * kResMmaFeatures * 2;  ///< 16 gathered B rows of a slice
constexpr int kResMmaOutStride = kResMmaFeatures + 8;                  ///< floats a result row takes in shared memory
constexpr int kResMmaWarpBytes = 2 * (kResMmaStageBytes + 4 * kResMmaItems) > 4 * kResMmaItems* kResMmaOutStride
                                     ? 2 * (kResMmaStageBytes + 4 * kResMmaItems)
                                     : 4 * kResMmaItems* kResMmaOutStride;
constexpr int kResMmaSmemBytes = kResMmaWarps * kResMmaWarpBytes;
static_assert(kResMmaWarps * 32 == kResThreadsPerBlock, "rsh::spmm: residual CTAs of one shape");
static_assert(kResMmaItems % kResidualPieceAlign == 0, "rsh::spmm: a warp's items hold whole groups of pieces");

/// Where a warp's 16 items' nonzeros are: lane k (and k + 16) holds item k's range and its exclusive offset
/// in the items' concatenated nonzeros, so that slot v of that sequence is found by a search over the lanes.
struct ItemRun {
  ResidualItem item;  ///< empty past the items
  int offset;         ///< nonzeros of the warp's items before this one
  int total;          ///< nonzeros of the warp's 16 items

  __device__ __forceinline__ ItemRun(const ResidualItem* items, int first, int num_items, int lane) {
    const int k = first + lane % kResMmaItems;
    item = k < num_items ? items[k] : ResidualItem{0, 0, -1, 0};
    const int len = item.end - item.begin;
    int incl = len;
#pragma unroll
    for (int d = 1; d < kResMmaItems; d *= 2) {  // inclusive scan in each half warp
      const int x = __shfl_up_sync(0xffffffffu, incl, d, kResMmaItems);
      if (lane % kResMmaItems >= d) incl += x;
    }
    offset = incl - len;
    total = __shfl_sync(0xffffffffu, incl, kResMmaItems - 1);
  }
  /// The item (0..15) of slot v < total: the last one whose offset is <= v (an empty item shares its
  /// offset with the next, which is then the one found).
  __device__ __forceinline__ int item_of(int v) const {
    int j = 0;
#pragma unroll
    for (int s = kResMmaItems / 2; s >= 1; s /= 2)
      if (__shfl_sync(0xffffffffu, offset, j + s) <= v) j += s;
    return j;
  }
};

/// Bits of a 16-bit element.
template <class T>
__device__ __forceinline__ uint32_t bits16(T x) {
  static_assert(sizeof(T) == 2, "rsh::spmm: 16-bit operands");
  return *reinterpret_cast<const unsigned short*>(&x);
}

/// One step's slot of lane k = lane % 16: its nonzero's column and its A word (item << 16 | value bits;
/// past the items' nonzeros, value zero in no item's row).
struct MmaSlot {
  int col;
  uint32_t word;
};
template <class T, class OutT>
__device__ __forceinline__ MmaSlot load_slot(const ResidualParams<T, OutT>& p, const ItemRun& run, int step, int lane) {
  const int v = step * kResMmaItems + lane % kResMmaItems;
  const bool live = v < run.total;
  const int j = run.item_of(live ? v : run.total - 1);  // every lane takes part in the shuffles
  const int e = __shfl_sync(0xffffffffu, run.item.begin - run.offset, j) + v;
  if (!live) return {0, 0xffff0000u};  // B row 0 exists wherever there is a nonzero
  return {__ldg(p.res_cols + e), (uint32_t(j) << 16) | bits16(p.values[e])};
}

/// Requests the step's 16 B rows (features [f0, f0 + 128), zeros past n) into `stage` and writes its slot
/// words beside them; one commit group, empty past the last step.
template <class T>
__device__ __forceinline__ void request_step(const DenseRef<const T>& B, const MmaSlot& slot, bool live, int f0,
                                             unsigned stage, uint32_t* words, int lane) {
  if (live) {
    if (lane < kResMmaItems) words[lane] = slot.word;
#pragma unroll
    for (int i = 0; i < kResMmaStageBytes / 16 / 32; ++i) {
      const int k = 2 * i + lane / 16, chunk = lane % 16;  // row k of the stage, 16-byte chunk of it
      const int col = __shfl_sync(0xffffffffu, slot.col, k);
      const bool fill = f0 + 8 * chunk < B.n;
      cp_async_16_l2(stage + k * 256 + ((chunk ^ (k % 8)) << 4),
                     B.ptr + col * B.row_stride + (fill ? f0 + 8 * chunk : 0), fill);
    }
  }
  cp_async_commit();
}

/// A word's value bits where its item is m, else zero.
__device__ __forceinline__ uint32_t value_in_row(uint32_t word, int m) {
  return int(word >> 16) == m ? (word & 0xffffu) : 0u;
}

/// acc[t] += A * G for the 16 feature tiles t of a staged step.
template <class T>
__device__ __forceinline__ void multiply_step(unsigned stage, const uint32_t* words, int lane,
                                              float (&acc)[kResMmaFeatures / 8][4]) {
  const int g = lane / 4, q = lane % 4;
  const uint2 lo = *reinterpret_cast<const uint2*>(words + 2 * q);  // slots 2q, 2q + 1
  const uint2 hi = *reinterpret_cast<const uint2*>(words + 2 * q + 8);
  const uint32_t a0 = value_in_row(lo.x, g) | value_in_row(lo.y, g) << 16;
  const uint32_t a1 = value_in_row(lo.x, g + 8) | value_in_row(lo.y, g + 8) << 16;
  const uint32_t a2 = value_in_row(hi.x, g) | value_in_row(hi.y, g) << 16;
  const uint32_t a3 = value_in_row(hi.x, g + 8) | value_in_row(hi.y, g + 8) << 16;
  // ldmatrix.x4.trans, matrix m = lane / 8: rows (slots) 8 (m % 2) .. + 7, features 8 (2t + m / 2) .. + 7.
  const int m = lane / 8, k = (m % 2) * 8 + lane % 8;
#pragma unroll
  for (int t = 0; t < kResMmaFeatures / 8; t += 2) {
    const int chunk = t + m / 2;
    uint32_t b[4];
    ldmatrix_x4_trans(b, stage + k * 256 + ((chunk ^ (k % 8)) << 4));
    mma_m16n8k16<T>(acc[t], a0, a1, a2, a3, b[0], b[1]);
    mma_m16n8k16<T>(acc[t + 1], a0, a1, a2, a3, b[2], b[3]);
  }
}

template <class T, class OutT>
__global__ void __launch_bounds__(kResThreadsPerBlock, 2) residual_mma_kernel(const SpmmParams<T, OutT> sp) {
  extern __shared__ __align__(16) unsigned char res_mma_smem[];
  spmm_prologue(sp);
  const ResidualParams<T, OutT>& p = sp.res;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // Slice-major, as residual_kernel: CTAs running at once share a slice of B.
  const int b = static_cast<int>(blockIdx.x);
  const int slice = p.slices == 1 ? 0 : p.item_blocks.divide(b), item_block = b - slice * p.item_blocks.divisor();
  const int first = (item_block * kResMmaWarps + warp) * kResMmaItems;
  if (first >= p.num_items) return;  // whole warps
  const int f0 = slice * kResMmaFeatures;
  unsigned char* mine = res_mma_smem + warp * kResMmaWarpBytes;
  const unsigned stages = static_cast<unsigned>(__cvta_generic_to_shared(mine));
  uint32_t* words = reinterpret_cast<uint32_t*>(mine + 2 * kResMmaStageBytes);

  const ItemRun run(p.items, first, p.num_items, lane);
  const int steps = (run.total + kResMmaItems - 1) / kResMmaItems;
  float acc[kResMmaFeatures / 8][4] = {};
  // Step s: slot loaded at s - 1, its B rows requested at s - 1 (the first one before the loop), multiplied at s.
  MmaSlot next = load_slot(p, run, 0, lane);
  request_step(p.B, next, steps > 0, f0, stages, words, lane);
  next = load_slot(p, run, 1, lane);
  for (int s = 0; s < steps; ++s) {
    const int cur = s % 2;
    request_step(p.B, next, s + 1 < steps, f0, stages + (cur ^ 1) * kResMmaStageBytes, words + (cur ^ 1) * kResMmaItems,
                 lane);
    if (s + 2 < steps) next = load_slot(p, run, s + 2, lane);
    cp_async_wait<1>();
    __syncwarp();
    multiply_step<T>(stages + cur * kResMmaStageBytes, words + cur * kResMmaItems, lane, acc);
    __syncwarp();  // the stage is read before step s + 2 writes it
  }
  cp_async_wait<0>();
  __syncwarp();

  // D's fragments (rows g and g + 8, features 8t + 2q, + 1) as FP32 rows, then 8 features a lane and store.
  float* out = reinterpret_cast<float*>(mine);
  const int g = lane / 4, q = lane % 4;
#pragma unroll
  for (int t = 0; t < kResMmaFeatures / 8; ++t) {
    *reinterpret_cast<float2*>(out + g * kResMmaOutStride + 8 * t + 2 * q) = make_float2(acc[t][0], acc[t][1]);
    *reinterpret_cast<float2*>(out + (g + 8) * kResMmaOutStride + 8 * t + 2 * q) = make_float2(acc[t][2], acc[t][3]);
  }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kResMmaItems * kResMmaFeatures / 8 / 32; ++i) {
    const int r = (32 * i + lane) / 16, chunk = (32 * i + lane) % 16;
    const int row = __shfl_sync(0xffffffffu, run.item.row, r), pieces = __shfl_sync(0xffffffffu, run.item.pieces, r);
    const int f = f0 + 8 * chunk;
    if (first + r >= p.num_items || pieces == 0 || f >= p.C.n) continue;
    Frag<8, float> sum = {};
    for (int j = 0; j < pieces && r + j < kResMmaItems; ++j) {  // the row's pieces: this item and the next ones
      const float4* src = reinterpret_cast<const float4*>(out + (r + j) * kResMmaOutStride + 8 * chunk);
      const float4 x = src[0], y = src[1];
      sum.v[0] += x.x, sum.v[1] += x.y, sum.v[2] += x.z, sum.v[3] += x.w;
      sum.v[4] += y.x, sum.v[5] += y.y, sum.v[6] += y.z, sum.v[7] += y.w;
    }
    store_row(p.C, row, f, sum, p.alpha, p.beta, first + r >= p.num_local);
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
