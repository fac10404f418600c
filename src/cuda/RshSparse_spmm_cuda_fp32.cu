// FP32 operands: Tensor-Core tiles in TF32, residual in FP32.
#include "cuda/RshSparse_sddmm_cuda.cuh"
#include "cuda/RshSparse_spmm_csr.cuh"
#include "cuda/RshSparse_spmm_cuda_plan.cuh"

namespace rsh {
namespace cuda {
template class SpmmPlan<float>;
template void SpmmPlan<float>::spmm<float>(float, const float*, int64_t, float, float*, int64_t, int, Layout,
                                           cudaStream_t) const;

bool device_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}
template void spmm_csr<float, int, float>(const DeviceCsr<float, int>&, float, const float*, int64_t, float, float*,
                                          int64_t, int, Layout, cudaStream_t);
template void spmm_csr<float, int64_t, float>(const DeviceCsr<float, int64_t>&, float, const float*, int64_t, float,
                                              float*, int64_t, int, Layout, cudaStream_t);
template void sddmm_csr<float, int, float>(const DeviceCsr<float, int>&, float, const float*, int64_t, const float*,
                                           int64_t, int, float, float*, cudaStream_t);
template void sddmm_csr<float, int64_t, float>(const DeviceCsr<float, int64_t>&, float, const float*, int64_t,
                                               const float*, int64_t, int, float, float*, cudaStream_t);
}  // namespace cuda
}  // namespace rsh
