#pragma once
// What the front-door benchmarks (rsh::spmm, rsh::sddmm on Kokkos::Cuda views) share: the device type,
// the CUDA element behind each Kokkos scalar, the stream they run on and the --rsh_impl filter.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/RshSparse_spmm_cuda.hpp"

#if !defined(KOKKOS_ENABLE_CUDA)
#error "the front-door benchmarks need a Kokkos built with CUDA"
#endif

namespace rsh {
namespace bench {

using CudaDevice = Kokkos::Device<Kokkos::Cuda, Kokkos::CudaSpace>;
using Half = Kokkos::Experimental::half_t;

/// The CUDA element of a Kokkos scalar (same bits), for the raw API and cuSPARSE.
template <class Scalar>
using ElementOf = typename std::conditional<std::is_same<Scalar, Half>::value, __half, Scalar>::type;

/// The non-blocking stream every call of a benchmark process runs on (Kokkos::Cuda instances wrap it).
inline cudaStream_t benchmark_stream() {
  static const cudaStream_t s = [] {
    cudaStream_t x;
    RSH_CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    return x;
  }();
  return s;
}

/// The implementations --rsh_impl=LIST names (all when empty).
struct ImplFilter {
  std::vector<std::string> impls;
  bool wants(const std::string& impl) const {
    return impls.empty() || std::find(impls.begin(), impls.end(), impl) != impls.end();
  }
};

}  // namespace bench
}  // namespace rsh
