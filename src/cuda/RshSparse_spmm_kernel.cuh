#pragma once
// The one launch of the executor: CTAs [0, tc_blocks) run Tensor-Core
// tiles, the next res_blocks the CUDA-core residual, the last scale_blocks
// scale rows no work item writes (empty rows). One launch instead of three
// matters on small matrices, where launch latency is most of the time.
// Rows of split work items are pre-scaled by a separate, earlier launch.
#include "cuda/RshSparse_spmm_residual_kernel.cuh"
#include "cuda/RshSparse_spmm_tc_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

static_assert(kTcWarpsPerBlock * 32 == kResThreadsPerBlock, "rsh::spmm: fused CTA shapes must agree");

template <class T, class OutT>
struct SpmmParams {
  TcParams<T, OutT> tc;
  ResidualParams<T, OutT> res;
  int64_t tc_blocks, res_blocks, scale_blocks;
  const int* scale_rows;  ///< rows only scaled here (none when split items exist)
  int num_scale_rows;
};

template <class T, class OutT>
__global__ void __launch_bounds__(kResThreadsPerBlock) spmm_kernel(const SpmmParams<T, OutT> p) {
  __shared__ float smem[kTcWarpsPerBlock * 16 * 32];  // split-K partial accumulators
  int64_t block = blockIdx.x;
  if (block < p.tc_blocks) return tc_block(p.tc, block, smem);
  block -= p.tc_blocks;
  if (block < p.res_blocks) return residual_block(p.res, block);
  block -= p.res_blocks;
  scale_rows_block(p.scale_rows, p.num_scale_rows, p.tc.C, p.tc.beta, block, p.scale_blocks, kResThreadsPerBlock);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
