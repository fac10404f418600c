#pragma once
// Access to the dense B and C shared by both kernels: eight consecutive
// features of one row, as one 16-byte vector where the layout allows it
// (row-major, aligned, in range) and element by element otherwise.
#include <cuda_fp16.h>

#include <cstdint>

namespace rsh {
namespace cuda {
namespace detail {

/// Strided view of a dense matrix: element (row, f) at ptr[row * row_stride + f * col_stride].
template <class T>
struct DenseRef {
  T* ptr;
  int64_t row_stride, col_stride;
  int n;     ///< features (columns)
  bool vec;  ///< col_stride == 1, 16-byte aligned rows, n a multiple of 8
};

/// Eight features of one row in registers, as FP32 (the accumulator type).
struct Frag8 {
  float v[8];
};

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

/// Raw 16-byte loads of B: 8 halves (one uint4) or 8 floats (two float4).
/// A row index < 0 (tile padding) or features past n read as zero.
template <class T>
struct RawRow8;

template <>
struct RawRow8<__half> {
  uint32_t w[4];  ///< w[j] = features (2j, 2j+1), low half first
  __device__ __forceinline__ void load(const DenseRef<const __half>& B, int row, int f) {
    if (row >= 0 && B.vec && f + 8 <= B.n) {
      const uint4 u = __ldg(reinterpret_cast<const uint4*>(B.ptr + row * B.row_stride + f));
      w[0] = u.x, w[1] = u.y, w[2] = u.z, w[3] = u.w;
      return;
    }
    for (int j = 0; j < 4; ++j) {
      __half lo = __float2half(0.f), hi = __float2half(0.f);
      if (row >= 0 && f + 2 * j < B.n) lo = B.ptr[row * B.row_stride + (f + 2 * j) * B.col_stride];
      if (row >= 0 && f + 2 * j + 1 < B.n) hi = B.ptr[row * B.row_stride + (f + 2 * j + 1) * B.col_stride];
      w[j] = uint32_t(__half_as_ushort(lo)) | (uint32_t(__half_as_ushort(hi)) << 16);
    }
  }
  __device__ __forceinline__ float get(int i) const {
    const unsigned short bits = static_cast<unsigned short>((w[i / 2] >> (16 * (i % 2))) & 0xffff);
    return __half2float(__ushort_as_half(bits));
  }
};

template <>
struct RawRow8<float> {
  float v[8];
  __device__ __forceinline__ void load(const DenseRef<const float>& B, int row, int f) {
    if (row >= 0 && B.vec && f + 8 <= B.n) {
      const float4* p = reinterpret_cast<const float4*>(B.ptr + row * B.row_stride + f);
      const float4 a = __ldg(p), b = __ldg(p + 1);
      v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
      return;
    }
    for (int i = 0; i < 8; ++i)
      v[i] = (row >= 0 && f + i < B.n) ? B.ptr[row * B.row_stride + (f + i) * B.col_stride] : 0.f;
  }
  __device__ __forceinline__ float get(int i) const { return v[i]; }
};

/// C(row, f .. f+7) += v with 16-byte vector reductions (sm_90), one per
/// 8 halves or 4 floats, instead of 8 scalar atomics.
__device__ __forceinline__ void red_add8(float* c, const float (&v)[8]) {
#pragma unroll
  for (int h = 0; h < 2; ++h)
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(c + 4 * h), "f"(v[4 * h]),
                 "f"(v[4 * h + 1]), "f"(v[4 * h + 2]), "f"(v[4 * h + 3])
                 : "memory");
}
__device__ __forceinline__ void red_add8(__half* c, const float (&v)[8]) {
  uint32_t w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const __half2 h2 = __floats2half2_rn(v[2 * j], v[2 * j + 1]);
    w[j] = *reinterpret_cast<const uint32_t*>(&h2);
  }
  asm volatile("red.global.add.noftz.v4.f16x2 [%0], {%1, %2, %3, %4};\n" ::"l"(c), "r"(w[0]), "r"(w[1]), "r"(w[2]),
               "r"(w[3])
               : "memory");
}

/// C(row, f .. f+7) = alpha * acc + beta * C (beta == 0: C not read), or,
/// for split work, C += alpha * acc with atomics (C pre-scaled by beta).
template <class OutT>
__device__ __forceinline__ void store_row8(const DenseRef<OutT>& C, int row, int f, const Frag8& acc, float alpha,
                                           float beta, bool atomic) {
  OutT* base = C.ptr + row * C.row_stride;
  if (atomic) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (C.vec && f + 8 <= C.n) {
      float v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = alpha * acc.v[i];
      return red_add8(base + f, v);
    }
#endif
    for (int i = 0; i < 8; ++i)
      if (f + i < C.n) atomicAdd(base + (f + i) * C.col_stride, from_float<OutT>(alpha * acc.v[i]));
    return;
  }
  if (C.vec && f + 8 <= C.n) {
    alignas(16) OutT out[8];
    if (beta != 0.f) {
      const OutT* old = base + f;
      for (int i = 0; i < 8; ++i) out[i] = from_float<OutT>(alpha * acc.v[i] + beta * to_float(old[i]));
    } else {
      for (int i = 0; i < 8; ++i) out[i] = from_float<OutT>(alpha * acc.v[i]);
    }
    constexpr int kVecs = 8 * sizeof(OutT) / 16;  // 16-byte stores: 1 for half, 2 for float
    for (int i = 0; i < kVecs; ++i)
      reinterpret_cast<uint4*>(base + f)[i] = reinterpret_cast<const uint4*>(out)[i];
    return;
  }
  for (int i = 0; i < 8; ++i) {
    if (f + i >= C.n) break;
    OutT& c = base[(f + i) * C.col_stride];
    c = from_float<OutT>(beta != 0.f ? alpha * acc.v[i] + beta * to_float(c) : alpha * acc.v[i]);
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
