// BF16 operands (FP32 accumulation), BF16 or FP32 output.
#include "cuda/RshSparse_spmm_cuda_instantiate.cuh"

namespace rsh {
namespace cuda {
RSH_CUDA_INSTANTIATE_16BIT(__nv_bfloat16);
}  // namespace cuda
}  // namespace rsh
