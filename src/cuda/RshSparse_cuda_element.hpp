#pragma once
// Host-side conversions between double and the CUDA element types of the
// raw API (float, __half, __nv_bfloat16), shared by the plan, the tests and the benchmarks.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

namespace rsh {
namespace cuda {

template <class T>
inline T to_element(double v) {
  return static_cast<T>(v);
}
template <>
inline __half to_element<__half>(double v) {
  return __float2half(static_cast<float>(v));
}
template <>
inline __nv_bfloat16 to_element<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}
/// x rounded to TF32 (10 mantissa bits, nearest, ties away from zero: what
/// cvt.rna.tf32.f32 gives), still as a float; infinities and NaNs unchanged.
inline float round_to_tf32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &u, sizeof u);
  return x;
}
inline double to_double(double v) {
  return v;
}
inline double to_double(float v) {
  return v;
}
inline double to_double(__half v) {
  return __half2float(v);
}
inline double to_double(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

}  // namespace cuda
}  // namespace rsh
