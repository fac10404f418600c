#pragma once
// Per-precision Tensor-Core step of the swap-and-transpose scheme
// (RSH-SpMM Fig. 7): the MMA's M operand is B^T (16 features x 8 compacted
// columns), its N operand the 8x8 sparse tile transposed (8 columns x 8
// rows), the 16x8 accumulator is C^T for the window.
//
// Lane (g = lane / 4, q = lane % 4) owns, for every m16n8k8 fragment layout,
// with V = kLaneFeatures (8 for FP16, 4 for TF32; one 16-byte load either way):
//   - sparse entries A(row g, col ca) and A(row g, col cb) (the MMA's b0, b1);
//   - the B rows of columns ca and cb, features Vg .. Vg+V-1 of the warp's
//     8V-feature slice;
//   - outputs C(row 2q, Vg .. Vg+V-1) and C(row 2q+1, Vg .. Vg+V-1).
// MMA j (0 .. V/2-1) maps its M index m = g to feature Vg+2j and m = g+8 to
// feature Vg+2j+1, so each lane's loads and stores are contiguous.
#include <cuda_fp16.h>

#include <cstdint>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_dense_access.cuh"

namespace rsh {
namespace cuda {
namespace detail {

/// Per element type T and, for float, FloatMath M (FP16 ignores M).
template <class T, FloatMath M = FloatMath::kFp32>
struct MmaTraits;

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

/// x rounded to TF32 (nearest, ties away), as an FP32 bit pattern.
__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

/// An FP32 value as the sum of two TF32 values (3xTF32, as CUTLASS's "big + small"): hi carries the top
/// 11 significant bits, lo the next 11, so hi + lo is x to about 2^-22 relative.
struct SplitTf32 {
  uint32_t hi, lo;
  SplitTf32() = default;
  __device__ __forceinline__ explicit SplitTf32(uint32_t bits) {
    const float x = __uint_as_float(bits);
    hi = to_tf32(x);
    lo = to_tf32(x - __uint_as_float(hi));
  }
};

/// acc += a * b with FP32-level accuracy: a_lo b_hi + a_hi b_lo + a_hi b_hi (a_lo b_lo, near 2^-22 of
/// the product, is dropped), the small terms first. Operands as in mma_tf32, unrounded. a's low parts
/// are used (and die) before its high parts are formed: 4 split words live at once, not 8.
__device__ __forceinline__ void mma_3xtf32(float (&acc)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                           const SplitTf32& b0, const SplitTf32& b1) {
  const auto low = [](uint32_t x) {
    const float f = __uint_as_float(x);
    return to_tf32(f - __uint_as_float(to_tf32(f)));
  };
  mma_tf32(acc, low(a0), low(a1), low(a2), low(a3), b0.hi, b1.hi);
  const uint32_t h0 = to_tf32(__uint_as_float(a0)), h1 = to_tf32(__uint_as_float(a1));
  const uint32_t h2 = to_tf32(__uint_as_float(a2)), h3 = to_tf32(__uint_as_float(a3));
  mma_tf32(acc, h0, h1, h2, h3, b0.lo, b1.lo);
  mma_tf32(acc, h0, h1, h2, h3, b0.hi, b1.hi);
}

/// FP16 operands, FP32 accumulate: mma.m16n8k8.f32.f16.f16.f32.
/// A frag: a0a1 = (m=g, k=2q..2q+1), a2a3 = (m=g+8, k=2q..2q+1); B frag: (k=2q..2q+1, n=g).
template <FloatMath M>
struct MmaTraits<__half, M> {
  static constexpr int kLaneFeatures = 8;
  __device__ __forceinline__ static int col_a(int q) { return 2 * q; }
  __device__ __forceinline__ static int col_b(int q) { return 2 * q + 1; }

  /// The MMA's B fragment (the lane's two sparse values), packed once when loaded.
  struct BFrag {
    uint32_t b0;
  };
  __device__ __forceinline__ static BFrag pack(__half va, __half vb) {
    return {uint32_t(__half_as_ushort(va)) | (uint32_t(__half_as_ushort(vb)) << 16)};
  }

  /// acc[j][0..3] += B^T(features of MMA j, cols ca,cb) * A(row g, cols ca,cb)^T.
  __device__ __forceinline__ static void mma(float (&acc)[4][4], const RawRow<__half, 8>& ba,
                                             const RawRow<__half, 8>& bb, BFrag v) {
    const uint32_t b0 = v.b0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      // Low halves of ba.w[j], bb.w[j] are feature 8g+2j of columns ca, cb; high halves feature 8g+2j+1.
      const uint32_t a0 = __byte_perm(ba.w[j], bb.w[j], 0x5410);
      const uint32_t a1 = __byte_perm(ba.w[j], bb.w[j], 0x7632);
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                   : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                   : "r"(a0), "r"(a1), "r"(b0));
    }
  }
};

/// TF32 operands, FP32 accumulate: mma.m16n8k8.f32.tf32.tf32.f32.
/// A frag: a0 = (g, q), a1 = (g+8, q), a2 = (g, q+4), a3 = (g+8, q+4); B frag: b0 = (k=q, n=g), b1 = (k=q+4, n=g).
/// Operands go in as FP32 bit patterns: B is truncated by the Tensor Cores; the sparse values were
/// rounded to TF32 when the plan was built (SpmmPlan::update_values). No conversion instructions in
/// the loop: 8 per tile and lane otherwise.
template <>
struct MmaTraits<float, FloatMath::kTf32> {
  static constexpr int kLaneFeatures = 4;  // 16 bytes: half the registers and twice the warps of 8
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
    for (int j = 0; j < 2; ++j)
      mma_tf32(acc[j], ba.w[2 * j], ba.w[2 * j + 1], bb.w[2 * j], bb.w[2 * j + 1], v.b0, v.b1);
  }
};

/// FP32 operands at FP32-level accuracy (3xTF32): the layout and fragments of the TF32 traits, the
/// sparse values kept unrounded; every operand is split where it meets the MMAs (the split values held
/// across the pipeline would take 8 more registers a lane and spill at 64).
template <>
struct MmaTraits<float, FloatMath::kFp32> : MmaTraits<float, FloatMath::kTf32> {
  __device__ __forceinline__ static void mma(float (&acc)[2][4], const RawRow<float, 4>& ba, const RawRow<float, 4>& bb,
                                             BFrag v) {
    const SplitTf32 b0(v.b0), b1(v.b1);
#pragma unroll
    for (int j = 0; j < 2; ++j) mma_3xtf32(acc[j], ba.w[2 * j], ba.w[2 * j + 1], bb.w[2 * j], bb.w[2 * j + 1], b0, b1);
  }
};

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
