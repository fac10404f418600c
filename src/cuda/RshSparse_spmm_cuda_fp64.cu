// FP64 operands and accumulation: Tensor-Core tiles in mma.m16n8k8.f64, residual on CUDA cores in FP64.
#include "cuda/RshSparse_spmm_cuda_instantiate.cuh"

namespace rsh {
namespace cuda {
RSH_CUDA_INSTANTIATE_SPMM(double);
}  // namespace cuda
}  // namespace rsh
