#pragma once
// Access to the dense B and C shared by both kernels: V consecutive
// features of one row, as 16-byte vectors where the layout allows it
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

/// V features of one row in registers, as FP32 (the accumulator type).
template <int V>
struct Frag {
  float v[V];
};

__device__ __forceinline__ float to_float(float x) {
  return x;
}
__device__ __forceinline__ float to_float(__half x) {
  return __half2float(x);
}
template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}

/// V consecutive features of one row of B as raw 32-bit words (two halves or
/// one float each), loaded with 16-byte vectors where the layout allows. A row
/// index < 0 (tile padding) or features past n read as zero.
template <class T, int V>
struct RawRow {
  static constexpr int kWords = V * int(sizeof(T)) / 4;
  static constexpr int kChunks = V * int(sizeof(T)) / 16;
  static_assert(kChunks >= 1 && V * sizeof(T) % 16 == 0, "rsh::spmm: a lane loads whole 16-byte vectors");
  uint32_t w[kWords];

  __device__ __forceinline__ void load(const DenseRef<const T>& B, int row, int f) {
    if (row >= 0 && B.vec && f + V <= B.n) {
      const uint4* src = reinterpret_cast<const uint4*>(B.ptr + row * B.row_stride + f);
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const uint4 u = __ldg(src + c);
        w[4 * c] = u.x, w[4 * c + 1] = u.y, w[4 * c + 2] = u.z, w[4 * c + 3] = u.w;
      }
      return;
    }
    constexpr int kPerWord = 4 / int(sizeof(T));  // elements per 32-bit word
#pragma unroll
    for (int j = 0; j < kWords; ++j) {
      uint32_t word = 0;
#pragma unroll
      for (int h = 0; h < kPerWord; ++h) {
        const int i = j * kPerWord + h;
        const T x = (row >= 0 && f + i < B.n) ? B.ptr[row * B.row_stride + (f + i) * B.col_stride] : from_float<T>(0.f);
        word |= bits(x) << (16 * h);
      }
      w[j] = word;
    }
  }
  __device__ __forceinline__ float get(int i) const {
    if constexpr (sizeof(T) == 2) {
      return __half2float(__ushort_as_half(static_cast<unsigned short>((w[i / 2] >> (16 * (i % 2))) & 0xffff)));
    } else {
      return __uint_as_float(w[i]);
    }
  }

 private:
  __device__ __forceinline__ static uint32_t bits(__half x) {
    return __half_as_ushort(x);
  }
  __device__ __forceinline__ static uint32_t bits(float x) {
    return __float_as_uint(x);
  }
};

/// 16 bytes global -> shared without registers (sm_80+); `fill` false
/// writes zeros and reads nothing (src must still be a valid address).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool fill) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(fill ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/// Waits until at most `Pending` of this thread's committed groups are in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

/// C(row, f .. f+V-1) += v with 16-byte vector reductions (sm_90): one per 4
/// floats or 8 halves, instead of V scalar atomics.
template <int V>
__device__ __forceinline__ void red_add(float* c, const float (&v)[V]) {
#pragma unroll
  for (int h = 0; h < V / 4; ++h)
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(c + 4 * h), "f"(v[4 * h]), "f"(v[4 * h + 1]),
                 "f"(v[4 * h + 2]), "f"(v[4 * h + 3])
                 : "memory");
}
template <int V>
__device__ __forceinline__ void red_add(__half* c, const float (&v)[V]) {
  static_assert(V % 8 == 0, "rsh::spmm: half reductions go 8 halves at a time");
#pragma unroll
  for (int h = 0; h < V / 8; ++h) {
    uint32_t w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const __half2 h2 = __floats2half2_rn(v[8 * h + 2 * j], v[8 * h + 2 * j + 1]);
      w[j] = *reinterpret_cast<const uint32_t*>(&h2);
    }
    asm volatile("red.global.add.noftz.v4.f16x2 [%0], {%1, %2, %3, %4};\n" ::"l"(c + 8 * h), "r"(w[0]), "r"(w[1]),
                 "r"(w[2]), "r"(w[3])
                 : "memory");
  }
}

/// Element by element (any layout, features past n skipped): C = alpha * acc + beta * C.
template <class OutT, int V>
__device__ __forceinline__ void store_elements(const DenseRef<OutT>& C, OutT* row_base, int f, const Frag<V>& acc,
                                               float alpha, float beta) {
  for (int i = 0; i < V; ++i) {
    if (f + i >= C.n) break;
    OutT& c = row_base[(f + i) * C.col_stride];
    c = from_float<OutT>(beta != 0.f ? alpha * acc.v[i] + beta * to_float(c) : alpha * acc.v[i]);
  }
}

/// C(row, f .. f+V-1) = alpha * acc + beta * C (beta == 0: C not read), or,
/// for split work, C += alpha * acc with atomics (C pre-scaled by beta).
template <class OutT, int V>
__device__ __forceinline__ void store_row(const DenseRef<OutT>& C, int row, int f, const Frag<V>& acc, float alpha,
                                          float beta, bool atomic) {
  static_assert(V * sizeof(OutT) % 16 == 0, "rsh::spmm: a lane stores whole 16-byte vectors");
  OutT* base = C.ptr + row * C.row_stride;
  if (atomic) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (C.vec && f + V <= C.n) {
      float v[V];
#pragma unroll
      for (int i = 0; i < V; ++i) v[i] = alpha * acc.v[i];
      return red_add<V>(base + f, v);
    }
#endif
    for (int i = 0; i < V; ++i)
      if (f + i < C.n) atomicAdd(base + (f + i) * C.col_stride, from_float<OutT>(alpha * acc.v[i]));
    return;
  }
  if (C.vec && f + V <= C.n) {
    alignas(16) OutT out[V];
    if (beta != 0.f) {
      const OutT* old = base + f;
#pragma unroll
      for (int i = 0; i < V; ++i) out[i] = from_float<OutT>(alpha * acc.v[i] + beta * to_float(old[i]));
    } else {
#pragma unroll
      for (int i = 0; i < V; ++i) out[i] = from_float<OutT>(alpha * acc.v[i]);
    }
#pragma unroll
    for (int i = 0; i < V * int(sizeof(OutT)) / 16; ++i)
      reinterpret_cast<uint4*>(base + f)[i] = reinterpret_cast<const uint4*>(out)[i];
    return;
  }
  store_elements(C, base, f, acc, alpha, beta);
}

/// C(row, f .. f+V-1) = alpha * acc + beta * C (beta == 0: C not read) for
/// a few features (V = 2 or 4, f a multiple of V): one 4- to 16-byte store
/// where the layout allows it.
template <int V, class OutT>
__device__ __forceinline__ void store_small(const DenseRef<OutT>& C, int row, int f, const Frag<V>& acc, float alpha,
                                            float beta) {
  OutT* base = C.ptr + row * C.row_stride;
  if (C.vec && f + V <= C.n) {  // rows 16-byte aligned, f a multiple of V: aligned
    struct alignas(V * sizeof(OutT)) Vec {
      OutT x[V];
    } out;
    const Vec old = beta != 0.f ? *reinterpret_cast<const Vec*>(base + f) : Vec{};
#pragma unroll
    for (int i = 0; i < V; ++i)
      out.x[i] = from_float<OutT>(beta != 0.f ? alpha * acc.v[i] + beta * to_float(old.x[i]) : alpha * acc.v[i]);
    *reinterpret_cast<Vec*>(base + f) = out;
    return;
  }
  store_elements(C, base, f, acc, alpha, beta);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
