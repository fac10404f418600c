#pragma once
// The explicit instantiations each element type's translation unit makes, so that every precision
// compiles in a file of its own (parallel builds, one precision rebuilt at a time).
#include "cuda/RshSparse_sddmm_cuda.cuh"
#include "cuda/RshSparse_spmm_csr.cuh"
#include "cuda/RshSparse_spmm_cuda_plan.cuh"

/// SpmmPlan<T> with C of T, and the handle-free multiply over 32- and 64-bit offsets.
#define RSH_CUDA_INSTANTIATE_SPMM(T)                                                                                   \
  template class SpmmPlan<T>;                                                                                          \
  template void SpmmPlan<T>::spmm<T>(Accum<T>, const T*, int64_t, Accum<T>, T*, int64_t, int, Layout, cudaStream_t)    \
      const;                                                                                                           \
  template void spmm_csr<T, int, T>(const DeviceCsr<T, int>&, Accum<T>, const T*, int64_t, Accum<T>, T*, int64_t, int, \
                                    Layout, cudaStream_t);                                                             \
  template void spmm_csr<T, int64_t, T>(const DeviceCsr<T, int64_t>&, Accum<T>, const T*, int64_t, Accum<T>, T*,       \
                                        int64_t, int, Layout, cudaStream_t)

/// The handle-free SDDMM over 32- and 64-bit offsets.
#define RSH_CUDA_INSTANTIATE_SDDMM_CSR(T)                                                                              \
  template void sddmm_csr<T, int, T>(const DeviceCsr<T, int>&, float, const T*, int64_t, const T*, int64_t, int,       \
                                     float, T*, cudaStream_t);                                                         \
  template void sddmm_csr<T, int64_t, T>(const DeviceCsr<T, int64_t>&, float, const T*, int64_t, const T*, int64_t,    \
                                         int, float, T*, cudaStream_t);                                                \
  template void sddmm_csr<T, int, T>(const DeviceCsr<T, int>&, SddmmCsrKernel, const SddmmCsrPrepared&, float,         \
                                     const T*, int64_t, const T*, int64_t, int, float, T*, cudaStream_t);              \
  template void sddmm_csr<T, int64_t, T>(const DeviceCsr<T, int64_t>&, SddmmCsrKernel, const SddmmCsrPrepared&, float, \
                                         const T*, int64_t, const T*, int64_t, int, float, T*, cudaStream_t)

/// 16-bit operands (FP16, BF16) with C of T or float.
#define RSH_CUDA_INSTANTIATE_16BIT(T)                                                                                 \
  RSH_CUDA_INSTANTIATE_SPMM(T);                                                                                       \
  RSH_CUDA_INSTANTIATE_SDDMM_CSR(T);                                                                                  \
  template void SpmmPlan<T>::spmm<float>(float, const T*, int64_t, float, float*, int64_t, int, Layout, cudaStream_t) \
      const
