#pragma once
// Per-precision Tensor-Core step of the swap-and-transpose scheme
// (RSH-SpMM Fig. 7): the MMA's M operand is B^T (16 features x 8 compacted
// columns), its N operand the 8x8 sparse tile transposed (8 columns x 8
// rows), the 16x8 accumulator is C^T for the window.
//
// Lane (g = lane / 4, q = lane % 4) owns, for every m16n8k8 fragment layout,
// with V = kLaneFeatures (8 for FP16 and BF16, 4 for TF32; one 16-byte load either way):
//   - sparse entries A(row g, col ca) and A(row g, col cb) (the MMA's b0, b1);
//   - the B rows of columns ca and cb, features Vg .. Vg+V-1 of the warp's
//     8V-feature slice;
//   - outputs C(row 2q, Vg .. Vg+V-1) and C(row 2q+1, Vg .. Vg+V-1).
// MMA j (0 .. V/2-1) maps its M index m = g to feature Vg+2j and m = g+8 to
// feature Vg+2j+1, so each lane's loads and stores are contiguous.
// FP64 (m16n8k8, K = 8 columns) takes the same lane roles with V = 2: its one
// MMA maps m = g to feature 2g and m = g + 8 to feature 2g + 1.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_dense_access.cuh"

namespace rsh {
namespace cuda {
namespace detail {

/// How FP32 operands meet TF32 MMAs (the Tensor Cores read 10 mantissa bits): the kernels' template
/// parameter, from the plan's FloatMath and its values.
enum class Tf32Split {
  kNone,   ///< FloatMath::kTf32: as they are, one MMA
  kDense,  ///< FP32-level, the sparse values TF32 numbers already: the dense operand split, 2 MMAs
  kBoth,   ///< FP32-level: both operands split (3xTF32), 3 MMAs
};

/// Per element type T and, for float, Tf32Split S (FP16, BF16 and FP64 ignore S). Each names the lane's
/// features (kLaneFeatures), its MMAs per tile and their accumulator fragments (kMmas x kAccPerMma of Acc),
/// the MMAs (mma) and where their results go in the lane's two C rows (rows).
template <class T, Tf32Split S = Tf32Split::kNone>
struct MmaTraits;

/// The m16n8 accumulators of kMmas MMAs as the lane's rows 2q, 2q+1: MMA j holds features 2j (elements 0,
/// 1) and 2j+1 (elements 2, 3) of both.
template <int kMmas, class AccT = float>
struct M16n8Rows {
  static constexpr int kAccPerMma = 4;
  using Acc = AccT;
  __device__ __forceinline__ static void rows(const Acc (&acc)[kMmas][4], Frag<2 * kMmas, Acc>& row0,
                                              Frag<2 * kMmas, Acc>& row1) {
#pragma unroll
    for (int j = 0; j < kMmas; ++j) {
      row0.v[2 * j] = acc[j][0], row0.v[2 * j + 1] = acc[j][2];
      row1.v[2 * j] = acc[j][1], row1.v[2 * j + 1] = acc[j][3];
    }
  }
};

/// acc += a * b: one mma.m16n8k8 on TF32 operands given as FP32 bit patterns (the Tensor Cores read
/// the TF32 bits and ignore the low 13). a: A fragment (g, q), (g+8, q), (g, q+4), (g+8, q+4); b: B
/// fragment (k q, n g), (k q+4, n g).
__device__ __forceinline__ void mma_tf32(float (&acc)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                         uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/// The high TF32 part of an FP32 value (bits): its sign, exponent and top 10 mantissa bits (truncated, so
/// that the rest is exact in FP32).
__device__ __forceinline__ uint32_t tf32_high(uint32_t bits) {
  return bits & 0xffffe000u;
}
/// The low TF32 part: what tf32_high leaves, rounded to TF32 (high + low is the value to about 2^-22).
__device__ __forceinline__ uint32_t tf32_low(uint32_t bits) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(bits) - __uint_as_float(tf32_high(bits))));
  return r;
}

/// acc += a * b at FP32-level accuracy on TF32 MMAs (operands as in mma_tf32): each operand flagged split
/// is high + low (3xTF32, as CUTLASS's "big + small"); the products a_lo b_hi, a_hi b_lo, a_hi b_hi (small
/// first; a_lo b_lo, near 2^-22 of the product, is dropped) are summed in a zeroed fragment that is then
/// added to acc in FP32. Summed in the Tensor Cores instead, every MMA rounds the running sum toward
/// zero: on 2100-term dot products (dense blocks) that bias reached 1e-5 relative.
template <bool kSplitA, bool kSplitB>
__device__ __forceinline__ void mma_tf32_split(float (&acc)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                               uint32_t b0, uint32_t b1) {
  float t[4] = {0.f, 0.f, 0.f, 0.f};
  if (kSplitA) mma_tf32(t, tf32_low(a0), tf32_low(a1), tf32_low(a2), tf32_low(a3), tf32_high(b0), tf32_high(b1));
  if (kSplitB) mma_tf32(t, tf32_high(a0), tf32_high(a1), tf32_high(a2), tf32_high(a3), tf32_low(b0), tf32_low(b1));
  mma_tf32(t, tf32_high(a0), tf32_high(a1), tf32_high(a2), tf32_high(a3), tf32_high(b0), tf32_high(b1));
#pragma unroll
  for (int i = 0; i < 4; ++i) acc[i] += t[i];
}

/// acc += a * b on 16-bit operands T (__half or __nv_bfloat16), FP32 accumulate: mma.m16n8k8. a0a1 = (m=g,
/// k=2q..2q+1), (m=g+8, k=2q..2q+1); b0 = (k=2q..2q+1, n=g).
template <class T>
__device__ __forceinline__ void mma_m16n8k8(float (&acc)[4], uint32_t a0, uint32_t a1, uint32_t b0) {
  if constexpr (std::is_same<T, __half>::value)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a0), "r"(a1), "r"(b0));
  else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a0), "r"(a1), "r"(b0));
}

/// acc += a * b on 16-bit operands T, FP32 accumulate: mma.m16n8k16. a0..a3 = (g, 2q..2q+1), (g+8, 2q..),
/// (g, 2q+8..), (g+8, 2q+8..); b0, b1 = (k=2q..2q+1, n=g), (k=2q+8.., n=g).
template <class T>
__device__ __forceinline__ void mma_m16n8k16(float (&acc)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                             uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same<T, __half>::value)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/// Four 8x8 matrices of 16-bit elements from shared memory (ldmatrix.x4): lane l gives the address of row l % 8
/// of matrix l / 8 (16 bytes); r[i] gets elements (g, 2q) and (g, 2q + 1) of matrix i, the row-major fragment
/// of an MMA's A operand.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/// Four 8x8 matrices of 16-bit elements from shared memory, transposed (ldmatrix.x4.trans): lane l gives
/// the address of row l % 8 of matrix l / 8 (16 bytes); r[i] gets elements (2q, g) and (2q + 1, g) of
/// matrix i, the k-major fragment of an MMA operand whose stored rows are its K index.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/// 16-bit operands T (FP16, BF16), FP32 accumulate: mma.m16n8k8 (mma_m16n8k8's fragments).
template <class T>
struct MmaTraits16 : M16n8Rows<4> {
  static constexpr int kLaneFeatures = 8, kMmas = 4;
  __device__ __forceinline__ static int col_a(int q) { return 2 * q; }
  __device__ __forceinline__ static int col_b(int q) { return 2 * q + 1; }

  /// The MMA's B fragment (the lane's two sparse values), packed once when loaded.
  struct BFrag {
    uint32_t b0;
  };
  __device__ __forceinline__ static BFrag pack(T va, T vb) {
    return {uint32_t(to_bits16(va)) | (uint32_t(to_bits16(vb)) << 16)};
  }

  /// acc[j][0..3] += B^T(features of MMA j, cols ca,cb) * A(row g, cols ca,cb)^T.
  __device__ __forceinline__ static void mma(float (&acc)[4][4], const RawRow<T, 8>& ba, const RawRow<T, 8>& bb,
                                             BFrag v) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      // Low halves of ba.w[j], bb.w[j] are feature 8g+2j of columns ca, cb; high halves feature 8g+2j+1.
      mma_m16n8k8<T>(acc[j], __byte_perm(ba.w[j], bb.w[j], 0x5410), __byte_perm(ba.w[j], bb.w[j], 0x7632), v.b0);
    }
  }
};
template <Tf32Split S>
struct MmaTraits<__half, S> : MmaTraits16<__half> {};
template <Tf32Split S>
struct MmaTraits<__nv_bfloat16, S> : MmaTraits16<__nv_bfloat16> {};

/// FP32 operands, FP32 accumulate: mma.m16n8k8.f32.tf32.tf32.f32.
/// A frag: a0 = (g, q), a1 = (g+8, q), a2 = (g, q+4), a3 = (g+8, q+4); B frag: b0 = (k=q, n=g), b1 = (k=q+4, n=g).
/// kNone: operands go in as FP32 bit patterns: B is truncated by the Tensor Cores; the sparse values were
/// rounded to TF32 when the plan was built (SpmmPlan::update_values). No conversion instructions in
/// the loop: 8 per tile and lane otherwise. kDense / kBoth: mma_tf32_split with B (the MMA's A operand)
/// split, and the sparse values (its B operand) too for kBoth.
template <Tf32Split S>
struct MmaTraits<float, S> : M16n8Rows<2> {
  static constexpr int kLaneFeatures = 4;  // 16 bytes: half the registers and twice the warps of 8
  static constexpr int kMmas = 2;
  __device__ __forceinline__ static int col_a(int q) { return q; }
  __device__ __forceinline__ static int col_b(int q) { return q + 4; }

  struct BFrag {
    uint32_t b0, b1;
  };
  __device__ __forceinline__ static BFrag pack(float va, float vb) {
    return {__float_as_uint(va), __float_as_uint(vb)};
  }

  __device__ __forceinline__ static void mma(float (&acc)[2][4], const RawRow<float, 4>& ba, const RawRow<float, 4>& bb,
                                             BFrag v) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const uint32_t a0 = ba.w[2 * j], a1 = ba.w[2 * j + 1], a2 = bb.w[2 * j], a3 = bb.w[2 * j + 1];
      if constexpr (S == Tf32Split::kNone)
        mma_tf32(acc[j], a0, a1, a2, a3, v.b0, v.b1);
      else
        mma_tf32_split<true, S == Tf32Split::kBoth>(acc[j], a0, a1, a2, a3, v.b0, v.b1);
    }
  }
};

/// acc += a * b in FP64: one mma.m16n8k8 (sm_90; the Tensor Cores issue the sm_80 shape m8n8k4 at half the
/// rate). a: A(g, q), (g+8, q), (g, q+4), (g+8, q+4); b: B(k q, n g), B(k q+4, n g); acc: C(g, 2q), C(g, 2q+1),
/// C(g+8, 2q), C(g+8, 2q+1).
__device__ __forceinline__ void mma_f64_m16n8k8(double (&acc)[4], double a0, double a1, double a2, double a3, double b0,
                                                double b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
}

/// acc += a * b in FP64: one mma.m16n8k16 (sm_90). a[i]: A(g + 8 (i % 2), q + 4 (i / 2)); b[i]: B(k q + 4i,
/// n g); acc as mma_f64_m16n8k8's.
__device__ __forceinline__ void mma_f64_m16n8k16(double (&acc)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
      : "+d"(acc[0]), "+d"(acc[1]), "+d"(acc[2]), "+d"(acc[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
}

/// FP64 operands and accumulation: one mma.m16n8k8.f64 a tile, its K index the tile's 8 columns (ca = q,
/// cb = q + 4). Its M index m = g is feature 2g and m = g + 8 feature 2g + 1, so that the lane's A fragment is
/// its two 16-byte B rows as loaded.
template <Tf32Split S>
struct MmaTraits<double, S> : M16n8Rows<1, double> {
  static constexpr int kLaneFeatures = 2;  // one 16-byte load a B row
  static constexpr int kMmas = 1;
  __device__ __forceinline__ static int col_a(int q) { return q; }
  __device__ __forceinline__ static int col_b(int q) { return q + 4; }

  struct BFrag {
    double b0, b1;  ///< A(row g, col ca), A(row g, col cb)
  };
  __device__ __forceinline__ static BFrag pack(double va, double vb) { return {va, vb}; }

  __device__ __forceinline__ static void mma(double (&acc)[1][4], const RawRow<double, 2>& ba,
                                             const RawRow<double, 2>& bb, BFrag v) {
    mma_f64_m16n8k8(acc[0], ba.get(0), ba.get(1), bb.get(0), bb.get(1), v.b0, v.b1);
  }
};

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
