// FP16 operands (FP32 accumulation), FP16 or FP32 output.
#include "cuda/RshSparse_spmm_cuda_instantiate.cuh"

namespace rsh {
namespace cuda {
RSH_CUDA_INSTANTIATE_16BIT(__half);
}  // namespace cuda
}  // namespace rsh
