// FP64 operands and accumulation: Tensor-Core tiles in mma.m8n8k4.f64, residual on CUDA cores in FP64.
#include "cuda/RshSparse_sddmm_cuda.cuh"
#include "cuda/RshSparse_spmm_csr.cuh"
#include "cuda/RshSparse_spmm_cuda_plan.cuh"

namespace rsh {
namespace cuda {
template class SpmmPlan<double>;
template void SpmmPlan<double>::spmm<double>(double, const double*, int64_t, double, double*, int64_t, int, Layout,
                                             cudaStream_t) const;
template void spmm_csr<double, int, double>(const DeviceCsr<double, int>&, double, const double*, int64_t, double,
                                            double*, int64_t, int, Layout, cudaStream_t);
template void spmm_csr<double, int64_t, double>(const DeviceCsr<double, int64_t>&, double, const double*, int64_t,
                                                double, double*, int64_t, int, Layout, cudaStream_t);
}  // namespace cuda
}  // namespace rsh
