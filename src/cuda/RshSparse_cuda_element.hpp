#pragma once
// Host-side conversions between double and the CUDA element types of the
// raw API (float, __half), shared by the plan, the tests and the benchmarks.
#include <cuda_fp16.h>

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
inline double to_double(float v) {
  return v;
}
inline double to_double(__half v) {
  return __half2float(v);
}

}  // namespace cuda
}  // namespace rsh
