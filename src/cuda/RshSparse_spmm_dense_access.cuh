#pragma once
// Access to the dense B and C shared by both kernels: V features of one
// row, as 16-byte vectors where the layout allows it (row-major, aligned, in
// range) and element by element otherwise. A lane's features come in runs of
// R consecutive features `qs` apart, R = run_elems<T>() (4, or 2 for FP64: one
// 16-byte vector): feature(i) = f + (i / R) * qs + i % R; qs = R (the
// default) is V consecutive features. Lanes of FP32 and FP64 rows take runs
// R x (lanes) apart, so that each 16-byte access of a lane group covers whole
// 32-byte sectors (consecutive 32-byte runs a lane used half of each sector
// per instruction: Nsight Compute, tolokers TF32). Vectors of 8 halves need qs = 4.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "cuda/RshSparse_spmm_cuda.hpp"

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

/// V features of one row in registers, in the accumulator type A (Accum<T>: FP32, FP64 for double).
template <int V, class A = float>
struct Frag {
  A v[V];
};

/// An element in its accumulator type (Accum), and back (round to nearest).
__device__ __forceinline__ float to_acc(float x) {
  return x;
}
__device__ __forceinline__ float to_acc(__half x) {
  return __half2float(x);
}
__device__ __forceinline__ float to_acc(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ double to_acc(double x) {
  return x;
}
template <class T>
__device__ __forceinline__ T from_acc(Accum<T> x);
template <>
__device__ __forceinline__ float from_acc<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half from_acc<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ double from_acc<double>(double x) {
  return x;
}

/// A 16-bit element (FP16, BF16) as its bits, and back.
template <class T>
__device__ __forceinline__ unsigned short to_bits16(T x) {
  static_assert(sizeof(T) == 2, "rsh::spmm: 16-bit elements only");
  unsigned short b;
  memcpy(&b, &x, 2);
  return b;
}
template <class T>
__device__ __forceinline__ T from_bits16(unsigned short b) {
  static_assert(sizeof(T) == 2, "rsh::spmm: 16-bit elements only");
  T x;
  memcpy(&x, &b, 2);
  return x;
}
/// Two FP32 numbers rounded to 16-bit elements T, packed low then high.
template <class T>
__device__ __forceinline__ uint32_t pack16(float lo, float hi) {
  return uint32_t(to_bits16(from_acc<T>(lo))) | (uint32_t(to_bits16(from_acc<T>(hi))) << 16);
}

/// Consecutive features of a lane's run (see the top of the file).
template <class T>
constexpr int run_elems() {
  return sizeof(T) == 8 ? 2 : 4;
}
/// Feature of a lane's element i (see the top of the file).
template <class T>
__device__ __forceinline__ int run_feature(int f, int i, int qs) {
  return f + (i / run_elems<T>()) * qs + i % run_elems<T>();
}

/// V features of one row of B (runs qs apart) as raw 32-bit words (two
/// halves, one float or half a double each), loaded with 16-byte vectors where
/// the layout allows. A row index < 0 (tile padding) or features past n read as zero.
template <class T, int V>
struct RawRow {
  static constexpr int kWords = V * int(sizeof(T)) / 4;
  static constexpr int kChunks = V * int(sizeof(T)) / 16;
  static constexpr int kChunkElems = 16 / int(sizeof(T));
  static_assert(kChunks >= 1 && V * sizeof(T) % 16 == 0, "rsh::spmm: a lane loads whole 16-byte vectors");
  uint32_t w[kWords];

  __device__ __forceinline__ void load(const DenseRef<const T>& B, int row, int f, int qs = run_elems<T>()) {
    // Vectors need every chunk in range; n is then a multiple of 8, so a chunk is wholly in or out.
    if (row >= 0 && B.vec && run_feature<T>(f, V - 1, qs) < B.n) {
      const T* src = B.ptr + row * B.row_stride;
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const uint4 u = __ldg(reinterpret_cast<const uint4*>(src + run_feature<T>(f, c * kChunkElems, qs)));
        w[4 * c] = u.x, w[4 * c + 1] = u.y, w[4 * c + 2] = u.z, w[4 * c + 3] = u.w;
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int fi = run_feature<T>(f, i, qs);
      set(i, (row >= 0 && fi < B.n) ? B.ptr[row * B.row_stride + fi * B.col_stride] : from_acc<T>(0));
    }
  }
  /// Element i in the accumulator type.
  __device__ __forceinline__ Accum<T> get(int i) const {
    if constexpr (sizeof(T) == 2) {
      return to_acc(from_bits16<T>(static_cast<unsigned short>((w[i / 2] >> (16 * (i % 2))) & 0xffff)));
    } else if constexpr (sizeof(T) == 4) {
      return __uint_as_float(w[i]);
    } else {
      return __hiloint2double(static_cast<int>(w[2 * i + 1]), static_cast<int>(w[2 * i]));
    }
  }

 private:
  __device__ __forceinline__ void set(int i, T x) {
    if constexpr (sizeof(T) == 2) {
      const uint32_t h = to_bits16(x);
      w[i / 2] = i % 2 ? (w[i / 2] & 0xffffu) | (h << 16) : h;
    } else if constexpr (sizeof(T) == 4) {
      w[i] = __float_as_uint(x);
    } else {
      w[2 * i] = static_cast<uint32_t>(__double2loint(x)), w[2 * i + 1] = static_cast<uint32_t>(__double2hiint(x));
    }
  }
};

/// 16 bytes global -> shared without registers (sm_80+); `fill` false
/// writes zeros and reads nothing (src must still be a valid address).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool fill) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(fill ? 16 : 0) : "memory");
}
/// The same to a shared-window address, through L2 only (.cg): for data a CTA reads once, so that it does
/// not take L1 lines from data that is read again.
__device__ __forceinline__ void cp_async_16_l2(unsigned dst, const void* src, bool fill) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(fill ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/// Waits until at most `Pending` of this thread's committed groups are in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

/// C(row, features) += v with 16-byte vector reductions (sm_90): one per 4
/// floats or 8 halves, instead of V scalar atomics.
template <int V>
__device__ __forceinline__ void red_add(float* c, const float (&v)[V], int qs) {
#pragma unroll
  for (int h = 0; h < V / 4; ++h)
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(c + h * qs), "f"(v[4 * h]), "f"(v[4 * h + 1]),
                 "f"(v[4 * h + 2]), "f"(v[4 * h + 3])
                 : "memory");
}
/// FP64: one scalar reduction per element (no vector form).
template <int V>
__device__ __forceinline__ void red_add(double* c, const double (&v)[V], int qs) {
#pragma unroll
  for (int i = 0; i < V; ++i) atomicAdd(c + run_feature<double>(0, i, qs), v[i]);
}
/// FP16 and BF16: 8 elements a reduction, rounded from FP32 in pairs.
template <int V, class T>
__device__ __forceinline__ std::enable_if_t<sizeof(T) == 2> red_add(T* c, const float (&v)[V], int /* qs: 4 */) {
  static_assert(V % 8 == 0, "rsh::spmm: 16-bit reductions go 8 elements at a time");
#pragma unroll
  for (int h = 0; h < V / 8; ++h) {
    uint32_t w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) w[j] = pack16<T>(v[8 * h + 2 * j], v[8 * h + 2 * j + 1]);
    if constexpr (std::is_same<T, __half>::value)
      asm volatile("red.global.add.noftz.v4.f16x2 [%0], {%1, %2, %3, %4};\n" ::"l"(c + 8 * h), "r"(w[0]), "r"(w[1]),
                   "r"(w[2]), "r"(w[3])
                   : "memory");
    else
      asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};\n" ::"l"(c + 8 * h), "r"(w[0]), "r"(w[1]),
                   "r"(w[2]), "r"(w[3])
                   : "memory");
  }
}

/// Element by element (any layout, features past n skipped): C = alpha * acc + beta * C.
template <class OutT, int V, class A>
__device__ __forceinline__ void store_elements(const DenseRef<OutT>& C, OutT* row_base, int f, const Frag<V, A>& acc,
                                               A alpha, A beta, int qs = run_elems<OutT>()) {
  for (int i = 0; i < V; ++i) {
    const int fi = run_feature<OutT>(f, i, qs);
    if (fi >= C.n) break;  // features grow with i
    OutT& c = row_base[fi * C.col_stride];
    c = from_acc<OutT>(beta != 0 ? alpha * acc.v[i] + beta * to_acc(c) : alpha * acc.v[i]);
  }
}

/// Waits until the grid this one was launched behind with programmatic
/// dependent launch (the beta pre-scaling of the rows atomics add into, or a
/// copy of B or C) has finished and its stores are visible; returns at once in
/// a plain launch.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
/// The launch attribute of programmatic dependent launch (the kernel so launched calls wait_for_prior_grid
/// before it touches what the grid before it writes).
inline cudaLaunchAttribute programmatic_launch() {
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  return attr;
}
/// Attributes a launch takes that may start behind the kernel before it (`after_prior`: a kernel of its own call,
/// or one that waits for the prior grid before its first load): programmatic_launch's one, unless the
/// environment sets RSH_CUDA_DEPENDENT_LAUNCH=0 (read once), which serialises every launch in full: a switch to
/// tell an ordering fault from a tool's limitation, at the cost of each chained launch's latency.
inline unsigned programmatic_attrs(bool after_prior) {
  static const bool enabled = [] {
    const char* v = std::getenv("RSH_CUDA_DEPENDENT_LAUNCH");
    return v == nullptr || std::string(v) != "0";
  }();
  return after_prior && enabled ? 1u : 0u;
}
/// Launches kernel(p) on `blocks` CTAs of `threads` threads and `smem` bytes of dynamic shared memory, with
/// programmatic dependent launch where programmatic_attrs(after_prior) allows it.
template <class Params>
void launch_programmatic(void (*kernel)(Params), const Params& p, unsigned blocks, unsigned threads, size_t smem,
                         bool after_prior, cudaStream_t stream) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr = programmatic_launch();
  cfg.attrs = &attr, cfg.numAttrs = programmatic_attrs(after_prior);
  cudaLaunchKernelEx(&cfg, kernel, p);
}
/// Lets a grid launched behind this one with programmatic dependent launch
/// start once every CTA of this grid has called this (or ended): it still
/// waits for this grid's end before it reads what this grid writes.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/// C(row, features) = alpha * acc + beta * C (beta == 0: C not read), or,
/// for split work, C += alpha * acc with atomics (C pre-scaled by beta).
template <class OutT, int V, class A>
__device__ __forceinline__ void store_row(const DenseRef<OutT>& C, int row, int f, const Frag<V, A>& acc, A alpha,
                                          A beta, bool atomic, int qs = run_elems<OutT>()) {
  static_assert(V * sizeof(OutT) % 16 == 0, "rsh::spmm: a lane stores whole 16-byte vectors");
  constexpr int kChunkElems = 16 / int(sizeof(OutT));
  OutT* base = C.ptr + row * C.row_stride;
  const bool vec = C.vec && run_feature<OutT>(f, V - 1, qs) < C.n;  // every chunk in range (n a multiple of 8)
  if (atomic) {
    wait_for_prior_grid();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (vec) {
      A v[V];
#pragma unroll
      for (int i = 0; i < V; ++i) v[i] = alpha * acc.v[i];
      return red_add<V>(base + f, v, qs);
    }
#endif
    for (int i = 0; i < V; ++i) {
      const int fi = run_feature<OutT>(f, i, qs);
      if (fi < C.n) atomicAdd(base + fi * C.col_stride, from_acc<OutT>(alpha * acc.v[i]));
    }
    return;
  }
  if (vec) {
    // Two paths on the uniform beta: under beta == 0 no instruction of C's read is issued (predicated loads and
    // conversions would be), and under beta != 0 C is read as whole 16-byte chunks.
    if (beta == 0) {
#pragma unroll
      for (int c = 0; c < V / kChunkElems; ++c) {
        alignas(16) OutT out[kChunkElems];
#pragma unroll
        for (int i = 0; i < kChunkElems; ++i) out[i] = from_acc<OutT>(alpha * acc.v[c * kChunkElems + i]);
        *reinterpret_cast<uint4*>(base + run_feature<OutT>(f, c * kChunkElems, qs)) =
            *reinterpret_cast<const uint4*>(out);
      }
      return;
    }
#pragma unroll
    for (int c = 0; c < V / kChunkElems; ++c) {
      OutT* dst = base + run_feature<OutT>(f, c * kChunkElems, qs);
      alignas(16) OutT out[kChunkElems];
      *reinterpret_cast<uint4*>(out) = *reinterpret_cast<const uint4*>(dst);
#pragma unroll
      for (int i = 0; i < kChunkElems; ++i)
        out[i] = from_acc<OutT>(alpha * acc.v[c * kChunkElems + i] + beta * to_acc(out[i]));
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(out);
    }
    return;
  }
  store_elements(C, base, f, acc, alpha, beta, qs);
}

/// C(row, f .. f+V-1) = alpha * acc + beta * C (beta == 0: C not read) for
/// a few features (V = 2 or 4, f a multiple of V): one 4- to 16-byte store
/// where the layout allows it.
template <int V, class OutT, class A>
__device__ __forceinline__ void store_small(const DenseRef<OutT>& C, int row, int f, const Frag<V, A>& acc, A alpha,
                                            A beta) {
  static_assert(V * sizeof(OutT) <= 16, "rsh::spmm: one vector of at most 16 bytes");
  OutT* base = C.ptr + row * C.row_stride;
  if (C.vec && f + V <= C.n) {  // rows 16-byte aligned, f a multiple of V: aligned
    struct alignas(V * sizeof(OutT)) Vec {
      OutT x[V];
    } out;
    const Vec old = beta != 0 ? *reinterpret_cast<const Vec*>(base + f) : Vec{};
#pragma unroll
    for (int i = 0; i < V; ++i)
      out.x[i] = from_acc<OutT>(beta != 0 ? alpha * acc.v[i] + beta * to_acc(old.x[i]) : alpha * acc.v[i]);
    *reinterpret_cast<Vec*>(base + f) = out;
    return;
  }
  store_elements(C, base, f, acc, alpha, beta);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
