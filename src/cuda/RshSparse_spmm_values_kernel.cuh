#pragma once
// Value refresh on the device (SpmmPlan::update_values_device): the
// Tensor-Core values rounded to TF32 for FloatMath::kTf32, the check that
// picks 2xTF32 or 3xTF32 for kFp32 (its answer published to the host), and
// the residual's values added into their dense-block slots. Kernels of one
// precision are static: each .cu that includes this file has its own.
#include <cuda_fp16.h>

#include <cstdint>

namespace rsh {
namespace cuda {
namespace detail {

/// x rounded to TF32 as round_to_tf32 (cvt.rna.tf32.f32), on the device.
__device__ inline float device_round_to_tf32(float x) {
  uint32_t u = __float_as_uint(x);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  return __uint_as_float(u);
}

/// values[0, count) rounded to TF32 in place.
static __global__ void __launch_bounds__(256) round_to_tf32_kernel(float* values, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    values[i] = device_round_to_tf32(values[i]);
}

/// *inexact = 1 where some value of [0, count) is not a TF32 number (fp32_split on the device).
static __global__ void __launch_bounds__(256) tf32_inexact_kernel(const float* values, int64_t count, int* inexact) {
  int found = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    found |= device_round_to_tf32(values[i]) != values[i];
  if (__syncthreads_or(found) && threadIdx.x == 0) *inexact = 1;
}

/// *published = 2 * sequence + (*inexact != 0): tf32_inexact_kernel's answer tagged with the update it belongs
/// to, written into mapped host memory in one store, so that the host can tell a current answer from a late one.
static __global__ void publish_inexact_kernel(const int* inexact, uint32_t sequence, int* published) {
  *reinterpret_cast<volatile int*>(published) = int((sequence << 1) | (*inexact != 0 ? 1u : 0u));
}

/// dense[slot[k]] += values[k] for k < count (duplicates of a position share a slot).
template <class T>
__global__ void __launch_bounds__(256)
    scatter_add_kernel(const T* values, const int64_t* slot, int64_t count, T* dense) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < count; k += int64_t(gridDim.x) * blockDim.x)
    atomicAdd(dense + slot[k], values[k]);
}

/// A grid-stride launch over `count` elements: at most 4096 CTAs of 256 threads.
inline unsigned stride_blocks(int64_t count) {
  return static_cast<unsigned>(count <= 0 ? 1 : (count + 255) / 256 < 4096 ? (count + 255) / 256 : 4096);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
