// FP16 operands (FP32 accumulation), FP16 or FP32 output.
#include "cuda/RshSparse_sddmm_cuda.cuh"
#include "cuda/RshSparse_spmm_csr.cuh"
#include "cuda/RshSparse_spmm_cuda_plan.cuh"

namespace rsh {
namespace cuda {
template class SpmmPlan<__half>;
template void SpmmPlan<__half>::spmm<__half>(float, const __half*, int64_t, float, __half*, int64_t, int, Layout,
                                             cudaStream_t) const;
template void SpmmPlan<__half>::spmm<float>(float, const __half*, int64_t, float, float*, int64_t, int, Layout,
                                            cudaStream_t) const;
template void spmm_csr<__half, int, __half>(const DeviceCsr<__half, int>&, float, const __half*, int64_t, float,
                                            __half*, int64_t, int, Layout, cudaStream_t);
template void spmm_csr<__half, int64_t, __half>(const DeviceCsr<__half, int64_t>&, float, const __half*, int64_t, float,
                                                __half*, int64_t, int, Layout, cudaStream_t);
template void sddmm_csr<__half, int, __half>(const DeviceCsr<__half, int>&, float, const __half*, int64_t,
                                             const __half*, int64_t, int, float, __half*, cudaStream_t);
template void sddmm_csr<__half, int64_t, __half>(const DeviceCsr<__half, int64_t>&, float, const __half*, int64_t,
                                                 const __half*, int64_t, int, float, __half*, cudaStream_t);
}  // namespace cuda
}  // namespace rsh
